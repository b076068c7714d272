#include "engine/storage/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
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

Result<ChangeCounter> ChangeCounter::open(const std::string& store_dir) {
  std::string path = file::join(store_dir, "SHARED");
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDWR | O_CREAT));
  constexpr size_t kSize = 4096;
  // Growing a file is idempotent and atomic enough: every process asks for the same size, and
  // new bytes read as zero.
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file::file_size(fd.get(), path));
  if (size < kSize) CASSETTE_RETURN_IF_ERROR(file::truncate_file(fd.get(), kSize, path));
  CASSETTE_ASSIGN_OR_RETURN(void* map, file::map_shared(fd.get(), kSize, path));
  return ChangeCounter(map, static_cast<std::atomic<uint64_t>*>(map));
}

ChangeCounter::ChangeCounter(ChangeCounter&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)), counter_(std::exchange(other.counter_, nullptr)) {}

ChangeCounter::~ChangeCounter() {
  if (map_ != nullptr) ::munmap(map_, 4096);
}

}  // namespace cassette::storage
