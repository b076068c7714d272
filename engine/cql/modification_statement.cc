// Running modification statements (see modification_statement.h).
#include "engine/cql/modification_statement.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/cql/view_maintenance.h"
#include "engine/write/row_encoder.h"

namespace cassette::cql {

namespace {

bool is_static_operation(const ColumnOperation& op) {
  return op.column->is_static();
}

storage::DeletionTime deletion_at(const WriteParameters& params) {
  return storage::DeletionTime{params.timestamp, params.now_seconds};
}

// The row and static row a statement's operations need, read once per partition and row.
struct RowReader {
  const storage::Store& store;
  const storage::Snapshot* snapshot;
  const std::shared_ptr<const schema::TableDef>& table;
  std::vector<ReadRow>* read_rows;  // where reads whose values are used go; may be nullptr

  Result<CurrentRow> read(const std::string& partition_key,
                          const std::optional<std::string>& clustering) const {
    if (snapshot == nullptr) return CurrentRow{};
    return read_current_row(store, *snapshot, *table, partition_key, clustering);
  }
  // read(), for operations that compute the new cells from the current ones (`uses_values`:
  // not only to overwrite a collection): the row is one the statement read and then wrote.
  Result<CurrentRow> read(const std::string& partition_key,
                          const std::optional<std::string>& clustering, bool uses_values) const {
    if (uses_values && read_rows != nullptr) {
      read_rows->push_back(ReadRow{table, partition_key, clustering});
    }
    return read(partition_key, clustering);
  }
};

Status apply_operations(const std::vector<const ColumnOperation*>& operations,
                        const WriteParameters& params, const storage::Row* existing,
                        RowBuilder& row) {
  for (const ColumnOperation* op : operations) {
    CASSETTE_RETURN_IF_ERROR(apply_operation(*op, params, existing, row));
  }
  return Status::ok();
}

bool any_requires_read(const std::vector<const ColumnOperation*>& operations) {
  return std::any_of(operations.begin(), operations.end(),
                     [](const ColumnOperation* op) { return op->requires_read(); });
}

bool any_needs_row(const std::vector<const ColumnOperation*>& operations,
                   const WriteParameters& params) {
  return std::any_of(operations.begin(), operations.end(),
                     [&](const ColumnOperation* op) { return operation_needs_row(*op, params); });
}

void add_range_tombstone(storage::PartitionHeader& header, std::string start, std::string end,
                         const storage::DeletionTime& deletion) {
  for (storage::RangeTombstone& existing : header.range_tombstones) {
    if (existing.start == start && existing.end == end) {
      existing.deletion = storage::max_deletion(existing.deletion, deletion);
      return;
    }
  }
  header.range_tombstones.push_back(
      storage::RangeTombstone{std::move(start), std::move(end), deletion});
  std::sort(header.range_tombstones.begin(), header.range_tombstones.end(),
            [](const storage::RangeTombstone& a, const storage::RangeTombstone& b) {
              return std::tie(a.start, a.end) < std::tie(b.start, b.end);
            });
}

// Where an INSERT's rows go: merged into the statement's partition update.
class UpdateSink : public write::RowSink {
 public:
  explicit UpdateSink(storage::PartitionUpdate& update) : update_(update) {}
  bool wants_rows() const override { return true; }
  Status add_row(std::string_view, bool, std::string_view, std::string_view) override {
    return Status::internal("UpdateSink takes rows");
  }
  Status add_built_row(std::string_view, bool is_static, std::string_view clustering,
                       storage::Row row) override {
    std::optional<std::string> at;
    if (!is_static) at = std::string(clustering);
    merge_row(update_, at, std::move(row));
    return Status::ok();
  }

