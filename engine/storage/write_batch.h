// A write transaction: updates to any number of partitions of any tables, applied atomically
// (one commit-log record, one memtable sequence number). Timestamps equal to kAutoTimestamp are
// replaced, when the batch is applied, by one timestamp the store assigns under its write lock:
// max(now, last assigned + 1), so a batch has one timestamp (as a CQL BATCH does) and no two
// batches of a store ever share one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/storage/memtable.h"
#include "engine/storage/row.h"

namespace cassette::storage {

constexpr int64_t kAutoTimestamp = kNoTimestamp + 1;

struct ClusteringRow {
  std::string clustering;  // byte-comparable encoded clustering key
  Row row;
};

struct PartitionUpdate {
  TableId table = 0;
  std::string partition_key;  // Cassandra's serialized partition key (engine/types/partition_key.h)
  PartitionHeader header;     // partition deletion and range tombstones, if any
  Row static_row;             // empty when the update has none
  std::vector<ClusteringRow> rows;
};

class WriteBatch {
 public:
  // Returns the update for (table, partition key), creating it.
  PartitionUpdate& partition(TableId table, std::string_view partition_key);
  const std::vector<PartitionUpdate>& updates() const { return updates_; }
  std::vector<PartitionUpdate>& mutable_updates() { return updates_; }
  bool empty() const { return updates_.empty(); }
  void clear() { updates_.clear(); }

  // Replaces every kAutoTimestamp with `timestamp`. Returns whether any was replaced.
  bool assign_timestamp(int64_t timestamp);

 private:
  std::vector<PartitionUpdate> updates_;
};

}  // namespace cassette::storage
