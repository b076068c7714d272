#include "engine/util/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>

namespace cassette::file {

std::string_view file_op_name(FileOp op) {
  switch (op) {
    case FileOp::kOpen:
      return "open";
    case FileOp::kRead:
      return "read";
    case FileOp::kWrite:
      return "write";
    case FileOp::kSync:
      return "sync";
    case FileOp::kTruncate:
      return "truncate";
    case FileOp::kSize:
      return "stat";
    case FileOp::kMap:
      return "map";
    case FileOp::kCreateDirectory:
      return "create directory";
    case FileOp::kSyncDirectory:
      return "sync directory";
    case FileOp::kListDirectory:
      return "list directory";
    case FileOp::kRemove:
      return "remove";
    case FileOp::kRename:
      return "rename";
    case FileOp::kStat:
      return "stat";
  }
  return "use";
}

Status io_error(FileOp op, int error, const std::string& path, const std::string& to) {
  if ((op == FileOp::kOpen || op == FileOp::kStat) && error == ENOENT) {
    return Status::not_found(fmt::format("no such file: {}", path));
  }
  if (op == FileOp::kRename) {
    return Status::io_error(
        fmt::format("cannot rename {} to {}: {}", path, to, std::strerror(error)));
  }
  return Status::io_error(
      fmt::format("cannot {} {}: {}", file_op_name(op), path, std::strerror(error)));
}

Result<UniqueFd> PosixFileSystem::open(const std::string& path, int flags, int mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) return io_error(FileOp::kOpen, errno, path);
  return UniqueFd(fd);
}

Status PosixFileSystem::write(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(FileOp::kWrite, errno, path);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Status PosixFileSystem::read(int fd, uint64_t offset, size_t n, char* out,
                             const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return io_error(FileOp::kRead, errno, path);
    }
    if (got == 0) {
      return Status::corruption(
          fmt::format("{}: truncated: wanted {} bytes at offset {}", path, n, offset));
    }
    done += static_cast<size_t>(got);
  }
  return Status::ok();
}

Status PosixFileSystem::sync(int fd, const std::string& path) {
  if (::fdatasync(fd) != 0) return io_error(FileOp::kSync, errno, path);
  return Status::ok();
}

Status PosixFileSystem::truncate(int fd, uint64_t size, const std::string& path) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    return io_error(FileOp::kTruncate, errno, path);
  }
  return Status::ok();
}

Result<uint64_t> PosixFileSystem::size(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return io_error(FileOp::kSize, errno, path);
  return static_cast<uint64_t>(st.st_size);
}

Result<uint64_t> PosixFileSystem::size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return io_error(FileOp::kSize, errno, path);
  return static_cast<uint64_t>(st.st_size);
}

Result<void*> PosixFileSystem::map_shared(int fd, size_t size, const std::string& path) {
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return io_error(FileOp::kMap, errno, path);
  return map;
}

bool PosixFileSystem::exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Status PosixFileSystem::create_directory(const std::string& dir) {
  // 0777 less the umask, as mkdir(1) does: the umask, not the engine, says who shares the store.
  if (::mkdir(dir.c_str(), 0777) == 0) return Status::ok();
  int error = errno;
  struct stat st;
  if (error == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::ok();
  }
  return io_error(FileOp::kCreateDirectory, error, dir);
}

Status PosixFileSystem::sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error(FileOp::kSyncDirectory, errno, dir);
  UniqueFd owned(fd);
  if (::fsync(fd) != 0) return io_error(FileOp::kSyncDirectory, errno, dir);
  return Status::ok();
}

Result<std::vector<std::string>> PosixFileSystem::list_directory(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return io_error(FileOp::kListDirectory, errno, dir);
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d.get())) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  return names;
}

Status PosixFileSystem::remove(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return io_error(FileOp::kRemove, errno, path);
  }
  return Status::ok();
}

Status PosixFileSystem::rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return io_error(FileOp::kRename, errno, from, to);
  return Status::ok();
}

Result<FileIdentity> PosixFileSystem::identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return io_error(FileOp::kStat, errno, path);
  return FileIdentity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

bool PosixFileSystem::writable(const std::string& path) {
  return ::access(path.c_str(), W_OK) == 0;
}

namespace {

std::mutex mount_mutex;
std::vector<std::pair<std::string, FileSystem*>>& mounts() {  // guarded by mount_mutex
  static auto* all = new std::vector<std::pair<std::string, FileSystem*>>();
  return *all;
}

bool is_under(std::string_view path, std::string_view root) {
  if (!path.starts_with(root)) return false;
  return path.size() == root.size() || path[root.size()] == '/' || root == "/";
}

}  // namespace

namespace detail {

// Read on every file operation without a lock: while it is zero nothing else is looked at.
std::atomic<int> mount_count{0};

FileSystem* find_mount(std::string_view path) {
  std::lock_guard guard(mount_mutex);
  for (const auto& [root, fs] : mounts()) {
    if (is_under(path, root)) return fs;
  }
  return nullptr;
}

}  // namespace detail

FileSystemMount::FileSystemMount(const std::string& root, FileSystem* fs) {
  std::error_code ec;
  root_ = std::filesystem::weakly_canonical(std::filesystem::absolute(root), ec).string();
  if (ec || root_.empty()) root_ = root;
  std::lock_guard guard(mount_mutex);
  mounts().emplace_back(root_, fs);
  detail::mount_count.fetch_add(1, std::memory_order_release);
}

FileSystemMount::~FileSystemMount() {
  std::lock_guard guard(mount_mutex);
  auto& all = mounts();
  all.erase(std::find_if(all.begin(), all.end(), [&](const auto& m) { return m.first == root_; }));
  detail::mount_count.fetch_sub(1, std::memory_order_release);
}

}  // namespace cassette::file
