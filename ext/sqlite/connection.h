// What the extension keeps per SQLite connection: the stores its virtual tables and cql() use,
// a CQL session per store (current keyspace for cql()), and the writes of the open SQL
// transaction, per store, until it commits.
//
// Stores are shared by the whole process (Store::open returns the one object per directory);
// the connection only holds references. `:memory:` and temporary databases get one in-memory
// store private to the connection.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "ext/sqlite/pending_writes.h"
#include "ext/sqlite/sqlite_api.h"

namespace cassette::sqlite {

class Connection {
 public:
  explicit Connection(sqlite3* db) : db_(db) {}

  sqlite3* db() const { return db_; }

  // The directory of the store a `store = '...'` argument of database `db_name` names (README
  // "Stores"), or ":memory:" for the connection's in-memory store:
  //  - empty: the default: for `main`, the store cql_open() chose, if any; else "<file>.cassette"
  //    beside the database file; ":memory:" for a database without a file (:memory:, temp);
  //  - a relative path: relative to the directory of the database file, so that the database
  //    finds its stores wherever it is opened from (or copied to, with the stores beside it);
  //    relative to the working directory for a database without a file.
  // Paths come back absolute and normalized (".." and symbolic links resolved).
  std::string store_path(const std::string& db_name, const std::string& store_argument) const;
  // The store at store_path(db_name, store_argument). A missing store directory is created when
  // `create` (its parent must exist), and is NotFound otherwise.
  Result<std::shared_ptr<storage::Store>> store_for(const std::string& db_name,
                                                    const std::string& store_argument,
                                                    bool create = true);
  // Whether a view or trigger may use a cql virtual table of database `db_name` whose store is
  // `path` (a store_path()): only the database's own default store, the in-memory store, or a
  // store this connection opened with cql_open(). A table on any other store reaches outside its
  // database file, which someone else may have written, so it is SQLITE_VTAB_DIRECTONLY.
  bool trusts_store(const std::string& db_name, const std::string& path) const;
  // cql_open(path): from now on `main`'s default store is `path` (":memory:" for a private
  // in-memory one; a relative path is relative to the working directory, as ATTACH's) for
  // everything that does not name a store. Opens it at once, so a bad path fails here; returns
  // the store's absolute path.
  Result<std::string> open_main_store(const std::string& path);
  const std::string& main_store_path() const { return main_store_path_; }

  // OK when the connection may write through the extension (cql() writes, cql_flush(),
  // cql_compact()); else why not: the main database was opened read-only (SQLITE_OPEN_READONLY,
  // `sqlite3 -readonly`) or PRAGMA query_only is on. `what` names the refused operation.
  Status check_writable(std::string_view what) const;

  // The connection's CQL session on `store` (created on first use).
  Result<cql::Session*> session(const std::shared_ptr<storage::Store>& store);

  // The writes the open transaction has buffered for `store`.
  PendingWrites& pending(storage::Store* store);
  // Applies every store's buffered writes (each store: one atomic commit).
  Status commit_all();
  void discard_all();
  std::map<storage::Store*, std::unique_ptr<PendingWrites>>& all_pending() { return pending_; }

  // Which CQL table ("ks.t") each connected cql virtual table exposes, by SQLite schema and
  // table name, so cql_import_schema() tells its own earlier imports (and tables created with
  // column definitions) from another table of the same name.
  void set_exposed(const std::string& schema, const std::string& sql_name, std::string cql_table);
  void clear_exposed(const std::string& schema, const std::string& sql_name);
  // nullptr when no connected cql virtual table has that name.
  const std::string* exposed(const std::string& schema, const std::string& sql_name) const;

 private:
  sqlite3* db_;
  std::string main_store_path_;  // set by cql_open(); empty: the default beside the database
  std::set<std::string> opened_stores_;  // every path cql_open() opened
  std::shared_ptr<storage::Store> memory_store_;
  std::map<std::string, std::shared_ptr<storage::Store>> stores_;  // by canonical path
  std::map<storage::Store*, std::unique_ptr<cql::Session>> sessions_;
  std::map<storage::Store*, std::unique_ptr<PendingWrites>> pending_;
  std::map<std::string, std::string> exposed_;  // "schema.name", lower-cased -> "ks.t"
};

}  // namespace cassette::sqlite
