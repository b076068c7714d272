#include "engine/storage/block_cache.h"

#include <list>
#include <mutex>
#include <unordered_map>

namespace cassette::storage {

namespace {
constexpr size_t kEntryOverhead = 64;  // list node, map slot, control block
struct Key {
  uint64_t id;
  uint64_t offset;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.id * 0x9e3779b97f4a7c15ULL ^ k.offset); }
};
}  // namespace

// One shard: an LRU list (front = most recent) and a map into it.
struct BlockCache::Shard {
  std::mutex mutex;
  size_t capacity = 0;
  size_t usage = 0;
  std::list<std::pair<Key, Block>> lru;
  std::unordered_map<Key, std::list<std::pair<Key, Block>>::iterator, KeyHash> map;

  static size_t charge(const Block& b) { return b->size() + kEntryOverhead; }
  void evict_to(size_t limit) {
    while (usage > limit && !lru.empty()) {
      usage -= charge(lru.back().second);
      map.erase(lru.back().first);
      lru.pop_back();
    }
  }
};

BlockCache::BlockCache(size_t capacity_bytes) : shards_(new Shard[kShards]), capacity_(capacity_bytes) {
  for (int i = 0; i < kShards; ++i) shards_[i].capacity = capacity_bytes / kShards;
}

BlockCache::~BlockCache() = default;

uint64_t BlockCache::new_id() { return next_id_.fetch_add(1); }

static size_t shard_of(uint64_t id, uint64_t offset) {
  return static_cast<size_t>(((id * 0x9e3779b97f4a7c15ULL) ^ (offset >> 12) * 0xc2b2ae3d27d4eb4fULL) >> 60);
}

BlockCache::Block BlockCache::lookup(uint64_t id, uint64_t offset) {
  Shard& s = shards_[shard_of(id, offset)];
  std::lock_guard guard(s.mutex);
  auto it = s.map.find(Key{id, offset});
  if (it == s.map.end()) return nullptr;
  s.lru.splice(s.lru.begin(), s.lru, it->second);
  return it->second->second;
}

BlockCache::Block BlockCache::insert(uint64_t id, uint64_t offset, std::string block) {
  auto shared = std::make_shared<const std::string>(std::move(block));
  Shard& s = shards_[shard_of(id, offset)];
  size_t charge = Shard::charge(shared);
  if (charge > s.capacity) return shared;
  std::lock_guard guard(s.mutex);
  Key key{id, offset};
  if (auto it = s.map.find(key); it != s.map.end()) {
    s.usage -= Shard::charge(it->second->second);
    s.lru.erase(it->second);
    s.map.erase(it);
  }
  s.evict_to(s.capacity - charge);
  s.lru.emplace_front(key, shared);
  s.map[key] = s.lru.begin();
  s.usage += charge;
  return shared;
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (int i = 0; i < kShards; ++i) {
    std::lock_guard guard(shards_[i].mutex);
    total += shards_[i].usage;
  }
  return total;
}

size_t BlockCache::capacity() const { return capacity_; }

}  // namespace cassette::storage
