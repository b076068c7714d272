// The engine's file operations: error-returning calls that each name the file they work on.
// Every error names the file and what was being done, with strerror's words, so a user reading
// it knows where to look. Each call goes to the FileSystem that serves its path
// (file_system.h): the real one, or one a test mounted over a directory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/util/status.h"

namespace cassette::file {

// Owns a file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset();

 private:
  int fd_ = -1;
};

// What names a file on its machine, (st_dev, st_ino): the same under any of its names while it
// exists, different for a file made again under the same name.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  bool operator==(const FileIdentity&) const = default;
};

// An I/O error for `path` built from errno: "<what> <path>: <strerror>".
Status errno_status(std::string_view what, const std::string& path);

// A file it creates gets `mode` less the process's umask (or its directory's default ACL): 0666
// by default, as every Unix program creates files, so umask 002 makes a store a group shares.
Result<UniqueFd> open_file(const std::string& path, int flags, int mode = 0666);
Status write_all(int fd, std::string_view data, const std::string& path);
// Reads exactly n bytes at offset; a short read is Corruption ("truncated") naming the file.
Status pread_exact(int fd, uint64_t offset, size_t n, char* out, const std::string& path);
Status fsync_file(int fd, const std::string& path);
Status truncate_file(int fd, uint64_t size, const std::string& path);
Status sync_directory(const std::string& dir);
Result<uint64_t> file_size(int fd, const std::string& path);
Result<uint64_t> file_size(const std::string& path);
// A read-write MAP_SHARED mapping of the file's first `size` bytes; the caller munmaps it.
Result<void*> map_shared(int fd, size_t size, const std::string& path);
Result<std::string> read_whole_file(const std::string& path);
bool exists(const std::string& path);
// The identity of the file or directory at `path`; NotFound ("no such file") when missing.
Result<FileIdentity> file_identity(const std::string& path);
// Whether this process may change the file or directory (create files in it): false without
// write permission or on a read-only file system.
bool is_writable(const std::string& path);
// Creates the directory and any missing parents.
Status create_directories(const std::string& path);
// Writes `contents` to path.tmp, fsyncs it, renames it over `path` and fsyncs the directory:
// a reader sees the old file or the new one, never a mix, even across a crash.
Status write_file_atomically(const std::string& path, std::string_view contents);
Status remove_file(const std::string& path);  // missing files are not an error
Status rename_file(const std::string& from, const std::string& to);
// Names of the entries of a directory (not "." or ".."), unsorted.
Result<std::vector<std::string>> list_directory(const std::string& dir);
std::string join(std::string_view dir, std::string_view name);

}  // namespace cassette::file
