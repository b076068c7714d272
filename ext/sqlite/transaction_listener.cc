// cql_transaction: a virtual table, always empty, through which the extension takes part in an
// SQL transaction on its own account (Connection::take_part_in_transaction). It is eponymous
// (main.cql_transaction) and can also be created: Connection::take_part_in_reads creates
// temp.cql_transaction, whose DELETE writes only the connection's temp database, so a
// transaction that only reads takes no lock of a database file to hear of its end.
//
// SQLite tells a virtual table of a transaction's savepoints, commit and rollback only while the
// table is in the transaction: from its first write (xBegin), or from its creation (then without
// the savepoints opened before). A schema change of a cql table leaves the extension outside:
// DROP TABLE destroys the one table it had in the transaction, CREATE VIRTUAL TABLE adds one
// that would not hear of `ROLLBACK TO` a savepoint opened before it. So a statement that buffers
// a schema change first runs `DELETE FROM main.cql_transaction` (which deletes nothing, but
// brings this table into the transaction), and this table then reports to the Connection what
// any cql table would: savepoints, ROLLBACK TO, RELEASE, the commit (xSync: everything buffered
// is applied) and the rollback (everything buffered is dropped), including the rollback SQLite
// makes when a connection closes inside a transaction.
//
//   SELECT count(*) FROM cql_transaction;   -- 0, always
#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/functions.h"

namespace cassette::sqlite {

namespace {

struct Listener {
  sqlite3_vtab base;  // must come first
  Connection* connection;
};

Connection& connection_of(sqlite3_vtab* vtab) {
  return *reinterpret_cast<Listener*>(vtab)->connection;
}

int listener_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** vtab, char**) {
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(unused)");
  if (rc != SQLITE_OK) return rc;
  auto* listener = new (std::nothrow) Listener{};
  if (listener == nullptr) return SQLITE_NOMEM;
  listener->connection = static_cast<Connection*>(aux);
  *vtab = &listener->base;
  return SQLITE_OK;
}

int listener_disconnect(sqlite3_vtab* vtab) {
  delete reinterpret_cast<Listener*>(vtab);
  return SQLITE_OK;
}

int listener_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  connection_of(vtab).note_listener_planned();
  info->estimatedCost = 1;
  info->estimatedRows = 0;
  return SQLITE_OK;
}

struct EmptyCursor {
  sqlite3_vtab_cursor base;
};

int listener_open(sqlite3_vtab*, sqlite3_vtab_cursor** cursor) {
  auto* c = new (std::nothrow) EmptyCursor{};
  if (c == nullptr) return SQLITE_NOMEM;
  *cursor = &c->base;
  return SQLITE_OK;
}

int listener_close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<EmptyCursor*>(cursor);
  return SQLITE_OK;
}

int listener_filter(sqlite3_vtab_cursor*, int, const char*, int, sqlite3_value**) {
  return SQLITE_OK;
}
int listener_next(sqlite3_vtab_cursor*) {
  return SQLITE_OK;
}
int listener_eof(sqlite3_vtab_cursor*) {
  return 1;
}
int listener_column(sqlite3_vtab_cursor*, sqlite3_context*, int) {
  return SQLITE_OK;
}
int listener_rowid(sqlite3_vtab_cursor*, sqlite3_int64* rowid) {
  *rowid = 0;
  return SQLITE_OK;
}

// Never called with a row (the table has none); an INSERT is refused.
int listener_update(sqlite3_vtab* vtab, int argc, sqlite3_value**, sqlite3_int64*) {
  if (argc == 1) return SQLITE_OK;
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("cql_transaction has no rows and takes none");
  return SQLITE_ERROR;
}

int listener_begin(sqlite3_vtab* vtab) {
  connection_of(vtab).set_taking_part(true);
  return SQLITE_OK;
}

int listener_sync(sqlite3_vtab* vtab) {
  return guarded(vtab, [&] {
    Status s = connection_of(vtab).commit();
    return s.is_ok() ? SQLITE_OK : commit_error(vtab, s);
  });
}

int listener_commit(sqlite3_vtab* vtab) {
  connection_of(vtab).set_taking_part(false);
  return SQLITE_OK;
}

int listener_rollback(sqlite3_vtab* vtab) {
  connection_of(vtab).rollback();
  connection_of(vtab).set_taking_part(false);
  return SQLITE_OK;
}

int listener_savepoint(sqlite3_vtab* vtab, int level) {
  connection_of(vtab).savepoint(level);
  return SQLITE_OK;
}

int listener_release(sqlite3_vtab* vtab, int level) {
  connection_of(vtab).release(level);
  return SQLITE_OK;
}

int listener_rollback_to(sqlite3_vtab* vtab, int level) {
  connection_of(vtab).rollback_to(level);
  return SQLITE_OK;
}

}  // namespace

int commit_error(sqlite3_vtab* vtab, const Status& status) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", status.message().c_str());
  if (status.is_serialization_failure()) return SQLITE_BUSY_SNAPSHOT;
  return status.is_busy() ? SQLITE_BUSY : SQLITE_ERROR;
}

const sqlite3_module& transaction_listener_module() {
  static const sqlite3_module module = {
      /* iVersion */ 2,
      /* xCreate */ listener_connect,  // the same as xConnect: eponymous, and creatable
      listener_connect,
      listener_best_index,
      listener_disconnect,
      /* xDestroy */ listener_disconnect,
      listener_open,
      listener_close,
      listener_filter,
      listener_next,
      listener_eof,
      listener_column,
      listener_rowid,
      listener_update,
      listener_begin,
      listener_sync,
      listener_commit,
      listener_rollback,
      /* xFindFunction */ nullptr,
      /* xRename */ nullptr,
      listener_savepoint,
      listener_release,
      listener_rollback_to,
      /* xShadowName */ nullptr,
  };
  return module;
}

}  // namespace cassette::sqlite
