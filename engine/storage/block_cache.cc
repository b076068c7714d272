#include "engine/storage/block_cache.h"

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

namespace cassette::storage {
namespace {

// What an entry costs beyond its bytes: its slot in the table (at most half full), the
// shared_ptr's control block and the string header, roughly.
constexpr size_t kEntryOverhead = 96;
constexpr size_t kInitialSlots = 64;  // a power of two
// The largest evicted block kept as a spare buffer (data blocks are ~8 KiB by default).
constexpr size_t kMaxSpareBytes = 256 << 10;

uint64_t mix(uint64_t id, uint64_t offset) {
  uint64_t h = id * 0x9e3779b97f4a7c15ULL ^ offset * 0xc2b2ae3d27d4eb4fULL;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

size_t shard_of(uint64_t id, uint64_t offset, int shards) {
  return static_cast<size_t>(mix(offset, id) >> 32) % shards;
}

}  // namespace

// One shard: an open-addressing table (linear probing, at most half full) whose slots hold the
// entries themselves, and a CLOCK over those slots in place of an LRU list.
//
// Why not std::unordered_map + std::list (LRU): a hit then touched a bucket, a map node, a list
// node and its two neighbours, and an eviction looked its victim up in the map again — on a
// random-read workload bigger than the cache those are cache misses each, and they were a fifth
// of a slice's CPU (engine bench, 3 SSTables). Here a hit is one probe of a contiguous table and
// a reference bit; an eviction is where the hand stands.
//
// CLOCK: every entry has a reference bit, set on insert and on each hit. To make room the hand
// walks the slots: an entry with its bit set loses it and is passed over, one without is evicted.
// An entry is evicted only after a whole turn of the hand without a hit (like LRU, roughly).
//
// Removal keeps every probe sequence unbroken without tombstones ("backward shift": the entries
// after the hole that may move into it do).
struct BlockCache::Shard {
  struct Slot {
    uint64_t id = 0;
    uint64_t offset = 0;
    Block block;  // nullptr: the slot is empty
    bool referenced = false;
    // The string is not const (insert() made it or took a mutable buffer): once nobody else holds
    // it, it may become a spare buffer. Blocks offered by admit_if_room are never reused.
    bool reusable = false;
  };

  std::mutex mutex;
  size_t capacity = 0;
  size_t usage = 0;  // sum of the charges of the entries
  size_t entries = 0;
  std::vector<Slot> slots = std::vector<Slot>(kInitialSlots);
  size_t hand = 0;                                   // the CLOCK's position in `slots`
  std::vector<std::shared_ptr<std::string>> spares;  // evicted, held by nobody else

  static size_t charge(const Block& block) { return block->size() + kEntryOverhead; }
  size_t mask() const { return slots.size() - 1; }
  size_t home(uint64_t id, uint64_t offset) const { return mix(id, offset) & mask(); }

  // The slot holding (id, offset), or the empty slot where it would go.
  size_t find(uint64_t id, uint64_t offset) const {
    size_t i = home(id, offset);
    while (slots[i].block != nullptr && (slots[i].id != id || slots[i].offset != offset))
      i = (i + 1) & mask();
    return i;
  }

  // REQUIRES: mutex held; slot i empty (find's answer) and the table has room for one more.
  void place(size_t i, uint64_t id, uint64_t offset, Block block, bool referenced, bool reusable) {
    usage += charge(block);
    ++entries;
    slots[i] = Slot{id, offset, std::move(block), referenced, reusable};
  }

  // Empties slot i, moving later entries of the same probe run back into the hole. The removed
  // block becomes a spare when it can, else it goes to `released`, to be let go once the mutex
  // is (freeing a cold block costs cache misses).
  void remove(size_t i, std::vector<Block>* released) {
    Block removed = std::move(slots[i].block);
    keep_or_release(std::move(removed), slots[i].reusable, released);
    shift_back(i);
  }

