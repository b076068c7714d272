// RowCache: Cassandra's row cache. For a table whose CQL `caching` option says
// `'rows_per_partition': 'N'` (or 'ALL'), a single-partition read keeps the head of the partition
// (its first N live rows in clustering order, and its static row) in memory, decoded, so the
// next read of a slice inside that head is served without touching a memtable or an SSTable.
// Off by default, as in Cassandra; the store's budget (StoreOptions::row_cache_bytes) is shared by
// every table, least recently used out first.
//
// Correctness rests on three rules (docs/ARCHITECTURE.md, "A read's path"):
//  - Every record that reaches a memtable (this process's commits and the records of other
//    processes replayed by catch-up) drops the cached partitions it writes, before it becomes
//    visible, and raises its table's write sequence. A partition read at a snapshot older than
//    that sequence is not cached (its read may have missed the write).
//  - Every manifest change that changes a table's data without a record (TRUNCATE, DROP, an
//    SSTable commit, another process's flush, compaction or truncate) drops the table's cached
//    partitions and raises the epoch, which a snapshot takes with its version: a partition read
//    at an older epoch is not cached. This process's own flushes and compactions change no data
//    and keep the cache.
//  - A cached partition serves a snapshot only when the snapshot is at least as new as the read
//    that filled it (sequence, epoch and clock), and only until the first of its cells or row
//    markers expires (TTLs are evaluated at read time: an expired head is read again).
// Reads that see uncommitted writes to the partition (a transaction's overlay) or a TRUNCATE of
// the table in the same transaction read around the cache.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/storage/flat_row_values.h"
#include "engine/storage/ids.h"
#include "engine/storage/memtable.h"
#include "engine/storage/row.h"

namespace cassette::storage {

// The head of one partition, as a read at (seq, epoch, now) saw it. Immutable once cached.
struct CachedPartition {
  int64_t token = 0;
  std::string partition_key;
  std::string prefix;  // partition_prefix(token, partition_key)
  bool has_static = false;
  Row static_row;
  std::vector<std::string> clustering;  // of each row, ascending
  std::vector<Row> rows;                // the first live rows, purged for reading
  bool complete = false;                // `rows` are all of the partition's live rows
  SequenceNumber seq = 0;
  uint64_t epoch = 0;
  int64_t read_at_seconds = 0;
  // The first second at which a cell or row marker of the head expires (kNoDeletionTime: none).
  int64_t expires_at = kNoDeletionTime;
  size_t bytes = 0;  // what it costs the budget (estimate_bytes)
  // The simple cells of `rows` (row i) and of the static row (row rows.size()), laid out for a
  // reader that asks for one value at a time (a hit hands them out without touching the Rows).
  FlatRowValues flat;

  // Sets expires_at, flat and bytes from the rows.
  void finish();
};

class RowCache {
 public:
  explicit RowCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}
  RowCache(const RowCache&) = delete;
  RowCache& operator=(const RowCache&) = delete;

  bool enabled() const { return capacity_ > 0; }

  // The table's rows_per_partition (0: not cached). A change drops what is cached of it.
  void set_table_rows(TableId table, uint64_t rows);
  uint64_t table_rows(TableId table) const;

  // The cached head of a partition that a snapshot at (seq, epoch, now) may use, or nullptr.
  // `rows` gets the table's rows_per_partition (0: the table is not cached).
  std::shared_ptr<const CachedPartition> lookup(TableId table, std::string_view prefix,
                                                SequenceNumber seq, uint64_t epoch,
                                                int64_t now_seconds, uint64_t* rows);
  // False while no table is cached: reads skip the cache without taking its lock.
  bool any_table_cached() const {
    return capacity_ > 0 && cached_tables_.load(std::memory_order_relaxed) > 0;
  }
  // Caches a head read at (entry->seq, entry->epoch), unless a write or a table-wide change came
  // after that read, the table is no longer cached, or it is larger than the budget allows.
  void insert(TableId table, std::shared_ptr<const CachedPartition> entry);

  // A record at `seq` writes these partitions of `table` (prefixes, in any order, repeats
  // allowed): called before the record becomes visible.
  void invalidate_partition(TableId table, std::string_view prefix, SequenceNumber seq);
  // The same for every entry of a record (entry keys, internal_key.h), under one lock.
  void invalidate_entries(const std::vector<Memtable::BatchEntry>& entries, SequenceNumber seq);
  // Table-wide changes. REQUIRES: under the store's view mutex, with the version change, so a
  // snapshot's epoch and version agree. Returns the new epoch.
  uint64_t invalidate_table(TableId table);
  uint64_t invalidate_all();
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

  size_t usage() const;
  uint64_t hits() const;
  uint64_t misses() const;

 private:
  struct Node {
    TableId table;
    std::shared_ptr<const CachedPartition> entry;
  };
  using Lru = std::list<Node>;  // most recently used first
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct TableState {
    uint64_t rows = 0;
    SequenceNumber last_write_seq = 0;  // the newest record that wrote the table
    uint64_t epoch = 0;                 // the newest table-wide change
    std::unordered_map<std::string, Lru::iterator, Hash, std::equal_to<>> partitions;
  };
  void erase_locked(TableState& state, Lru::iterator node);
  void drop_table_locked(TableState& state);

  const size_t capacity_;
  std::atomic<size_t> cached_tables_{0};  // tables with rows > 0
  mutable std::mutex mutex_;
  std::unordered_map<TableId, TableState> tables_;
  Lru lru_;
  size_t usage_ = 0;
  std::atomic<uint64_t> epoch_{0};  // written under mutex_ (and the store's view mutex)
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace cassette::storage
