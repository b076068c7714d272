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
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "engine/txn/transaction.h"
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
  // `create` (its parent must exist), and is NotFound otherwise. `sync` (a `sync = '...'`
  // argument) is the commit log's sync mode when this opens the store (full when not given); a
  // store open already with another mode is an error.
  Result<std::shared_ptr<storage::Store>> store_for(
      const std::string& db_name, const std::string& store_argument, bool create = true,
      std::optional<storage::SyncMode> sync = std::nullopt);
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
  bool query_only() const;  // PRAGMA query_only is on
  // The value of a pragma that answers with an integer (`pragma` is the whole statement), or
  // nullopt when it fails.
  std::optional<int64_t> integer_pragma(const std::string& pragma) const;

  // The connection's CQL session on `store` (created on first use).
  Result<cql::Session*> session(const std::shared_ptr<storage::Store>& store);

  // What the open transaction has buffered for `store` (writes and schema changes).
  txn::Transaction& pending(storage::Store* store);
  // pending(store), ready for a read (engine/txn/transaction.h, Isolation). The first read of
  // a transaction (BEGIN ... COMMIT) pins its snapshot until COMMIT or ROLLBACK, which the
  // extension hears of through take_part_in_reads() (or the reading cql table's xBegin, as for
  // an UPDATE or DELETE). So does a statement in autocommit mode whose cql table is in the
  // statement's transaction (`table_in_transaction`); any other read in autocommit mode, and
  // every read under PRAGMA query_only, sees the latest commit.
  Result<txn::Transaction*> reading(storage::Store* store, bool table_in_transaction);
  // `session`'s store's schema as the open transaction sees it (with its schema changes).
  Result<std::shared_ptr<const schema::Schema>> schema_view(cql::Session& session);

  // The open SQL transaction, for every store. Each cql table taking part in it, and the
  // extension's cql_transaction table (transaction_listener.cc), reports its savepoints, commit
  // and rollback here; a report heard again changes nothing more. commit() applies every store's
  // writes and schema changes (each store: one atomic commit).
  void savepoint(int level);
  void release(int level);
  void rollback_to(int level);
  Status commit();
  void rollback();

  // Makes the extension take part in the open SQL transaction (or in the statement's own, in
  // autocommit mode) through its cql_transaction table, so that it hears of the commit, the
  // rollback and every savepoint rolled back even when no cql table that wrote does: a DROP
  // TABLE leaves no table of its own in the transaction, and SQLite tells a table that CREATE
  // VIRTUAL TABLE made of no savepoint opened before. Runs a statement that writes nothing.
  Status take_part_in_transaction();
  // take_part_in_transaction() for a transaction that may only read: through
  // temp.cql_transaction (created on first use), whose DELETE writes only the connection's temp
  // database, so that the transaction takes no lock of a database file. REQUIRES: inside a
  // transaction (not autocommit), temp writable (not PRAGMA query_only).
  Status take_part_in_reads();
  // Set by the cql_transaction table while it takes part in a transaction.
  void set_taking_part(bool taking_part) { taking_part_ = taking_part; }
  // Set by the cql_transaction table's xBestIndex: the name resolved to it.
  void note_listener_planned() { listener_planned_ = true; }

  // Which CQL table ("ks.t") each connected cql virtual table exposes, by SQLite schema and
  // table name, so cql_import_schema() tells its own earlier imports (and tables created with
  // column definitions) from another table of the same name.
  // SQLite connects a virtual table again (when it reads the schema again) before it
  // disconnects the old one, so a name may be exposed twice for a while: clear_exposed() takes
  // back one set_exposed().
  void set_exposed(const std::string& schema, const std::string& sql_name, std::string cql_table);
  void clear_exposed(const std::string& schema, const std::string& sql_name,
                     const std::string& cql_table);
  // nullptr when no connected cql virtual table has that name.
  const std::string* exposed(const std::string& schema, const std::string& sql_name) const;

  // Makes every connection on the file of database `db_name`, this one included, read its schema
  // again before its next statement runs: the schema cookie (PRAGMA schema_version) goes one up,
  // so that each connection finds its cached schema stale and connects the database's virtual
  // tables anew, and each declares the columns its CQL table has then. SQLite does that at a
  // safe point (a statement prepared before is prepared again when it next runs); the statement
  // running now keeps the columns it was prepared with. Returns false, having done nothing,
  // where the cookie cannot be written: a read-only database or connection (PRAGMA query_only)
  // or SQLITE_DBCONFIG_DEFENSIVE, or when another connection holds the write lock (it does not
  // wait for it).
  bool redeclare_tables(const std::string& db_name);
  // redeclare_tables() for every database where a cql virtual table of this connection is
  // connected.
  void redeclare_all_tables();

 private:
  // Runs `DELETE FROM <schema>.cql_transaction`, which brings that table into the transaction;
  // refuses a table of the user's that hides it (`purpose`: what the user's table prevents).
  Status run_listener_delete(const std::string& schema, std::string_view purpose);

  sqlite3* db_;
  std::string main_store_path_;  // set by cql_open(); empty: the default beside the database
  std::set<std::string> opened_stores_;  // every path cql_open() opened
  std::shared_ptr<storage::Store> memory_store_;
  std::map<std::string, std::shared_ptr<storage::Store>> stores_;  // by canonical path
  std::map<storage::Store*, std::unique_ptr<cql::Session>> sessions_;
  std::map<storage::Store*, std::unique_ptr<txn::Transaction>> pending_;
  // (schema, name), lower-cased -> "ks.t", the latest set_exposed() last
  std::multimap<std::pair<std::string, std::string>, std::string> exposed_;
  bool taking_part_ = false;
  bool listener_planned_ = false;
};

}  // namespace cassette::sqlite
