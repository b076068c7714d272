// Materialized view maintenance (view_maintenance.h): base rows before and after a write, and the
// view rows that differ between them.
#include "engine/cql/view_maintenance.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/codec/table_codec.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/row_cursor.h"
#include "engine/txn/transaction.h"
#include "engine/types/byte_comparable.h"

namespace cassette::cql {

namespace {

using storage::Cell;
using storage::ColumnData;
using storage::DeletionTime;
using storage::LivenessInfo;
using storage::Row;

// kAutoTimestamp (the store's timestamp, assigned at commit) is the lowest timestamp as a number,
// but the newest write in fact: while rows are merged it stands in as the highest.
constexpr int64_t kAutoHigh = std::numeric_limits<int64_t>::max() - 1;

int64_t raise_auto(int64_t timestamp) {
  return timestamp == storage::kAutoTimestamp ? kAutoHigh : timestamp;
}
int64_t lower_auto(int64_t timestamp) {
  return timestamp == kAutoHigh ? storage::kAutoTimestamp : timestamp;
}

void map_cell(Cell& cell, int64_t (*map)(int64_t)) {
  cell.timestamp = map(cell.timestamp);
}
void map_deletion(DeletionTime& deletion, int64_t (*map)(int64_t)) {
  if (!deletion.is_live()) deletion.marked_for_delete_at = map(deletion.marked_for_delete_at);
}
void map_row(Row& row, int64_t (*map)(int64_t)) {
  if (!row.liveness.is_empty()) row.liveness.timestamp = map(row.liveness.timestamp);
  map_deletion(row.deletion, map);
  for (ColumnData& column : row.columns) {
    map_cell(column.cell, map);
    map_deletion(column.complex_deletion, map);
    for (Cell& cell : column.cells) map_cell(cell, map);
  }
}

// The newest timestamp a partition update writes (a deletion's included): the base write's.
int64_t write_timestamp(const storage::PartitionUpdate& update) {
  int64_t newest = storage::kNoTimestamp;
  auto see = [&](int64_t t) { newest = std::max(newest, raise_auto(t)); };
  if (!update.header.deletion.is_live()) see(update.header.deletion.marked_for_delete_at);
  for (const storage::RangeTombstone& rt : update.header.range_tombstones) {
    see(rt.deletion.marked_for_delete_at);
  }
  for (const storage::ClusteringRow& row : update.rows) {
    if (!row.row.liveness.is_empty()) see(row.row.liveness.timestamp);
    if (!row.row.deletion.is_live()) see(row.row.deletion.marked_for_delete_at);
    for (const ColumnData& column : row.row.columns) {
      if (column.complex) {
        if (!column.complex_deletion.is_live()) see(column.complex_deletion.marked_for_delete_at);
        for (const Cell& cell : column.cells) see(cell.timestamp);
      } else {
        see(column.cell.timestamp);
      }
    }
  }
  return newest;
}

// Where a view's columns come from in its base table, worked out once per view and write.
struct ViewShape {
  const schema::TableDef* view = nullptr;
  // Per view key column, in the view's key order: the base column it is.
  std::vector<const schema::ColumnDef*> partition_sources;
  std::vector<const schema::ColumnDef*> clustering_sources;
  const schema::ColumnDef* regular_key = nullptr;  // K: a base regular column in the view's key
  // The view's non-key columns: (base column id, view column id), by view column id.
  std::vector<std::pair<storage::ColumnId, storage::ColumnId>> cells;
};

ViewShape shape_of(const schema::TableDef& base, const schema::TableDef& view) {
  ViewShape shape;
  shape.view = &view;
  auto source = [&](const schema::ColumnDef* column) {
    const schema::ColumnDef* from = base.find_column(column->name);
    if (from != nullptr && !from->is_primary_key()) shape.regular_key = from;
    return from;
  };
  for (const schema::ColumnDef* column : view.partition_key()) {
    shape.partition_sources.push_back(source(column));
  }
  for (const schema::ColumnDef* column : view.clustering()) {
    shape.clustering_sources.push_back(source(column));
  }
  for (const schema::ColumnDef& column : view.columns) {
    if (column.is_primary_key()) continue;
    const schema::ColumnDef* from = base.find_column(column.name);
    if (from != nullptr) shape.cells.emplace_back(from->id, column.id);
  }
  std::sort(shape.cells.begin(), shape.cells.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  return shape;
}

// A base row's key values, decoded once.
struct BaseKey {
  std::vector<std::string> partition;
  std::vector<std::string> clustering;
};

struct ViewKey {
  std::string partition_key;
  std::string clustering;
  friend bool operator==(const ViewKey&, const ViewKey&) = default;
};

// The live cell of simple column `id` in `row`, or nullptr.
const Cell* live_cell(const Row& row, storage::ColumnId id, int64_t now_seconds) {
  const ColumnData* data = row.find_column(id);
  if (data == nullptr || data->complex || !data->cell.is_live(now_seconds)) return nullptr;
  return &data->cell;
}

// The view row's key for base row `row` (nullopt: no view row: the row is dead or K is null).
Result<std::optional<ViewKey>> view_key(const ViewShape& shape, const BaseKey& key,
                                        const std::optional<Row>& row, int64_t now_seconds) {
  if (!row || !row->has_live_data(now_seconds)) return std::optional<ViewKey>();
  auto value_of = [&](const schema::ColumnDef* from) -> std::optional<std::string> {
    if (from->kind == schema::ColumnKind::kPartitionKey) return key.partition[from->position];
    if (from->kind == schema::ColumnKind::kClustering) return key.clustering[from->position];
    const Cell* cell = live_cell(*row, from->id, now_seconds);
    if (cell == nullptr) return std::nullopt;
    return cell->value;
  };
  std::vector<std::string> partition;
  std::vector<std::string> clustering;
  for (const schema::ColumnDef* from : shape.partition_sources) {
    std::optional<std::string> value = value_of(from);
    if (!value) return std::optional<ViewKey>();
    partition.push_back(std::move(*value));
  }
  for (const schema::ColumnDef* from : shape.clustering_sources) {
    std::optional<std::string> value = value_of(from);
    if (!value) return std::optional<ViewKey>();
    clustering.push_back(std::move(*value));
  }
  // An empty partition key cannot be stored: such a base row has no view row (as Cassandra).
  if (partition.size() == 1 && partition[0].empty()) return std::optional<ViewKey>();
  ViewKey out;
  out.partition_key = partition_key_bytes(partition);
  CASSETTE_ASSIGN_OR_RETURN(out.clustering, clustering_key_bytes(*shape.view, clustering));
  return std::optional<ViewKey>(std::move(out));
}

// The liveness of the view row of `after` when the view's key is the base key: the base row's
// marker, kept alive by the base row's live cells in columns the view does not select (Cassandra's
// "virtual cells", ViewUpdateGenerator.computeLivenessInfoForEntry): a base row that lives only
// by such a cell has a view row too, with that cell's timestamp, and expiring only when every
// such cell expires (then with the latest of them).
LivenessInfo base_key_liveness(const ViewShape& shape, const Row& after, int64_t now_seconds) {
  const LivenessInfo& base = after.liveness;
  int64_t timestamp = base.timestamp;
  bool non_expiring = false;
  const Cell* latest_expiring = nullptr;
  auto see = [&](const Cell& cell) {
    if (!cell.is_live(now_seconds)) return;
    timestamp = std::max(timestamp, cell.timestamp);
    if (!cell.is_expiring()) {
      non_expiring = true;
    } else if (latest_expiring == nullptr ||
               cell.local_deletion_time > latest_expiring->local_deletion_time) {
      latest_expiring = &cell;
    }
  };
  for (const ColumnData& data : after.columns) {
    const bool selected = std::any_of(shape.cells.begin(), shape.cells.end(),
                                      [&](const auto& ids) { return ids.first == data.id; });
    if (selected) continue;
    if (data.complex) {
      for (const Cell& cell : data.cells) see(cell);
    } else {
      see(data.cell);
    }
  }
  if ((base.is_live(now_seconds) && !base.is_expiring()) || non_expiring) {
    LivenessInfo out;
    out.timestamp = timestamp;
    return out;
  }
  if (latest_expiring == nullptr) return base;
  if (!base.is_live(now_seconds) ||
      latest_expiring->local_deletion_time > base.local_expiration_time) {
    LivenessInfo out;
    out.timestamp = timestamp;
    out.ttl = latest_expiring->ttl;
    out.local_expiration_time = latest_expiring->local_deletion_time;
    return out;
  }
  return base;
}

// The view row for live base row `after` (view_key found it a key). `floor` is the lowest
// timestamp its data may have (see the header: a view row that moved to a new key).
Row project(const ViewShape& shape, const Row& after, int64_t floor, int64_t now_seconds) {
  Row out;
  out.liveness =
      shape.regular_key == nullptr ? base_key_liveness(shape, after, now_seconds) : after.liveness;
  int64_t expires = storage::kNoDeletionTime;  // K's expiry, when K expires
  if (shape.regular_key != nullptr) {
    const Cell* k = live_cell(after, shape.regular_key->id, now_seconds);
    if (k != nullptr) {
      if (out.liveness.is_empty() || k->timestamp >= out.liveness.timestamp) {
        out.liveness.timestamp = k->timestamp;
        out.liveness.ttl = 0;
        out.liveness.local_expiration_time = storage::kNoDeletionTime;
      }
      if (k->is_expiring()) {
        out.liveness.ttl = k->ttl;
        out.liveness.local_expiration_time = k->local_deletion_time;
        expires = k->local_deletion_time;
      }
    }
  }
  if (!out.liveness.is_empty()) {
    out.liveness.timestamp = std::max(out.liveness.timestamp, floor);
  }
  auto cap = [&](Cell& cell) {
    cell.timestamp = std::max(cell.timestamp, floor);
    if (expires == storage::kNoDeletionTime || cell.is_tombstone()) return;
    if (!cell.is_expiring() || cell.local_deletion_time > expires) {
      cell.flags |= Cell::kExpiring;
      cell.ttl = out.liveness.ttl;
      cell.local_deletion_time = expires;
    }
  };
  for (const auto& [base_id, view_id] : shape.cells) {
    const ColumnData* data = after.find_column(base_id);
    if (data == nullptr) continue;
    ColumnData copy = *data;
    copy.id = view_id;
    if (copy.complex) {
      for (Cell& cell : copy.cells) cap(cell);
    } else {
      cap(copy.cell);
    }
    out.columns.push_back(std::move(copy));
  }
  return out;
}

// Tombstones in `row` (the view row written for a base row whose view key did not change) for
// what `before` had live in the view's columns and `after` no longer has.
void add_removed_cells(const ViewShape& shape, const Row& before, const Row& after,
                       int64_t timestamp, int64_t now_seconds, Row& row) {
  std::vector<ColumnData> removed;
  for (const auto& [base_id, view_id] : shape.cells) {
    const ColumnData* old_data = before.find_column(base_id);
    if (old_data == nullptr) continue;
    const ColumnData* new_data = after.find_column(base_id);
    if (!old_data->complex) {
      if (new_data != nullptr || !old_data->cell.is_live(now_seconds)) continue;
      ColumnData tombstone;
      tombstone.id = view_id;
      tombstone.cell = Cell::tombstone(timestamp, now_seconds);
      removed.push_back(std::move(tombstone));
      continue;
    }
    ColumnData elements;
    elements.id = view_id;
    elements.complex = true;
    for (const Cell& cell : old_data->cells) {
      bool kept =
          new_data != nullptr && std::any_of(new_data->cells.begin(), new_data->cells.end(),
                                             [&](const Cell& c) { return c.path == cell.path; });
      if (!kept) elements.cells.push_back(Cell::tombstone(timestamp, now_seconds, cell.path));
    }
    if (!elements.cells.empty()) removed.push_back(std::move(elements));
  }
  if (removed.empty()) return;
  Row tombstones;
  tombstones.columns = std::move(removed);
  std::sort(tombstones.columns.begin(), tombstones.columns.end(),
            [](const ColumnData& a, const ColumnData& b) { return a.id < b.id; });
  storage::reconcile_rows(row, tombstones);
}

// The base rows of one partition as they are now: the rows `update` writes, or the whole
// partition when it deletes a range or the partition.
Result<std::map<std::string, Row>> rows_before(const storage::Store& store,
                                               const storage::Snapshot& snapshot,
                                               const schema::TableDef& base,
                                               const storage::PartitionUpdate& update) {
  std::map<std::string, Row> rows;
  auto read = [&](storage::ReadSpec spec, const std::string* only) -> Status {
    spec.emit_static_only = false;
    std::unique_ptr<storage::RowCursor> cursor = store.read(snapshot, base.table_id, spec);
    while (cursor->next()) {
      if (only == nullptr || cursor->clustering() == *only) {
        rows.emplace(cursor->clustering(), cursor->row());
      }
    }
    return cursor->status();
  };
  if (!update.header.is_empty()) {
    CASSETTE_RETURN_IF_ERROR(read(storage::Store::partition_spec(update.partition_key), nullptr));
    return rows;
  }
  for (const storage::ClusteringRow& row : update.rows) {
    storage::ReadSpec spec = storage::Store::partition_spec(update.partition_key);
    spec.clustering_start = row.clustering;
    spec.clustering_end = types::prefix_end_bound(row.clustering);
    CASSETTE_RETURN_IF_ERROR(read(std::move(spec), &row.clustering));
  }
  return rows;
}

// The view rows of one view for one base row, before and after: a deletion of the old view row
// when its key changed or it died, and the new row's state.
Status add_view_row(const ViewShape& shape, const BaseKey& key, const std::optional<Row>& before,
                    const std::optional<Row>& after, int64_t timestamp, int64_t now_seconds,
                    storage::MutationBuilder& out) {
  CASSETTE_ASSIGN_OR_RETURN(std::optional<ViewKey> old_key,
                            view_key(shape, key, before, now_seconds));
  CASSETTE_ASSIGN_OR_RETURN(std::optional<ViewKey> new_key,
                            view_key(shape, key, after, now_seconds));
  const storage::TableId view_id = shape.view->table_id;
  if (old_key && old_key != new_key) {
    Row deleted;
    deleted.deletion = DeletionTime{timestamp, now_seconds};
    out.partition(view_id, old_key->partition_key)
        .rows.push_back({old_key->clustering, std::move(deleted)});
  }
  if (!new_key) return Status::ok();
  const bool moved = old_key != new_key;
  Row row = project(shape, *after, moved ? timestamp : storage::kNoTimestamp, now_seconds);
  if (!moved) add_removed_cells(shape, *before, *after, timestamp, now_seconds, row);
  if (row.is_empty()) return Status::ok();
  out.partition(view_id, new_key->partition_key)
      .rows.push_back({new_key->clustering, std::move(row)});
  return Status::ok();
}

Result<BaseKey> decode_key(const schema::TableDef& base, const std::string& partition_key,
                           std::string_view clustering) {
  BaseKey key;
  CASSETTE_ASSIGN_OR_RETURN(key.partition, partition_key_values(base, partition_key));
  if (!base.clustering().empty()) {
    CASSETTE_ASSIGN_OR_RETURN(key.clustering, clustering_values(base, clustering));
  }
  return key;
}

Status add_partition_view_rows(const storage::Store& store, const storage::Snapshot& snapshot,
                               const schema::TableDef& base, const std::vector<ViewShape>& views,
                               const storage::PartitionUpdate& update, int64_t now_seconds,
                               storage::MutationBuilder& out) {
  CASSETTE_ASSIGN_OR_RETURN(auto before, rows_before(store, snapshot, base, update));
  const int64_t timestamp = write_timestamp(update);
  std::map<std::string, const Row*> written;
  for (const storage::ClusteringRow& row : update.rows) written[row.clustering] = &row.row;
  std::vector<std::string> affected;
  for (const auto& [clustering, row] : before) affected.push_back(clustering);
  for (const auto& [clustering, row] : written) {
    if (!before.contains(clustering)) affected.push_back(clustering);
  }
  for (const std::string& clustering : affected) {
    std::optional<Row> old_row;
    if (auto it = before.find(clustering); it != before.end()) old_row = it->second;
    Row merged = old_row.value_or(Row());
    map_row(merged, raise_auto);
    DeletionTime deletion = update.header.deletion_for(clustering);
    map_deletion(deletion, raise_auto);
    if (!deletion.is_live()) storage::apply_deletion(merged, deletion);
    if (auto it = written.find(clustering); it != written.end()) {
      Row change = *it->second;
      map_row(change, raise_auto);
      storage::reconcile_rows(merged, change);
    }
    std::optional<Row> new_row;
    if (storage::purge_for_read(merged, DeletionTime{}, now_seconds)) new_row = std::move(merged);
    if (old_row) map_row(*old_row, raise_auto);
    CASSETTE_ASSIGN_OR_RETURN(BaseKey key, decode_key(base, update.partition_key, clustering));
    for (const ViewShape& shape : views) {
      CASSETTE_RETURN_IF_ERROR(
          add_view_row(shape, key, old_row, new_row, timestamp, now_seconds, out));
    }
  }
  return Status::ok();
}

}  // namespace

Status add_view_mutations(const storage::Store& store, const storage::Snapshot& snapshot,
                          const schema::Schema& schema, int64_t now_seconds,
                          storage::MutationBuilder& builder) {
  if (!schema.has_views()) return Status::ok();
  storage::MutationBuilder views_out;
  for (const storage::PartitionUpdate& update : builder.updates()) {
    std::shared_ptr<const schema::TableDef> base = schema.find_table_by_id(update.table);
    if (base == nullptr) continue;
    std::vector<std::shared_ptr<const schema::TableDef>> views = schema.views_on(*base);
    if (views.empty()) continue;
    std::vector<ViewShape> shapes;
    for (const auto& view : views) shapes.push_back(shape_of(*base, *view));
    CASSETTE_RETURN_IF_ERROR(
        add_partition_view_rows(store, snapshot, *base, shapes, update, now_seconds, views_out));
  }
  for (storage::PartitionUpdate& update : views_out.mutable_updates()) {
    for (storage::ClusteringRow& row : update.rows) map_row(row.row, lower_auto);
    std::sort(update.rows.begin(), update.rows.end(),
              [](const storage::ClusteringRow& a, const storage::ClusteringRow& b) {
                return a.clustering < b.clustering;
              });
    builder.mutable_updates().push_back(std::move(update));
  }
  return Status::ok();
}

Status build_view_rows(const storage::Store& store, const storage::Snapshot& snapshot,
                       const schema::TableDef& base, const schema::TableDef& view,
                       int64_t now_seconds, storage::MutationBuilder& builder) {
  const ViewShape shape = shape_of(base, view);
  storage::ReadSpec spec;
  spec.emit_static_only = false;
  std::unique_ptr<storage::RowCursor> cursor = store.read(snapshot, base.table_id, spec);
  while (cursor->next()) {
    CASSETTE_ASSIGN_OR_RETURN(BaseKey key,
                              decode_key(base, cursor->partition_key(), cursor->clustering()));
    CASSETTE_RETURN_IF_ERROR(add_view_row(shape, key, std::nullopt, cursor->row(),
                                          storage::kNoTimestamp, now_seconds, builder));
  }
  return cursor->status();
}

Status check_not_view(const schema::TableDef& table, bool truncate) {
  if (!table.is_view()) return Status::ok();
  return Status::invalid_argument(
      truncate ? "Cannot TRUNCATE materialized view directly; must truncate base table instead"
               : "Cannot directly modify a materialized view");
}

void keep_views(txn::Transaction& transaction, std::shared_ptr<const schema::Schema> schema) {
  transaction.keep_views(std::move(schema), &add_view_mutations);
}

storage::PrepareMutations with_view_mutations(const ExecutionContext& context,
                                              storage::PrepareMutations prepare) {
  return [&context, prepare = std::move(prepare)](
             const storage::Snapshot& snapshot, storage::MutationBuilder& builder) -> Result<bool> {
    CASSETTE_ASSIGN_OR_RETURN(bool write, prepare(snapshot, builder));
    if (write) {
      CASSETTE_RETURN_IF_ERROR(add_view_mutations(*context.store, snapshot, *context.schema,
                                                  context.now_seconds(), builder));
    }
    return write;
  };
}

}  // namespace cassette::cql
