// The state of an open SSTable, shared by SSTableReader (sstable_reader.cc) and its iterators
// (sstable_iterator.cc). Internal to the SSTable code. Immutable after open(), so any number of
// threads may read through it at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/block_cache.h"
#include "engine/storage/block_format.h"
#include "engine/storage/bloom_filter.h"
#include "engine/storage/sstable_format.h"
#include "engine/storage/sstable_reader.h"
#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

// The stored (compressed) bytes of a run of consecutive blocks, read in one pread by an iterator
// that walks blocks in order: a scan then costs one system call per window, not one per block.
struct ReadAhead {
  static constexpr size_t kWindowBytes = 256 << 10;
  uint64_t offset = 0;  // of bytes[0] in the file
  std::string bytes;
  bool covers(uint64_t at, size_t n) const {
    return at >= offset && at - offset <= bytes.size() && n <= bytes.size() - (at - offset);
  }
};

struct SSTableReader::Impl {
  std::string path;
  file::UniqueFd fd;
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

  // "sstable <path>: <what> at offset <offset>".
  Status corruption(std::string_view what, uint64_t offset) const;
  bool handle_in_range(const BlockHandle& handle) const;
  // Reads the block at `handle`, checks its checksum and decompresses it, bypassing the cache.
  // With `ahead`, the stored bytes come from (or are first read into) that window: `forward`
  // says which way the caller is walking, so the window starts (or ends) at this block.
  Result<std::string> read_block_uncached(const BlockHandle& handle, ReadAhead* ahead = nullptr,
                                          bool forward = true) const;
  // The same through the block cache (when there is one); `ahead` is used on a miss only.
  Result<BlockCache::Block> read_block(const BlockHandle& handle, ReadAhead* ahead = nullptr,
                                       bool forward = true) const;
};

}  // namespace cassette::storage
