#include "engine/util/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/util/file_system.h"

namespace cassette::file {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  reset();
}

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

namespace {

// Runs `op` (a generic lambda) on the file system that serves `path`. With nothing mounted
// (always, outside tests) that is the real one, called directly since PosixFileSystem is final:
// one load and a branch more than the system call. Mounts are looked up out of line.
template <typename Op>
[[gnu::noinline, gnu::cold]] auto on_mounted_file_system(const std::string& path, const Op& op) {
  if (FileSystem* fs = detail::find_mount(path)) return op(*fs);
  PosixFileSystem real;
  return op(real);
}

template <typename Op>
auto on_file_system(const std::string& path, const Op& op) {
  if (detail::mount_count.load(std::memory_order_relaxed) != 0) {
    return on_mounted_file_system(path, op);
  }
  PosixFileSystem real;
  return op(real);
}

}  // namespace

Status errno_status(std::string_view what, const std::string& path) {
  return Status::io_error(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

Result<UniqueFd> open_file(const std::string& path, int flags, int mode) {
  return on_file_system(path, [&](auto& fs) { return fs.open(path, flags, mode); });
}

Status write_all(int fd, std::string_view data, const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.write(fd, data, path); });
}

Status pread_exact(int fd, uint64_t offset, size_t n, char* out, const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.read(fd, offset, n, out, path); });
}

Status fsync_file(int fd, const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.sync(fd, path); });
}

Status truncate_file(int fd, uint64_t size, const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.truncate(fd, size, path); });
}

Status sync_directory(const std::string& dir) {
  return on_file_system(dir, [&](auto& fs) { return fs.sync_directory(dir); });
}

Result<uint64_t> file_size(int fd, const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.size(fd, path); });
}

Result<uint64_t> file_size(const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.size(path); });
}

Result<void*> map_shared(int fd, size_t size, const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.map_shared(fd, size, path); });
}

Result<std::string> read_whole_file(const std::string& path) {
  CASSETTE_ASSIGN_OR_RETURN(UniqueFd fd, open_file(path, O_RDONLY));
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file_size(fd.get(), path));
  std::string contents(size, '\0');
  CASSETTE_RETURN_IF_ERROR(pread_exact(fd.get(), 0, size, contents.data(), path));
  return contents;
}

bool exists(const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.exists(path); });
}

Result<FileIdentity> file_identity(const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.identity(path); });
}

bool is_writable(const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.writable(path); });
}

namespace {
Status create_directory(const std::string& dir) {
  return on_file_system(dir, [&](auto& fs) { return fs.create_directory(dir); });
}

Status create_directory_durably(const std::string& dir, const std::string& parent) {
  CASSETTE_RETURN_IF_ERROR(create_directory(dir));
  return sync_directory(parent);
}
}  // namespace

Status create_directories(const std::string& path) {
  if (exists(path)) return create_directory(path);  // OK, or "not a directory"
  // Each missing ancestor in turn, from the top. A new directory's name is synced into its
  // parent: until then a power loss could take it away with every file later synced in it.
  std::filesystem::path prefix;
  for (const auto& part : std::filesystem::path(path).lexically_normal()) {
    std::filesystem::path parent = prefix.empty() ? "." : prefix;
    prefix /= part;
    if (part == "/" || part.empty() || exists(prefix.string())) continue;
    CASSETTE_RETURN_IF_ERROR(create_directory_durably(prefix.string(), parent.string()));
  }
  return Status::ok();
}

Status write_file_atomically(const std::string& path, std::string_view contents) {
  std::string tmp = path + ".tmp";
  {
    CASSETTE_ASSIGN_OR_RETURN(UniqueFd fd, open_file(tmp, O_WRONLY | O_CREAT | O_TRUNC));
    CASSETTE_RETURN_IF_ERROR(write_all(fd.get(), contents, tmp));
    CASSETTE_RETURN_IF_ERROR(fsync_file(fd.get(), tmp));
  }
  CASSETTE_RETURN_IF_ERROR(rename_file(tmp, path));
  // A bare file name lives in the working directory: its parent path is empty.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return sync_directory(dir.empty() ? "." : dir);
}

Status remove_file(const std::string& path) {
  return on_file_system(path, [&](auto& fs) { return fs.remove(path); });
}

Status rename_file(const std::string& from, const std::string& to) {
  return on_file_system(from, [&](auto& fs) { return fs.rename(from, to); });
}

Result<std::vector<std::string>> list_directory(const std::string& dir) {
  return on_file_system(dir, [&](auto& fs) { return fs.list_directory(dir); });
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

}  // namespace cassette::file
