// The block cache's table and CLOCK (engine/storage/block_cache.cc): what stays, what goes, and
// that removals never lose an entry that is still counted. (How SSTable readers use the cache:
// sstable_test.cc.)
#include "engine/storage/block_cache.h"

#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace cassette::storage;

namespace {

// The cache has 16 shards, each with a sixteenth of the capacity; these tests fill one shard
// by choosing offsets that land in the same one (found by asking the cache).
std::vector<uint64_t> offsets_in_one_shard(BlockCache& cache, uint64_t id, size_t want) {
  // A block as large as a shard's budget allows only itself: inserting one evicts every other
  // block of its shard and none of the others, so the shard of each offset shows.
  std::vector<uint64_t> same{0};
  for (uint64_t offset = 1; same.size() < want; ++offset) {
    cache.insert(id, 0, std::string(100, 'a'));
    cache.insert(id, offset, std::string(100, 'b'));
    cache.insert(id, 0, std::string(cache.capacity() / 16 - 96, 'c'));  // the whole shard
    if (cache.lookup(id, offset) == nullptr) same.push_back(offset);
  }
  return same;
}

std::string text(const BlockCache::Block& block) {
  return block != nullptr ? *block : "<absent>";
}

// 32 bytes naming the offset and the version.
std::string fmt_block(uint64_t offset, int v) {
  std::string out = std::to_string(offset) + "/" + std::to_string(v);
  out.resize(32, '.');
  return out;
}

}  // namespace

// Which block the hand meets first depends on the slots the keys hash to, so each scenario runs
// for eight file ids (eight layouts): an implementation that passed by luck would fail one.
TEST_CASE("block cache CLOCK: a block read since the hand last passed outlives unread ones") {
  for (uint64_t id = 1; id <= 8; ++id) {
    CAPTURE(id);
    BlockCache probe(16 * 4000);  // 4000 bytes a shard
    const std::vector<uint64_t> o = offsets_in_one_shard(probe, id, 5);
    BlockCache cache(16 * 4000);
    // Three blocks of 1000 (charge 1096 each) fill the shard; a fourth needs one of them to go.
    // All bits are set on insert, so the hand clears them in a turn and takes the first it meets
    // again: which one depends on the slots, but the other two are left with their bits clear.
    for (int i = 0; i < 3; ++i) cache.insert(id, o[i], std::string(1000, 'a'));
    cache.insert(id, o[3], std::string(1000, 'b'));
    // Read one survivor (a lookup of the evicted block changes nothing).
    const uint64_t read = cache.lookup(id, o[0]) != nullptr ? o[0] : o[1];
    REQUIRE(cache.lookup(id, read) != nullptr);
    // The next eviction takes the unread survivor, never the block just read nor the newest.
    cache.insert(id, o[4], std::string(1000, 'c'));
    CHECK(text(cache.lookup(id, read)) == std::string(1000, 'a'));
    CHECK(text(cache.lookup(id, o[3])) == std::string(1000, 'b'));
    CHECK(text(cache.lookup(id, o[4])) == std::string(1000, 'c'));
    int old_left = 0;
    for (int i = 0; i < 3; ++i) old_left += cache.lookup(id, o[i]) != nullptr;
    CHECK(old_left == 1);
    CHECK(cache.usage() == 3 * (1000 + 96));
  }
}

TEST_CASE("block cache: a scan's admitted block, never read, goes before blocks that were") {
  for (uint64_t id = 1; id <= 8; ++id) {
    CAPTURE(id);
    BlockCache probe(16 * 4000);
    const std::vector<uint64_t> o = offsets_in_one_shard(probe, id, 4);
    BlockCache cache(16 * 4000);
    cache.insert(id, o[0], std::string(1000, 'a'));
    cache.insert(id, o[1], std::string(1000, 'b'));
    cache.admit_if_room(id, o[2], std::make_shared<const std::string>(1000, 's'));
    cache.insert(id, o[3], std::string(1000, 'd'));  // the shard is full: one must go
    CHECK(cache.lookup(id, o[2]) == nullptr);
    CHECK(cache.lookup(id, o[0]) != nullptr);
    CHECK(cache.lookup(id, o[1]) != nullptr);
    CHECK(cache.lookup(id, o[3]) != nullptr);
  }
}