  // A block nobody else holds stays a spare: under the mutex no lookup can hand it out again,
  // so a use count of 1 cannot grow. Small blocks only: a huge one would pin its memory.
  void keep_or_release(Block removed, bool reusable, std::vector<Block>* released) {
    usage -= charge(removed);
    if (reusable && removed.use_count() == 1 && spares.size() < kSparesPerShard &&
        removed->capacity() <= kMaxSpareBytes) {
      // use_count() is a relaxed load: without this fence nothing orders another thread's last
      // reads of the block (before its release of the reference, which is acq_rel) before the
      // next owner's writes into the buffer. The fence makes that release synchronize with us
      // (fence-atomic synchronization); x86 orders it anyway, weaker CPUs need it. (TSan does not
      // model standalone fences and still reports the pair: block_cache_test's threaded case.)
      std::atomic_thread_fence(std::memory_order_acquire);
      // Not const underneath (Slot::reusable), so writing it is allowed.
      spares.push_back(std::const_pointer_cast<std::string>(std::move(removed)));
    } else {
      released->push_back(std::move(removed));
    }
  }

  void shift_back(size_t i) {
    --entries;
    slots[i].block = nullptr;
    for (size_t j = (i + 1) & mask(); slots[j].block != nullptr; j = (j + 1) & mask()) {
      const size_t k = home(slots[j].id, slots[j].offset);
      // Slot j may fill the hole at i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots[i] = std::move(slots[j]);
      slots[j].block = nullptr;
      i = j;
    }
  }

  // Twice the slots when the table would pass half full with one more entry.
  void grow_if_needed() {
    if ((entries + 1) * 2 <= slots.size()) return;
    std::vector<Slot> old = std::exchange(slots, std::vector<Slot>(slots.size() * 2));
    for (Slot& slot : old) {
      if (slot.block == nullptr) continue;
      slots[find(slot.id, slot.offset)] = std::move(slot);
    }
    hand = 0;
  }

  // Evicts with the CLOCK until usage <= limit; the evicted blocks go to `released`.
  // REQUIRES: mutex held.
  void evict_down_to(size_t limit, std::vector<Block>* released) {
    while (usage > limit && entries > 0) {
      hand &= mask();
      Slot& slot = slots[hand];
      if (slot.block == nullptr) {
        ++hand;
      } else if (slot.referenced) {
        slot.referenced = false;
        ++hand;
      } else {
        // The hand stays: remove() may have moved a later entry into this slot.
        remove(hand, released);
      }
    }
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

BlockCache::Block BlockCache::lookup(uint64_t id, uint64_t offset) {
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  std::lock_guard guard(shard.mutex);
  Shard::Slot& slot = shard.slots[shard.find(id, offset)];
  if (slot.block == nullptr) return nullptr;
  slot.referenced = true;
  return slot.block;
}

BlockCache::Block BlockCache::insert(uint64_t id, uint64_t offset, std::string block) {
  return insert(id, offset, std::make_shared<std::string>(std::move(block)));
}

BlockCache::Block BlockCache::insert(uint64_t id, uint64_t offset,
                                     std::shared_ptr<std::string> block) {
  Block shared = std::move(block);
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  const size_t charge = Shard::charge(shared);
  if (charge > shard.capacity) return shared;  // would evict the whole shard: not worth it
  std::vector<Block> released;                 // destroyed after the mutex is let go
  std::lock_guard guard(shard.mutex);
  if (size_t i = shard.find(id, offset); shard.slots[i].block != nullptr)
    shard.remove(i, &released);
  shard.evict_down_to(shard.capacity - charge, &released);
  shard.grow_if_needed();
  shard.place(shard.find(id, offset), id, offset, shared, /*referenced=*/true,
              /*reusable=*/true);
  return shared;
}

std::shared_ptr<std::string> BlockCache::spare_buffer(uint64_t id, uint64_t offset) {
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  {
    std::lock_guard guard(shard.mutex);
    if (!shard.spares.empty()) {
      std::shared_ptr<std::string> spare = std::move(shard.spares.back());
      shard.spares.pop_back();
      return spare;
    }
  }
  return std::make_shared<std::string>();
}

void BlockCache::admit_if_room(uint64_t id, uint64_t offset, Block block) {
  Shard& shard = shards_[shard_of(id, offset, kShards)];
  const size_t charge = Shard::charge(block);
  std::lock_guard guard(shard.mutex);
  if (shard.usage + charge > shard.capacity) return;
  if (shard.slots[shard.find(id, offset)].block != nullptr) return;  // already cached
  shard.grow_if_needed();
  // Not referenced: a scan's block is the first to go when room is needed, unless read again.
  shard.place(shard.find(id, offset), id, offset, std::move(block), /*referenced=*/false,
              /*reusable=*/false);
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
