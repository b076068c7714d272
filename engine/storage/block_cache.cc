#include "engine/storage/block_cache.h"

#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace cassette::storage {
namespace {

// What an entry costs beyond its bytes: the list node, the map slot, the shared_ptr's control
// block and the string header, roughly.
constexpr size_t kEntryOverhead = 96;

struct CacheKey {
  uint64_t id;
  uint64_t offset;
  bool operator==(const CacheKey&) const = default;
};

uint64_t mix(uint64_t id, uint64_t offset) {
  uint64_t h = id * 0x9e3779b97f4a7c15ULL ^ offset * 0xc2b2ae3d27d4eb4fULL;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

struct CacheKeyHash {
  size_t operator()(const CacheKey& key) const { return mix(key.id, key.offset); }
};

}  // namespace

// One shard: an LRU list (front = most recently used) and a map into it.
struct BlockCache::Shard {
  using Lru = std::list<std::pair<CacheKey, Block>>;

  std::mutex mutex;
  size_t capacity = 0;
  size_t usage = 0;  // sum of the charges of the entries
  Lru lru;
  std::unordered_map<CacheKey, Lru::iterator, CacheKeyHash> map;

  static size_t charge(const Block& block) { return block->size() + kEntryOverhead; }

  void erase(std::unordered_map<CacheKey, Lru::iterator, CacheKeyHash>::iterator it) {
    usage -= charge(it->second->second);
    lru.erase(it->second);
    map.erase(it);
  }
  // REQUIRES: mutex held.
  void evict_down_to(size_t limit) {
    while (usage > limit && !lru.empty()) erase(map.find(lru.back().first));
  }
};

BlockCache::BlockCache(size_t capacity_bytes)
    : shards_(std::make_unique<Shard[]>(kShards)), capacity_(capacity_bytes) {
  for (int i = 0; i < kShards; ++i) shards_[i].capacity = capacity_bytes / kShards;
}

BlockCache::~BlockCache() = default;

uint64_t BlockCache::new_id() {
  return next_id_.fetch_add(1, std::memory_order_relaxed);
}

namespace {
size_t shard_of(uint64_t id, uint64_t offset, int shards) {
  return static_cast<size_t>(mix(offset, id) >> 32) % shards;
}
}  // namespace

BlockCache::Block BlockCache::lookup(uint64_t id, uint64_t offset) {
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  std::lock_guard guard(shard.mutex);
  auto it = shard.map.find(CacheKey{id, offset});
  if (it == shard.map.end()) return nullptr;
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
  return it->second->second;
}

BlockCache::Block BlockCache::insert(uint64_t id, uint64_t offset, std::string block) {
  auto shared = std::make_shared<const std::string>(std::move(block));
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  const size_t charge = Shard::charge(shared);
  if (charge > shard.capacity) return shared;  // would evict the whole shard: not worth it
  const CacheKey key{id, offset};
  std::lock_guard guard(shard.mutex);
  if (auto it = shard.map.find(key); it != shard.map.end()) shard.erase(it);
  shard.evict_down_to(shard.capacity - charge);
  shard.lru.emplace_front(key, shared);
  shard.map.emplace(key, shard.lru.begin());
  shard.usage += charge;
  return shared;
}

void BlockCache::admit_if_room(uint64_t id, uint64_t offset, Block block) {
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  const size_t charge = Shard::charge(block);
  const CacheKey key{id, offset};
  std::lock_guard guard(shard.mutex);
  if (shard.usage + charge > shard.capacity || shard.map.contains(key)) return;
  shard.lru.emplace_front(key, std::move(block));
  shard.map.emplace(key, shard.lru.begin());
  shard.usage += charge;
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (int i = 0; i < kShards; ++i) {
    std::lock_guard guard(shards_[i].mutex);
    total += shards_[i].usage;
  }
  return total;
}

size_t BlockCache::capacity() const {
  return capacity_;
}

}  // namespace cassette::storage
