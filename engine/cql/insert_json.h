// INSERT JSON: the JSON document of an INSERT JSON statement decoded into one value per column,
// as Cassandra's Json.parseJson does: keys are column names (lower-cased unless "quoted"), each
// value is decoded by its column's type, and a column the document leaves out is null (DEFAULT
// NULL) or left untouched (DEFAULT UNSET).
#pragma once

#include <string>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/schema/schema.h"
#include "engine/types/value.h"

namespace cassette::cql {

struct JsonColumnValue {
  const schema::ColumnDef* column = nullptr;
  bool unset = false;  // left out of the document with DEFAULT UNSET
  types::Value value;  // otherwise: the decoded value, or null
};

// One entry per column of the table, in the table's column order. Messages as Cassandra's:
//   Could not decode JSON string as a map: ...
//   JSON values map contains unrecognized column: foo
//   Error decoding JSON value for v: ...
Result<std::vector<JsonColumnValue>> decode_insert_json(const InsertStatement& statement,
                                                        const schema::TableDef& table,
                                                        const ExecutionContext& context);

}  // namespace cassette::cql
