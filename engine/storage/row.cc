#include "engine/storage/row.h"

#include <algorithm>
#include <tuple>

#include "engine/util/coding.h"

namespace cassette::storage {

bool LivenessInfo::supersedes(const LivenessInfo& other) const {
  if (timestamp != other.timestamp) return timestamp > other.timestamp;
  // Equal timestamps: an expired marker (a view row's, see the header) wins.
  if (is_expired_marker() != other.is_expired_marker()) return is_expired_marker();
  // Equal timestamps: an expiring marker beats a non-expiring one (CASSANDRA-14592), and of two
  // expiring markers the one that expires last wins.
  if (is_expiring() == other.is_expiring()) {
    return is_expiring() && local_expiration_time > other.local_expiration_time;
  }
  return is_expiring();
}

Cell Cell::live(int64_t timestamp, std::string value, std::string path) {
  Cell c;
  c.timestamp = timestamp;
  c.value = std::move(value);
  c.path = std::move(path);
  return c;
}

Cell Cell::expiring(int64_t timestamp, int64_t ttl, int64_t now_seconds, std::string value,
                    std::string path) {
  Cell c = live(timestamp, std::move(value), std::move(path));
  c.flags = kExpiring;
  c.ttl = ttl;
  c.local_deletion_time = now_seconds + ttl;
  return c;
}

Cell Cell::tombstone(int64_t timestamp, int64_t now_seconds, std::string path) {
  Cell c;
  c.flags = kTombstone;
  c.timestamp = timestamp;
  c.local_deletion_time = now_seconds;
  c.path = std::move(path);
  return c;
}

Cell Cell::counter(int64_t timestamp, int64_t delta) {
  Cell c;
  c.flags = kCounter;
  c.timestamp = timestamp;
  coding::put_big_endian64(&c.value, static_cast<uint64_t>(delta));
  return c;
}

int64_t Cell::counter_value() const {
  if (value.size() != 8) return 0;
  return static_cast<int64_t>(coding::decode_big_endian64(value.data()));
}

namespace {

// The "deletion or expiry time" Cassandra compares; live non-expiring cells have none.
bool has_deletion_time(const Cell& c) {
  return c.is_tombstone() || c.is_expiring();
}

const Cell& resolve_regular(const Cell& left, const Cell& right) {
  if (left.timestamp != right.timestamp) return left.timestamp > right.timestamp ? left : right;
  bool left_dt = has_deletion_time(left);
  bool right_dt = has_deletion_time(right);
  if (left_dt || right_dt) {
    // A tombstone or expiring cell beats a plain live cell at the same timestamp.
    if (left_dt != right_dt) return left_dt ? left : right;
    // Between a tombstone and an expiring cell, the tombstone wins.
    if (left.is_tombstone() != right.is_tombstone()) return left.is_tombstone() ? left : right;
    // Two expiring cells (or two tombstones): the later deletion time wins.
    if (left.local_deletion_time != right.local_deletion_time) {
      return left.local_deletion_time > right.local_deletion_time ? left : right;
    }
  }
  // Last resort: the larger value, compared as unsigned bytes.
  return left.value >= right.value ? left : right;
}

}  // namespace

Cell reconcile_cells(const Cell& a, const Cell& b) {
  if (a.is_counter() || b.is_counter()) {
    // A counter tombstone always wins, whatever the timestamps (CASSANDRA-7346).
    if (a.is_tombstone() != b.is_tombstone()) return a.is_tombstone() ? a : b;
    if (a.is_tombstone()) return resolve_regular(a, b);
    Cell merged = a;
    merged.timestamp = std::max(a.timestamp, b.timestamp);
    merged.value.clear();
    coding::put_big_endian64(&merged.value, static_cast<uint64_t>(add_counter_deltas(
                                                a.counter_value(), b.counter_value())));
    return merged;
  }
  return resolve_regular(a, b);
}

bool Row::has_live_data(int64_t now_seconds) const {
  if (liveness.is_strict_marker()) return false;
  if (liveness.is_live(now_seconds)) return true;
  for (const ColumnData& col : columns) {
    if (!col.complex) {
      if (col.cell.is_live(now_seconds)) return true;
    } else {
      for (const Cell& c : col.cells) {
        if (c.is_live(now_seconds)) return true;
      }
    }
  }
  return false;
}

const ColumnData* Row::find_column(ColumnId id) const {
  // Most rows have a handful of columns: a forward scan, which can stop at the first larger id,
  // beats a binary search's unpredictable branches there (readers look a column up per value).
  if (columns.size() <= 8) {
    for (const ColumnData& c : columns) {
      if (c.id >= id) return c.id == id ? &c : nullptr;
    }
    return nullptr;
  }
  auto it = std::lower_bound(columns.begin(), columns.end(), id,
                             [](const ColumnData& c, ColumnId v) { return c.id < v; });
  return it != columns.end() && it->id == id ? &*it : nullptr;
}

namespace {

void reconcile_complex(ColumnData& into, const ColumnData& other) {
  into.complex_deletion = max_deletion(into.complex_deletion, other.complex_deletion);
  std::vector<Cell> merged;
  merged.reserve(into.cells.size() + other.cells.size());
  auto a = into.cells.begin();
  auto b = other.cells.begin();
  while (a != into.cells.end() || b != other.cells.end()) {
    if (b == other.cells.end() || (a != into.cells.end() && a->path < b->path)) {
      merged.push_back(std::move(*a++));
    } else if (a == into.cells.end() || b->path < a->path) {
      merged.push_back(*b++);
    } else {
      merged.push_back(reconcile_cells(*a++, *b++));
    }
  }
  into.cells = std::move(merged);
}

void reconcile_column(ColumnData& into, const ColumnData& other) {
  if (into.complex != other.complex) {
    // A column changed between simple and complex can only come from a schema bug; keep the
    // newer-looking one deterministically rather than mixing them.
    if (!into.complex) into = other;
    return;
  }
  if (into.complex) {
    reconcile_complex(into, other);
  } else if (!into.cell.is_counter() && !other.cell.is_counter()) {
    // The read path's common case: pick the winner, copying only when it is the other one.
    const Cell& winner = resolve_regular(into.cell, other.cell);
    if (&winner != &into.cell) into.cell = winner;
  } else {
    into.cell = reconcile_cells(into.cell, other.cell);
  }
}

}  // namespace

void reconcile_rows(Row& into, const Row& other) {
  if (other.liveness.supersedes(into.liveness)) into.liveness = other.liveness;
  into.deletion = max_deletion(into.deletion, other.deletion);
  // Versions of a row usually carry the same columns: reconcile them in place, allocating nothing.
  bool same_columns = into.columns.size() == other.columns.size();
  for (size_t i = 0; same_columns && i < into.columns.size(); ++i) {
    same_columns = into.columns[i].id == other.columns[i].id;
  }
  if (same_columns) {
    for (size_t i = 0; i < into.columns.size(); ++i)
      reconcile_column(into.columns[i], other.columns[i]);
    return;
  }
  std::vector<ColumnData> merged;
  merged.reserve(into.columns.size() + other.columns.size());
  auto a = into.columns.begin();
  auto b = other.columns.begin();
  while (a != into.columns.end() || b != other.columns.end()) {
    if (b == other.columns.end() || (a != into.columns.end() && a->id < b->id)) {
      merged.push_back(std::move(*a++));
    } else if (a == into.columns.end() || b->id < a->id) {
      merged.push_back(*b++);
    } else {
      ColumnData col = std::move(*a++);
      reconcile_column(col, *b++);
      merged.push_back(std::move(col));
    }
  }
  into.columns = std::move(merged);
}

DeletionTime PartitionHeader::deletion_for(std::string_view clustering) const {
  DeletionTime d = deletion;
  for (const RangeTombstone& rt : range_tombstones) {
    if (rt.covers(clustering)) d = max_deletion(d, rt.deletion);
  }
  return d;
}

void reconcile_headers(PartitionHeader& into, const PartitionHeader& other) {
  into.deletion = max_deletion(into.deletion, other.deletion);
  for (const RangeTombstone& rt : other.range_tombstones) {
    auto it = std::lower_bound(into.range_tombstones.begin(), into.range_tombstones.end(), rt,
                               [](const RangeTombstone& x, const RangeTombstone& y) {
                                 return std::tie(x.start, x.end) < std::tie(y.start, y.end);
                               });
    if (it != into.range_tombstones.end() && it->start == rt.start && it->end == rt.end) {
      it->deletion = max_deletion(it->deletion, rt.deletion);
    } else {
      into.range_tombstones.insert(it, rt);
    }
  }
}

void apply_deletion(Row& row, const DeletionTime& outer) {
  DeletionTime effective = max_deletion(outer, row.deletion);
  if (effective.is_live()) return;
  if (outer.deletes(row.deletion.marked_for_delete_at)) row.deletion = DeletionTime{};
  if (effective.deletes(row.liveness.timestamp) && !row.liveness.is_strict_marker()) {
    row.liveness = LivenessInfo{};
  }
  std::erase_if(row.columns, [&](ColumnData& col) {
    if (!col.complex) return effective.deletes(col.cell.timestamp);
    if (effective.deletes(col.complex_deletion.marked_for_delete_at)) {
      col.complex_deletion = DeletionTime{};
    }
    DeletionTime column_deletion = max_deletion(effective, col.complex_deletion);
    std::erase_if(col.cells, [&](const Cell& c) { return column_deletion.deletes(c.timestamp); });
    return col.cells.empty() && col.complex_deletion.is_live();
  });
}

bool purge_for_read(Row& row, const DeletionTime& outer, int64_t now_seconds) {
  // A strict view row without liveness is dead whatever its cells (row.h, LivenessInfo).
  if (row.liveness.ttl == LivenessInfo::kStrictExpiredTtl) [[unlikely]] {
    row = Row{};
    return false;
  }
  // The scan's common case, checked field by field: no deletion applies and every column is a
  // simple live cell, so nothing is removed.
  if (outer.marked_for_delete_at == kNoTimestamp &&
      row.deletion.marked_for_delete_at == kNoTimestamp) {
    row.deletion.local_deletion_time = kNoDeletionTime;
    if (!row.liveness.is_live(now_seconds)) row.liveness = LivenessInfo{};
    bool clean = true;
    for (const ColumnData& col : row.columns) {
      if (col.complex || !col.cell.is_live(now_seconds)) {
        clean = false;
        break;
      }
    }
    if (clean) return row.liveness.timestamp != kNoTimestamp || !row.columns.empty();
  }
  DeletionTime effective = max_deletion(outer, row.deletion);
  row.deletion = DeletionTime{};
  if (effective.deletes(row.liveness.timestamp) || !row.liveness.is_live(now_seconds)) {
    row.liveness = LivenessInfo{};
  }
  // The common case on the read path: simple live cells, nothing to remove.
  bool clean = true;
  for (const ColumnData& col : row.columns) {
    if (col.complex || effective.deletes(col.cell.timestamp) || !col.cell.is_live(now_seconds)) {
      clean = false;
      break;
    }
  }
  if (clean) return !row.liveness.is_empty() || !row.columns.empty();
  std::erase_if(row.columns, [&](ColumnData& col) {
    if (!col.complex) {
      return effective.deletes(col.cell.timestamp) || !col.cell.is_live(now_seconds);
    }
    DeletionTime column_deletion = max_deletion(effective, col.complex_deletion);
    col.complex_deletion = DeletionTime{};
    std::erase_if(col.cells, [&](const Cell& c) {
      return column_deletion.deletes(c.timestamp) || !c.is_live(now_seconds);
    });
    return col.cells.empty();
  });
  return !row.liveness.is_empty() || !row.columns.empty();
}

namespace {

// Expired cells become tombstones dated at their write (expiry - ttl), as Cassandra does, so they
// keep shadowing older versions until gc_grace has passed.
void expire_cell(Cell& c, int64_t now_seconds) {
  if (c.is_expiring() && now_seconds >= c.local_deletion_time) {
    int64_t written = c.local_deletion_time - c.ttl;
    c.flags = Cell::kTombstone;
    c.ttl = 0;
    c.local_deletion_time = written;
    c.value.clear();
  }
}

bool purgeable(const Cell& c, int64_t gc_before, const MayPurge& may_purge) {
  return c.is_tombstone() && c.local_deletion_time < gc_before && may_purge(c.timestamp);
}

}  // namespace

bool purge_for_compaction(Row& row, const DeletionTime& outer, int64_t now_seconds,
                          int64_t gc_before, const MayPurge& may_purge) {
  apply_deletion(row, outer);
  if (!row.deletion.is_live() && row.deletion.local_deletion_time < gc_before &&
      may_purge(row.deletion.marked_for_delete_at)) {
    row.deletion = DeletionTime{};
  }
  const LivenessInfo& li = row.liveness;
  if (li.is_expired_marker()) {
    // Purged as a tombstone written at local_expiration_time; a strict row goes with it (its
    // cells were dead with the marker: Cassandra's Row.purge under enforceStrictLiveness).
    if (li.local_expiration_time < gc_before && may_purge(li.timestamp)) {
      if (li.is_strict_marker()) row.columns.clear();
      row.liveness = LivenessInfo{};
    }
  } else if (li.is_expiring() && now_seconds >= li.local_expiration_time &&
             li.local_expiration_time - li.ttl < gc_before && may_purge(li.timestamp)) {
    row.liveness = LivenessInfo{};
  }
  std::erase_if(row.columns, [&](ColumnData& col) {
    if (!col.complex) {
      expire_cell(col.cell, now_seconds);
      return purgeable(col.cell, gc_before, may_purge);
    }
    const DeletionTime& cd = col.complex_deletion;
    if (!cd.is_live() && cd.local_deletion_time < gc_before && may_purge(cd.marked_for_delete_at)) {
      col.complex_deletion = DeletionTime{};
    }
    std::erase_if(col.cells, [&](Cell& c) {
      expire_cell(c, now_seconds);
      return purgeable(c, gc_before, may_purge);
    });
    return col.cells.empty() && col.complex_deletion.is_live();
  });
  return !row.is_empty();
}

}  // namespace cassette::storage
