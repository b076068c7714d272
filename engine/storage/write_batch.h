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
  // Returns the update for (table, partition key), creating it at the end of updates(): updates
  // keep the order in which their partitions were first named. Amortized O(1): past a few
  // partitions a hash index finds them (a batch of thousands of rows must not search linearly).
  PartitionUpdate& partition(TableId table, std::string_view partition_key);
  const std::vector<PartitionUpdate>& updates() const { return updates_; }
  // Callers may reorder, replace or append updates through this; the next partition() call
  // rebuilds the index (so do not hold the reference across partition() calls).
  std::vector<PartitionUpdate>& mutable_updates() {
    index_stale_ = true;
    return updates_;
  }
  bool empty() const { return updates_.empty(); }
  void clear() {
    updates_.clear();
    slots_.clear();
    index_stale_ = false;
  }

  // Replaces every kAutoTimestamp with `timestamp`. Returns whether any was replaced.
  bool assign_timestamp(int64_t timestamp);

 private:
  // Open addressing, linear probing: each slot holds 1 + an index into updates_ (0 = empty) and
  // that update's hash. Empty until the batch has more than kLinearLimit partitions.
  struct Slot {
    uint64_t hash = 0;
    uint32_t index_plus_one = 0;
  };
  static constexpr size_t kLinearLimit = 8;
  static uint64_t hash_of(TableId table, std::string_view partition_key);
  void rebuild_index();
  void insert_slot(uint64_t hash, size_t index);

  std::vector<PartitionUpdate> updates_;
  std::vector<Slot> slots_;  // size 0 or a power of two, at most half full
  bool index_stale_ = false;
};

}  // namespace cassette::storage
