#include "engine/storage/write_batch.h"

namespace cassette::storage {

PartitionUpdate& WriteBatch::partition(TableId table, std::string_view partition_key) {
  for (PartitionUpdate& u : updates_) {
    if (u.table == table && u.partition_key == partition_key) return u;
  }
  PartitionUpdate& u = updates_.emplace_back();
  u.table = table;
  u.partition_key.assign(partition_key);
  return u;
}

namespace {

bool fix(int64_t* ts, int64_t timestamp) {
  if (*ts != kAutoTimestamp) return false;
  *ts = timestamp;
  return true;
}

bool assign_row(Row& row, int64_t timestamp) {
  bool any = fix(&row.liveness.timestamp, timestamp);
  any |= fix(&row.deletion.marked_for_delete_at, timestamp);
  for (ColumnData& col : row.columns) {
    any |= fix(&col.cell.timestamp, timestamp);
    any |= fix(&col.complex_deletion.marked_for_delete_at, timestamp);
    for (Cell& c : col.cells) any |= fix(&c.timestamp, timestamp);
  }
  return any;
}

}  // namespace

bool WriteBatch::assign_timestamp(int64_t timestamp) {
  bool any = false;
  for (PartitionUpdate& u : updates_) {
    any |= fix(&u.header.deletion.marked_for_delete_at, timestamp);
    for (RangeTombstone& rt : u.header.range_tombstones) {
      any |= fix(&rt.deletion.marked_for_delete_at, timestamp);
    }
    any |= assign_row(u.static_row, timestamp);
    for (ClusteringRow& r : u.rows) any |= assign_row(r.row, timestamp);
  }
  return any;
}

}  // namespace cassette::storage
