// BATCH: INSERT, UPDATE and DELETE statements applied as one write (one MutationBuilder, one store
// transaction, one timestamp unless statements give their own), with Cassandra's BatchStatement
// rules: counter and non-counter statements do not mix, a timestamp is given on the batch or on
// statements, and conditional batches stay within one partition of one table and answer
// [applied] like a single conditional statement.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/codec/table_codec.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/modification_statement.h"
#include "engine/cql/system_views.h"
#include "engine/cql/view_maintenance.h"

namespace cassette::cql {

namespace {

// Cassandra's batch_size_warn_threshold_in_kb (5 KiB) and
// unlogged_batch_across_partitions_warn_threshold (10) defaults.
constexpr int64_t kBatchSizeWarnThreshold = 5 * 1024;
constexpr size_t kUnloggedBatchPartitionsWarnThreshold = 10;

// What Cassandra's BatchStatement verifyBatchSize and verifyBatchType count of a batch without
// conditions: its partitions (a Mutation each), their keys, its tables, and its size, which
// follows PartitionUpdate.dataSize(): each row's clustering values, 8 bytes for an INSERT's row
// marker, and each cell's value (with its map key or set element) plus 16 bytes (timestamp,
// TTL, local deletion time).
struct BatchFootprint {
  std::set<std::pair<std::string, std::string>> partitions;  // keyspace, key
  std::set<std::string> keys;
  std::set<std::string> tables;
  int64_t size = 0;