 private:
  storage::PartitionUpdate& update_;
};

// Whether the statement is an INSERT of plain values into one row, which the engine's INSERT
// encoder writes (an INSERT has no IN, so one partition and one clustering at most).
bool is_plain_insert(const PreparedModification& statement, size_t clusterings) {
  return statement.type == StatementType::kInsert && statement.targets.partition_keys.size() == 1 &&
         clusterings <= 1 &&
         std::all_of(
             statement.operations.begin(), statement.operations.end(),
             [](const ColumnOperation& op) { return op.kind == ColumnOperation::Kind::kSetValue; });
}

// A plain INSERT through write::RowEncoder: the row marker and `c = value` per column, NULL a
// tombstone, the static row when static columns are given. Its key was checked with the
// statement's relations (resolve_modification_where), so insert_checked() takes it as is.
Status add_plain_insert(const PreparedModification& statement, const WriteParameters& params,
                        const RowReader& reader, const std::vector<std::string>& clusterings,
                        storage::MutationBuilder& batch) {
  const schema::TableDef& table = *statement.table;
  std::vector<size_t> columns;
  std::vector<types::Value> values;
  for (const ColumnOperation& op : statement.operations) {
    columns.push_back(static_cast<size_t>(op.column - table.columns.data()));
    values.push_back(op.value);
  }
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (!table.columns[i].is_primary_key()) continue;
    columns.push_back(i);
    values.push_back(std::nullopt);  // insert_checked() reads no key value
  }
  CASSETTE_ASSIGN_OR_RETURN(
      std::unique_ptr<write::RowEncoder> encoder,
      write::RowEncoder::make(statement.table, std::move(columns), write::NullPolicy::kTombstone));
  encoder->set_parameters(params);
  const std::string& key = statement.targets.partition_keys.front();
  std::optional<std::string> clustering;
  if (statement.updates_regular_rows()) {
    clustering = clusterings.empty() ? std::string() : clusterings.front();
  }
  const write::CurrentRowReader read =
      [&](std::string_view,
          const std::optional<std::string>& at) -> Result<std::optional<storage::Row>> {
    CASSETTE_ASSIGN_OR_RETURN(CurrentRow current, reader.read(key, at));
    return at ? std::move(current.row) : std::move(current.static_row);
  };
  UpdateSink sink(batch.partition(table.table_id, key));
  return encoder->insert_checked(key, clustering, values, sink, &read);
}

}  // namespace

bool PreparedModification::has_static_operations() const {
  return std::any_of(operations.begin(), operations.end(), is_static_operation);
}

bool PreparedModification::has_regular_operations() const {
  // A DELETE naming no column deletes whole rows: regular columns too.
  if (type == StatementType::kDelete && operations.empty()) return true;
  return std::any_of(operations.begin(), operations.end(),
                     [](const ColumnOperation& op) { return !is_static_operation(op); });
}

bool PreparedModification::involves_only_static_columns() const {
  return !has_regular_operations() && !conditions.applies_to_regular_columns() &&
         (has_static_operations() || conditions.applies_to_static_columns());
}

bool PreparedModification::updates_regular_rows() const {
  return targets.clustering_column_count == 0 || targets.clustering_restricted;
}

std::optional<std::vector<std::string>> PreparedModification::condition_clustering() const {
  bool static_only = involves_only_static_columns();
  // Cassandra's createClustering: the static row when only static columns are involved and no
  // clustering column is given.
  if (targets.clustering_column_count > 0 &&
      ((static_only && !targets.clustering_restricted) || !targets.selects_rows())) {
    return std::nullopt;
  }
  if (targets.clustering_prefixes.empty()) return std::vector<std::string>{};
  return targets.clustering_prefixes.front();
}

Status validate_modification(const PreparedModification& statement) {
  if (!statement.conditions.empty()) {
    if (statement.is_counter()) {
      return Status::invalid_argument("Conditional updates are not supported on counter tables");
    }
    if (statement.attributes.timestamp_set) {
      return Status::invalid_argument("Cannot provide custom timestamp for conditional updates");
    }
  }
  if (statement.is_counter() && statement.attributes.timestamp_set) {
    return Status::invalid_argument("Cannot provide custom timestamp for counter updates");
  }
  if (statement.is_counter() && statement.attributes.ttl_set) {
    return Status::invalid_argument("Cannot provide custom TTL for counter updates");
  }
  return Status::ok();
}

WriteParameters write_parameters(const PreparedModification& statement,
                                 const ExecutionContext& context, bool in_conditional_batch) {
  WriteParameters params;
  params.timestamp = statement.attributes.timestamp;
  params.timestamp_set = statement.attributes.timestamp_set;
  const bool store_timestamp =
      in_conditional_batch || !statement.conditions.empty() || statement.is_counter();
  if (!params.timestamp_set && !store_timestamp && context.options != nullptr &&
      context.options->default_timestamp) {
    params.timestamp = *context.options->default_timestamp;
    params.timestamp_set = true;
  }
  params.ttl = statement.is_counter() ? 0 : statement.attributes.ttl;
  params.now_seconds = context.now_seconds();
  params.now_micros = context.now_micros;
  return params;
}

bool modification_needs_read(const PreparedModification& statement, const WriteParameters& params) {
  return std::any_of(statement.operations.begin(), statement.operations.end(),
                     [&](const ColumnOperation& op) { return operation_needs_row(op, params); });
}

