// The data model of a partition, as Cassandra has it: cells with write timestamps, TTLs and
// tombstones; rows with a liveness marker and a deletion; complex (collection) columns made of one
// cell per element plus a collection-level deletion; counters as deltas merged by sum.
//
// Everything here is plain data plus the reconciliation rules of docs/ARCHITECTURE.md §2
// (Cassandra's Cells.reconcile, LivenessInfo.supersedes and DeletionTime.supersedes). Values are
// opaque bytes (Cassandra's serialized form); column ids are assigned by the schema layer.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/ids.h"

namespace cassette::storage {

constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::min();
constexpr int64_t kNoDeletionTime = std::numeric_limits<int64_t>::max();  // seconds
constexpr int64_t kMaxTtlSeconds = 630'720'000;                           // 20 years, as Cassandra

// A deletion: everything written at or before `marked_for_delete_at` (microseconds) is shadowed.
// `local_deletion_time` (seconds) is when it was issued; it becomes purgeable gc_grace later.
struct DeletionTime {
  int64_t marked_for_delete_at = kNoTimestamp;
  int64_t local_deletion_time = kNoDeletionTime;

  bool is_live() const { return marked_for_delete_at == kNoTimestamp; }  // "no deletion"
  bool deletes(int64_t timestamp) const { return !is_live() && timestamp <= marked_for_delete_at; }
  // Cassandra's DeletionTime.supersedes: higher timestamp, then later local deletion time.
  bool supersedes(const DeletionTime& other) const {
    return marked_for_delete_at > other.marked_for_delete_at ||
           (marked_for_delete_at == other.marked_for_delete_at &&
            local_deletion_time > other.local_deletion_time);
  }
  friend bool operator==(const DeletionTime&, const DeletionTime&) = default;
};

inline const DeletionTime& max_deletion(const DeletionTime& a, const DeletionTime& b) {
  return b.supersedes(a) ? b : a;
}

// The row marker INSERT writes (UPDATE does not): it keeps a row alive with no live cells.
struct LivenessInfo {
  int64_t timestamp = kNoTimestamp;
  int64_t ttl = 0;                                  // seconds; 0 = does not expire
  int64_t local_expiration_time = kNoDeletionTime;  // seconds, when ttl > 0

  // The marker an INSERT at `timestamp` writes: expiring `ttl` seconds after `now_seconds` when
  // ttl > 0 (as Cell::expiring).
  static LivenessInfo written(int64_t timestamp, int64_t ttl, int64_t now_seconds) {
    LivenessInfo out;
    out.timestamp = timestamp;
    if (ttl > 0) {
      out.ttl = ttl;
      out.local_expiration_time = now_seconds + ttl;
    }
    return out;
  }

  // Cassandra's expired liveness (LivenessInfo.EXPIRED_LIVENESS_TTL): what a materialized view
  // row gets when it loses its liveness without its cells being deleted (view_maintenance.h). It
  // is never live, wins over older and equal-timestamp markers, and is purged gc_grace after
  // `local_expiration_time` (when it was written). The strict form is for views whose key holds
  // a base regular column (Cassandra's enforceStrictLiveness): a row whose marker it is reads
  // as dead whatever its cells, and a row deletion does not remove it.
  static constexpr int64_t kExpiredTtl = 0x7fffffff;
  static constexpr int64_t kStrictExpiredTtl = 0x7ffffffe;
  static LivenessInfo expired(int64_t timestamp, int64_t now_seconds, bool strict) {
    LivenessInfo out;
    out.timestamp = timestamp;
    out.ttl = strict ? kStrictExpiredTtl : kExpiredTtl;
    out.local_expiration_time = now_seconds;
    return out;
  }
  bool is_expired_marker() const { return ttl >= kStrictExpiredTtl; }
  bool is_strict_marker() const { return ttl == kStrictExpiredTtl; }

  bool is_empty() const { return timestamp == kNoTimestamp; }
  bool is_expiring() const { return ttl > 0; }
  bool is_live(int64_t now_seconds) const {
    return !is_empty() &&
           (!is_expiring() || (now_seconds < local_expiration_time && !is_expired_marker()));
  }
  bool supersedes(const LivenessInfo& other) const;
  friend bool operator==(const LivenessInfo&, const LivenessInfo&) = default;
};

// One cell: a live value (maybe expiring), a tombstone, or a counter delta.
struct Cell {
  enum Flags : uint8_t {
    kTombstone = 1,
    kExpiring = 2,
    kCounter = 4,  // value is an 8-byte big-endian signed delta; merged by sum
  };
  uint8_t flags = 0;
  int64_t timestamp = kNoTimestamp;
  int64_t ttl = 0;  // seconds, for expiring cells
  int64_t local_deletion_time =
      kNoDeletionTime;  // tombstone: when deleted; expiring: when it expires
  std::string path;     // element key inside a complex column; empty otherwise
  std::string value;