TEST_CASE("block cache: random inserts, replacements and evictions never lose a counted block") {
  // Equal-sized blocks: usage is (blocks found) * one block's charge, so an entry still counted
  // but no longer found by a lookup (a probe run broken by a removal) shows as a mismatch.
  // Small blocks, so each shard's table grows several times and its probe runs wrap around.
  std::mt19937_64 rng(7);
  for (size_t capacity : {16 * 2000, 16 * 20000, 16 * 200000}) {
    BlockCache cache(capacity);
    const uint64_t id = cache.new_id();
    std::map<uint64_t, int> version;  // offset -> how often it was inserted
    auto block = [](uint64_t offset, int v) { return fmt_block(offset, v); };
    for (int step = 0; step < 20000; ++step) {
      const uint64_t offset = rng() % 3000;
      const int op = static_cast<int>(rng() % 8);
      if (op < 2) {
        cache.lookup(id, offset);
      } else if (op == 2) {
        // A scan offers what it read: the latest version (or a first one).
        cache.admit_if_room(id, offset,
                            std::make_shared<const std::string>(block(offset, version[offset])));
      } else {
        const int v = ++version[offset];
        CHECK(*cache.insert(id, offset, block(offset, v)) == block(offset, v));
        BlockCache::Block now = cache.lookup(id, offset);
        REQUIRE(now != nullptr);  // just inserted, and far smaller than a shard
        CHECK(*now == block(offset, v));
      }
      if (step % 1000 != 999) continue;
      size_t found = 0;
      for (const auto& [o, v] : version) {
        BlockCache::Block b = cache.lookup(id, o);
        if (b == nullptr) continue;
        ++found;
        CHECK(*b == block(o, v));
      }
      CHECK(cache.usage() == found * (32 + 96));
      CHECK(cache.usage() <= cache.capacity());
    }
  }
}

TEST_CASE(
    "block cache spare buffers: an evicted block nobody holds, never a held or admitted one") {
  BlockCache probe(16 * 4000);
  const uint64_t id = probe.new_id();
  const std::vector<uint64_t> o = offsets_in_one_shard(probe, id, 6);
  BlockCache cache(16 * 4000);  // a shard holds one block of 3000: each insert evicts the last
  BlockCache::Block held = cache.insert(id, o[0], std::string(3000, 'a'));
  cache.insert(id, o[1], std::string(3000, 'b'));  // evicts o[0], which a reader still holds
  CHECK(cache.lookup(id, o[0]) == nullptr);
  CHECK(cache.spare_buffer(id, o[5])->empty());  // nothing to reuse: a new buffer
  CHECK(*held == std::string(3000, 'a'));
  cache.insert(id, o[2], std::string(3000, 'c'));  // evicts o[1], held by nobody: kept
  std::shared_ptr<std::string> spare = cache.spare_buffer(id, o[5]);
  CHECK(spare->capacity() >= 3000);              // the evicted block's allocation
  CHECK(cache.spare_buffer(id, o[5])->empty());  // handed out once
  CHECK(*held == std::string(3000, 'a'));
  // A buffer filled by the caller goes in like any block.
  spare->assign(10, 'z');
  CHECK(*cache.insert(id, o[3], spare) == std::string(10, 'z'));
  CHECK(text(cache.lookup(id, o[3])) == std::string(10, 'z'));
  // A scan's block (admit_if_room) is the scan's buffer: never handed out when evicted.
  BlockCache scan(16 * 4000);
  scan.admit_if_room(id, o[0], std::make_shared<const std::string>(3000, 's'));
  scan.insert(id, o[1], std::string(3000, 'b'));  // evicts the admitted block
  CHECK(scan.lookup(id, o[0]) == nullptr);
  CHECK(scan.spare_buffer(id, o[5])->empty());
}

TEST_CASE("block cache: readers holding blocks while other threads evict always see their bytes") {
  // Four threads look blocks up and, on a miss, read them into a spare buffer (what
  // SSTableReader::Impl::read_block does) and insert them, through a cache far smaller than the
  // blocks: nearly every insert evicts, and evicted blocks nobody holds become spare buffers.
  // Each thread keeps up to eight blocks for a while. Every block's bytes name its offset: a
  // buffer reused while a reader still held it, or handed out twice, shows as a mismatch (and
  // under AddressSanitizer a freed one as a use after free).
  BlockCache cache(16 * 20000);
  const uint64_t id = cache.new_id();
  auto bytes_of = [](uint64_t offset) {
    std::string out(300 + offset * 37 % 9000, static_cast<char>('A' + offset % 50));
    std::memcpy(out.data(), &offset, sizeof offset);
    return out;
  };
  std::vector<int> mismatches(4, 0);
  std::vector<int> misses(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      std::vector<std::pair<uint64_t, BlockCache::Block>> held;
      for (int step = 0; step < 20000; ++step) {
        const uint64_t offset = rng() % 400;
        BlockCache::Block b = cache.lookup(id, offset);
        if (b == nullptr) {
          ++misses[t];
          std::shared_ptr<std::string> buffer = cache.spare_buffer(id, offset);
          *buffer = bytes_of(offset);  // overwritten whole, as a read does
          b = cache.insert(id, offset, std::move(buffer));
        }
        if (*b != bytes_of(offset)) ++mismatches[t];
        if (held.size() < 8) {
          held.emplace_back(offset, std::move(b));
        } else if (rng() % 4 == 0) {
          held[rng() % held.size()] = {offset, std::move(b)};
        }
        if (step % 64 == 0) {
          for (const auto& [o, h] : held) mismatches[t] += *h != bytes_of(o);
        }
      }
      for (const auto& [o, h] : held) mismatches[t] += *h != bytes_of(o);
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(4, 0));
  for (int t = 0; t < 4; ++t) CHECK(misses[t] > 1000);  // the cache did evict, a lot
  CHECK(cache.usage() <= cache.capacity());
}
