// The state of an open SSTable, shared by SSTableReader (sstable_reader.cc) and its iterators
// (sstable_iterator.cc). Internal to the SSTable code. Immutable after open(), so any number of
// threads may read through it at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/block_cache.h"
#include "engine/storage/block_format.h"
#include "engine/storage/bloom_filter.h"
#include "engine/storage/sstable_format.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/table_cache.h"
#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

// What an iterator walking blocks in order (a scan) keeps between blocks:
// - the stored (compressed) bytes of a run of consecutive blocks, read in one pread: one system
//   call per window, not one per block;
// - the buffers it decompresses blocks into. A scan does not evict cached blocks for its own
//   (BlockCache::admit_if_room), so most of what it reads lands in these, reused block after
//   block: no allocation, zero-fill or cache upkeep per block.
struct ReadAhead {
  static constexpr size_t kWindowBytes = 256 << 10;
  uint64_t offset = 0;  // of bytes[0] in the file
  std::string bytes;
  bool covers(uint64_t at, size_t n) const {
    return at >= offset && at - offset <= bytes.size() && n <= bytes.size() - (at - offset);
  }

  // A buffer nobody else holds. Two take turns: the iterator still holds the block it is leaving
  // while the next one is decompressed. One still shared (the cache took it, a caller kept the
  // block) is left to its holders and replaced.
  std::shared_ptr<std::string> free_buffer() {
    for (auto& b : buffers) {
      if (b && b.use_count() == 1) return b;
    }
    auto& slot = buffers[turn_++ % 2];
    slot = std::make_shared<std::string>();
    return slot;
  }

 private:
  std::shared_ptr<std::string> buffers[2];
  unsigned turn_ = 0;
};

struct SSTableReader::Impl {
  ~Impl();

  std::string path;
  // The file's descriptor: asked of the table cache for each read from disk when there is one
  // (`table_id` is the file's key there), else held open here for the reader's life.
  std::shared_ptr<TableCache> tables;
  uint64_t table_id = 0;
  TableCache::Handle own_fd;
  uint64_t size = 0;
  uint64_t blocks_end = 0;  // where the footer starts: every block ends at or before it
  BlockCache* cache = nullptr;
  uint64_t cache_id = 0;
  // The index summary: index block i holds the index entries with keys up to summary_keys[i].
  std::vector<std::string> summary_keys;
  std::vector<BlockHandle> summary_handles;
  BloomFilter bloom;
  SSTableStats stats;
  uint64_t bloom_offset = 0;  // of the meta blocks, for errors
  uint64_t stats_offset = 0;

  // The open descriptor, for one read: do not keep the handle longer (table_cache.h).
  Result<TableCache::Handle> descriptor() const;
  // "sstable <path>: <what> at offset <offset>".
  Status corruption(std::string_view what, uint64_t offset) const;
  bool handle_in_range(const BlockHandle& handle) const;
  // Reads the block at `handle`, checks its checksum and decompresses it, bypassing the cache.
  Result<std::string> read_block_uncached(const BlockHandle& handle) const;
  // The same into `out`, overwritten whole (a reused buffer keeps its allocation).
  Status read_block_into(const BlockHandle& handle, std::string* out) const;
  // The same through the block cache (when there is one), with the block's restart array checked
  // (check_block, block.h) before it is cached or returned. With `ahead` (a walk from block to
  // block: `forward` says which way), a miss is read through that window, decompressed into one
  // of its buffers and offered to the cache only where it has free room.
  Result<BlockCache::Block> read_block(const BlockHandle& handle, ReadAhead* ahead = nullptr,
                                       bool forward = true) const;

 private:
  Status out_of_range(const BlockHandle& handle) const;
  // The stored bytes (payload and trailer) of the block at `handle`, a view of `ahead`'s window,
  // read first when it does not cover the block: a window from this block towards `forward`.
  Result<std::string_view> stored_in_window(const BlockHandle& handle, ReadAhead* ahead,
                                            bool forward) const;
};

}  // namespace cassette::storage
