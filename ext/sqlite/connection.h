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

  // The store for a `store = '...'` argument (empty: the default for database `db_name`, i.e.
  // "<file>.cassette" beside it, or the private in-memory store for :memory: / temp databases).
  Result<std::shared_ptr<storage::Store>> store_for(const std::string& db_name,
                                                    const std::string& store_argument);
  // cql_open(path): from now on `main`'s default store is `path` (":memory:" for a private
  // in-memory one) for everything that does not name a store. Opens it at once, so a bad path
  // fails here; returns the store's canonical path.
  Result<std::string> open_main_store(const std::string& path);
  const std::string& main_store_path() const { return main_store_path_; }

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
  std::shared_ptr<storage::Store> memory_store_;
  std::map<std::string, std::shared_ptr<storage::Store>> stores_;  // by canonical path
  std::map<storage::Store*, std::unique_ptr<cql::Session>> sessions_;
  std::map<storage::Store*, std::unique_ptr<PendingWrites>> pending_;
  std::map<std::string, std::string> exposed_;  // "schema.name", lower-cased -> "ks.t"
};

}  // namespace cassette::sqlite
