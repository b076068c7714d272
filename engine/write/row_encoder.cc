// RowEncoder (see row_encoder.h).
#include "engine/write/row_encoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "engine/codec/table_codec.h"
#include "engine/storage/row_codec.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/partition_key.h"

namespace cassette::write {

namespace {

using schema::ColumnDef;
using schema::ColumnKind;

Status null_key_error(const ColumnDef& column) {
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", column.name));
}

// The names of the columns of `kind` that `given` leaves out, as CQL lists them.
std::string missing_columns(const schema::TableDef& table, ColumnKind kind,
                            const std::vector<bool>& given) {
  std::string names;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].kind != kind || given[i]) continue;
    names += (names.empty() ? "" : ", ") + cql::column_name_for_message(table.columns[i].name);
  }
  return names;
}

// The position of `column` among the key columns `in`.
uint32_t key_position(const std::vector<const ColumnDef*>& in, const ColumnDef* column) {
  return static_cast<uint32_t>(std::find(in.begin(), in.end(), column) - in.begin());
}

}  // namespace

Status BatchSink::add_row(std::string_view partition_key, bool is_static,
                          std::string_view clustering, std::string_view encoded_row) {
  return batch_
      .add_row(table_, partition_key,
               is_static ? storage::EntryKind::kStaticRow : storage::EntryKind::kRow,
               is_static ? std::string_view() : clustering, encoded_row)
      .status();
}

Result<std::unique_ptr<RowEncoder>> RowEncoder::make(std::shared_ptr<const schema::TableDef> table,
                                                     std::vector<size_t> columns,
                                                     NullPolicy nulls) {
  const schema::TableDef& t = *table;
  const schema::KeyLayout& layout = t.layout();
  std::vector<bool> given(t.columns.size(), false);
  bool statics = false, regulars = false, clustering = false;
  for (size_t i : columns) {
    given[i] = true;
    statics = statics || t.columns[i].kind == ColumnKind::kStatic;
    regulars = regulars || t.columns[i].kind == ColumnKind::kRegular;
    clustering = clustering || t.columns[i].kind == ColumnKind::kClustering;
  }
  // Cassandra's checks of an INSERT's primary key (UpdateStatement / ModificationStatement):
  // without clustering columns an INSERT may still set static columns alone.
  if (std::string names = missing_columns(t, ColumnKind::kPartitionKey, given); !names.empty()) {
    return Status::invalid_argument(fmt::format("Some partition key parts are missing: {}", names));
  }
  if (std::string names = missing_columns(t, ColumnKind::kClustering, given);
      !names.empty() && (clustering || regulars || !statics)) {
    return Status::invalid_argument(fmt::format("Some clustering keys are missing: {}", names));
  }

  std::unique_ptr<RowEncoder> encoder(new RowEncoder());
  encoder->nulls_ = nulls;
  encoder->clustering_omitted_ = !layout.clustering.empty() && !clustering;
  encoder->direct_ = !encoder->clustering_omitted_;
  for (size_t v = 0; v < columns.size(); ++v) {
    const ColumnDef& c = t.columns[columns[v]];
    Slot slot{Slot::Kind::kRegular, static_cast<uint32_t>(v), c.id, &c};
    switch (c.kind) {
      case ColumnKind::kPartitionKey:
        slot = {Slot::Kind::kPartition, key_position(layout.partition_key, &c), c.id, &c};
        break;
      case ColumnKind::kClustering:
        slot = {Slot::Kind::kClustering, key_position(layout.clustering, &c), c.id, &c};
        break;
      case ColumnKind::kStatic:
        slot.kind = Slot::Kind::kStatic;
        break;
      default:
        break;
    }
    if (c.is_primary_key()) encoder->keys_.push_back(static_cast<uint32_t>(v));
    if (!c.is_primary_key()) {
      encoder->cells_.push_back(static_cast<uint32_t>(v));
      encoder->direct_ = encoder->direct_ && c.kind == ColumnKind::kRegular &&
                         !c.type.is_multi_cell() && !c.type.is_counter();
      encoder->multi_cell_ = encoder->multi_cell_ || c.type.is_multi_cell();
    }
    encoder->slots_.push_back(slot);
  }
  std::sort(encoder->cells_.begin(), encoder->cells_.end(), [&](uint32_t a, uint32_t b) {
    return encoder->slots_[a].column->id < encoder->slots_[b].column->id;
  });
  encoder->partition_.resize(layout.partition_key.size());
  encoder->clustering_.resize(layout.clustering.size());
  encoder->params_ = parameters(t, 0);
  encoder->table_ = std::move(table);
  return encoder;
}

WriteParameters RowEncoder::parameters(const schema::TableDef& table, int64_t now_micros,
                                       std::optional<int64_t> ttl,
                                       std::optional<int64_t> timestamp) {
  WriteParameters params;
  params.timestamp = timestamp.value_or(storage::kAutoTimestamp);
  params.timestamp_set = timestamp.has_value();
  params.ttl = table.is_counter_table() ? 0 : ttl.value_or(table.params.default_time_to_live);
  params.now_micros = now_micros;
  params.now_seconds = now_micros / 1'000'000;
  return params;
}