  bool is_tombstone() const { return flags & kTombstone; }
  bool is_expiring() const { return flags & kExpiring; }
  bool is_counter() const { return flags & kCounter; }
  bool is_live(int64_t now_seconds) const {
    return !is_tombstone() && (!is_expiring() || now_seconds < local_deletion_time);
  }

  static Cell live(int64_t timestamp, std::string value, std::string path = {});
  static Cell expiring(int64_t timestamp, int64_t ttl, int64_t now_seconds, std::string value,
                       std::string path = {});
  static Cell tombstone(int64_t timestamp, int64_t now_seconds, std::string path = {});
  static Cell counter(int64_t timestamp, int64_t delta);
  int64_t counter_value() const;  // REQUIRES: is_counter() and not a tombstone

  friend bool operator==(const Cell&, const Cell&) = default;
};

// The sum of two counter deltas. Counters wrap around on overflow, as Java's longs do in
// Cassandra (a signed overflow would be undefined behaviour here).
inline int64_t add_counter_deltas(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// Cassandra's Cells.reconcile: returns the winner of two versions of the same cell (for counters,
// their merge). Deterministic and commutative, so sources may be merged in any order.
Cell reconcile_cells(const Cell& a, const Cell& b);

// A column of a row: one simple cell, or (complex) a collection deletion plus element cells
// sorted by path.
struct ColumnData {
  ColumnId id = 0;
  bool complex = false;
  Cell cell;                      // simple
  DeletionTime complex_deletion;  // complex
  std::vector<Cell> cells;        // complex, sorted by path, unique paths

  friend bool operator==(const ColumnData&, const ColumnData&) = default;
};

struct Row {
  LivenessInfo liveness;
  DeletionTime deletion;
  std::vector<ColumnData> columns;  // sorted by id, unique ids

  bool is_empty() const { return liveness.is_empty() && deletion.is_live() && columns.empty(); }
  // A row that a reader sees: a live marker or at least one live cell.
  bool has_live_data(int64_t now_seconds) const;
  const ColumnData* find_column(ColumnId id) const;
  friend bool operator==(const Row&, const Row&) = default;
};

// Merges `other` into `into`, rule by rule (liveness, deletion, cells, collection deletions).
void reconcile_rows(Row& into, const Row& other);

// A range tombstone over encoded clustering keys, as the half-open byte range [start, end):
// callers turn inclusive/exclusive prefix bounds into these bytes (see internal_key.h).
struct RangeTombstone {
  std::string start;
  std::string end;
  DeletionTime deletion;
  bool covers(std::string_view clustering) const {
    return clustering >= std::string_view(start) && clustering < std::string_view(end);
  }
  friend bool operator==(const RangeTombstone&, const RangeTombstone&) = default;
};

// Partition-level information: a partition deletion and the range tombstones.
struct PartitionHeader {
  DeletionTime deletion;
  std::vector<RangeTombstone> range_tombstones;  // sorted by (start, end); unique ranges

  bool is_empty() const { return deletion.is_live() && range_tombstones.empty(); }
  // The strongest deletion that applies to a clustering row (partition deletion or ranges).
  DeletionTime deletion_for(std::string_view clustering) const;
  friend bool operator==(const PartitionHeader&, const PartitionHeader&) = default;
};

void reconcile_headers(PartitionHeader& into, const PartitionHeader& other);

// Removes from `row` everything shadowed by `deletion` (and by the row's own deletion and
// collection deletions). Keeps tombstones: this is for merging, not for reading.
void apply_deletion(Row& row, const DeletionTime& deletion);

// What a reader sees: shadowed data, tombstones and expired cells removed. Returns false when
// nothing live is left.
bool purge_for_read(Row& row, const DeletionTime& outer_deletion, int64_t now_seconds);

// What compaction keeps: removes shadowed data, turns expired cells into tombstones, and drops
// tombstones whose local deletion time is before `gc_before` (seconds) when `may_purge(ts)` says
// no other source can hold older data they shadow. Returns false when the row became empty.
using MayPurge = std::function<bool(int64_t timestamp)>;
bool purge_for_compaction(Row& row, const DeletionTime& outer_deletion, int64_t now_seconds,
                          int64_t gc_before, const MayPurge& may_purge);

}  // namespace cassette::storage
