#include "engine/storage/sstable_stats.h"

#include <fmt/format.h>

#include "engine/storage/internal_key.h"
#include "engine/util/coding.h"

namespace cassette::storage {

void encode_stats(const SSTableStats& stats, std::string* out) {
  coding::put_varint64(out, stats.entries);
  coding::put_varint64(out, stats.partitions);
  coding::put_varint64(out, stats.rows);
  coding::put_varint64(out, stats.headers);
  coding::put_varint64(out, stats.static_rows);
  coding::put_varint64(out, stats.tombstones);
  coding::put_signed_varint64(out, stats.min_timestamp);
  coding::put_signed_varint64(out, stats.max_timestamp);
  coding::put_signed_varint64(out, stats.max_local_deletion_time);
  coding::put_length_prefixed(out, stats.first_key);
  coding::put_length_prefixed(out, stats.last_key);
  coding::put_varint64(out, stats.data_bytes);
}

bool decode_stats(std::string_view in, SSTableStats* stats) {
  std::string_view first, last;
  const bool ok =
      coding::get_varint64(&in, &stats->entries) && coding::get_varint64(&in, &stats->partitions) &&
      coding::get_varint64(&in, &stats->rows) && coding::get_varint64(&in, &stats->headers) &&
      coding::get_varint64(&in, &stats->static_rows) &&
      coding::get_varint64(&in, &stats->tombstones) &&
      coding::get_signed_varint64(&in, &stats->min_timestamp) &&
      coding::get_signed_varint64(&in, &stats->max_timestamp) &&
      coding::get_signed_varint64(&in, &stats->max_local_deletion_time) &&
      coding::get_length_prefixed(&in, &first) && coding::get_length_prefixed(&in, &last) &&
      coding::get_varint64(&in, &stats->data_bytes) && in.empty();
  if (!ok) return false;
  stats->first_key.assign(first);
  stats->last_key.assign(last);
  return true;
}

Result<bool> SSTableStatsCollector::add(std::string_view key, std::string_view value) {
  const size_t prefix = partition_prefix_length(key);
  if (prefix == 0 || prefix >= key.size()) {
    return Status::invalid_argument(fmt::format("sstable {}: malformed entry key", *path_));
  }
  const auto kind = static_cast<EntryKind>(key[prefix]);
  const unsigned kind_byte = static_cast<uint8_t>(key[prefix]);
  RowTimes times = times_;  // committed only when the value decodes
  bool decoded = false;
  switch (kind) {
    case EntryKind::kPartitionHeader:
      decoded = decode_header(value, &header_);
      if (decoded) collect_header_times(header_, &times);
      break;
    case EntryKind::kStaticRow:
    case EntryKind::kRow:
      decoded = decode_row(value, &row_);
      if (decoded) collect_row_times(row_, &times);
      break;
    default:
      return Status::invalid_argument(
          fmt::format("sstable {}: entry key of unknown kind {:#04x}", *path_, kind_byte));
  }
  if (!decoded) {
    return Status::invalid_argument(fmt::format(
        "sstable {}: entry value does not decode as its kind {:#04x} says", *path_, kind_byte));
  }
  times_ = times;
  const bool new_partition = stats_.entries == 0 || key.substr(0, prefix) != current_partition();
  if (new_partition) ++stats_.partitions;
  ++(kind == EntryKind::kRow         ? stats_.rows
     : kind == EntryKind::kStaticRow ? stats_.static_rows
                                     : stats_.headers);
  if (stats_.entries == 0) stats_.first_key.assign(key);
  stats_.last_key.assign(key);
  partition_length_ = prefix;
  ++stats_.entries;
  stats_.data_bytes += key.size() + value.size();
  return new_partition;
}

std::string_view SSTableStatsCollector::current_partition() const {
  return std::string_view(stats_.last_key).substr(0, partition_length_);
}

SSTableStats SSTableStatsCollector::stats() const {
  SSTableStats stats = stats_;
  stats.tombstones = times_.tombstones;
  stats.min_timestamp = times_.min_timestamp;
  stats.max_timestamp = times_.max_timestamp;
  stats.max_local_deletion_time = times_.max_local_deletion_time;
  return stats;
}

}  // namespace cassette::storage
