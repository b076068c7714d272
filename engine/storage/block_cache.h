// BlockCache: uncompressed SSTable blocks shared by every reader of a store, bounded by a byte
// budget (blocks not read for a while go first: a CLOCK, block_cache.cc). Keys are (file cache
// id, block offset); each SSTableReader takes a fresh cache id so a removed file's blocks simply
// age out.
//
// Thread-safe (sharded, a mutex per shard).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace cassette::storage {

class BlockCache {
 public:
  explicit BlockCache(size_t capacity_bytes);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  using Block = std::shared_ptr<const std::string>;  // the uncompressed block bytes

  uint64_t new_id();
  // nullptr when absent.
  Block lookup(uint64_t id, uint64_t offset);
  // Inserts (replacing) and returns the cached block. A block bigger than the capacity is returned
  // uncached.
  Block insert(uint64_t id, uint64_t offset, std::string block);
  // The same for a block read into spare_buffer()'s answer (or any buffer nobody else holds).
  Block insert(uint64_t id, uint64_t offset, std::shared_ptr<std::string> block);
  // A buffer to read the block (id, offset) into before insert(): one this cache evicted from
  // that block's shard and nobody holds any more when there is one (its allocation reused, its
  // old bytes still there: the caller overwrites it whole, as resize() + write or assign()), else
  // a new empty one. Reusing them spares a miss an allocation, the zero-fill of a fresh buffer
  // and the free of a cold evicted block. At most kSparesPerShard are kept per shard, outside
  // the byte budget.
  std::shared_ptr<std::string> spare_buffer(uint64_t id, uint64_t offset);
  // Caches `block` only if its shard has room for it without evicting anything (and does not hold
  // the key yet): how a scan offers what it reads, so that a scan bigger than the cache fills
  // free space but never pushes out the blocks other readers keep coming back to.
  void admit_if_room(uint64_t id, uint64_t offset, Block block);
  size_t usage() const;  // bytes held
  size_t capacity() const;

 private:
  struct Shard;
  static constexpr int kShards = 16;
  static constexpr int kSparesPerShard = 2;
  std::unique_ptr<Shard[]> shards_;
  size_t capacity_;
  std::atomic<uint64_t> next_id_{1};
};

}  // namespace cassette::storage