Status RowEncoder::counter_table_error() {
  return Status::invalid_argument(
      "INSERT statements are not allowed on counter tables, use UPDATE instead");
}

bool RowEncoder::needs_read() const {
  return multi_cell_ && !params_.timestamp_set;
}

Status RowEncoder::insert(std::span<types::Value> values, RowSink& out,
                          const CurrentRowReader* read) {
  bool static_only = false;
  CASSETTE_RETURN_IF_ERROR(check_key(values, &static_only));
  if (table_->is_counter_table()) return counter_table_error();
  if (direct_ && !static_only && !out.wants_rows()) {
    return encode_direct(partition_key(), values, out);
  }
  return encode_rows(partition_key(), values, static_only, out, read);
}

Status RowEncoder::insert_checked(std::string_view partition_key,
                                  const std::optional<std::string>& clustering,
                                  std::span<types::Value> values, RowSink& out,
                                  const CurrentRowReader* read) {
  if (table_->is_counter_table()) return counter_table_error();
  clustering_key_.clear();
  if (clustering) clustering_key_ = *clustering;
  if (direct_ && clustering && !out.wants_rows()) return encode_direct(partition_key, values, out);
  return encode_rows(partition_key, values, !clustering, out, read);
}

// Step 1 and 2 of the checks (row_encoder.h); leaves the partition key in key_ (unless it is
// partition_[0] alone) and the clustering key in clustering_key_.
Status RowEncoder::check_key(std::span<types::Value> values, bool* static_only) {
  size_t clustering_given = 0;
  const ColumnDef* null_clustering = nullptr;  // the first one
  for (uint32_t i : keys_) {
    const Slot& slot = slots_[i];
    if (slot.kind == Slot::Kind::kPartition) {
      if (!values[i]) return null_key_error(*slot.column);
      partition_[slot.index].assign(*values[i]);
    } else if (slot.kind == Slot::Kind::kClustering) {
      if (!values[i]) {
        if (nulls_ == NullPolicy::kTombstone) return null_key_error(*slot.column);
        if (null_clustering == nullptr) null_clustering = slot.column;
        continue;
      }
      ++clustering_given;
      clustering_[slot.index].assign(*values[i]);
    }
  }
  *static_only = clustering_omitted_ || null_clustering != nullptr;
  if (null_clustering != nullptr) {
    CASSETTE_RETURN_IF_ERROR(check_static_only(values, clustering_given, *null_clustering));
  }
  CASSETTE_RETURN_IF_ERROR(cql::validate_partition_key_values(partition_));
  clustering_key_.clear();
  if (*static_only || clustering_.empty()) return Status::ok();
  CASSETTE_RETURN_IF_ERROR(cql::validate_clustering_values(clustering_));
  const schema::KeyLayout& layout = table_->layout();
  return types::encode_clustering(layout.clustering_types, layout.clustering_orders(), clustering_,
                                  &clustering_key_);
}

// A row whose clustering values are NULL is the static row's alone (row_encoder.h), or CQL's
// error for its first NULL clustering column.
Status RowEncoder::check_static_only(std::span<const types::Value> values, size_t clustering_given,
                                     const ColumnDef& null_clustering) const {
  bool ok = clustering_given == 0;
  bool static_value = false;
  for (size_t i = 0; i < slots_.size() && ok; ++i) {
    if (slots_[i].kind == Slot::Kind::kRegular) ok = !values[i].has_value();
    if (slots_[i].kind == Slot::Kind::kStatic) static_value = static_value || values[i];
  }
  if (nulls_ == NullPolicy::kUnset) ok = ok && static_value;
  if (nulls_ == NullPolicy::kTombstoneExceptStatic) ok = ok && table_->has_static_columns();
  return ok ? Status::ok() : null_key_error(null_clustering);
}

std::string_view RowEncoder::partition_key() {
  if (partition_.size() == 1) return partition_[0];
  types::serialize_partition_key(partition_, &key_);  // into key_'s buffer, kept from row to row
  return key_;
}

// Every column given is regular and single-cell: the row's bytes written cell by cell from the
// values (EncodedRowWriter: the bytes encode_row writes for the same cells), into buffers kept
// from row to row.
Status RowEncoder::encode_direct(std::string_view key, std::span<const types::Value> values,
                                 RowSink& out) {
  const int64_t timestamp = params_.timestamp, ttl = params_.ttl, now = params_.now_seconds;
  writer_.start(storage::LivenessInfo::written(timestamp, ttl, now));
  for (uint32_t i : cells_) {
    const storage::ColumnId id = slots_[i].id;
    if (!values[i]) {
      if (nulls_ != NullPolicy::kUnset) writer_.add_tombstone(id, timestamp, now);
    } else if (ttl > 0) {
      writer_.add_expiring(id, timestamp, ttl, now, *values[i]);
    } else {
      writer_.add_live(id, timestamp, *values[i]);
    }
  }
  encoded_.clear();
  writer_.finish(&encoded_);
  return out.add_row(key, false, clustering_key_, encoded_);
}

