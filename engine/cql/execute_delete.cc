// DELETE: of whole partitions, rows, ranges of rows (range tombstones), columns, collection
// elements and UDT fields (Cassandra's DeleteStatement).
#include <fmt/format.h>

#include "engine/cql/execution_context.h"
#include "engine/cql/modification_statement.h"

namespace cassette::cql {

namespace {

// StatementRestrictions.hasAllPKColumnsRestrictedByEqualities (IN counts as an equality).
bool all_key_columns_by_equality(const PreparedModification& prepared) {
  const ModificationTargets& targets = prepared.targets;
  return targets.clustering_column_count == 0 ||
         (!targets.slice && targets.clustering_equality_columns == targets.clustering_column_count);
}

}  // namespace

Result<PreparedModification> prepare_delete(const DeleteStatement& statement,
                                            const ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> table,
                            context.resolve_writable_table(statement.table));
  PreparedModification prepared;
  prepared.type = StatementType::kDelete;
  prepared.table = table;
  if (statement.using_clause.ttl) {
    return Status::invalid_argument("TTL attribute is not allowed for deletes");
  }
  CASSETTE_ASSIGN_OR_RETURN(prepared.attributes,
                            evaluate_attributes(statement.using_clause, *table, context));
  prepared.attributes.ttl = 0;
  if (!statement.conditions.empty() && prepared.attributes.timestamp_set) {
    return Status::invalid_argument("Cannot provide custom timestamp for conditional updates");
  }
  CASSETTE_ASSIGN_OR_RETURN(
      prepared.conditions,
      prepare_conditions(*table, statement.if_exists, false, statement.conditions, context));
  for (const DeleteTarget& target : statement.targets) {
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column,
                              existing_column(*table, target.column));
    if (column->is_primary_key()) {
      return Status::invalid_argument(fmt::format(
          "Invalid identifier {} for deletion (should not be a PRIMARY KEY part)", column->name));
    }
    CASSETTE_ASSIGN_OR_RETURN(ColumnOperation op, prepare_deletion(target, *column, context));
    prepared.operations.push_back(std::move(op));
  }
  bool only_static = prepared.involves_only_static_columns();
  CASSETTE_ASSIGN_OR_RETURN(
      prepared.targets, resolve_modification_where(*table, statement.where, StatementType::kDelete,
                                                   only_static, context));
  if (!prepared.conditions.empty() && !all_key_columns_by_equality(prepared)) {
    if (prepared.has_regular_operations()) {
      return Status::invalid_argument(
          "DELETE statements must restrict all PRIMARY KEY columns with equality relations in "
          "order to delete non static columns");
    }
    if (prepared.conditions.applies_to_regular_columns()) {
      return Status::invalid_argument(
          "DELETE statements must restrict all PRIMARY KEY columns with equality relations in "
          "order to use IF condition on non static columns");
    }
  }
  return prepared;
}

Result<ExecutionResult> execute_delete(const DeleteStatement& statement,
                                       ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(PreparedModification prepared, prepare_delete(statement, context));
  CASSETTE_RETURN_IF_ERROR(validate_modification(prepared));
  return execute_modification(prepared, context);
}

}  // namespace cassette::cql
