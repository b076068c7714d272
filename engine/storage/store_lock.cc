#include "engine/storage/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

namespace cassette::storage {

Result<StoreLock> StoreLock::open(const std::string& store_dir) {
  std::string path = file::join(store_dir, "LOCK");
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDWR | O_CREAT));
  return StoreLock(std::move(fd), path);
}

Status StoreLock::lock(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto backoff = std::chrono::microseconds(50);
  while (true) {
    if (::flock(fd_.get(), LOCK_EX | LOCK_NB) == 0) {
      held_ = true;
      return Status::ok();
    }
    if (errno != EWOULDBLOCK && errno != EINTR) return file::errno_status("cannot lock", path_);
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::busy(fmt::format(
          "store is busy: another process has held its write lock ({}) for more than {} ms", path_,
          timeout.count()));
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::microseconds(5000));
  }
}

void StoreLock::unlock() {
  if (held_) ::flock(fd_.get(), LOCK_UN);
  held_ = false;
}

namespace {

// A counter value no process has seen: the clock in microseconds (counters count changes, far
// below it).
uint64_t fresh_counter_value() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

Result<ChangeCounter> ChangeCounter::open(const std::string& store_dir) {
  std::string path = file::join(store_dir, "SHARED");
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDWR | O_CREAT));
  return ChangeCounter(std::move(fd), std::move(path));
}

Result<ChangeCounter> ChangeCounter::open_read_only(const std::string& store_dir) {
  std::string path = file::join(store_dir, "SHARED");
  Result<file::UniqueFd> fd = file::open_file(path, O_RDONLY);
  if (!fd.is_ok() && !fd.status().is_not_found()) return fd.status();
  return ChangeCounter(fd.is_ok() ? std::move(*fd) : file::UniqueFd(), std::move(path));
}

std::optional<uint64_t> ChangeCounter::load() const {
  if (!fd_.valid()) return std::nullopt;
  uint64_t value;
  Status read =
      file::pread_exact(fd_.get(), 0, sizeof value, reinterpret_cast<char*>(&value), path_);
  if (!read.is_ok()) return std::nullopt;  // short (truncated) or unreadable: "changed"
  return value;
}

uint64_t ChangeCounter::bump() {
  std::optional<uint64_t> current = load();
  uint64_t value = current.has_value() ? *current + 1 : fresh_counter_value();
  // A write that fails (an I/O error: the file holds its 8 bytes, so not a full disk) goes
  // unreported: other processes then see this change with the next one that is written.
  (void)!::pwrite(fd_.get(), &value, sizeof value, 0);
  return value;
}

}  // namespace cassette::storage
