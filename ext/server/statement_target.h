// What a statement names, for the parts of a response the engine's ExecutionResult does not
// carry: the keyspace and table of a Rows result's metadata, the Schema_change a CREATE, ALTER
// or DROP made, and the keyspace and table of an Already_exists error.
#pragma once

#include <optional>
#include <string>

#include "engine/cql/ast.h"
#include "engine/schema/schema.h"
#include "ext/server/result_encoding.h"

namespace cassette::server {

// The table a SELECT or a conditional write reads, qualified with `current_keyspace` when the
// statement does not name one; empty names for statements without one table (DESCRIBE).
RowsSource rows_source(const cql::Statement& statement, const std::string& current_keyspace);

// The change a schema statement makes when it changes anything, as Cassandra reports it:
// CREATE/ALTER/DROP KEYSPACE, TABLE and TYPE as themselves; CREATE/DROP INDEX as UPDATED TABLE
// of the index's table (looked up in `schema`, the schema before the statement, for DROP).
// nullopt for statements that are not schema changes.
std::optional<SchemaChange> schema_change_of(const cql::Statement& statement,
                                             const std::string& current_keyspace,
                                             const schema::Schema& schema);

}  // namespace cassette::server
