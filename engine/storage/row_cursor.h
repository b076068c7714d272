// RowCursor: the read path's top layer. It merges the entries of every source of a table
// (memtables and SSTables), reconciles the versions of each row, applies partition deletions,
// range tombstones, row deletions and TTL expiry, and yields only what a reader sees: live rows in
// (token, partition key, clustering) order, or its reverse.
//
// A cursor reads one partition (optionally a clustering slice of it) or every partition of a key
// range (a token range scan). It is a stream: a LIMIT is the caller stopping early, so a slice
// of 50 rows reads a few blocks whatever the partition's size.
//
// Per row it copies nothing but the entry key: the sources stay positioned on the versions of the
// current entry key (the "group") until the cursor has decided whether it wants the row, and the
// row is then decoded straight from the sources' bytes (one source holding the key, the usual
// case, is decoded in place with no reconciliation at all).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/flat_row_values.h"
#include "engine/storage/row.h"

namespace cassette::storage {

struct ValueColumns;  // row_codec.h

// Which part of a table to read. Build with ReadSpec::partition() or ReadSpec::token_range().
struct ReadSpec {
  // One partition: its partition prefix (internal_key.h). Empty for a range scan.
  std::string partition_prefix;
  // A range scan: entry keys in [start_key, end_key); an empty end_key means "to the end".
  std::string start_key;
  std::string end_key;
  // Clustering slice: encoded clustering keys in [clustering_start, clustering_end);
  // an empty clustering_end means "to the last row".
  std::string clustering_start;
  std::string clustering_end;
  bool reverse = false;
  // Report a partition that has a live static row but no live rows as one row with an empty
  // clustering (Cassandra returns it when the query does not restrict clustering columns).
  bool emit_static_only = true;
  // Rows as a write merges into them (view maintenance, engine/cql/view_maintenance.h): each row
  // with the strongest deletion that applies to it (partition, range or its own) in its
  // `deletion`, its tombstones and expired cells kept, and also when nothing in it is live.
  // Single-partition reads; never served from the row cache.
  bool keep_deleted = false;
  // Decode only these columns' cell values (row_codec.h; the static row and the row cache keep
  // every value). Null: every column's. REQUIRES: outlives the read.
  const ValueColumns* value_columns = nullptr;

  bool single_partition() const { return !partition_prefix.empty(); }
};

// Token bounds of a range scan, as CQL's token(k) > a AND token(k) <= b say them.
struct TokenRange {
  std::optional<int64_t> start;  // none: from the smallest token
  bool start_inclusive = false;
  std::optional<int64_t> end;  // none: to the largest token
  bool end_inclusive = true;
  // Entry-key bounds [start_key, end_key); returns false when the range is empty.
  bool to_key_bounds(std::string* start_key, std::string* end_key) const;
};

struct CachedPartition;  // row_cache.h

class RowCursor {
 public:
  // Reads the rest of a partition past its cached head (Store::read).
  using ReadRest = std::function<std::unique_ptr<RowCursor>(ReadSpec spec)>;

  // `sources` iterate the table's entries; `lookups` are second iterators over those sources that
  // may hold partition headers or static rows (read without moving the main iterators).
  RowCursor(ReadSpec spec, std::vector<std::unique_ptr<EntryIterator>> sources,
            std::vector<std::unique_ptr<EntryIterator>> lookups, int64_t now_seconds);
  // A single-partition read served from the row cache (row_cache.h): the rows of `cached` in
  // the slice, then, when the slice goes past the cached head of an incomplete partition, the
  // rest from `rest`.
  RowCursor(ReadSpec spec, std::shared_ptr<const CachedPartition> cached, ReadRest rest);
  ~RowCursor();

  // Advances to the next live row. Returns false at the end or on error (see status()).
  bool next();
  // Skips the rest of the current partition; the next next() starts the following one.
  void skip_partition();
  Status status() const { return status_; }

