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
      return it->second->fd;
    }
    if (Handle held = find_held_locked(path)) return held;
  }
  // Opened without the lock: other readers' hits need not wait for this system call.
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
  auto opened = std::make_shared<const file::UniqueFd>(std::move(fd));
  Handle evicted;  // closed after the lock is released
  std::lock_guard guard(mutex_);
  auto it = by_id_.find(id);
  if (it != by_id_.end()) return it->second->fd;  // another reader opened it meanwhile
  insert_locked(id, path, opened, &evicted);
  return opened;
}

Result<TableCache::Handle> TableCache::hold(const std::string& path) {
  {
    std::lock_guard guard(mutex_);
    auto it = by_path_.find(path);
    if (it != by_path_.end()) return it->second->fd;
    if (Handle held = find_held_locked(path)) return held;
  }
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
  auto opened = std::make_shared<const file::UniqueFd>(std::move(fd));
  std::lock_guard guard(mutex_);
  if (Handle held = find_held_locked(path)) return held;  // another holder opened it meanwhile
  // Forget the holds that ended, now and then, so the map stays as small as what is held.
  if (held_.size() >= 2 * capacity_)
    std::erase_if(held_, [](const auto& h) { return h.second.expired(); });
  held_[path] = opened;
  return opened;
}

TableCache::Handle TableCache::find_held_locked(const std::string& path) {
  auto it = held_.find(path);
  if (it == held_.end()) return nullptr;
  Handle fd = it->second.lock();
  if (fd == nullptr) held_.erase(it);
  return fd;
}

void TableCache::insert_locked(uint64_t id, const std::string& path, Handle fd, Handle* evicted) {
  if (lru_.size() >= capacity_) {
    Entry& last = lru_.back();
    // Held elsewhere (by a snapshot): served from held_ until let go, never opened again.
    if (last.fd.use_count() > 1) held_[last.path] = last.fd;
    *evicted = std::move(last.fd);
    by_id_.erase(last.id);
    by_path_.erase(last.path);
    lru_.pop_back();
  }
  lru_.push_front({id, path, std::move(fd)});
  by_id_[id] = lru_.begin();
  by_path_[path] = lru_.begin();
}

void TableCache::erase(uint64_t id) {
  Handle closing;
  std::lock_guard guard(mutex_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  closing = std::move(it->second->fd);
  by_path_.erase(it->second->path);
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
