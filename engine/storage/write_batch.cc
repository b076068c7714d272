#include "engine/storage/write_batch.h"

#include <functional>

namespace cassette::storage {

uint64_t WriteBatch::hash_of(TableId table, std::string_view partition_key) {
  uint64_t h = std::hash<std::string_view>{}(partition_key);
  return h ^ (table * 0x9E3779B97F4A7C15ull);
}

void WriteBatch::insert_slot(uint64_t hash, size_t index) {
  size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].index_plus_one != 0) i = (i + 1) & mask;
  slots_[i] = Slot{hash, static_cast<uint32_t>(index + 1)};
}

void WriteBatch::rebuild_index() {
  size_t capacity = 64;
  while (capacity < updates_.size() * 2 + 2) capacity *= 2;
  slots_.assign(capacity, Slot{});
  for (size_t i = 0; i < updates_.size(); ++i) {
    insert_slot(hash_of(updates_[i].table, updates_[i].partition_key), i);
  }
  index_stale_ = false;
}

PartitionUpdate& WriteBatch::partition(TableId table, std::string_view partition_key) {
  auto append = [&]() -> PartitionUpdate& {
    PartitionUpdate& u = updates_.emplace_back();
    u.table = table;
    u.partition_key.assign(partition_key);
    return u;
  };
  if (slots_.empty() && updates_.size() <= kLinearLimit) {
    for (PartitionUpdate& u : updates_) {
      if (u.table == table && u.partition_key == partition_key) return u;
    }
    return append();
  }
  if (slots_.empty() || index_stale_) rebuild_index();
  uint64_t hash = hash_of(table, partition_key);
  size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i].index_plus_one != 0; i = (i + 1) & mask) {
    if (slots_[i].hash != hash) continue;
    PartitionUpdate& u = updates_[slots_[i].index_plus_one - 1];
    if (u.table == table && u.partition_key == partition_key) return u;
  }
  if ((updates_.size() + 1) * 2 > slots_.size()) {
    PartitionUpdate& u = append();
    rebuild_index();  // doubles the table
    return u;
  }
  insert_slot(hash, updates_.size());
  return append();
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