  std::string table_list() const {
    std::string out;
    for (const std::string& name : tables) out += (out.empty() ? "" : ", ") + name;
    return out;
  }
};

BatchFootprint batch_footprint(const std::vector<PreparedModification>& statements) {
  BatchFootprint out;
  for (const PreparedModification& statement : statements) {
    const schema::TableDef& table = *statement.table;
    out.tables.insert(fmt::format("{}.{}", table.keyspace, table.name));
    int64_t row_size = statement.type == StatementType::kInsert ? 8 : 0;
    for (const ColumnOperation& op : statement.operations) {
      row_size += 16 + static_cast<int64_t>(op.key.size() + (op.value ? op.value->size() : 0));
    }
    const auto& prefixes = statement.targets.clustering_prefixes;
    for (const std::string& key : statement.targets.partition_keys) {
      out.partitions.emplace(table.keyspace, key);
      out.keys.insert(key);
      if (prefixes.empty()) out.size += row_size;
      for (const std::vector<std::string>& prefix : prefixes) {
        out.size += row_size;
        for (const std::string& value : prefix) out.size += static_cast<int64_t>(value.size());
      }
    }
  }
  return out;
}

// Cassandra's batch_size_fail_threshold (50 KiB by default; system_views.h: only the CQL server
// applies it): a batch over more than one partition that exceeds it is refused before anything
// is written.
Status check_batch_size(const BatchFootprint& footprint) {
  const int64_t threshold = batch_size_fail_threshold();
  if (threshold > 0 && footprint.partitions.size() > 1 && footprint.size > threshold) {
    return Status::invalid_argument("Batch too large");
  }
  return Status::ok();
}

// The client warnings of a batch without conditions, as verifyBatchSize and verifyBatchType
// give them: a batch over more than one partition whose data exceeds 5 KiB, and an unlogged
// batch over more than 10 partitions.
std::vector<std::string> batch_warnings(const BatchStatement& batch,
                                        const BatchFootprint& footprint) {
  const std::string table_list = footprint.table_list();
  std::vector<std::string> warnings;
  if (footprint.partitions.size() > 1 && footprint.size > kBatchSizeWarnThreshold) {
    warnings.push_back(
        fmt::format("Batch for [{}] is of size {}, exceeding specified threshold of "
                    "{} by {}.",
                    table_list, footprint.size, kBatchSizeWarnThreshold,
                    footprint.size - kBatchSizeWarnThreshold));
  }
  if (batch.type == BatchStatement::Type::kUnlogged &&
      footprint.keys.size() > kUnloggedBatchPartitionsWarnThreshold) {
    warnings.push_back(fmt::format(
        "Unlogged batch covering {} partitions detected against table{} [{}]. You should use a "
        "logged batch for atomicity, or asynchronous writes for performance.",
        footprint.keys.size(), footprint.tables.size() == 1 ? "" : "s", table_list));
  }
  return warnings;
}

bool has_own_timestamp(const std::variant<InsertStatement, UpdateStatement, DeleteStatement>& s) {
  return std::visit(
      [](const auto& statement) { return statement.using_clause.timestamp != nullptr; }, s);
}

Result<PreparedModification> prepare_one(
    const std::variant<InsertStatement, UpdateStatement, DeleteStatement>& s,
    const ExecutionContext& context) {
  return std::visit(
      [&](const auto& statement) -> Result<PreparedModification> {
        using T = std::decay_t<decltype(statement)>;
        if constexpr (std::is_same_v<T, InsertStatement>)
          return prepare_insert(statement, context);
        else if constexpr (std::is_same_v<T, UpdateStatement>)
          return prepare_update(statement, context);
        else
          return prepare_delete(statement, context);
      },
      s);
}

// One row a conditional batch checks.
struct CheckedRow {
  std::optional<std::vector<std::string>> clustering_values;  // nullopt: the static row
  std::optional<std::string> clustering;
  PreparedConditions::Kind kind = PreparedConditions::Kind::kNone;  // of the first check
  CurrentRow current;
};

// Cassandra's CQL3CasRequest.addExistsCondition / addConditions: the checks of one row must be
// all IF EXISTS, all IF NOT EXISTS, or all column conditions.
Status check_compatible(PreparedConditions::Kind previous, PreparedConditions::Kind next) {
  using Kind = PreparedConditions::Kind;
  if (previous == next) return Status::ok();
  if (previous == Kind::kIfNotExists && next == Kind::kIfExists) {
    return Status::invalid_argument(
        "Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row");
  }
  return Status::invalid_argument("Cannot mix IF conditions and IF NOT EXISTS for the same row");
}

Result<ExecutionResult> execute_conditional_batch(
    const std::vector<PreparedModification>& statements, const std::vector<WriteParameters>& params,
    ExecutionContext& context) {
  const PreparedModification* first = nullptr;
  std::vector<CheckedRow> rows;
  std::vector<std::pair<const PreparedModification*, size_t>> checks;  // statement, row index
  bool wildcard = false;
  std::vector<const schema::ColumnDef*> condition_columns;
  for (const PreparedModification& statement : statements) {
    const char* what = statement.type == StatementType::kDelete ? "deletions" : "updates";
    if (statement.targets.partition_has_in) {
      return Status::invalid_argument(
          "Batch with conditions cannot span multiple partitions (you cannot use IN on the "
          "partition key)");
    }
    if (first == nullptr) {
      first = &statement;
    } else if (statement.table->table_id != first->table->table_id) {
      return Status::invalid_argument("Batch with conditions cannot span multiple tables");
    } else if (statement.targets.partition_keys != first->targets.partition_keys) {
      return Status::invalid_argument("Batch with conditions cannot span multiple partitions");
    }
    if (statement.targets.clustering_has_in) {
      return Status::invalid_argument(fmt::format(
          "IN on the clustering key columns is not supported with conditional {}", what));
    }
    if (statement.conditions.empty()) continue;
    CheckedRow row;
    row.clustering_values = statement.condition_clustering();
    if (row.clustering_values) {
      CASSETTE_ASSIGN_OR_RETURN(row.clustering,
                                clustering_key_bytes(*statement.table, *row.clustering_values));
    }
    auto same = std::find_if(rows.begin(), rows.end(),
                             [&](const CheckedRow& r) { return r.clustering == row.clustering; });
    size_t index = same - rows.begin();
    if (same == rows.end()) {
      row.kind = statement.conditions.kind;
      rows.push_back(std::move(row));
    } else {
      CASSETTE_RETURN_IF_ERROR(check_compatible(same->kind, statement.conditions.kind));
    }
    checks.emplace_back(&statement, index);
    if (statement.conditions.kind != PreparedConditions::Kind::kColumns) {
      wildcard = true;
    } else {
      for (const schema::ColumnDef* c : statement.conditions.columns()) {
        if (std::find(condition_columns.begin(), condition_columns.end(), c) ==
            condition_columns.end()) {
          condition_columns.push_back(c);
        }
      }
    }
  }
  if (first == nullptr || first->targets.partition_keys.empty()) {
    return conditional_result(false, {}, {});
  }
  const schema::TableDef& table = *first->table;
  const std::string& key = first->targets.partition_keys.front();
  storage::Store& store = *context.store;
  bool applied = false;
  auto written = storage::apply_prepared_mutations(
      store,
      with_view_mutations(
          context,
          [&](const storage::Snapshot& snapshot, storage::MutationBuilder& batch) -> Result<bool> {
            for (CheckedRow& row : rows) {
              CASSETTE_ASSIGN_OR_RETURN(
                  row.current, read_current_row(store, snapshot, table, key, row.clustering));
            }
            applied = true;
            for (const auto& [statement, index] : checks) {
              const CheckedRow& row = rows[index];
              bool exists =
                  row.clustering ? row.current.row.has_value() : row.current.static_row.has_value();
              CASSETTE_ASSIGN_OR_RETURN(
                  bool ok, conditions_apply(statement->conditions, row.current, exists));
              applied = applied && ok;
            }
            if (!applied) return false;
            for (size_t i = 0; i < statements.size(); ++i) {
              CASSETTE_RETURN_IF_ERROR(
                  add_modification(statements[i], params[i], store, &snapshot, batch));
            }
            CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
            return true;
          }));
  CASSETTE_RETURN_IF_ERROR(written.status());
  if (applied) return conditional_result(true, {}, {});

  // Not applied: the primary key and the condition columns of each checked row that exists
  // (every column when a statement used IF EXISTS / IF NOT EXISTS), in clustering order.
  std::vector<const schema::ColumnDef*> columns;
  if (wildcard) {
    columns = columns_in_select_order(table);
  } else {
    for (const schema::ColumnDef* c : columns_in_select_order(table)) {
      if (c->is_primary_key()) columns.push_back(c);
    }
    for (const schema::ColumnDef* c : condition_columns) {
      if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
    }
  }
  std::vector<ResultColumn> result_columns;
  for (const schema::ColumnDef* c : columns) result_columns.push_back({c->name, c->type});
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> partition_values,
                            partition_key_values(table, key));
  std::sort(rows.begin(), rows.end(),
            [](const CheckedRow& a, const CheckedRow& b) { return a.clustering < b.clustering; });
  // What Cassandra reads for IF EXISTS / IF NOT EXISTS: regular columns when some statement writes
  // regular rows, static ones when some conditional statement writes the static row.
  bool read_regulars = false, read_statics = false;
  for (const PreparedModification& statement : statements) {
    read_regulars = read_regulars || statement.updates_regular_rows();
    if (!statement.conditions.empty()) {
      read_statics = read_statics || statement.has_static_operations();
    }
  }
  std::vector<std::vector<types::Value>> values;
  for (const CheckedRow& row : rows) {
    if (!row.clustering || !row.current.row) continue;
    values.push_back(
        current_values(columns, partition_values, *row.clustering_values, row.current));
  }
  // Conditions on static columns only: Cassandra reads the partition's first row with them.
  if (values.empty()) {
    for (const CheckedRow& row : rows) {
      if (row.clustering || !row.current.partition_exists) continue;
      std::vector<std::string> clustering_values;
      if (row.current.first_clustering) {
        CASSETTE_ASSIGN_OR_RETURN(clustering_values,
                                  cql::clustering_values(table, *row.current.first_clustering));
      }
      values.push_back(current_values(columns, partition_values, clustering_values, row.current));
      break;
    }
  }
  if (wildcard) {
    for (std::vector<types::Value>& row : values) {
      clear_unread_columns(columns, read_statics, read_regulars, row);
    }
  }
  return conditional_result(false, result_columns, values);
}

}  // namespace

