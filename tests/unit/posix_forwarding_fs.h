// A FileSystem that forwards every call to the real one, mounted on a directory: tests derive
// from it and override only the calls they hold back, count or slow down.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/file_system.h"

namespace cassette::test {

class PosixForwardingFileSystem : public file::FileSystem {
 public:
  explicit PosixForwardingFileSystem(const std::string& root) { mount_.emplace(root, this); }
  ~PosixForwardingFileSystem() override { mount_.reset(); }

  Result<file::UniqueFd> open(const std::string& path, int flags, int mode) override {
    return posix_.open(path, flags, mode);
  }
  Status write(int fd, std::string_view data, const std::string& path) override {
    return posix_.write(fd, data, path);
  }
  Status read(int fd, uint64_t offset, size_t n, char* out, const std::string& path) override {
    return posix_.read(fd, offset, n, out, path);
  }
  Status sync(int fd, const std::string& path) override { return posix_.sync(fd, path); }
  Status truncate(int fd, uint64_t size, const std::string& path) override {
    return posix_.truncate(fd, size, path);
  }
  Result<uint64_t> size(int fd, const std::string& path) override { return posix_.size(fd, path); }
  Result<uint64_t> size(const std::string& path) override { return posix_.size(path); }
  Result<void*> map_shared(int fd, size_t size, const std::string& path) override {
    return posix_.map_shared(fd, size, path);
  }
  bool exists(const std::string& path) override { return posix_.exists(path); }
  Status create_directory(const std::string& dir) override { return posix_.create_directory(dir); }
  Status sync_directory(const std::string& dir) override { return posix_.sync_directory(dir); }
  Result<std::vector<std::string>> list_directory(const std::string& dir) override {
    return posix_.list_directory(dir);
  }
  Status remove(const std::string& path) override { return posix_.remove(path); }
  Status rename(const std::string& from, const std::string& to) override {
    return posix_.rename(from, to);
  }
  Result<file::FileIdentity> identity(const std::string& path) override {
    return posix_.identity(path);
  }
  bool writable(const std::string& path) override { return posix_.writable(path); }

 protected:
  file::PosixFileSystem posix_;

 private:
  std::optional<file::FileSystemMount> mount_;
};

}  // namespace cassette::test
