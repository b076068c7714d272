// The SQL functions (functions.cc) and the cql_rows table-valued function (cql_rows.cc), and the
// JSON form of CQL results they share (README.md, "SQL functions").
#pragma once

#include <string>

#include "engine/cql/result.h"
#include "ext/sqlite/connection.h"
#include "ext/sqlite/sqlite_api.h"

namespace cassette::sqlite {

// The connection's session on its main database's store.
Result<cql::Session*> main_session(Connection& connection);

// The SQL transaction a CQL statement run by cql() or cql_rows joins: inside BEGIN ... COMMIT
// (or a SAVEPOINT), the connection's transaction on the session's store, which the extension
// then takes part in (when `statement` writes) so that it hears of the COMMIT, the ROLLBACK and
// every ROLLBACK TO; nullptr in autocommit mode, where each statement commits on its own.
Result<txn::Transaction*> open_transaction(Connection& connection, cql::Session& session,
                                           const cql::Statement& statement);

// One result row as a JSON object ({"k": 1, "v": "a"}; a SELECT JSON row as itself).
std::string row_json(const cql::ResultSet& rows, size_t row);
// The whole result: an array of row objects, or {"result": "void" | "schema_change" | ...}.
std::string result_json(const cql::ExecutionResult& result);

void cql_function(sqlite3_context* context, int argc, sqlite3_value** argv);
void cql_import_schema_function(sqlite3_context* context, int argc, sqlite3_value** argv);
// Makes `path` the main database's store for this connection (Connection::open_main_store).
void cql_open_function(sqlite3_context* context, int argc, sqlite3_value** argv);
// Flushes the main database's store: memtables to SSTables, then waits for background work.
void cql_flush_function(sqlite3_context* context, int argc, sqlite3_value** argv);
// cql_index_reads(): how many reads this process answered from index components (SAI): a
// query's plan says it may use an index; this says it did.
void cql_index_reads_function(sqlite3_context* context, int argc, sqlite3_value** argv);
// Compacts the main database's store now: cql_compact() every table, cql_compact('ks.t') one
// (its memtable flushed first, then its SSTables merged into one).
void cql_compact_function(sqlite3_context* context, int argc, sqlite3_value** argv);

// Builds the ANN graphs of the main database's store not built yet, now (its memtables flushed
// first): cql_build_indexes() every table's, cql_build_indexes('ks.t') one table's; returns how
// many were built (engine/cql/ann_build.h).
void cql_build_indexes_function(sqlite3_context* context, int argc, sqlite3_value** argv);

const sqlite3_module& cql_rows_module();
// The eponymous cql_transaction table (transaction_listener.cc).
const sqlite3_module& transaction_listener_module();

}  // namespace cassette::sqlite
