#include "engine/util/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace cassette::file {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

UniqueFd::~UniqueFd() { reset(); }

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status errno_status(std::string_view what, const std::string& path) {
  return Status::io_error(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

Result<UniqueFd> open_file(const std::string& path, int flags, int mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == ENOENT) return Status::not_found(fmt::format("no such file: {}", path));
    return errno_status("cannot open", path);
  }
  return UniqueFd(fd);
}

Status write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_status("cannot write", path);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Status pread_exact(int fd, uint64_t offset, size_t n, char* out, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno_status("cannot read", path);
    }
    if (got == 0) {
      return Status::corruption(
          fmt::format("{}: truncated: wanted {} bytes at offset {}", path, n, offset));
    }
    done += static_cast<size_t>(got);
  }
  return Status::ok();
}

Status fsync_file(int fd, const std::string& path) {
  if (::fdatasync(fd) != 0) return errno_status("cannot sync", path);
  return Status::ok();
}

Status sync_directory(const std::string& dir) {
  CASSETTE_ASSIGN_OR_RETURN(UniqueFd fd, open_file(dir, O_RDONLY | O_DIRECTORY));
  if (::fsync(fd.get()) != 0) return errno_status("cannot sync directory", dir);
  return Status::ok();
}

Result<uint64_t> file_size(int fd, const std::string& path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return errno_status("cannot stat", path);
  return static_cast<uint64_t>(st.st_size);
}

Result<std::string> read_whole_file(const std::string& path) {
  CASSETTE_ASSIGN_OR_RETURN(UniqueFd fd, open_file(path, O_RDONLY));
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file_size(fd.get(), path));
  std::string contents(size, '\0');
  CASSETTE_RETURN_IF_ERROR(pread_exact(fd.get(), 0, size, contents.data(), path));
  return contents;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Status create_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::io_error(fmt::format("cannot create directory {}: {}", path, ec.message()));
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
  return sync_directory(std::filesystem::path(path).parent_path().string());
}

Status remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("cannot remove", path);
  return Status::ok();
}

Status rename_file(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) return errno_status("cannot rename to " + to + ":", from);
  return Status::ok();
}

Result<std::vector<std::string>> list_directory(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
  if (!d) return errno_status("cannot list directory", dir);
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d.get())) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  return names;
}

std::string join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  out += name;
  return out;
}

}  // namespace cassette::file