// The general case: the row and the static row built as storage::Rows, each written when it
// has something.
Status RowEncoder::encode_rows(std::string_view key, std::span<types::Value> values,
                               bool static_only, RowSink& out, const CurrentRowReader* read) {
  if (!static_only) {
    storage::Row row;
    row.liveness =
        storage::LivenessInfo::written(params_.timestamp, params_.ttl, params_.now_seconds);
    CASSETTE_RETURN_IF_ERROR(add_cells(key, values, false, read, row));
    CASSETTE_RETURN_IF_ERROR(emit(key, false, std::move(row), out));
  }
  storage::Row statics;
  CASSETTE_RETURN_IF_ERROR(add_cells(key, values, true, read, statics));
  if (statics.is_empty()) return Status::ok();
  return emit(key, true, std::move(statics), out);
}

Status RowEncoder::emit(std::string_view key, bool is_static, storage::Row row, RowSink& out) {
  std::string_view clustering = is_static ? std::string_view() : clustering_key_;
  if (out.wants_rows()) return out.add_built_row(key, is_static, clustering, std::move(row));
  encoded_.clear();
  storage::encode_row(row, &encoded_);
  return out.add_row(key, is_static, clustering, std::string_view(encoded_));
}

bool RowEncoder::any_multi_cell(bool statics) const {
  return std::any_of(cells_.begin(), cells_.end(), [&](uint32_t i) {
    return (slots_[i].kind == Slot::Kind::kStatic) == statics &&
           slots_[i].column->type.is_multi_cell();
  });
}

// The cells of the static columns given (`statics`) or of the regular ones, as `c = value`,
// added to `row`. Single-cell columns only: appended in id order (cells_ is); with a non-frozen
// collection: through apply_operation and a RowBuilder, reading the current row when the
// overwrite needs it.
Status RowEncoder::add_cells(std::string_view key, std::span<types::Value> values, bool statics,
                             const CurrentRowReader* read, storage::Row& row) const {
  const bool null_writes = nulls_ == NullPolicy::kTombstone ||
                           (nulls_ == NullPolicy::kTombstoneExceptStatic && !statics);
  auto given = [&](uint32_t i) {
    return (slots_[i].kind == Slot::Kind::kStatic) == statics && (values[i] || null_writes);
  };
  if (!multi_cell_) {
    const int64_t timestamp = params_.timestamp, ttl = params_.ttl, now = params_.now_seconds;
    for (uint32_t i : cells_) {
      if (!given(i)) continue;
      storage::ColumnData& data = row.columns.emplace_back();
      data.id = slots_[i].column->id;
      if (!values[i]) {
        data.cell = storage::Cell::tombstone(timestamp, now);
      } else if (ttl > 0) {
        data.cell = storage::Cell::expiring(timestamp, ttl, now, std::move(*values[i]));
      } else {
        data.cell = storage::Cell::live(timestamp, std::move(*values[i]));
      }
    }
    return Status::ok();
  }
  std::optional<storage::Row> existing;
  if (needs_read() && any_multi_cell(statics)) {
    if (read == nullptr) return Status::internal("RowEncoder: a collection write needs a reader");
    std::optional<std::string> clustering;
    if (!statics) clustering = clustering_key_;
    CASSETTE_ASSIGN_OR_RETURN(existing, (*read)(key, clustering));
  }
  RowBuilder builder;
  builder.set_liveness(row.liveness);
  for (uint32_t i : cells_) {
    if (!given(i)) continue;
    ColumnOperation op;
    op.kind = ColumnOperation::Kind::kSetValue;
    op.column = slots_[i].column;
    op.value = std::move(values[i]);
    CASSETTE_RETURN_IF_ERROR(
        apply_operation(op, params_, existing ? &*existing : nullptr, builder));
  }
  row = builder.build();
  return Status::ok();
}

storage::Row static_row_deletion(const schema::TableDef& table, int64_t timestamp,
                                 int64_t now_seconds) {
  storage::Row row;
  for (const ColumnDef& c : table.columns) {
    if (!c.is_static()) continue;
    storage::ColumnData& data = row.columns.emplace_back();
    data.id = c.id;
    data.complex = c.type.is_multi_cell();
    if (data.complex) {
      data.complex_deletion = {timestamp, now_seconds};
    } else {
      data.cell = storage::Cell::tombstone(timestamp, now_seconds);
    }
  }
  std::sort(row.columns.begin(), row.columns.end(),
            [](const storage::ColumnData& a, const storage::ColumnData& b) { return a.id < b.id; });
  return row;
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
        return Status::internal("fold_same_rows: a row of the batch does not decode");
      }
      decoded[f] = true;
    }
    storage::Row row;
    if (!storage::decode_row(items[i].entry.value, &row)) {
      return Status::internal("fold_same_rows: a row of the batch does not decode");
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

}  // namespace cassette::write
