// INSERT: an upsert of one row that also writes the row marker (so the row exists even with
// every regular column null), as Cassandra's UpdateStatement.ParsedInsert. The key columns become
// equality relations checked like an UPDATE's WHERE clause; the other columns become `c = v`.
// INSERT JSON maps the document's keys to columns (insert_json.cc).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "engine/cql/execution_context.h"
#include "engine/cql/insert_json.h"
#include "engine/cql/modification_statement.h"
#include "engine/cql/select_ann.h"

namespace cassette::cql {

namespace {

PreparedModification begin_insert(std::shared_ptr<const schema::TableDef> table) {
  PreparedModification prepared;
  prepared.type = StatementType::kInsert;
  prepared.table = std::move(table);
  return prepared;
}

// Cassandra's first checks of INSERT ... VALUES (UpdateStatement.ParsedInsert).
Status check_column_list(const InsertStatement& statement) {
  if (statement.columns.empty()) return Status::invalid_argument("No columns provided to INSERT");
  if (statement.columns.size() != statement.values.size()) {
    return Status::invalid_argument("Unmatched column names/values");
  }
  for (size_t i = 0; i < statement.columns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (statement.columns[i] == statement.columns[j]) {
        return Status::invalid_argument("The column names contains duplicates");
      }
    }
  }
  return Status::ok();
}

// INSERT ... VALUES: the key columns become equality relations, the others `c = v`.
Status prepare_values(const InsertStatement& statement, const ExecutionContext& context,
                      PreparedModification& prepared, std::vector<Relation>& key_relations,
                      bool& clustering_given) {
  const schema::TableDef& table = *prepared.table;
  CASSETTE_RETURN_IF_ERROR(check_column_list(statement));
  for (size_t i = 0; i < statement.columns.size(); ++i) {
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column,
                              existing_column(table, statement.columns[i]));
    if (column->is_primary_key()) {
      Relation relation;
      relation.columns = {column->name};
      relation.op = Operator::kEq;
      relation.value = statement.values[i];
      key_relations.push_back(std::move(relation));
      clustering_given = clustering_given || column->kind == schema::ColumnKind::kClustering;
      continue;
    }
    Assignment assignment;
    assignment.kind = Assignment::Kind::kSet;
    assignment.column = column->name;
    assignment.value = statement.values[i];
    CASSETTE_ASSIGN_OR_RETURN(ColumnOperation op, prepare_assignment(assignment, *column, context));
    prepared.operations.push_back(std::move(op));
  }
  return Status::ok();
}

// INSERT JSON: every column of the table, with its decoded value (null when left out, unless
// DEFAULT UNSET).
Status prepare_json(const InsertStatement& statement, const ExecutionContext& context,
                    PreparedModification& prepared, std::vector<Relation>& key_relations,
                    std::map<std::string, types::Value>& key_values, bool& clustering_given) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<JsonColumnValue> values,
                            decode_insert_json(statement, *prepared.table, context));
  for (JsonColumnValue& entry : values) {
    const schema::ColumnDef& column = *entry.column;
    if (column.is_primary_key()) {
      if (entry.unset) {
        return Status::invalid_argument(
            fmt::format("Invalid unset value for column {}", column.name));
      }
      Relation relation;
      relation.columns = {column.name};
      relation.op = Operator::kEq;
      key_relations.push_back(std::move(relation));
      key_values[column.name] = std::move(entry.value);
      clustering_given = clustering_given || column.kind == schema::ColumnKind::kClustering;
      continue;
    }
    if (entry.unset) continue;
    ColumnOperation op;
    op.kind = ColumnOperation::Kind::kSetValue;
    op.column = &column;
    op.value = std::move(entry.value);
    prepared.operations.push_back(std::move(op));
  }
  return Status::ok();
}

}  // namespace

Status check_insert_columns(const InsertStatement& statement, const schema::TableDef& table) {
  if (statement.json) return Status::ok();
  CASSETTE_RETURN_IF_ERROR(check_column_list(statement));
  std::vector<const schema::ColumnDef*> given;
  bool clustering = false, regulars = false, statics = false;
  for (const std::string& name : statement.columns) {
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column, existing_column(table, name));
    given.push_back(column);
    clustering = clustering || column->kind == schema::ColumnKind::kClustering;
    regulars = regulars || column->kind == schema::ColumnKind::kRegular;
    statics = statics || column->kind == schema::ColumnKind::kStatic;
  }
  auto missing = [&](schema::ColumnKind kind) {
    std::string names;
    for (const schema::ColumnDef& column : table.columns) {
      if (column.kind != kind || std::find(given.begin(), given.end(), &column) != given.end()) {
        continue;
      }
      names += (names.empty() ? "" : ", ") + column.name;
    }
    return names;
  };
  if (std::string names = missing(schema::ColumnKind::kPartitionKey); !names.empty()) {
    return Status::invalid_argument(fmt::format("Some partition key parts are missing: {}", names));
  }
  // Without clustering columns an INSERT may still set static columns alone.
  if (std::string names = missing(schema::ColumnKind::kClustering);
      !names.empty() && (clustering || regulars || !statics)) {
    return Status::invalid_argument(fmt::format("Some clustering keys are missing: {}", names));
  }
  return Status::ok();
}

Result<PreparedModification> prepare_insert(const InsertStatement& statement,
                                            const ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> table,
                            context.resolve_writable_table(statement.table));
  PreparedModification prepared = begin_insert(table);
  CASSETTE_ASSIGN_OR_RETURN(prepared.attributes,
                            evaluate_attributes(statement.using_clause, *table, context));
  CASSETTE_ASSIGN_OR_RETURN(
      prepared.conditions, prepare_conditions(*table, false, statement.if_not_exists, {}, context));
  if (table->is_counter_table()) {
    return Status::invalid_argument(
        "INSERT statements are not allowed on counter tables, use UPDATE instead");
  }
  std::vector<Relation> key_relations;
  std::map<std::string, types::Value> key_values;
  bool clustering_given = false;
  if (statement.json) {
    CASSETTE_RETURN_IF_ERROR(
        prepare_json(statement, context, prepared, key_relations, key_values, clustering_given));
  } else {
    CASSETTE_RETURN_IF_ERROR(
        prepare_values(statement, context, prepared, key_relations, clustering_given));
  }
  bool only_static = !clustering_given && prepared.involves_only_static_columns();
  CASSETTE_ASSIGN_OR_RETURN(
      prepared.targets, resolve_modification_where(*table, key_relations, StatementType::kInsert,
                                                   only_static, context, &key_values));
  CASSETTE_RETURN_IF_ERROR(check_indexable_vectors(context, *table, prepared.operations));
  return prepared;
}

Result<ExecutionResult> execute_insert(const InsertStatement& statement,
                                       ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(PreparedModification prepared, prepare_insert(statement, context));
  CASSETTE_RETURN_IF_ERROR(validate_modification(prepared));
  return execute_modification(prepared, context);
}

}  // namespace cassette::cql
