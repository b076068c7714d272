// The entry point: `.load ./build/cassette` calls sqlite3_cassette_init once per connection. It
// registers, for that connection, the `cql` virtual table module, the eponymous `cql_rows`
// table-valued function, and the functions cql(), cql_import_schema(), cql_open() and
// cql_flush(), all sharing one Connection (stores, sessions, pending writes), freed when the
// connection closes.
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
  const int flags = SQLITE_UTF8;
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function_v2(db, "cql", 1, flags, connection, cql_function, nullptr,
                                    nullptr, nullptr);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function_v2(db, "cql_import_schema", 1, flags, connection,
                                    cql_import_schema_function, nullptr, nullptr, nullptr);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function_v2(db, "cql_open", 1, flags, connection, cql_open_function,
                                    nullptr, nullptr, nullptr);
  }
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_function_v2(db, "cql_flush", 0, flags, connection, cql_flush_function,
                                    nullptr, nullptr, nullptr);
  }
  if (rc != SQLITE_OK) {
    *error = sqlite3_mprintf("Could not register the cassette functions: %s", sqlite3_errmsg(db));
  }
  return rc;
}
