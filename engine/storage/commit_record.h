// The payload of one commit-log record: a whole write transaction as the memtable entries it
// adds, plus the timestamp the store assigned. Replaying a record = adding its entries to the
// memtable under one sequence number. Layout in FORMAT.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/encoded_batch.h"
#include "engine/storage/memtable.h"
#include "engine/util/status.h"

namespace cassette::storage {

struct EncodedTransaction {
  std::string payload;
  int64_t min_timestamp = INT64_MAX;  // of everything written (purge decisions)
  size_t entries = 0;
};

// Cassandra's limits on a partition key: not empty, at most 65535 bytes.
Status validate_partition_key(std::string_view partition_key);

// Turns a batch into a record payload: its entries copied, each kAutoTimestamp replaced by
// `assigned_timestamp`. Returns InvalidArgument for a malformed key or value.
Result<EncodedTransaction> encode_transaction(const EncodedBatch& batch,
                                              int64_t assigned_timestamp);

// One partition's share of a record: what Cassandra calls a mutation (the updates to one
// partition key), whose size a store limits (StoreOptions::max_mutation_bytes).
struct PartitionUpdateSize {
  TableId table = 0;
  std::string partition_key;  // serialized (engine/types/partition_key.h)
  size_t bytes = 0;           // of its entries' keys and values in the record
};
// The largest partition update of a record payload (encode_transaction's), or one of 0 bytes
// when the payload does not decode.
PartitionUpdateSize largest_partition_update(std::string_view payload);

using TransactionEntry = Memtable::BatchEntry;
struct DecodedTransaction {
  int64_t assigned_timestamp = 0;
  int64_t min_timestamp = INT64_MAX;
  std::vector<TransactionEntry> entries;  // pointing into the payload
  bool has_partition_metadata = false;    // a partition header or static row among them
};
// Splits a payload into its entries; returns false when it is malformed, so a caller applies a
// record whole or not at all.
bool decode_transaction(std::string_view payload, DecodedTransaction* out);

}  // namespace cassette::storage
