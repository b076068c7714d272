// TableCache: the open file descriptors of a store's SSTables, at most `capacity` of them kept
// open (LevelDB's TableCache and its max_open_files). An SSTableReader keeps in memory what it
// read at open (index summary, bloom filter, statistics) and asks here for its descriptor each
// time it reads blocks from disk; a miss opens the file again, closing the least recently used
// descriptor when the cache is full. So a store holds a bounded number of descriptors however
// many SSTables it has, and a read that hits the block cache needs none.
//
// A descriptor handed out stays open while its Handle lives, even if the cache closes its own
// reference meanwhile: hold it for one read (a pread), not longer. The descriptors open at once
// are then at most `capacity` plus the reads in flight.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

class TableCache {
 public:
  // REQUIRES: capacity >= 1.
  explicit TableCache(size_t capacity);
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  using Handle = std::shared_ptr<const file::UniqueFd>;

  // A key for one file (one reader): descriptors are cached by it.
  uint64_t new_id();
  // The open descriptor of the file `id` at `path` (read-only), opened now on a miss. An I/O
  // error names the file.
  Result<Handle> descriptor(uint64_t id, const std::string& path);
  // Closes the descriptor of `id` (its reader is gone), if the cache holds it.
  void erase(uint64_t id);

  size_t capacity() const { return capacity_; }
  size_t open_descriptors() const;  // held by the cache (not counting reads in flight)

 private:
  using Lru = std::list<std::pair<uint64_t, Handle>>;  // front: most recently used

  const size_t capacity_;
  mutable std::mutex mutex_;
  Lru lru_;
  std::unordered_map<uint64_t, Lru::iterator> by_id_;
  uint64_t next_id_ = 1;
};

// The number of descriptors a store keeps for its SSTables: `max_open_files`, but at most a
// quarter of the process's limit (RLIMIT_NOFILE), so that a host with a low limit and several
// stores keeps descriptors for its own files; at least one.
size_t table_cache_capacity(size_t max_open_files);

}  // namespace cassette::storage
