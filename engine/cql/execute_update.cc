// UPDATE: assignments to the rows the WHERE clause names (Cassandra's
// UpdateStatement.ParsedUpdate). Unlike INSERT it writes no row marker, so a row whose columns
// are all set to null by UPDATE disappears.
#include <fmt/format.h>

#include <algorithm>

#include "engine/cql/execution_context.h"
#include "engine/cql/modification_statement.h"
#include "engine/cql/select_ann.h"

namespace cassette::cql {

namespace {

// Cassandra's parser refuses `c = 1, c = 2` and `c = 1, c[0] = 2` (Operation.RawUpdate
// .isCompatibleWith: a plain set is compatible with nothing else on the same column).
Status check_compatible(const std::vector<Assignment>& assignments) {
  for (size_t i = 0; i < assignments.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (assignments[i].column != assignments[j].column) continue;
      if (assignments[i].kind == Assignment::Kind::kSet ||
          assignments[j].kind == Assignment::Kind::kSet) {
        return Status::syntax_error(
            fmt::format("Multiple incompatible setting of column {}", assignments[i].column));
      }
    }
  }
  return Status::ok();
}

}  // namespace

Result<PreparedModification> prepare_update(const UpdateStatement& statement,
                                            const ExecutionContext& context) {
  CASSETTE_RETURN_IF_ERROR(check_compatible(statement.assignments));
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> table,
                            context.resolve_writable_table(statement.table));
  PreparedModification prepared;
  prepared.type = StatementType::kUpdate;
  prepared.table = table;
  CASSETTE_ASSIGN_OR_RETURN(prepared.attributes,
                            evaluate_attributes(statement.using_clause, *table, context));
  if (!statement.conditions.empty() && prepared.attributes.timestamp_set) {
    return Status::invalid_argument("Cannot provide custom timestamp for conditional updates");
  }
  CASSETTE_ASSIGN_OR_RETURN(
      prepared.conditions,
      prepare_conditions(*table, statement.if_exists, false, statement.conditions, context));
  for (const Assignment& assignment : statement.assignments) {
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column,
                              existing_column(*table, assignment.column));
    if (column->is_primary_key()) {
      return Status::invalid_argument(
          fmt::format("PRIMARY KEY part {} found in SET part", column->name));
    }
    CASSETTE_ASSIGN_OR_RETURN(ColumnOperation op, prepare_assignment(assignment, *column, context));
    prepared.operations.push_back(std::move(op));
  }
  bool only_static = prepared.involves_only_static_columns();
  CASSETTE_ASSIGN_OR_RETURN(
      prepared.targets, resolve_modification_where(*table, statement.where, StatementType::kUpdate,
                                                   only_static, context));
  CASSETTE_RETURN_IF_ERROR(check_indexable_vectors(context, *table, prepared.operations));
  return prepared;
}

Result<ExecutionResult> execute_update(const UpdateStatement& statement,
                                       ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(PreparedModification prepared, prepare_update(statement, context));
  CASSETTE_RETURN_IF_ERROR(validate_modification(prepared));
  return execute_modification(prepared, context);
}

}  // namespace cassette::cql