Status add_modification(const PreparedModification& statement, const WriteParameters& params,
                        const storage::Store& store, const storage::Snapshot* snapshot,
                        storage::MutationBuilder& batch, std::vector<ReadRow>* read_rows) {
  const schema::TableDef& table = *statement.table;
  const ModificationTargets& targets = statement.targets;
  RowReader reader{store, snapshot, statement.table, read_rows};
  std::vector<const ColumnOperation*> regular, statics;
  for (const ColumnOperation& op : statement.operations) {
    (is_static_operation(op) ? statics : regular).push_back(&op);
  }
  bool read_regular = any_needs_row(regular, params);
  bool read_static = any_needs_row(statics, params);
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> clusterings, encoded_prefixes(table, targets));
  if (is_plain_insert(statement, clusterings.size())) {
    return add_plain_insert(statement, params, reader, clusterings, batch);
  }
  bool has_clustering = targets.clustering_column_count > 0;
  bool range = statement.type == StatementType::kDelete && has_clustering &&
               targets.clustering_restricted && !targets.selects_rows();

  if (statement.type == StatementType::kDelete && range) {
    if (!statement.operations.empty()) {
      return Status::invalid_argument("Range deletions are not supported for specific columns");
    }
    CASSETTE_ASSIGN_OR_RETURN(auto ranges, clustering_ranges(table, targets));
    for (const std::string& key : targets.partition_keys) {
      storage::PartitionUpdate& update = batch.partition(table.table_id, key);
      for (const auto& [start, end] : ranges) {
        add_range_tombstone(update.header, start, end, deletion_at(params));
      }
    }
    return Status::ok();
  }
  if (statement.type == StatementType::kDelete && !regular.empty() && has_clustering &&
      !targets.clustering_restricted) {
    return Status::invalid_argument("Range deletions are not supported for specific columns");
  }

  for (const std::string& key : targets.partition_keys) {
    storage::PartitionUpdate& update = batch.partition(table.table_id, key);
    if (statement.type == StatementType::kDelete && statement.operations.empty()) {
      if (!has_clustering || !targets.clustering_restricted) {
        update.header.deletion = storage::max_deletion(update.header.deletion, deletion_at(params));
        continue;
      }
      for (const std::string& clustering : clusterings) {
        RowBuilder row;
        row.set_deletion(deletion_at(params));
        merge_row(update, clustering, row.build());
      }
      continue;
    }
    if (statement.updates_regular_rows() &&
        (!regular.empty() || statement.type == StatementType::kInsert)) {
      for (const std::string& clustering : clusterings) {
        RowBuilder row;
        if (statement.type == StatementType::kInsert) {
          row.set_liveness(
              storage::LivenessInfo::written(params.timestamp, params.ttl, params.now_seconds));
        }
        std::optional<storage::Row> existing;
        if (read_regular) {
          CASSETTE_ASSIGN_OR_RETURN(CurrentRow current,
                                    reader.read(key, clustering, any_requires_read(regular)));
          existing = std::move(current.row);
        }
        CASSETTE_RETURN_IF_ERROR(
            apply_operations(regular, params, existing ? &*existing : nullptr, row));
        if (!row.empty()) merge_row(update, clustering, row.build());
      }
    }
    if (!statics.empty()) {
      RowBuilder row;
      std::optional<storage::Row> existing;
      if (read_static) {
        CASSETTE_ASSIGN_OR_RETURN(CurrentRow current,
                                  reader.read(key, std::nullopt, any_requires_read(statics)));
        existing = std::move(current.static_row);
      }
      CASSETTE_RETURN_IF_ERROR(
          apply_operations(statics, params, existing ? &*existing : nullptr, row));
      if (!row.empty()) merge_row(update, std::nullopt, row.build());
    }
  }
  return Status::ok();
}

ExecutionResult conditional_result(bool applied, const std::vector<ResultColumn>& columns,
                                   const std::vector<std::vector<types::Value>>& rows) {
  ExecutionResult result;
  result.kind = ExecutionResult::Kind::kRows;
  result.rows.columns.push_back(applied_column());
  types::Value applied_value = std::string(1, applied ? '\x01' : '\x00');
  if (applied || rows.empty()) {
    result.rows.rows.push_back({applied_value});
    return result;
  }
  for (const ResultColumn& c : columns) result.rows.columns.push_back(c);
  for (const auto& row : rows) {
    std::vector<types::Value> values{applied_value};
    values.insert(values.end(), row.begin(), row.end());
    result.rows.rows.push_back(std::move(values));
  }
  return result;
}

void clear_unread_columns(const std::vector<const schema::ColumnDef*>& columns, bool read_statics,
                          bool read_regulars, std::vector<types::Value>& values) {
  for (size_t i = 0; i < columns.size() && i < values.size(); ++i) {
    if (columns[i]->is_primary_key()) continue;
    if (columns[i]->is_static() ? !read_statics : !read_regulars) values[i] = std::nullopt;
  }
}

