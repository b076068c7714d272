#include "engine/storage/commit_record.h"

#include <algorithm>
#include <unordered_map>

#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/util/coding.h"

namespace cassette::storage {
namespace {

constexpr size_t kMaxPartitionKeyBytes = 0xFFFF;  // Cassandra's limit on a partition key
// A transaction's payload starts with its assigned timestamp, which the store never makes
// negative: records of the other kinds start with this instead, then their kind byte.
constexpr uint64_t kKindedRecord = ~uint64_t{0};

std::string kinded_record_start(RecordKind kind) {
  std::string out;
  coding::put_fixed64(&out, kKindedRecord);
  out.push_back(static_cast<char>(kind));
  return out;
}

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

Result<EncodedTransaction> encode_transaction(const EncodedBatch& batch,
                                              int64_t assigned_timestamp) {
  EncodedTransaction tx;
  tx.entries = batch.entry_count();
  std::string& out = tx.payload;
  // Restamping changes a timestamp's varint by a few bytes at most: one allocation, no regrowth.
  out.reserve(batch.byte_size() + batch.byte_size() / 8 + 64);
  coding::put_fixed64(&out, static_cast<uint64_t>(assigned_timestamp));
  const size_t min_at = out.size();
  coding::put_fixed64(&out, 0);  // the min timestamp, patched below
  coding::put_varint64(&out, tx.entries);
  int64_t min_timestamp = INT64_MAX;
  std::string value;
  std::string_view in = batch.body();
  for (size_t i = 0; i < tx.entries; ++i) {
    uint64_t table;
    std::string_view key, raw;
    if (!coding::get_varint64(&in, &table) || !coding::get_length_prefixed(&in, &key) ||
        !coding::get_length_prefixed(&in, &raw)) {
      return Status::invalid_argument("malformed encoded batch");
    }
    size_t prefix = partition_prefix_length(key);
    if (prefix == 0 || prefix >= key.size())
      return Status::invalid_argument("malformed entry key in a batch");
    const bool header = static_cast<EntryKind>(key[prefix]) == EntryKind::kPartitionHeader;
    value.clear();
    if (!restamp_value(raw, header, assigned_timestamp, &value, &min_timestamp)) {
      return Status::invalid_argument("malformed entry value in a batch");
    }
    put_entry(&out, table, key, value);
  }
  if (!in.empty()) return Status::invalid_argument("malformed encoded batch");
  std::string min_bytes;
  coding::put_fixed64(&min_bytes, static_cast<uint64_t>(min_timestamp));
  out.replace(min_at, 8, min_bytes);
  tx.min_timestamp = min_timestamp;
  return tx;
}

PartitionUpdateSize largest_partition_update(std::string_view payload) {
  PartitionUpdateSize largest;
  DecodedTransaction tx;
  if (!decode_transaction(payload, &tx)) return largest;
  // A partition's entries need not be adjacent (an SQL transaction writes rows as they come):
  // sum them per (table, partition prefix), looking up only when the partition changes. The
  // map's nodes stay put, so `current` and `max` remain valid as it grows.
  struct Partition {
    TableId table;
    std::string_view prefix;
    bool operator==(const Partition&) const = default;
  };
  struct Hash {
    size_t operator()(const Partition& p) const {
      return std::hash<std::string_view>()(p.prefix) ^ (p.table * 0x9E3779B97F4A7C15ull);
    }
  };
  std::unordered_map<Partition, size_t, Hash> sums;
  std::pair<const Partition, size_t>* current = nullptr;
  std::pair<const Partition, size_t>* max = nullptr;
  for (const TransactionEntry& e : tx.entries) {
    const Partition partition{e.table, e.key.substr(0, partition_prefix_length(e.key))};
    if (current == nullptr || !(current->first == partition)) {
      current = &*sums.try_emplace(partition, 0).first;
    }
    current->second += e.key.size() + e.value.size();
    if (max == nullptr || current->second > max->second) max = current;
  }
  int64_t token;
  if (max == nullptr ||
      !decode_partition_prefix(max->first.prefix, &token, &largest.partition_key)) {
    return largest;
  }
  largest.table = max->first.table;
  largest.bytes = max->second;
  return largest;
}

bool decode_transaction(std::string_view payload, DecodedTransaction* out) {
  out->entries.clear();
  uint64_t ts = 0, min_ts = 0, count = 0;
  if (!coding::get_fixed64(&payload, &ts) || !coding::get_fixed64(&payload, &min_ts) ||
      !coding::get_varint64(&payload, &count) || count > payload.size()) {
    return false;
  }
  out->entries.reserve(count);
  out->assigned_timestamp = static_cast<int64_t>(ts);
  out->min_timestamp = static_cast<int64_t>(min_ts);
  out->has_partition_metadata = false;
  for (uint64_t i = 0; i < count; ++i) {
    TransactionEntry e{};
    if (!coding::get_varint64(&payload, &e.table) ||
        !coding::get_length_prefixed(&payload, &e.key) ||
        !coding::get_length_prefixed(&payload, &e.value)) {
      return false;
    }
    const size_t prefix = partition_prefix_length(e.key);
    if (prefix == 0) return false;
    // A key without its kind byte counts as metadata: reads then merely look for some.
    out->has_partition_metadata |=
        prefix >= e.key.size() || static_cast<EntryKind>(e.key[prefix]) != EntryKind::kRow;
    out->entries.push_back(e);
  }
  return payload.empty();
}

std::string encode_prepared_record(std::string_view host_tag, const std::vector<TableId>& truncate,
                                   std::string_view transaction) {
  std::string out = kinded_record_start(RecordKind::kPrepared);
  coding::put_length_prefixed(&out, host_tag);
  coding::put_varint64(&out, truncate.size());
  for (TableId table : truncate) coding::put_varint64(&out, table);
  out.append(transaction);
  return out;
}

std::string encode_prepared_files_record(std::string_view host_tag,
                                         const std::vector<TableId>& truncate, int64_t timestamp,
                                         const std::vector<ManifestFile>& files) {
  std::string out = kinded_record_start(RecordKind::kPreparedFiles);
  coding::put_length_prefixed(&out, host_tag);
  coding::put_varint64(&out, truncate.size());
  for (TableId table : truncate) coding::put_varint64(&out, table);
  coding::put_fixed64(&out, static_cast<uint64_t>(timestamp));
  coding::put_varint64(&out, files.size());
  for (const ManifestFile& f : files) {
    coding::put_varint64(&out, f.table);
    coding::put_fixed64(&out, f.file_id);
    coding::put_fixed64(&out, f.size);
  }
  return out;
}

std::string encode_decision_record(RecordKind kind, DecidedPosition prepared,
                                   std::string_view transaction) {
  std::string out = kinded_record_start(kind);
  coding::put_fixed64(&out, prepared.segment);
  coding::put_fixed64(&out, prepared.offset);
  out.append(transaction);
  return out;
}

bool decode_log_record(std::string_view payload, LogRecord* out) {
  *out = LogRecord{};
  if (payload.size() < 9 || coding::decode_fixed64(payload.data()) != kKindedRecord) {
    out->transaction = payload;
    return true;
  }
  out->kind = static_cast<RecordKind>(payload[8]);
  payload.remove_prefix(9);
  switch (out->kind) {
    case RecordKind::kPrepared:
    case RecordKind::kPreparedFiles: {
      uint64_t count = 0;
      if (!coding::get_length_prefixed(&payload, &out->host_tag) ||
          !coding::get_varint64(&payload, &count) || count > payload.size()) {
        return false;
      }
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t table = 0;
        if (!coding::get_varint64(&payload, &table)) return false;
        out->truncate.push_back(table);
      }
      if (out->kind == RecordKind::kPrepared) {
        out->transaction = payload;
        return true;
      }
      uint64_t timestamp = 0, files = 0;
      if (!coding::get_fixed64(&payload, &timestamp) || !coding::get_varint64(&payload, &files) ||
          files == 0 || files > payload.size()) {
        return false;
      }
      out->timestamp = static_cast<int64_t>(timestamp);
      for (uint64_t i = 0; i < files; ++i) {
        ManifestFile f;
        if (!coding::get_varint64(&payload, &f.table) ||
            !coding::get_fixed64(&payload, &f.file_id) || !coding::get_fixed64(&payload, &f.size)) {
          return false;
        }
        out->files.push_back(f);
      }
      return payload.empty();
    }
    case RecordKind::kCommitPrepared:
    case RecordKind::kAbortPrepared:
    case RecordKind::kCommitPreparedFiles:
      if (!coding::get_fixed64(&payload, &out->prepared.segment) ||
          !coding::get_fixed64(&payload, &out->prepared.offset)) {
        return false;
      }
      out->transaction = payload;
      return out->kind == RecordKind::kCommitPrepared || payload.empty();
    default:
      return false;
  }
}

}  // namespace cassette::storage
