// SSTableReader: an open SSTable. open() checks the footer and reads the index summary, the
// bloom filter and the statistics into memory (each checksummed); data and index blocks are
// read on demand through the block cache, each verified against its checksum. Any damage is a
// Corruption status naming the file and the offset — never wrong data, never a crash. With a
// table cache the reader holds no descriptor of its own: it asks the cache for one whenever it
// reads from disk (table_cache.h), so the file must stay in place while the reader is used.
//
// Thread-safety: a reader and its iterators may be used from many threads at once (each
// iterator by one thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/sstable_format.h"
#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

class BlockCache;
class TableCache;

class SSTableReader {
 public:
  // `cache` may be nullptr (no caching); it must outlive the reader. Without `tables` the reader
  // keeps the file open for its whole life.
  static Result<std::shared_ptr<SSTableReader>> open(const std::string& path, BlockCache* cache,
                                                     std::shared_ptr<TableCache> tables = nullptr);
  ~SSTableReader();

  const std::string& path() const;
  uint64_t file_size() const;
  const SSTableStats& stats() const;

  // False when no entry of the partition (its partition prefix, internal_key.h) is in the file;
  // true means it may be.
  bool may_contain_partition(std::string_view partition_prefix) const;

  // Iterates every entry, in key order. Errors surface through status().
  std::unique_ptr<EntryIterator> new_iterator() const;

  // Reads every block and checks every checksum (used by tests and a future `verify` command).
  Status verify() const;

  struct Impl;                                 // sstable_reader_impl.h; shared with its iterator
  const Impl& impl() const { return *impl_; }  // for the SSTable code only (sstable_positions.h)

 private:
  explicit SSTableReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cassette::storage