Result<ExecutionResult> execute_batch(const BatchStatement& batch, ExecutionContext& context) {
  std::vector<PreparedModification> statements;
  // Ctrl-C (ExecutionContext::interrupt) stops a batch between its statements and up to the
  // moment its one write is complete, never after: a batch applies whole or not at all.
  for (const auto& s : batch.statements) {
    CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
    CASSETTE_ASSIGN_OR_RETURN(PreparedModification prepared, prepare_one(s, context));
    statements.push_back(std::move(prepared));
  }
  // Batch-level attributes (BatchStatement.validate).
  if (batch.using_clause.ttl) {
    return Status::invalid_argument("Global TTL on the BATCH statement is not supported.");
  }
  bool has_conditions =
      std::any_of(statements.begin(), statements.end(),
                  [](const PreparedModification& s) { return !s.conditions.empty(); });
  std::optional<int64_t> batch_timestamp;
  if (batch.using_clause.timestamp) {
    if (has_conditions) {
      return Status::invalid_argument("Cannot provide custom timestamp for conditional BATCH");
    }
    if (batch.type == BatchStatement::Type::kCounter) {
      return Status::invalid_argument("Cannot provide custom timestamp for counter BATCH");
    }
    UsingClause only_timestamp;
    only_timestamp.timestamp = batch.using_clause.timestamp;
    CASSETTE_ASSIGN_OR_RETURN(
        WriteAttributes attributes,
        evaluate_attributes(only_timestamp, *statements.front().table, context));
    batch_timestamp = attributes.timestamp;
  }
  bool has_counters = false, has_non_counters = false;
  for (size_t i = 0; i < statements.size(); ++i) {
    if (batch_timestamp && has_own_timestamp(batch.statements[i])) {
      return Status::invalid_argument(
          "Timestamp must be set either on BATCH or individual statements");
    }
    (statements[i].is_counter() ? has_counters : has_non_counters) = true;
  }
  if (batch_timestamp && has_counters) {
    return Status::invalid_argument(
        "Cannot provide custom timestamp for a BATCH containing counters");
  }
  if (batch.type == BatchStatement::Type::kCounter && has_non_counters) {
    return Status::invalid_argument("Cannot include non-counter statement in a counter batch");
  }
  if (has_counters && has_non_counters) {
    return Status::invalid_argument(
        "Counter and non-counter mutations cannot exist in the same batch");
  }
  if (batch.type == BatchStatement::Type::kLogged && has_counters) {
    return Status::invalid_argument("Cannot include a counter statement in a logged batch");
  }
  if (has_conditions) {
    for (const PreparedModification& s : statements) {
      if (s.table->table_id != statements.front().table->table_id) {
        return Status::invalid_argument("Batch with conditions cannot span multiple tables");
      }
    }
  }
  std::vector<WriteParameters> params;
  for (PreparedModification& statement : statements) {
    if (batch_timestamp) {
      statement.attributes.timestamp = *batch_timestamp;
      statement.attributes.timestamp_set = true;
    }
    CASSETTE_RETURN_IF_ERROR(validate_modification(statement));
    params.push_back(write_parameters(statement, context, has_conditions));
  }
  if (statements.empty()) return ExecutionResult{};
  if (has_conditions) {
    CASSETTE_RETURN_IF_ERROR(context.refuse_in_transaction("A conditional statement (IF ...)"));
    return execute_conditional_batch(statements, params, context);
  }

  const BatchFootprint footprint = batch_footprint(statements);
  CASSETTE_RETURN_IF_ERROR(check_batch_size(footprint));
  storage::Store& store = *context.store;
  bool needs_read = false;
  for (size_t i = 0; i < statements.size(); ++i) {
    needs_read = needs_read || modification_needs_read(statements[i], params[i]);
  }
  if (!needs_read) {
    storage::MutationBuilder write;
    for (size_t i = 0; i < statements.size(); ++i) {
      CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
      CASSETTE_RETURN_IF_ERROR(add_modification(statements[i], params[i], store, nullptr, write));
    }
    CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
    CASSETTE_RETURN_IF_ERROR(context.write(write));
    ExecutionResult result;
    result.warnings = batch_warnings(batch, footprint);
    return result;
  }
  std::vector<ReadRow> read_rows;
  CASSETTE_RETURN_IF_ERROR(context.write_prepared(
      [&](const storage::Snapshot& snapshot, storage::MutationBuilder& write) -> Result<bool> {
        read_rows.clear();
        for (size_t i = 0; i < statements.size(); ++i) {
          CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
          CASSETTE_RETURN_IF_ERROR(
              add_modification(statements[i], params[i], store, &snapshot, write, &read_rows));
        }
        CASSETTE_RETURN_IF_ERROR(context.check_interrupt());
        return true;
      }));
  context.add_conflict_keys(read_rows);
  ExecutionResult result;
  result.warnings = batch_warnings(batch, footprint);
  return result;
}

}  // namespace cassette::cql
