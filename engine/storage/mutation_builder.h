// MutationBuilder: writes merged by Cassandra's rules before they are encoded. A CQL statement
// or BATCH names partitions and rows as it goes (a row set twice, a partition deletion plus
// rows, counter deltas) and merges them here, as Row objects; encode_to then turns the whole
// transaction into the one batch type the store takes, an EncodedBatch (encoded_batch.h).
// Timestamps may be kAutoTimestamp anywhere: the store assigns them when it applies the batch.
//
//   MutationBuilder builder;
//   builder.partition(table, key).rows.push_back({clustering, row});
//   CASSETTE_ASSIGN_OR_RETURN(int64_t timestamp, apply_mutations(*store, builder));
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/storage/encoded_batch.h"
#include "engine/storage/memtable.h"
#include "engine/storage/row.h"
#include "engine/util/status.h"

namespace cassette::storage {

class Store;
struct Snapshot;

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

class MutationBuilder {
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

  // Appends the updates to `batch`, partition by partition in updates() order: the partition
  // header, the static row, then the rows, each when not empty (the commit record's order,
  // FORMAT.md). Returns InvalidArgument for a partition key the store cannot take
  // (validate_partition_key: empty or over 65535 bytes), leaving `batch` as it was.
  Status encode_to(EncodedBatch* batch) const;

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

// The builder's writes as one transaction: encode_to, then Store::apply. Returns the
// transaction's timestamp.
Result<int64_t> apply_mutations(Store& store, const MutationBuilder& builder);

// Store::apply_prepared for a `prepare` that fills a builder (which it is given empty): under
// the store's write lock it reads through the snapshot and returns false to write nothing.
using PrepareMutations =
    std::function<Result<bool>(const Snapshot& snapshot, MutationBuilder& builder)>;
Result<std::optional<int64_t>> apply_prepared_mutations(Store& store,
                                                        const PrepareMutations& prepare);

}  // namespace cassette::storage