Result<ExecutionResult> execute_modification(const PreparedModification& statement,
                                             ExecutionContext& context) {
  WriteParameters params = write_parameters(statement, context);
  storage::Store& store = *context.store;
  // Ctrl-C (ExecutionContext::interrupt) stops the statement up to the moment its write is
  // complete, and never after: it applies whole or not at all.
  if (statement.conditions.empty()) {
    if (!modification_needs_read(statement, params)) {
      storage::MutationBuilder batch;
      CASSETTE_RETURN_IF_ERROR(add_modification(statement, params, store, nullptr, batch));
      CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
      CASSETTE_RETURN_IF_ERROR(context.write(batch));
    } else {
      std::vector<ReadRow> read_rows;
      CASSETTE_RETURN_IF_ERROR(context.write_prepared(
          [&](const storage::Snapshot& snapshot, storage::MutationBuilder& batch) -> Result<bool> {
            read_rows.clear();
            CASSETTE_RETURN_IF_ERROR(
                add_modification(statement, params, store, &snapshot, batch, &read_rows));
            CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
            return true;
          }));
      context.add_conflict_keys(read_rows);
    }
    return ExecutionResult{};
  }
  CASSETTE_RETURN_IF_ERROR(context.refuse_in_transaction("A conditional statement (IF ...)"));

  const char* what = statement.type == StatementType::kDelete ? "deletions" : "updates";
  if (statement.targets.partition_has_in) {
    return Status::invalid_argument(
        fmt::format("IN on the partition key is not supported with conditional {}", what));
  }
  if (statement.targets.clustering_has_in) {
    return Status::invalid_argument(
        fmt::format("IN on the clustering key columns is not supported with conditional {}", what));
  }
  if (statement.targets.partition_keys.empty()) return conditional_result(false, {}, {});
  const schema::TableDef& table = *statement.table;
  const std::string& key = statement.targets.partition_keys.front();
  std::optional<std::vector<std::string>> clustering_values = statement.condition_clustering();
  std::optional<std::string> clustering;
  if (clustering_values) {
    CASSETTE_ASSIGN_OR_RETURN(clustering, clustering_key_bytes(table, *clustering_values));
  }
  CurrentRow current;
  bool applied = false;
  auto written = storage::apply_prepared_mutations(
      store,
      with_view_mutations(
          context,
          [&](const storage::Snapshot& snapshot, storage::MutationBuilder& batch) -> Result<bool> {
            CASSETTE_ASSIGN_OR_RETURN(current,
                                      read_current_row(store, snapshot, table, key, clustering));
            bool exists = clustering ? current.row.has_value() : current.static_row.has_value();
            CASSETTE_ASSIGN_OR_RETURN(applied,
                                      conditions_apply(statement.conditions, current, exists));
            if (!applied) return false;
            CASSETTE_RETURN_IF_ERROR(add_modification(statement, params, store, &snapshot, batch));
            CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
            return true;
          }));
  CASSETTE_RETURN_IF_ERROR(written.status());
  // Cassandra answers with the values it read for the conditions: the targeted row, or the
  // static row when a condition names a static column.
  bool row_exists = clustering ? current.row.has_value() : current.static_row.has_value();
  bool static_condition =
      std::any_of(statement.conditions.conditions.begin(), statement.conditions.conditions.end(),
                  [](const ColumnCondition& c) { return c.column->is_static(); });
  // A statement on the static row only reads the partition's first live row too (Cassandra's
  // CQL3CasRequest), so a partition with rows but no static values still answers its nulls.
  bool has_values = clustering ? row_exists || (static_condition && current.static_row)
                               : current.partition_exists;
  if (applied || !has_values) {
    return conditional_result(applied, {}, {});
  }

  std::vector<const schema::ColumnDef*> columns;
  if (statement.conditions.kind == PreparedConditions::Kind::kColumns) {
    columns = statement.conditions.columns();
  } else {
    columns = columns_in_select_order(table);
  }
  std::vector<ResultColumn> result_columns;
  for (const schema::ColumnDef* c : columns) result_columns.push_back({c->name, c->type});
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> partition_values,
                            partition_key_values(table, key));
  std::vector<std::string> row_clustering;
  if (current.row && clustering_values) row_clustering = *clustering_values;
  if (!clustering_values && current.first_clustering) {
    CASSETTE_ASSIGN_OR_RETURN(row_clustering,
                              cql::clustering_values(table, *current.first_clustering));
  }
  std::vector<types::Value> values =
      current_values(columns, partition_values, row_clustering, current);
  if (statement.conditions.kind != PreparedConditions::Kind::kColumns) {
    clear_unread_columns(columns, statement.has_static_operations(),
                         statement.updates_regular_rows(), values);
  }
  return conditional_result(false, result_columns, {values});
}

}  // namespace cassette::cql
