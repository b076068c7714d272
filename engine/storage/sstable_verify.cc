// SSTableReader::verify(): reads every block of the file past the cache, checks every checksum
// and every invariant of FORMAT.md "SSTable" that a reader otherwise takes on trust — keys
// strictly increasing, each data block inside its index key range, the summary matching the index
// blocks, every value decoding, the bloom filter holding every partition and the statistics
// block matching the data.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "engine/storage/block.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/sstable_reader_impl.h"
#include "engine/storage/sstable_stats.h"

namespace cassette::storage {
namespace {

bool same_stats(const SSTableStats& a, const SSTableStats& b) {
  return a.entries == b.entries && a.partitions == b.partitions && a.rows == b.rows &&
         a.headers == b.headers && a.static_rows == b.static_rows && a.tombstones == b.tombstones &&
         a.min_timestamp == b.min_timestamp && a.max_timestamp == b.max_timestamp &&
         a.max_local_deletion_time == b.max_local_deletion_time && a.first_key == b.first_key &&
         a.last_key == b.last_key && a.data_bytes == b.data_bytes;
}

// `block` read backwards gives `keys` (its keys read forwards) in reverse: backward reads and
// seeks go by the restart array, which a forward read never consults, so a restart point that is
// not the start of an entry sharing nothing with its predecessor shows only here.
Status verify_backwards(BlockIterator& block, const std::vector<std::string>& keys,
                        const SSTableReader::Impl& table, uint64_t offset) {
  size_t n = keys.size();
  for (block.seek_to_last(); block.valid(); block.prev()) {
    if (n == 0 || block.key() != keys[n - 1]) break;
    --n;
  }
  CASSETTE_RETURN_IF_ERROR(block.status());
  if (n != 0 || block.valid()) {
    return table.corruption("restart array does not match the entries of block", offset);
  }
  return Status::ok();
}

// Checks one data block, feeding its entries to `collector`.
Status verify_data_block(const SSTableReader::Impl& table, const BlockHandle& handle,
                         std::string_view low_index_key, bool has_low, std::string_view index_key,
                         SSTableStatsCollector* collector) {
  CASSETTE_ASSIGN_OR_RETURN(std::string bytes, table.read_block_uncached(handle));
  BlockIterator data;
  data.reset(std::make_shared<const std::string>(std::move(bytes)), &table.path, handle.offset);
  uint64_t entries = 0;
  std::vector<std::string> keys;
  for (data.seek_to_first(); data.valid(); data.next(), ++entries) {
    const std::string_view key = data.key();
    keys.emplace_back(key);
    if (collector->entries() > 0 && key <= std::string_view(collector->last_key())) {
      return table.corruption("entry keys out of order in data block", handle.offset);
    }
    if (key > index_key || (has_low && key <= low_index_key)) {
      return table.corruption("entry key outside its index key range in data block", handle.offset);
    }
    Result<bool> new_partition = collector->add(key, data.value());
    if (!new_partition.is_ok()) {
      return Status::corruption(fmt::format("{} (data block at offset {})",
                                            new_partition.status().message(), handle.offset));
    }
    if (*new_partition && !table.bloom.may_contain(collector->current_partition())) {
      return table.corruption("bloom filter misses a partition of the file", table.bloom_offset);
    }
  }
  CASSETTE_RETURN_IF_ERROR(data.status());
  if (entries == 0) return table.corruption("empty data block", handle.offset);
  return verify_backwards(data, keys, table, handle.offset);
}

}  // namespace

Status SSTableReader::verify() const {
  const Impl& table = *impl_;
  SSTableStatsCollector collector(&table.path);
  std::string previous_index_key;
  bool has_previous = false;
  for (size_t i = 0; i < table.summary_handles.size(); ++i) {
    const BlockHandle& index_handle = table.summary_handles[i];
    CASSETTE_ASSIGN_OR_RETURN(std::string bytes, table.read_block_uncached(index_handle));
    BlockIterator index;
    index.reset(std::make_shared<const std::string>(std::move(bytes)), &table.path,
                index_handle.offset);
    uint64_t index_entries = 0;
    std::vector<std::string> index_keys;
    for (index.seek_to_first(); index.valid(); index.next(), ++index_entries) {
      index_keys.emplace_back(index.key());
      if (has_previous && index.key() <= std::string_view(previous_index_key)) {
        return table.corruption("index keys out of order in index block", index_handle.offset);
      }
      std::string_view value = index.value();
      BlockHandle handle;
      if (!decode_block_handle(&value, &handle) || !value.empty()) {
        return table.corruption("malformed block handle in index block", index_handle.offset);
      }
      CASSETTE_RETURN_IF_ERROR(verify_data_block(table, handle, previous_index_key, has_previous,
                                                 index.key(), &collector));
      previous_index_key.assign(index.key());
      has_previous = true;
    }
    CASSETTE_RETURN_IF_ERROR(index.status());
    if (index_entries == 0) return table.corruption("empty index block", index_handle.offset);
    CASSETTE_RETURN_IF_ERROR(verify_backwards(index, index_keys, table, index_handle.offset));
    if (previous_index_key != table.summary_keys[i]) {
      return table.corruption("index summary does not match index block", index_handle.offset);
    }
  }
  if (!same_stats(collector.stats(), table.stats)) {
    return table.corruption("statistics block does not match the data", table.stats_offset);
  }
  return Status::ok();
}

}  // namespace cassette::storage
