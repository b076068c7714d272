#include "engine/storage/table_cache.h"

#include <fcntl.h>
#include <sys/resource.h>

#include <algorithm>

namespace cassette::storage {

TableCache::TableCache(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

uint64_t TableCache::new_id() {
  std::lock_guard guard(mutex_);
  return next_id_++;
}

Result<TableCache::Handle> TableCache::descriptor(uint64_t id, const std::string& path) {
  {
    std::lock_guard guard(mutex_);
    auto it = by_id_.find(id);
    if (it != by_id_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
  }
  // Opened without the lock: other readers' hits need not wait for this system call.
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
  auto opened = std::make_shared<const file::UniqueFd>(std::move(fd));
  Handle evicted;  // closed after the lock is released
  std::lock_guard guard(mutex_);
  auto it = by_id_.find(id);
  if (it != by_id_.end()) return it->second->second;  // another reader opened it meanwhile
  if (lru_.size() >= capacity_) {
    evicted = std::move(lru_.back().second);
    by_id_.erase(lru_.back().first);
    lru_.pop_back();
  }
  lru_.emplace_front(id, opened);
  by_id_[id] = lru_.begin();
  return opened;
}

void TableCache::erase(uint64_t id) {
  Handle closing;
  std::lock_guard guard(mutex_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  closing = std::move(it->second->second);
  lru_.erase(it->second);
  by_id_.erase(it);
}

size_t TableCache::open_descriptors() const {
  std::lock_guard guard(mutex_);
  return lru_.size();
}

size_t table_cache_capacity(size_t max_open_files) {
  size_t capacity = max_open_files;
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    capacity = std::min<size_t>(capacity, limit.rlim_cur / 4);
  }
  return std::max<size_t>(capacity, 1);
}

}  // namespace cassette::storage
