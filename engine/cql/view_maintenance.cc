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
#include "engine/cql/view_filter.h"
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

// Where a view's columns come from in its base table, worked out once per view and write.
struct ViewShape {
  const schema::TableDef* view = nullptr;
  // Per view key column, in the view's key order: the base column it is.
  std::vector<const schema::ColumnDef*> partition_sources;
  std::vector<const schema::ColumnDef*> clustering_sources;
  const schema::ColumnDef* regular_key = nullptr;  // K: a base regular column in the view's key
  // The view's non-key columns: (base column id, view column id), by view column id.
  std::vector<std::pair<storage::ColumnId, storage::ColumnId>> cells;
  bool include_all_columns = false;  // SELECT *: no base column is left out
  // The WHERE clause's restrictions of the base key (view_filter.h).
  std::shared_ptr<const ViewKeyFilter> filter;

  bool selects(storage::ColumnId base_id) const {
    return std::any_of(cells.begin(), cells.end(),
                       [&](const auto& ids) { return ids.first == base_id; });
  }
};

ViewShape shape_of(const schema::TableDef& base, const schema::TableDef& view) {
  ViewShape shape;
  shape.view = &view;
  shape.include_all_columns = view.view && view.view->include_all_columns;
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

// The view row's key for base row `row` (nullopt: the row has no view row: it is dead, K is not
// live, or the key would have an empty partition key). `row` may hold tombstones.
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
  if (shape.include_all_columns) return base;
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
    if (shape.selects(data.id)) continue;
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

// The liveness of the view row of live base row `after`: with a base regular column K in the
// view's key, K's cell (its timestamp and TTL); otherwise base_key_liveness.
LivenessInfo entry_liveness(const ViewShape& shape, const Row& after, int64_t now_seconds) {
  if (shape.regular_key == nullptr) return base_key_liveness(shape, after, now_seconds);
  LivenessInfo out;
  const Cell* k = live_cell(after, shape.regular_key->id, now_seconds);
  if (k == nullptr) return out;
  out.timestamp = k->timestamp;
  if (k->is_expiring()) {
    out.ttl = k->ttl;
    out.local_expiration_time = k->local_deletion_time;
  }
  return out;
}

// The view row being written for one base row: its liveness, deletion, and the base cells it
// takes. With K expiring, the cells it takes expire with K at the latest: Cassandra's view reads
// such a row as dead once K's liveness expired (strict liveness), whatever its cells; here a
// row is read as live by any live cell, so its cells may not outlive K.
class EntryBuilder {
 public:
  EntryBuilder(const ViewShape& shape, const Row& base, int64_t now_seconds) : shape_(shape) {
    if (shape.regular_key != nullptr) {
      const Cell* k = live_cell(base, shape.regular_key->id, now_seconds);
      if (k != nullptr && k->is_expiring()) {
        expires_ = k->local_deletion_time;
        ttl_ = k->ttl;
      }
    }
  }

  Row& row() { return row_; }

  // Adds base column `data` as view column `view_id` (all of it).
  void add_column(const ColumnData& data, storage::ColumnId view_id) {
    ColumnData copy = data;
    copy.id = view_id;
    if (copy.complex) {
      for (Cell& cell : copy.cells) cap(cell);
    } else {
      cap(copy.cell);
    }
    row_.columns.push_back(std::move(copy));
  }

  // Every selected column of `base`, tombstones included (Cassandra's createEntry).
  void add_all(const Row& base) {
    for (const auto& [base_id, view_id] : shape_.cells) {
      if (const ColumnData* data = base.find_column(base_id)) add_column(*data, view_id);
    }
  }

  // What `after` has in selected columns that `before` has not in the same form (Cassandra's
  // addDifferentCells): changed cells, new tombstones, a newer collection deletion.
  void add_different(const Row& before, const Row& after) {
    for (const auto& [base_id, view_id] : shape_.cells) {
      const ColumnData* now = after.find_column(base_id);
      if (now == nullptr) continue;
      const ColumnData* old = before.find_column(base_id);
      if (old == nullptr) {
        add_column(*now, view_id);
        continue;
      }
      if (*now == *old) continue;
      if (!now->complex) {
        add_column(*now, view_id);
        continue;
      }
      ColumnData changed;
      changed.id = base_id;
      changed.complex = true;
      if (now->complex_deletion.supersedes(old->complex_deletion)) {
        changed.complex_deletion = now->complex_deletion;
      }
      for (const Cell& cell : now->cells) {
        const bool same = std::any_of(old->cells.begin(), old->cells.end(),
                                      [&](const Cell& c) { return c == cell; });
        if (!same) changed.cells.push_back(cell);
      }
      if (!changed.cells.empty() || !changed.complex_deletion.is_live()) {
        add_column(changed, view_id);
      }
    }
  }

  Row finish() {
    std::sort(row_.columns.begin(), row_.columns.end(),
              [](const ColumnData& a, const ColumnData& b) { return a.id < b.id; });
    return std::move(row_);
  }

 private:
  void cap(Cell& cell) const {
    if (expires_ == storage::kNoDeletionTime || cell.is_tombstone()) return;
    if (!cell.is_expiring() || cell.local_deletion_time > expires_) {
      cell.flags |= Cell::kExpiring;
      cell.ttl = ttl_;
      cell.local_deletion_time = expires_;
    }
  }

  const ViewShape& shape_;
  int64_t expires_ = storage::kNoDeletionTime;  // K's expiry, when K expires
  int64_t ttl_ = 0;
  Row row_;
};

// The timestamp at which the view row of `before` dies in `after` (Cassandra's
// computeTimestampForEntryDeletion): with K, K's timestamp (or the deletion's, when the base
// row's deletion removed K); otherwise the newest of the row's deletion, its marker and what it
// has in unselected columns, live or not (any of them may be what kept the view row alive).
int64_t entry_deletion_timestamp(const ViewShape& shape, const Row& before, const Row& after) {
  const DeletionTime& deletion = after.deletion;
  if (shape.regular_key != nullptr) {
    const ColumnData* k = before.find_column(shape.regular_key->id);
    const int64_t k_timestamp = k != nullptr ? k->cell.timestamp : storage::kNoTimestamp;
    return deletion.deletes(k_timestamp) ? deletion.marked_for_delete_at : k_timestamp;
  }
  int64_t timestamp = std::max(deletion.marked_for_delete_at, before.liveness.timestamp);
  if (shape.include_all_columns) return timestamp;
  for (const ColumnData& data : before.columns) {
    if (shape.selects(data.id)) continue;
    if (data.complex) {
      for (const Cell& cell : data.cells) timestamp = std::max(timestamp, cell.timestamp);
    } else {
      timestamp = std::max(timestamp, data.cell.timestamp);
    }
  }
  return timestamp;
}

// The view rows of one view for one base row, as Cassandra's ViewUpdateGenerator computes them
// from the base row before the write (`before`: none, or as merged so far, tombstones included)
// and after it (`after`, likewise):
// - a new view row (no view row before, or K took a new value) takes the liveness of
//   entry_liveness, the base row's deletion and every selected column (tombstones included);
// - the view row of an unchanged key takes the new liveness and deletion and the cells that
//   changed;
// - a view row that died (or whose K moved) is not deleted with a row tombstone, which would
//   shadow base cells written later with older timestamps: it takes the base row's deletion, the
//   cells that changed, and an expired marker at entry_deletion_timestamp (LivenessInfo, row.h),
//   strict with K, where the row lives only by its marker.
Status add_view_row(const ViewShape& shape, const BaseKey& key, const std::optional<Row>& before,
                    const std::optional<Row>& after, int64_t now_seconds,
                    storage::MutationBuilder& out) {
  CASSETTE_ASSIGN_OR_RETURN(std::optional<ViewKey> old_key,
                            view_key(shape, key, before, now_seconds));
  CASSETTE_ASSIGN_OR_RETURN(std::optional<ViewKey> new_key,
                            view_key(shape, key, after, now_seconds));
  const storage::TableId view_id = shape.view->table_id;
  auto emit = [&](const ViewKey& at, Row row) {
    if (row.is_empty()) return;
    out.partition(view_id, at.partition_key).rows.push_back({at.clustering, std::move(row)});
  };
  const Row empty;
  const Row& merged = after ? *after : empty;
  if (old_key && old_key != new_key) {
    EntryBuilder entry(shape, merged, now_seconds);
    const int64_t timestamp = entry_deletion_timestamp(shape, *before, merged);
    if (shape.regular_key != nullptr || timestamp > merged.deletion.marked_for_delete_at) {
      entry.row().liveness =
          LivenessInfo::expired(timestamp, now_seconds, shape.regular_key != nullptr);
    }
    entry.row().deletion = merged.deletion;
    entry.add_different(*before, merged);
    emit(*old_key, entry.finish());
  }
  if (!new_key) return Status::ok();
  EntryBuilder entry(shape, merged, now_seconds);
  entry.row().liveness = entry_liveness(shape, merged, now_seconds);
  entry.row().deletion = merged.deletion;
  if (old_key == new_key) {
    // With K, every cell again: K's expiry, which caps them, may have changed.
    if (shape.regular_key != nullptr) {
      entry.add_all(merged);
    } else {
      entry.add_different(*before, merged);
    }
  } else {
    entry.add_all(merged);
  }
  emit(*new_key, entry.finish());
  return Status::ok();
}

// The base rows of one partition as the write finds them, tombstones and deletions included
// (ReadSpec::keep_deleted): the rows `update` writes (an empty row, with the deletion that
// covers it, when there is none), and every row of the partition when it deletes a range or
// the partition.
Result<std::map<std::string, Row>> rows_before(const storage::Store& store,
                                               const storage::Snapshot& snapshot,
                                               const schema::TableDef& base,
                                               const storage::PartitionUpdate& update) {
  std::map<std::string, Row> rows;
  storage::PartitionHeader header;
  auto read = [&](storage::ReadSpec spec, const std::string* only) -> Status {
    spec.emit_static_only = false;
    spec.keep_deleted = true;
    std::unique_ptr<storage::RowCursor> cursor = store.read(snapshot, base.table_id, spec);
    while (cursor->next()) {
      if (cursor->is_static_only()) continue;
      if (only == nullptr || cursor->clustering() == *only) {
        rows.emplace(cursor->clustering(), cursor->row());
      }
    }
    header = cursor->partition_header();
    return cursor->status();
  };
  if (!update.header.is_empty()) {
    CASSETTE_RETURN_IF_ERROR(read(storage::Store::partition_spec(update.partition_key), nullptr));
  }
  for (const storage::ClusteringRow& row : update.rows) {
    if (rows.contains(row.clustering)) continue;
    if (update.header.is_empty()) {
      storage::ReadSpec spec = storage::Store::partition_spec(update.partition_key);
      spec.clustering_start = row.clustering;
      spec.clustering_end = types::prefix_end_bound(row.clustering);
      CASSETTE_RETURN_IF_ERROR(read(std::move(spec), &row.clustering));
      if (rows.contains(row.clustering)) continue;
    }
    Row absent;
    absent.deletion = header.deletion_for(row.clustering);
    rows.emplace(row.clustering, std::move(absent));
  }
  return rows;
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
  std::map<std::string, const Row*> written;
  for (const storage::ClusteringRow& row : update.rows) written[row.clustering] = &row.row;
  for (auto& [clustering, existing] : before) {
    map_row(existing, raise_auto);
    Row merged = existing;
    DeletionTime deletion = update.header.deletion_for(clustering);
    map_deletion(deletion, raise_auto);
    merged.deletion = storage::max_deletion(merged.deletion, deletion);
    if (auto it = written.find(clustering); it != written.end()) {
      Row change = *it->second;
      map_row(change, raise_auto);
      storage::reconcile_rows(merged, change);
    }
    storage::apply_deletion(merged, DeletionTime{});
    std::optional<Row> old_row;
    if (!existing.is_empty()) old_row = std::move(existing);
    CASSETTE_ASSIGN_OR_RETURN(BaseKey key, decode_key(base, update.partition_key, clustering));
    for (const ViewShape& shape : views) {
      if (!shape.filter->matches(base, key.partition, key.clustering)) continue;
      CASSETTE_RETURN_IF_ERROR(add_view_row(shape, key, old_row, merged, now_seconds, out));
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
    for (const auto& view : views) {
      shapes.push_back(shape_of(*base, *view));
      CASSETTE_ASSIGN_OR_RETURN(
          shapes.back().filter,
          ViewKeyFilter::cached_of_view(base, *view, schema, now_seconds * 1000000));
    }
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
                       const schema::Schema& schema, const schema::TableDef& base,
                       const schema::TableDef& view, int64_t now_seconds,
                       storage::MutationBuilder& builder) {
  ViewShape shape = shape_of(base, view);
  CASSETTE_ASSIGN_OR_RETURN(ViewKeyFilter filter,
                            ViewKeyFilter::of_view(base, view, schema, now_seconds * 1000000));
  shape.filter = std::make_shared<const ViewKeyFilter>(std::move(filter));
  storage::ReadSpec spec;
  spec.emit_static_only = false;
  std::unique_ptr<storage::RowCursor> cursor = store.read(snapshot, base.table_id, spec);
  while (cursor->next()) {
    CASSETTE_ASSIGN_OR_RETURN(BaseKey key,
                              decode_key(base, cursor->partition_key(), cursor->clustering()));
    if (!shape.filter->matches(base, key.partition, key.clustering)) continue;
    CASSETTE_RETURN_IF_ERROR(
        add_view_row(shape, key, std::nullopt, cursor->row(), now_seconds, builder));
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
