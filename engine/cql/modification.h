// What INSERT, UPDATE and DELETE share once the statement is checked against the schema: the
// write attributes (USING TTL / TIMESTAMP), the operations on columns (Cassandra's Operation
// family: set a value, add to or remove from a collection, set an element or a UDT field,
// increment a counter, delete a column, element or field) and how each becomes cells of the
// partition update, and the reads some of them need (list indexes, list removal, overwriting a
// non-frozen collection), done under Store::apply_prepared.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/codec/current_row.h"
#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/schema/schema.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/row.h"
#include "engine/storage/store.h"
#include "engine/types/value.h"
#include "engine/write/operation.h"

namespace cassette::cql {

// The operations on columns and how they become cells live in engine/write (operation.h); the
// statements name them as before.
using write::apply_operation;
using write::ColumnOperation;
using write::list_cells_in_order;
using write::merge_row;
using write::next_append_micros;
using write::next_prepend_micros;
using write::operation_needs_row;
using write::RowBuilder;
using write::WriteParameters;

// USING TIMESTAMP / TTL, resolved (Cassandra's Attributes).
struct WriteAttributes {
  int64_t timestamp = storage::kAutoTimestamp;  // kAutoTimestamp unless USING TIMESTAMP
  bool timestamp_set = false;
  int64_t ttl = 0;  // seconds; 0 = no TTL
  bool ttl_set = false;
};

// Evaluates the USING clause; the table's default_time_to_live applies when no TTL is given.
// Messages as Cassandra's ("A TTL must be greater or equal to 0, but was -1", "ttl is too large.
// requested (n) maximum (630720000)", "Invalid null value of timestamp").
Result<WriteAttributes> evaluate_attributes(const UsingClause& using_clause,
                                            const schema::TableDef& table,
                                            const ExecutionContext& context);

// "Undefined column name x in table ks.t", or the column.
Result<const schema::ColumnDef*> existing_column(const schema::TableDef& table,
                                                 std::string_view name);

// Prepares `c = ...` style assignments of UPDATE (and INSERT's values, as kSet assignments).
// `assignment.source` is not needed: messages are rebuilt as Cassandra prints them.
Result<ColumnOperation> prepare_assignment(const Assignment& assignment,
                                           const schema::ColumnDef& column,
                                           const ExecutionContext& context);
// Prepares one DELETE target (a column, an element, a field).
Result<ColumnOperation> prepare_deletion(const DeleteTarget& target,
                                         const schema::ColumnDef& column,
                                         const ExecutionContext& context);

}  // namespace cassette::cql
