// The statistics block of an SSTable (SSTableStats, sstable_format.h): how the writer gathers it
// from the entries it is given, and its bytes on disk.
//
//   stats = varint(entries) varint(partitions) varint(rows) varint(headers) varint(static rows)
//           varint(tombstones)
//           svarint(min timestamp) svarint(max timestamp) svarint(max local deletion time)
//           lp(first key) lp(last key) varint(data bytes)
#pragma once

#include <string>
#include <string_view>

#include "engine/storage/row.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sstable_format.h"
#include "engine/util/status.h"

namespace cassette::storage {

void encode_stats(const SSTableStats& stats, std::string* out);
// False when the bytes are malformed (or trailing bytes follow).
bool decode_stats(std::string_view in, SSTableStats* stats);

// Gathers the statistics of a file's entries, decoding each value as its entry kind says.
class SSTableStatsCollector {
 public:
  // `path` names the file in errors; it must outlive the collector.
  explicit SSTableStatsCollector(const std::string* path) : path_(path) {}

  // Notes one entry. REQUIRES: keys strictly increasing. Returns whether the entry starts a new
  // partition (then current_partition() is its prefix), or InvalidArgument — noting nothing —
  // when the key is not a well-formed entry key or the value does not decode.
  Result<bool> add(std::string_view key, std::string_view value);
  std::string_view current_partition() const;
  // The statistics so far (timestamps included).
  SSTableStats stats() const;
  uint64_t entries() const { return stats_.entries; }
  const std::string& last_key() const { return stats_.last_key; }

 private:
  const std::string* path_;
  SSTableStats stats_;  // everything but the timestamps, which times_ keeps
  RowTimes times_;
  size_t partition_length_ = 0;  // of the current partition's prefix in stats_.last_key
  Row row_;                      // decoding scratch
  PartitionHeader header_;
};

}  // namespace cassette::storage
