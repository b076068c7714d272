// InsertEncoder (see pg_row_encoder.h). The checks mirror resolve_modification_where() for an
// INSERT whose key columns are all given, and the row mirrors add_modification(): liveness
// from the parameters, then value_cell() or tombstone() per column, sorted by column id.
#include "ext/cli/pg_row_encoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "engine/codec/table_codec.h"
#include "engine/storage/row_codec.h"
#include "engine/types/partition_key.h"

namespace cassette::cli::pg {

std::unique_ptr<InsertEncoder> InsertEncoder::make(
    std::shared_ptr<const schema::TableDef> table,
    const std::vector<const schema::ColumnDef*>& columns) {
  if (table->is_counter_table()) return nullptr;
  std::unique_ptr<InsertEncoder> encoder(new InsertEncoder());
  const std::vector<const schema::ColumnDef*>& partition = table->partition_key();
  const std::vector<const schema::ColumnDef*>& clustering = table->clustering();
  auto position = [](const std::vector<const schema::ColumnDef*>& in, const schema::ColumnDef* c) {
    return static_cast<size_t>(std::find(in.begin(), in.end(), c) - in.begin());
  };
  std::vector<const schema::ColumnDef*> cells;
  for (const schema::ColumnDef* c : columns) {
    if (c->kind == schema::ColumnKind::kPartitionKey ||
        c->kind == schema::ColumnKind::kClustering) {
      continue;
    }
    if (c->kind != schema::ColumnKind::kRegular || c->type.is_multi_cell()) return nullptr;
    cells.push_back(c);
  }
  std::sort(cells.begin(), cells.end(),
            [](const schema::ColumnDef* a, const schema::ColumnDef* b) { return a->id < b->id; });
  for (const schema::ColumnDef* c : columns) {
    Slot slot{};
    if (c->kind == schema::ColumnKind::kPartitionKey) {
      slot = {Slot::Kind::kPartition, position(partition, c)};
    } else if (c->kind == schema::ColumnKind::kClustering) {
      slot = {Slot::Kind::kClustering, position(clustering, c)};
    } else {
      slot = {Slot::Kind::kCell, position(cells, c)};
    }
    encoder->slots_.push_back(slot);
  }
  encoder->partition_.resize(partition.size());
  encoder->clustering_.resize(clustering.size());
  for (const schema::ColumnDef* c : cells) {
    storage::ColumnData data;
    data.id = c->id;
    encoder->row_.columns.push_back(std::move(data));
  }
  encoder->table_ = std::move(table);
  encoder->columns_ = columns;
  return encoder;
}

Status InsertEncoder::add(std::vector<types::Value>& values, storage::EncodedBatch& batch) {
  // The key columns, in the order the row gives them (resolve_modification_where's relations).
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& slot = slots_[i];
    if (slot.kind == Slot::Kind::kCell) continue;
    if (!values[i]) {
      return Status::invalid_argument(
          fmt::format("Invalid null value in condition for column {}", columns_[i]->name));
    }
    (slot.kind == Slot::Kind::kPartition ? partition_ : clustering_)[slot.index] =
        std::move(*values[i]);
  }
  CASSETTE_RETURN_IF_ERROR(cql::validate_partition_key_values(partition_));
  std::string_view clustering;
  if (!clustering_.empty()) {
    CASSETTE_RETURN_IF_ERROR(cql::validate_clustering_values(clustering_));
    CASSETTE_ASSIGN_OR_RETURN(key_, cql::clustering_key_bytes(*table_, clustering_));
    clustering = key_;
  }

  // The row: add_modification() of an INSERT (row marker, then each column's cell).
  const bool expiring = params_.ttl > 0;
  row_.liveness =
      storage::LivenessInfo::written(params_.timestamp, params_.ttl, params_.now_seconds);
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].kind != Slot::Kind::kCell) continue;
    storage::Cell& cell = row_.columns[slots_[i].index].cell;
    cell.timestamp = params_.timestamp;
    if (values[i]) {
      cell.flags = expiring ? storage::Cell::kExpiring : 0;
      cell.ttl = expiring ? params_.ttl : 0;
      cell.local_deletion_time =
          expiring ? params_.now_seconds + params_.ttl : storage::kNoDeletionTime;
      cell.value = std::move(*values[i]);
    } else {
      cell.flags = storage::Cell::kTombstone;
      cell.ttl = 0;
      cell.local_deletion_time = params_.now_seconds;
      cell.value.clear();
    }
  }
  value_.clear();
  storage::encode_row(row_, &value_);
  if (partition_.size() == 1) {
    return batch
        .add_row(table_->table_id, partition_[0], storage::EntryKind::kRow, clustering, value_)
        .status();
  }
  return batch
      .add_row(table_->table_id, cql::partition_key_bytes(partition_), storage::EntryKind::kRow,
               clustering, value_)
      .status();
}

Status fold_same_rows(storage::EncodedBatch& batch) {
  struct Item {
    storage::EncodedBatch::Entry entry;
    size_t index;
  };
  std::vector<Item> items;
  items.reserve(batch.entry_count());
  for (size_t i = 0, offset = 0; i < batch.entry_count(); ++i) {
    items.push_back({batch.entry_at(offset, &offset), i});
  }
  auto same = [](const Item& a, const Item& b) {
    return a.entry.table == b.entry.table && a.entry.key == b.entry.key;
  };
  std::vector<Item> sorted = items;
  std::sort(sorted.begin(), sorted.end(), [](const Item& a, const Item& b) {
    if (a.entry.table != b.entry.table) return a.entry.table < b.entry.table;
    if (a.entry.key != b.entry.key) return a.entry.key < b.entry.key;
    return a.index < b.index;
  });
  bool any = false;
  for (size_t i = 1; i < sorted.size() && !any; ++i) any = same(sorted[i - 1], sorted[i]);
  if (!any) return Status::ok();

  // Each entry's first occurrence (its group's first item once sorted) collects the others.
  std::vector<size_t> first(items.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    first[sorted[i].index] =
        i > 0 && same(sorted[i - 1], sorted[i]) ? first[sorted[i - 1].index] : sorted[i].index;
  }
  std::vector<storage::Row> merged(items.size());
  std::vector<bool> decoded(items.size(), false);
  for (size_t i = 0; i < items.size(); ++i) {
    const size_t f = first[i];
    if (f == i) continue;  // a first occurrence is decoded only when another one joins it
    if (!decoded[f]) {
      if (!storage::decode_row(items[f].entry.value, &merged[f])) {
        return Status::internal("pg-import: a row of the batch does not decode");
      }
      decoded[f] = true;
    }
    storage::Row row;
    if (!storage::decode_row(items[i].entry.value, &row)) {
      return Status::internal("pg-import: a row of the batch does not decode");
    }
    storage::reconcile_rows(merged[f], row);
  }
  storage::EncodedBatch out;
  std::string value;
  for (size_t i = 0; i < items.size(); ++i) {
    if (first[i] != i) continue;
    const storage::EncodedBatch::Entry& e = items[i].entry;
    if (!decoded[i]) {
      out.add(e.table, e.key, e.value);
      continue;
    }
    value.clear();
    storage::encode_row(merged[i], &value);
    out.add(e.table, e.key, value);
  }
  batch = std::move(out);
  return Status::ok();
}

}  // namespace cassette::cli::pg
