// TableCache: the open file descriptors of a store's SSTables, at most `capacity` of them kept
// open (LevelDB's TableCache and its max_open_files). An SSTableReader keeps in memory what it
// read at open (index summary, bloom filter, statistics) and asks here for its descriptor each
// time it reads blocks from disk; a miss opens the file again, closing the least recently used
// descriptor when the cache is full. So a store holds a bounded number of descriptors however
// many SSTables it has, and a read that hits the block cache needs none.
//
// A descriptor handed out stays open while its Handle lives, even if the cache closes its own
// reference meanwhile. A reader holds one for a read (a pread). A snapshot holds those of all
// its files, taken with hold(): while anyone holds a file's descriptor, descriptor() hands out
// that one rather than open the file again, so the file stays readable even once another
// process has removed it (FORMAT.md, "Snapshots and other processes' compactions"). `capacity`
// is therefore a target, not a bound: the descriptors open at once are at most `capacity` plus
// the ones held outside the cache.
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
  // The open descriptor of the file `id` at `path` (read-only): the cached one, or one someone
  // holds, or else opened now. An I/O error names the file (a missing file is NotFound).
  Result<Handle> descriptor(uint64_t id, const std::string& path);
  // The open descriptor of the file at `path`, for the caller to hold as long as it needs the
  // file readable: the one the cache or another holder has, or else opened now.
  Result<Handle> hold(const std::string& path);
  // Closes the descriptor of `id` (its reader is gone), if the cache holds it.
  void erase(uint64_t id);

  size_t capacity() const { return capacity_; }
  size_t open_descriptors() const;  // held by the cache (not counting reads in flight)

 private:
  struct Entry {
    uint64_t id;
    std::string path;
    Handle fd;
  };
  using Lru = std::list<Entry>;  // front: most recently used

  // REQUIRES: mutex_. The descriptor of `path` that someone outside the cache holds, or null.
  Handle find_held_locked(const std::string& path);
  void insert_locked(uint64_t id, const std::string& path, Handle fd, Handle* evicted);

  const size_t capacity_;
  mutable std::mutex mutex_;
  Lru lru_;
  std::unordered_map<uint64_t, Lru::iterator> by_id_;
  std::unordered_map<std::string, Lru::iterator> by_path_;
  // Descriptors held outside the cache (hold(), or evicted while held), by path: served from
  // here, not opened again, until their holders let go.
  std::unordered_map<std::string, std::weak_ptr<const file::UniqueFd>> held_;
  uint64_t next_id_ = 1;
};

// The number of descriptors a store keeps for its SSTables: `max_open_files`, but at most a
// quarter of the process's limit (RLIMIT_NOFILE), so that a host with a low limit and several
// stores keeps descriptors for its own files; at least one.
size_t table_cache_capacity(size_t max_open_files);

}  // namespace cassette::storage
