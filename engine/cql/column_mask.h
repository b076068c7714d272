// Column masks (Cassandra 5.0's dynamic data masking, CEP-20): `v text MASKED WITH
// mask_inner(1, null)` in CREATE TABLE or ALTER TABLE ... ADD, `ALTER TABLE t ALTER v MASKED
// WITH ...` and `ALTER v DROP MASKED`. The mask (schema::ColumnMask) is kept in the catalog and
// applied to the column's values in SELECT results of a session without UNMASK
// (ExecutionContext::unmask), and to what SQLite and PostgreSQL read of the table. WHERE, ORDER
// BY and the row order see the clear values, as Cassandra's do.
#pragma once

#include <memory>
#include <string>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/functions.h"
#include "engine/schema/schema.h"

namespace cassette::cql {

// The mask MASKED WITH `clause` puts on `column` (its type resolved): the masking function
// found for the column's type and the partial arguments evaluated. Errors as Cassandra's:
//   Unable to find masking function for v, no declared function matches the signature f()
//   Not-masking function tojson() cannot be used for masking table columns
//   Invalid number of arguments for function system.mask_default(any)
//   Function system.mask_inner requires an argument of type int, but found argument 'a' of type
//   ascii
Result<schema::ColumnMask> prepare_column_mask(const ColumnMaskClause& clause,
                                               const schema::ColumnDef& column,
                                               const ExecutionContext& context);

// The mask of `column` as a function of its value alone (the partial arguments bound), or
// nullptr when the column has no mask. Its return type is the masked values' type (blob for
// mask_hash, the column's own for the others).
Result<std::shared_ptr<const ScalarFunction>> column_masker(const schema::ColumnDef& column);

// The mask of `table`'s column `column` that reads apply: the column's own, or for a
// materialized view its base table's (a view shows its base's masks, as Cassandra's do).
// nullptr when none.
const schema::ColumnDef* masked_definition(const schema::Schema& schema,
                                           const schema::TableDef& table,
                                           const schema::ColumnDef& column);

// Cassandra's refusal of a SELECT whose WHERE clause restricts masked columns (token(k)
// restricts k) for a user holding neither UNMASK nor SELECT_MASKED
// (SelectStatement.checkAccess): Unauthorized, "User u has no UNMASK nor SELECT_MASKED
// permission on table ks.t, cannot query masked columns [k]", the columns in SELECT * order.
// OK when `user` is empty (the session may query masked columns) or nothing masked is restricted.
Status check_masked_columns_query(const schema::Schema* schema, const schema::TableDef& table,
                                  const std::vector<Relation>& where, std::string_view user);

// " MASKED WITH system.mask_inner(1, null)", as DESCRIBE appends it to the column.
std::string column_mask_cql(const schema::ColumnMask& mask);

}  // namespace cassette::cql
