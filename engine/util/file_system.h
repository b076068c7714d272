// The file system under the engine: the one seam every file operation of the storage engine
// passes through (LevelDB's Env, SQLite's VFS). The engine calls the free functions of file.h;
// each forwards to the FileSystem mounted over the path it names, or to the real (POSIX) one
// when none is. Tests mount a fault-injecting file system over their scratch directory
// (tests/unit/fault_injection_fs.h) to make any call fail or to simulate a power loss.
//
// Why a mount over a directory rather than a StoreOptions field: a store's files are reached
// from many places (commit log, SSTable writer and reader, manifest, lock files, recovery), and
// a mount reaches all of them, and every future one, without threading a pointer through each
// signature; and because it is scoped to a directory (and to the lifetime of a FileSystemMount),
// it cannot leak into another test or another store of the process the way a process-wide
// override would. With nothing mounted, a call costs one relaxed atomic load, a branch and a
// direct call (PosixFileSystem is final) more than the system call itself: about 30 instructions
// per write, 1% of a one-row transaction with sync off, nothing next to its write(2).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::file {

// The kinds of file operation, for error messages and for choosing which calls a test fails.
enum class FileOp {
  kOpen,
  kRead,
  kWrite,
  kSync,
  kTruncate,
  kSize,
  kMap,
  kCreateDirectory,
  kSyncDirectory,
  kListDirectory,
  kRemove,
  kRename,
  kStat,  // identity(), writable()
};

std::string_view file_op_name(FileOp op);  // "open", "read", "write", ...

// The error a failed operation returns, from its errno: "cannot write <path>: <strerror>"
// (a rename names both files). A missing file on open is NotFound ("no such file: <path>"), so
// callers can tell "absent" from "unreadable". Every FileSystem builds its errors with this, so
// an injected failure reads exactly like a real one.
Status io_error(FileOp op, int error, const std::string& path, const std::string& to = {});

// Every method names the file it works on (an open descriptor comes with the path it was opened
// by), so an implementation can decide by name and every error names the file.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<UniqueFd> open(const std::string& path, int flags, int mode) = 0;
  // Writes all of `data` at the descriptor's position (retrying short writes).
  virtual Status write(int fd, std::string_view data, const std::string& path) = 0;
  // Reads exactly n bytes at offset; fewer (end of file) is Corruption ("truncated").
  virtual Status read(int fd, uint64_t offset, size_t n, char* out, const std::string& path) = 0;
  // Makes the file's contents (and size) durable; not its name (see sync_directory).
  virtual Status sync(int fd, const std::string& path) = 0;
  virtual Status truncate(int fd, uint64_t size, const std::string& path) = 0;
  virtual Result<uint64_t> size(int fd, const std::string& path) = 0;
  virtual Result<uint64_t> size(const std::string& path) = 0;
  // A read-write MAP_SHARED mapping of the file's first `size` bytes (unmapped with munmap).
  virtual Result<void*> map_shared(int fd, size_t size, const std::string& path) = 0;
  virtual bool exists(const std::string& path) = 0;
  // Creates one directory; OK when a directory of that name exists already.
  virtual Status create_directory(const std::string& dir) = 0;
  // Makes the directory's entries (files created, renamed or removed in it) durable.
  virtual Status sync_directory(const std::string& dir) = 0;
  // Names of the entries (not "." or ".."), unsorted.
  virtual Result<std::vector<std::string>> list_directory(const std::string& dir) = 0;
  virtual Status remove(const std::string& path) = 0;  // a missing file is not an error
  virtual Status rename(const std::string& from, const std::string& to) = 0;
  // The file's (st_dev, st_ino); NotFound when it is missing.
  virtual Result<FileIdentity> identity(const std::string& path) = 0;
  // Whether this process may change the file (access(2) W_OK): false without write permission
  // and on a read-only file system.
  virtual bool writable(const std::string& path) = 0;
};

// The real file system. It is final, so a call through a PosixFileSystem& is a direct call.
class PosixFileSystem final : public FileSystem {
 public:
  Result<UniqueFd> open(const std::string& path, int flags, int mode) override;
  Status write(int fd, std::string_view data, const std::string& path) override;
  Status read(int fd, uint64_t offset, size_t n, char* out, const std::string& path) override;
  Status sync(int fd, const std::string& path) override;
  Status truncate(int fd, uint64_t size, const std::string& path) override;
  Result<uint64_t> size(int fd, const std::string& path) override;
  Result<uint64_t> size(const std::string& path) override;
  Result<void*> map_shared(int fd, size_t size, const std::string& path) override;
  bool exists(const std::string& path) override;
  Status create_directory(const std::string& dir) override;
  Status sync_directory(const std::string& dir) override;
  Result<std::vector<std::string>> list_directory(const std::string& dir) override;
  Status remove(const std::string& path) override;
  Status rename(const std::string& from, const std::string& to) override;
  Result<FileIdentity> identity(const std::string& path) override;
  bool writable(const std::string& path) override;
};

// Routes every file operation on `root` and the paths under it to `fs` while this object lives.
// `root` is made absolute and canonical; the engine's paths are (Store::open resolves them).
// REQUIRES: `fs` outlives the mount, and no operation under `root` is running when the mount
// ends (close the stores first). Mounts must not nest (one root inside another).
class FileSystemMount {
 public:
  FileSystemMount(const std::string& root, FileSystem* fs);
  ~FileSystemMount();
  FileSystemMount(const FileSystemMount&) = delete;
  FileSystemMount& operator=(const FileSystemMount&) = delete;

  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

namespace detail {
// How many file systems are mounted (read without a lock on every file operation), and the one
// mounted over a path (nullptr: none).
extern std::atomic<int> mount_count;
FileSystem* find_mount(std::string_view path);
}  // namespace detail

}  // namespace cassette::file
