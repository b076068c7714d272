// What a parsed statement does, for hosts that must refuse some before running them: a
// read-only SQL transaction or connection runs only statements that read; SQLite's cql_rows()
// only statements that return rows.
//
//   CASSETTE_ASSIGN_OR_RETURN(Statement s, parse_statement(text));
//   if (statement_writes(s)) return refuse(statement_name(s));
#pragma once

#include <string_view>

#include "engine/cql/ast.h"

namespace cassette::cql {

// The statement's command, upper-case, as PostgreSQL names commands in its messages
// ("cannot execute INSERT in a read-only transaction"): "SELECT", "INSERT", "UPDATE",
// "DELETE", "BATCH", "USE", "CREATE KEYSPACE", "ALTER TABLE", "DROP TYPE", "TRUNCATE",
// "CREATE INDEX", "DESCRIBE", ...
std::string_view statement_name(const Statement& statement);

// Whether running the statement can change the store: every statement but SELECT, DESCRIBE and
// USE (which changes only the session's keyspace). A conditional write (IF ...) writes.
bool statement_writes(const Statement& statement);

// Whether the statement answers with rows and writes nothing: SELECT and DESCRIBE. (A
// conditional write answers with an [applied] row, but it writes.)
bool statement_returns_rows(const Statement& statement);

}  // namespace cassette::cql
