// The entry point: `.load ./build/cassette` calls sqlite3_cassette_init once per connection. It
// registers, for that connection, the `cql` virtual table module, the eponymous `cql_rows`
// table-valued function and `cql_transaction` table (transaction_listener.cc), and the
// functions cql(), cql_import_schema(), cql_open(), cql_flush(), cql_compact() and
// cql_build_indexes(), all sharing one Connection (stores, sessions, pending writes), freed when
// the connection closes.
//
// The functions have side effects (they write the store, open and create directories), so they
// are SQLITE_DIRECTONLY, as SQLite's own load_extension() and fts3_tokenizer() are: only SQL the
// application runs may call them, never a view, trigger or other schema object of a database
// file, which someone else may have written (README "Views, triggers and database files you did
// not write").
//
//   .load ./build/cassette
//   CREATE VIRTUAL TABLE t USING cql(k int, v text, PRIMARY KEY (k));
//   SELECT cql('SELECT * FROM main.t');
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/functions.h"

namespace {

void destroy_connection(void* connection) {
  delete static_cast<cassette::sqlite::Connection*>(connection);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int sqlite3_cassette_init(
    sqlite3* db, char** error, const sqlite3_api_routines* api) {
  SQLITE_EXTENSION_INIT2(api);
  using namespace cassette::sqlite;
  Connection* connection = nullptr;
  try {
    connection = new Connection(db);
  } catch (...) {
    return SQLITE_NOMEM;
  }
  // The module owns the connection state: SQLite calls destroy_connection when it closes.
  int rc = sqlite3_create_module_v2(db, "cql", &cql_module(), connection, destroy_connection);
  if (rc != SQLITE_OK) {
    *error = sqlite3_mprintf("Could not register the cql module: %s", sqlite3_errmsg(db));
    return rc;
  }
  rc = sqlite3_create_module_v2(db, "cql_rows", &cql_rows_module(), connection, nullptr);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_module_v2(db, "cql_transaction", &transaction_listener_module(), connection,
                                  nullptr);
  }
  struct Function {
    const char* name;
    int arguments;
    void (*call)(sqlite3_context*, int, sqlite3_value**);
  };
  static const Function functions[] = {
      {"cql", -1, cql_function},  // cql(statement, value...)
      {"cql_import_schema", 1, cql_import_schema_function},
      {"cql_open", 1, cql_open_function},
      {"cql_flush", 0, cql_flush_function},
      {"cql_index_reads", 0, cql_index_reads_function},
      {"cql_compact", 0, cql_compact_function},
      {"cql_compact", 1, cql_compact_function},
      {"cql_build_indexes", 0, cql_build_indexes_function},
      {"cql_build_indexes", 1, cql_build_indexes_function},
  };
  for (const Function& f : functions) {
    if (rc != SQLITE_OK) break;
    rc = sqlite3_create_function_v2(db, f.name, f.arguments, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                    connection, f.call, nullptr, nullptr, nullptr);
  }
  if (rc != SQLITE_OK) {
    *error = sqlite3_mprintf("Could not register the cassette functions: %s", sqlite3_errmsg(db));
  }
  return rc;
}
