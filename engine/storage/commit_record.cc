#include "engine/storage/commit_record.h"

#include <algorithm>

#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/types/murmur3.h"
#include "engine/util/coding.h"

namespace cassette::storage {
namespace {

constexpr size_t kMaxPartitionKeyBytes = 0xFFFF;  // Cassandra's limit on a partition key

void put_entry(std::string* out, TableId table, std::string_view key, std::string_view value) {
  coding::put_varint64(out, table);
  coding::put_length_prefixed(out, key);
  coding::put_length_prefixed(out, value);
}

}  // namespace

Status validate_partition_key(std::string_view partition_key) {
  if (partition_key.empty()) return Status::invalid_argument("Key may not be empty");
  if (partition_key.size() > kMaxPartitionKeyBytes) {
    return Status::invalid_argument(fmt::format("Key length of {} is longer than maximum of {}",
                                                partition_key.size(), kMaxPartitionKeyBytes));
  }
  return Status::ok();
}

Result<EncodedTransaction> encode_transaction(const WriteBatch& batch, int64_t assigned_timestamp) {
  EncodedTransaction tx;
  std::string body;
  std::string value;
  RowTimes times;
  for (const PartitionUpdate& u : batch.updates()) {
    CASSETTE_RETURN_IF_ERROR(validate_partition_key(u.partition_key));
    std::string prefix = partition_prefix(types::murmur3_token(u.partition_key), u.partition_key);
    if (!u.header.is_empty()) {
      value.clear();
      encode_header(u.header, &value);
      collect_header_times(u.header, &times);
      put_entry(&body, u.table, entry_key(prefix, EntryKind::kPartitionHeader), value);
      ++tx.entries;
    }
    if (!u.static_row.is_empty()) {
      value.clear();
      encode_row(u.static_row, &value);
      collect_row_times(u.static_row, &times);
      put_entry(&body, u.table, entry_key(prefix, EntryKind::kStaticRow), value);
      ++tx.entries;
    }
    for (const ClusteringRow& r : u.rows) {
      if (r.row.is_empty()) continue;
      value.clear();
      encode_row(r.row, &value);
      collect_row_times(r.row, &times);
      put_entry(&body, u.table, entry_key(prefix, EntryKind::kRow, r.clustering), value);
      ++tx.entries;
    }
  }
  coding::put_fixed64(&tx.payload, static_cast<uint64_t>(assigned_timestamp));
  coding::put_fixed64(&tx.payload, static_cast<uint64_t>(times.min_timestamp));
  coding::put_varint64(&tx.payload, tx.entries);
  tx.payload += body;
  tx.min_timestamp = times.min_timestamp;
  return tx;
}

bool decode_transaction(std::string_view payload, DecodedTransaction* out) {
  out->entries.clear();
  uint64_t ts = 0, min_ts = 0, count = 0;
  if (!coding::get_fixed64(&payload, &ts) || !coding::get_fixed64(&payload, &min_ts) ||
      !coding::get_varint64(&payload, &count) || count > payload.size()) {
    return false;
  }
  out->assigned_timestamp = static_cast<int64_t>(ts);
  out->min_timestamp = static_cast<int64_t>(min_ts);
  for (uint64_t i = 0; i < count; ++i) {
    TransactionEntry e{};
    if (!coding::get_varint64(&payload, &e.table) || !coding::get_length_prefixed(&payload, &e.key) ||
        !coding::get_length_prefixed(&payload, &e.value) || partition_prefix_length(e.key) == 0) {
      return false;
    }
    out->entries.push_back(e);
  }
  return payload.empty();
}

}  // namespace cassette::storage