  // The current row's partition. REQUIRES: next() returned true.
  int64_t token() const { return token_; }
  const std::string& partition_key() const { return partition_key_; }
  // Counts the partitions this cursor has entered (from 1): a caller that caches something per
  // partition compares this number instead of the partition key.
  uint64_t partition_number() const { return partition_number_; }
  const std::string& partition_prefix() const { return current_prefix_; }
  // The partition's live static row, or nullptr when it has none.
  const Row* static_row() const { return static_live_ ? static_view_ : nullptr; }
  // The partition's deletion and range tombstones (a single-partition read, once next() was
  // called: also when it found no row).
  const PartitionHeader& partition_header() const { return header_; }
  // True when this "row" stands for a partition with a static row and no live rows.
  bool is_static_only() const { return static_only_; }
  const std::string& clustering() const { return *clustering_view_; }
  const Row& row() const { return *row_view_; }
  // A read served from the row cache: the cached head's values (nullptr for any other read),
  // and the index among them of the current row (kNoCachedRow for a static-only row and for the
  // rows read past the cached head) and of the partition's static row.
  const FlatRowValues* cached_values() const { return cached_values_; }
  size_t cached_row() const { return cached_row_; }
  size_t cached_static_row() const { return cached_static_row_; }
  static constexpr size_t kNoCachedRow = SIZE_MAX;

 private:
  bool find_group();
  bool consume_group(Row* into, const DeletionTime& outer);
  bool is_current_row(std::string_view key) const;
  bool enter_partition(std::string_view prefix);
  bool merge_lookup(std::string_view key, std::vector<std::string>* values);
  bool in_bounds(std::string_view key) const;
  void position_sources();
  bool fail(Status status);
  bool next_cached();
  bool start_rest();

  ReadSpec spec_;
  std::vector<std::unique_ptr<EntryIterator>> sources_;
  std::vector<std::unique_ptr<EntryIterator>> lookups_;
  int64_t now_seconds_;
  std::string lower_;  // entry-key bounds of the whole read: [lower_, upper_)
  std::string upper_;
  bool started_ = false;
  bool done_ = false;
  Status status_;

  // The group: the entry key the sources in members_ are positioned on (each at its newest
  // version of it), not yet consumed. A group found past a partition boundary stays pending
  // while the cursor reports the previous partition as static-only.
  std::string_view group_view_;  // the group's key in the members' memory, until they move
  std::string group_key_;        // a copy of it while consume_group(nullptr) moves them
  std::vector<EntryIterator*> members_;
  bool group_pending_ = false;
  // When the last group had one source: that source, and the nearest key of the other sources
  // (a view into a source that has not moved since; none when they are all exhausted).
  EntryIterator* lone_source_ = nullptr;
  std::string_view runner_up_;
  bool has_runner_up_ = false;

  std::string current_prefix_;
  bool emitted_in_partition_ = false;
  int64_t token_ = 0;
  std::string partition_key_;
  uint64_t partition_number_ = 0;
  PartitionHeader header_;
  Row static_row_;
  bool static_live_ = false;
  bool static_only_ = false;
  std::string clustering_;
  Row row_;
  Row version_;  // scratch for a second version of a row, reused
  // What the accessors show: this cursor's own row, or a cached one, or the rest's.
  const Row* static_view_ = &static_row_;
  const std::string* clustering_view_ = &clustering_;
  const Row* row_view_ = &row_;

  // Served from the row cache: the rows [cached_next_, cached_end_) of `cached_` (in reverse:
  // down from cached_next_ to cached_end_), then `rest_` when the slice goes on past the head.
  std::shared_ptr<const CachedPartition> cached_;
  size_t cached_next_ = 0;
  size_t cached_end_ = 0;
  size_t cached_row_ = kNoCachedRow;
  const FlatRowValues* cached_values_ = nullptr;  // &cached_->flat
  size_t cached_static_row_ = 0;
  bool cached_started_ = false;
  bool cached_needs_rest_ = false;
  ReadRest rest_;
  std::unique_ptr<RowCursor> rest_cursor_;
};

}  // namespace cassette::storage
