// Operations on columns and how they become cells (see operation.h).
//
// One divergence from Cassandra's storage, by necessity: Cassandra overwrites a non-frozen
// collection (`c = [1, 2]`) with a collection deletion at timestamp - 1 next to the new elements
// at timestamp. Our store assigns timestamps when it applies a batch (kAutoTimestamp), so
// "timestamp - 1" cannot be said in advance; instead the overwrite reads the column's current
// cells under the write lock and writes a tombstone for each one the new value does not replace.
// With USING TIMESTAMP the timestamp is known and Cassandra's deletion at timestamp - 1 is used.
#include "engine/write/operation.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>

#include "engine/codec/table_codec.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/scalar.h"

namespace cassette::write {

using cql::element_cells;
using cql::udt_field_path;

namespace {

using types::CqlType;
using types::TypeKind;

storage::Cell value_cell(const WriteParameters& params, std::string value, std::string path = {}) {
  if (params.ttl > 0) {
    return storage::Cell::expiring(params.timestamp, params.ttl, params.now_seconds,
                                   std::move(value), std::move(path));
  }
  return storage::Cell::live(params.timestamp, std::move(value), std::move(path));
}

storage::Cell tombstone(const WriteParameters& params, std::string path = {}) {
  return storage::Cell::tombstone(params.timestamp, params.now_seconds, std::move(path));
}

const storage::ColumnData* column_data(const schema::ColumnDef& column, const storage::Row* row) {
  return row == nullptr ? nullptr : row->find_column(column.id);
}

Status add_new_elements(const schema::ColumnDef& column, const std::string& serialized,
                        const WriteParameters& params, int64_t list_base, RowBuilder& row) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<storage::Cell> cells,
                            element_cells(column, serialized, params.timestamp, params.ttl,
                                          params.now_seconds, list_base));
  for (storage::Cell& c : cells) row.add_element(column, std::move(c));
  return Status::ok();
}

Result<int32_t> list_index(const ColumnOperation& op) {
  if (op.key.size() != 4) return Status::invalid_argument("Invalid list index");
  return types::read_int32(op.key);
}

}  // namespace

// ---- which operations read -----------------------------------------------------------------

bool ColumnOperation::requires_read() const {
  return kind == Kind::kSetListIndex || kind == Kind::kRemoveListValues ||
         kind == Kind::kDeleteListIndex;
}

bool operation_needs_row(const ColumnOperation& op, const WriteParameters& params) {
  if (op.requires_read()) return true;
  return op.kind == ColumnOperation::Kind::kSetValue && op.column->type.is_multi_cell() &&
         !params.timestamp_set;
}

// ---- building rows --------------------------------------------------------------------------

void RowBuilder::set_cell(const schema::ColumnDef& column, storage::Cell cell) {
  storage::ColumnData& data = columns_[column.id];
  if (data.id == column.id && data.cell.is_counter() && cell.is_counter() &&
      !data.cell.is_tombstone() && !cell.is_tombstone()) {
    // `c = c + 1, c = c + 2` adds both increments.
    cell = storage::Cell::counter(
        cell.timestamp,
        storage::add_counter_deltas(data.cell.counter_value(), cell.counter_value()));
  }
  data.id = column.id;
  data.complex = false;
  data.cell = std::move(cell);
}

void RowBuilder::add_element(const schema::ColumnDef& column, storage::Cell cell) {
  storage::ColumnData& data = columns_[column.id];
  data.id = column.id;
  data.complex = true;
  std::string path = cell.path;
  elements_[column.id][path] = std::move(cell);
}

void RowBuilder::delete_complex(const schema::ColumnDef& column,
                                const storage::DeletionTime& deletion) {
  storage::ColumnData& data = columns_[column.id];
  data.id = column.id;
  data.complex = true;
  data.complex_deletion = deletion;
}

storage::Row RowBuilder::build() const {
  storage::Row row = row_;
  for (const auto& [id, data] : columns_) {
    storage::ColumnData column = data;
    auto it = elements_.find(id);
    if (it != elements_.end()) {
      for (const auto& [path, cell] : it->second) column.cells.push_back(cell);
    }
    row.columns.push_back(std::move(column));
  }
  return row;
}

// ---- applying operations --------------------------------------------------------------------

std::vector<const storage::Cell*> list_cells_in_order(const schema::ColumnDef& column,
                                                      const storage::Row* row) {
  std::vector<const storage::Cell*> cells;
  const storage::ColumnData* data = column_data(column, row);
  if (data == nullptr || !data->complex) return cells;
  for (const storage::Cell& c : data->cells) {
    if (!c.is_tombstone()) cells.push_back(&c);
  }
  std::stable_sort(cells.begin(), cells.end(), [](const storage::Cell* a, const storage::Cell* b) {
    return types::compare_values(CqlType::simple(TypeKind::kTimeuuid), a->path, b->path) < 0;
  });
  return cells;
}

