// A modification statement (INSERT, UPDATE or DELETE) checked against the schema and evaluated:
// the partitions and rows it targets, its operations, attributes and conditions. BATCH runs
// several of them as one write; a single statement runs alone with execute_modification().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cql/conditions.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/modification.h"
#include "engine/cql/modification_where.h"
#include "engine/cql/result.h"

namespace cassette::cql {

struct PreparedModification {
  StatementType type = StatementType::kUpdate;
  std::shared_ptr<const schema::TableDef> table;
  ModificationTargets targets;
  std::vector<ColumnOperation> operations;
  WriteAttributes attributes;
  PreparedConditions conditions;

  bool is_counter() const { return table->is_counter_table(); }
  bool has_static_operations() const;
  // Cassandra's Operations.appliesToRegularColumns(): some operation is on a regular column, or
  // the statement is a DELETE of whole rows.
  bool has_regular_operations() const;
  // Cassandra's "only static columns are involved": operations and conditions touch static
  // columns and no regular ones.
  bool involves_only_static_columns() const;
  // Cassandra's updatesRegularRows(): the table has no clustering columns or some are given.
  bool updates_regular_rows() const;
  // Conditional statements target one row: its clustering (nullopt for the static row).
  std::optional<std::vector<std::string>> condition_clustering() const;
};

// Checking and evaluating each kind of statement (execute_insert.cc, execute_update.cc,
// execute_delete.cc), for running it alone or in a BATCH.
Result<PreparedModification> prepare_insert(const InsertStatement& statement,
                                            const ExecutionContext& context);
Result<PreparedModification> prepare_update(const UpdateStatement& statement,
                                            const ExecutionContext& context);
Result<PreparedModification> prepare_delete(const DeleteStatement& statement,
                                            const ExecutionContext& context);

// The checks of an INSERT ... VALUES that need no value, made when it is prepared as Cassandra
// makes them: the column list ("Unmatched column names/values", duplicates, undefined columns)
// and the primary key ("Some partition key parts are missing: k"). INSERT JSON passes.
Status check_insert_columns(const InsertStatement& statement, const schema::TableDef& table);

// Statement-level checks shared by INSERT, UPDATE and DELETE (counters and timestamps,
// conditions and IN), run once the statement is prepared.
Status validate_modification(const PreparedModification& statement);

// The write parameters of a statement: its attributes and the context's now. Without USING
// TIMESTAMP, the client's default timestamp (StatementOptions) when the write is neither
// conditional (`in_conditional_batch` included) nor a counter's.
WriteParameters write_parameters(const PreparedModification& statement,
                                 const ExecutionContext& context,
                                 bool in_conditional_batch = false);

// Whether adding the statement to a batch needs to read current rows (list operations, and
// overwriting non-frozen collections without USING TIMESTAMP).
bool modification_needs_read(const PreparedModification& statement, const WriteParameters& params);

// Adds the statement's writes to `batch`. `snapshot` must be given when
// modification_needs_read(); reads go through `store`. The rows whose current values an
// operation used (ColumnOperation::requires_read) are appended to `read_rows` when given.
Status add_modification(const PreparedModification& statement, const WriteParameters& params,
                        const storage::Store& store, const storage::Snapshot* snapshot,
                        storage::MutationBuilder& batch, std::vector<ReadRow>* read_rows = nullptr);

// Runs one statement on its own: a plain write, a read-then-write, or a conditional write that
// answers [applied].
Result<ExecutionResult> execute_modification(const PreparedModification& statement,
                                             ExecutionContext& context);

// The result of a conditional statement: [applied] and, when it did not apply, the values.
ExecutionResult conditional_result(bool applied, const std::vector<ResultColumn>& columns,
                                   const std::vector<std::vector<types::Value>>& rows);

// Cassandra's CQL3CasRequest.columnsToRead(): with IF EXISTS / IF NOT EXISTS the answer holds the
// static columns only when the statement (or batch) writes the static row, and the regular ones
// only when it writes regular rows; the others are not read and answer null.
void clear_unread_columns(const std::vector<const schema::ColumnDef*>& columns, bool read_statics,
                          bool read_regulars, std::vector<types::Value>& values);

}  // namespace cassette::cql