Status apply_operation(const ColumnOperation& op, const WriteParameters& params,
                       const storage::Row* existing, RowBuilder& row) {
  using Kind = ColumnOperation::Kind;
  const schema::ColumnDef& column = *op.column;
  const CqlType& type = column.type;
  switch (op.kind) {
    case Kind::kSetValue: {
      if (!type.is_multi_cell()) {
        row.set_cell(column, op.value ? value_cell(params, *op.value) : tombstone(params));
        return Status::ok();
      }
      std::vector<storage::Cell> cells;
      if (op.value) {
        int64_t base = 0;
        if (type.kind == TypeKind::kList) {
          CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                                    types::deserialize_list(*op.value));
          base = next_append_micros(params.now_micros, std::max<size_t>(1, elements.size()));
        }
        CASSETTE_ASSIGN_OR_RETURN(cells, element_cells(column, *op.value, params.timestamp,
                                                       params.ttl, params.now_seconds, base));
      }
      if (params.timestamp_set) {
        row.delete_complex(column, storage::DeletionTime{params.timestamp - 1, params.now_seconds});
      } else if (const storage::ColumnData* data = column_data(column, existing)) {
        for (const storage::Cell& old : data->cells) {
          if (old.is_tombstone()) continue;
          bool replaced = std::any_of(cells.begin(), cells.end(),
                                      [&](const storage::Cell& c) { return c.path == old.path; });
          if (!replaced) row.add_element(column, tombstone(params, old.path));
        }
      }
      for (storage::Cell& c : cells) row.add_element(column, std::move(c));
      return Status::ok();
    }
    case Kind::kSetListIndex:
    case Kind::kDeleteListIndex: {
      bool set = op.kind == Kind::kSetListIndex;
      CASSETTE_ASSIGN_OR_RETURN(int32_t index, list_index(op));
      std::vector<const storage::Cell*> cells = list_cells_in_order(column, existing);
      if (cells.empty()) {
        return Status::invalid_argument(
            set ? "Attempted to set an element on a list which is null"
                : "Attempted to delete an element from a list which is null");
      }
      if (index < 0 || static_cast<size_t>(index) >= cells.size()) {
        return Status::invalid_argument(
            fmt::format("List index {} out of bound, list has size {}", index, cells.size()));
      }
      const std::string& path = cells[index]->path;
      if (set && op.value) {
        row.add_element(column, value_cell(params, *op.value, path));
      } else {
        row.add_element(column, tombstone(params, path));
      }
      return Status::ok();
    }
    case Kind::kSetMapKey:
      row.add_element(column,
                      op.value ? value_cell(params, *op.value, op.key) : tombstone(params, op.key));
      return Status::ok();
    case Kind::kSetField:
      row.add_element(column, op.value ? value_cell(params, *op.value, udt_field_path(op.field))
                                       : tombstone(params, udt_field_path(op.field)));
      return Status::ok();
    case Kind::kAppend:
    case Kind::kPrepend: {
      if (!op.value) return Status::ok();
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                                types::deserialize_list(*op.value));
      if (elements.empty()) return Status::ok();
      int64_t base = op.kind == Kind::kAppend
                         ? next_append_micros(params.now_micros, elements.size())
                         : next_prepend_micros(params.now_micros, elements.size());
      return add_new_elements(column, *op.value, params, base, row);
    }
    case Kind::kAddElements:
      if (!op.value) return Status::ok();
      return add_new_elements(column, *op.value, params, 0, row);
    case Kind::kRemoveListValues: {
      if (!op.value) return Status::ok();
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> removed,
                                types::deserialize_list(*op.value));
      for (const storage::Cell* cell : list_cells_in_order(column, existing)) {
        if (std::find(removed.begin(), removed.end(), cell->value) != removed.end()) {
          row.add_element(column, tombstone(params, cell->path));
        }
      }
      return Status::ok();
    }
    case Kind::kRemoveElements:
    case Kind::kRemoveMapKeys: {
      if (!op.value) return Status::ok();
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> removed,
                                types::deserialize_list(*op.value));
      for (std::string& element : removed) {
        row.add_element(column, tombstone(params, std::move(element)));
      }
      return Status::ok();
    }
    case Kind::kCounterAdd:
      row.set_cell(column, storage::Cell::counter(params.timestamp, op.counter_delta));
      return Status::ok();
    case Kind::kDeleteColumn:
      if (type.is_multi_cell()) {
        row.delete_complex(column, storage::DeletionTime{params.timestamp, params.now_seconds});
      } else {
        row.set_cell(column, tombstone(params));
      }
      return Status::ok();
    case Kind::kDeleteElement:
      row.add_element(column, tombstone(params, op.key));
      return Status::ok();
    case Kind::kDeleteField:
      row.add_element(column, tombstone(params, udt_field_path(op.field)));
      return Status::ok();
  }
  return Status::internal("unknown operation kind");
}

// ---- merging --------------------------------------------------------------------

void merge_row(storage::PartitionUpdate& update, const std::optional<std::string>& clustering,
               storage::Row row) {
  if (!clustering) {
    storage::reconcile_rows(update.static_row, row);
    return;
  }
  for (storage::ClusteringRow& existing : update.rows) {
    if (existing.clustering == *clustering) {
      storage::reconcile_rows(existing.row, row);
      return;
    }
  }
  update.rows.push_back(storage::ClusteringRow{*clustering, std::move(row)});
}

// ---- list element times ---------------------------------------------------------------------

namespace {
std::mutex list_time_mutex;
int64_t last_append_micros = 0;
int64_t last_prepend_micros = std::numeric_limits<int64_t>::max();
constexpr int64_t kPrependReferenceMicros = 1262304000000000;  // 2010-01-01, as Cassandra's
}  // namespace

int64_t next_append_micros(int64_t now_micros, size_t count) {
  std::lock_guard guard(list_time_mutex);
  int64_t base = std::max(now_micros, last_append_micros + 1);
  last_append_micros = base + static_cast<int64_t>(count) - 1;
  return base;
}

int64_t next_prepend_micros(int64_t now_micros, size_t count) {
  std::lock_guard guard(list_time_mutex);
  int64_t mirrored = kPrependReferenceMicros - (now_micros - kPrependReferenceMicros);
  int64_t base = std::min(mirrored, last_prepend_micros) - static_cast<int64_t>(count);
  last_prepend_micros = base;
  return base;
}

}  // namespace cassette::write
