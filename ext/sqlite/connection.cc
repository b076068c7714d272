#include "ext/sqlite/connection.h"

#include <cctype>
#include <filesystem>

#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

// Stores flush and compact inline, in the statement whose write fills the memtable, with no
// thread of their own (as the PostgreSQL side does). A thread, once started, makes the host a
// multi-threaded process for good: glibc then turns every pthread mutex operation into an
// atomic one, and Python's sqlite3 takes SQLite's connection mutex several times per value it
// reads (~20% of a 50-row partition slice, measured: tests/bench/bench_sqlite.sh slices
// 6.4 s -> 5.3 s); a process with an idle engine thread is also unsafe to fork().
storage::StoreOptions store_options() {
  storage::StoreOptions options;
  options.background_threads = false;
  return options;
}

}  // namespace

namespace {

// `path` absolute and normalized, as far as it exists (the store directory itself may not).
std::string normalized(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, error);
  return error ? std::filesystem::absolute(path, error).lexically_normal().string()
               : canonical.string();
}

}  // namespace

std::string Connection::store_path(const std::string& db_name,
                                   const std::string& store_argument) const {
  if (store_argument == ":memory:") return store_argument;
  if (store_argument.empty() && db_name == "main" && !main_store_path_.empty()) {
    return main_store_path_;
  }
  const char* file = sqlite3_db_filename(db_, db_name.c_str());
  const bool has_file = file != nullptr && file[0] != '\0';
  if (store_argument.empty()) {
    return has_file ? normalized(std::string(file) + ".cassette") : ":memory:";
  }
  std::filesystem::path path(store_argument);
  if (path.is_relative() && has_file) path = std::filesystem::path(file).parent_path() / path;
  return normalized(path);
}

namespace {

// A store is opened once per process (Store::open hands out the live one): its sync mode is the
// one it was opened with.
Result<std::shared_ptr<storage::Store>> with_sync(std::shared_ptr<storage::Store> store,
                                                  const std::string& name,
                                                  std::optional<storage::SyncMode> sync) {
  if (sync && store->sync_mode() != *sync) {
    return Status::invalid_argument(fmt::format(
        "Store {} is open with sync = '{}' already, not '{}': every table of a store "
        "takes the same sync setting",
        name, storage::sync_mode_name(store->sync_mode()), storage::sync_mode_name(*sync)));
  }
  return store;
}

}  // namespace

Result<std::shared_ptr<storage::Store>> Connection::store_for(
    const std::string& db_name, const std::string& store_argument, bool create,
    std::optional<storage::SyncMode> sync) {
  const std::string path = store_path(db_name, store_argument);
  const std::string& named = store_argument.empty() ? path : store_argument;  // for messages
  if (path == ":memory:") {
    if (!memory_store_) {
      storage::StoreOptions options = store_options();
      if (sync) options.sync = *sync;
      CASSETTE_ASSIGN_OR_RETURN(memory_store_, storage::Store::open(":memory:", options));
    }
    return with_sync(memory_store_, named, sync);
  }
  auto it = stores_.find(path);
  if (it != stores_.end()) return with_sync(it->second, named, sync);
  std::error_code error;
  if (!create && !std::filesystem::is_directory(path, error)) {
    return Status::not_found(fmt::format("Store {} does not exist", path));
  }
  // Like SQLite with a database file: the store directory may be new, its parent must exist
  // (a typo in a path should fail, not create a tree of directories).
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, error)) {
    std::filesystem::path written = std::filesystem::path(store_argument).parent_path();
    return Status::not_found(fmt::format("Cannot open store {}: directory {} does not exist",
                                         store_argument.empty() ? path : store_argument,
                                         written.empty() ? parent.string() : written.string()));
  }
  storage::StoreOptions options = store_options();
  options.create_if_missing = create;
  if (sync) options.sync = *sync;
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<storage::Store> store,
                            storage::Store::open(path, options));
  CASSETTE_ASSIGN_OR_RETURN(store, with_sync(std::move(store), named, sync));
  stores_[path] = store;
  return store;
}

bool Connection::trusts_store(const std::string& db_name, const std::string& path) const {
  return path == ":memory:" || path == store_path(db_name, "") || opened_stores_.contains(path);
}

Result<std::string> Connection::open_main_store(const std::string& path) {
  if (path.empty())
    return Status::invalid_argument("cql_open() needs a store path (or ':memory:').");
  // A path typed at run time, as ATTACH's: relative to the working directory.
  const std::string absolute = path == ":memory:" ? path : normalized(path);
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<storage::Store> store, store_for("main", absolute));
  main_store_path_ = absolute;
  opened_stores_.insert(main_store_path_);
  return main_store_path_;
}

Status Connection::check_writable(std::string_view what) const {
  const char* why = nullptr;
  if (sqlite3_db_readonly(db_, "main") == 1) why = "the database was opened read-only";
  if (why == nullptr && query_only()) why = "PRAGMA query_only is on";
  if (why == nullptr) return Status::ok();
  return Status::unauthorized(
      fmt::format("Cannot execute {} on a read-only connection ({})", what, why));
}

std::optional<int64_t> Connection::integer_pragma(const std::string& pragma) const {
  sqlite3_stmt* stmt = nullptr;
  std::optional<int64_t> value;
  if (sqlite3_prepare_v2(db_, pragma.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    value = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  return value;
}

bool Connection::query_only() const {
  return integer_pragma("PRAGMA query_only").value_or(0) != 0;
}

Result<cql::Session*> Connection::session(const std::shared_ptr<storage::Store>& store) {
  auto it = sessions_.find(store.get());
  if (it != sessions_.end()) return it->second.get();
  CASSETTE_ASSIGN_OR_RETURN(std::unique_ptr<cql::Session> session, cql::Session::open(store));
  cql::Session* raw = session.get();
  sessions_[store.get()] = std::move(session);
  return raw;
}

txn::Transaction& Connection::pending(storage::Store* store) {
  auto& slot = pending_[store];
  if (!slot) slot = std::make_unique<txn::Transaction>(store);
  return *slot;
}

Result<txn::Transaction*> Connection::reading(storage::Store* store, bool table_in_transaction) {
  txn::Transaction& transaction = pending(store);
  if (transaction.snapshot_pinned()) return &transaction;
  bool hears_end = table_in_transaction || taking_part_;
  if (!hears_end && sqlite3_get_autocommit(db_) == 0) {
    // The transaction's first read: the snapshot it pins must be released when the transaction
    // ends, which a transaction that only reads does not tell a virtual table on its own.
    // PRAGMA query_only forbids even temp's write: then each read sees the latest commit.
    if (!query_only()) CASSETTE_RETURN_IF_ERROR(take_part_in_reads());
    hears_end = taking_part_;
  }
  transaction.set_isolation(hears_end ? txn::Transaction::Isolation::kSnapshot
                                      : txn::Transaction::Isolation::kPerStatement);
  return &transaction;
}

Result<std::shared_ptr<const schema::Schema>> Connection::schema_view(cql::Session& session) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> committed,
                            session.catalog().current());
  return pending(&session.store()).schema_view(std::move(committed));
}

void Connection::savepoint(int level) {
  for (auto& [store, changes] : pending_) changes->savepoint(level);
}

void Connection::release(int level) {
  for (auto& [store, changes] : pending_) changes->release(level);
}

void Connection::rollback_to(int level) {
  for (auto& [store, changes] : pending_) changes->rollback_to(level);
}

Status Connection::commit() {
  Status first;
  for (auto& [store, changes] : pending_) {
    Status s = changes->commit();
    if (!s.is_ok() && first.is_ok()) first = s;
  }
  return first;
}

void Connection::rollback() {
  for (auto& [store, changes] : pending_) changes->clear();
}

Status Connection::take_part_in_transaction() {
  if (taking_part_) return Status::ok();
  return run_listener_delete("main", "to change the schema of cql tables");
}

Status Connection::take_part_in_reads() {
  if (taking_part_) return Status::ok();
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_,
                                    "SELECT 1 FROM temp.sqlite_schema WHERE type = 'table' "
                                    "AND name = 'cql_transaction'",
                                    -1, &stmt, nullptr);
  const bool exists = rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW;
  sqlite3_finalize(stmt);
  if (!exists) {
    // Created inside the transaction (and gone again if it rolls back): SQLite puts a table it
    // creates into the open transaction at once, without xBegin. A change of temp's schema makes
    // SQLite prepare this connection's statements again; it happens once a connection, unless
    // the transaction that created the table rolls back.
    if (sqlite3_exec(db_, "CREATE VIRTUAL TABLE temp.cql_transaction USING cql_transaction",
                     nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Status::internal(
          fmt::format("Could not create temp.cql_transaction to hear of the transaction's end: {}",
                      sqlite3_errmsg(db_)));
    }
    taking_part_ = true;
    return Status::ok();
  }
  return run_listener_delete("temp", "to read cql tables in a transaction");
}

Status Connection::run_listener_delete(const std::string& schema, std::string_view purpose) {
  // The statement must reach the extension's own cql_transaction: a table of that name would
  // hide it (and must not be written), so its planning (xBestIndex) is checked before it runs.
  listener_planned_ = false;
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = "DELETE FROM " + schema + ".cql_transaction";
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  if (rc == SQLITE_OK && !listener_planned_) {
    sqlite3_finalize(stmt);
    return Status::invalid_argument(
        fmt::format("A table named cql_transaction in the {} database hides the cassette "
                    "extension's own; rename it {}",
                    schema, purpose));
  }
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE || !taking_part_) {
    return Status::internal(
        fmt::format("Could not make the cassette extension take part in the transaction: {}",
                    sqlite3_errmsg(db_)));
  }
  return Status::ok();
}

namespace {
std::pair<std::string, std::string> exposed_key(std::string schema, std::string sql_name) {
  for (char& c : schema) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : sql_name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {std::move(schema), std::move(sql_name)};
}
}  // namespace

void Connection::set_exposed(const std::string& schema, const std::string& sql_name,
                             std::string cql_table) {
  exposed_.emplace(exposed_key(schema, sql_name), std::move(cql_table));
}

void Connection::clear_exposed(const std::string& schema, const std::string& sql_name,
                               const std::string& cql_table) {
  auto [begin, end] = exposed_.equal_range(exposed_key(schema, sql_name));
  for (auto it = begin; it != end; ++it) {
    if (it->second == cql_table) {
      exposed_.erase(it);
      return;
    }
  }
}

const std::string* Connection::exposed(const std::string& schema,
                                       const std::string& sql_name) const {
  auto [begin, end] = exposed_.equal_range(exposed_key(schema, sql_name));
  return begin == end ? nullptr : &std::prev(end)->second;
}

bool Connection::redeclare_tables(const std::string& db_name) {
  int defensive = 0;
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, -1, &defensive);
  // Under DEFENSIVE the pragma is a no-op; elsewhere it would fail.
  if (defensive != 0 || sqlite3_db_readonly(db_, db_name.c_str()) != 0 || query_only()) {
    return false;
  }
  // The pragma stores the new cookie in the file and leaves this connection's cached one as it
  // was, one behind (SQLite's OP_SetCookie), so this connection reloads too. Reading and writing
  // it are two statements: another connection's schema change in between is reloaded anyway.
  const std::string pragma = "PRAGMA " + sql_quote(db_name) + ".schema_version";
  std::optional<int64_t> version = integer_pragma(pragma);
  if (!version) return false;
  // The cookie is a 32-bit value that SQLite reads and writes as a signed int.
  const auto next = static_cast<int32_t>(static_cast<uint32_t>(*version) + 1);
  // Without waiting for another connection's write lock (a reader must not wait for a writer):
  // when it is taken, the caller tries again at a later statement. A timeout set with
  // sqlite3_busy_timeout() is put back; a busy handler of the host's own is left to work.
  const int64_t timeout = integer_pragma("PRAGMA busy_timeout").value_or(0);
  if (timeout > 0) sqlite3_busy_timeout(db_, 0);
  const std::string bump = fmt::format("{} = {}", pragma, next);
  const bool bumped = sqlite3_exec(db_, bump.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  if (timeout > 0) sqlite3_busy_timeout(db_, static_cast<int>(timeout));
  return bumped;
}

void Connection::redeclare_all_tables() {
  std::set<std::string> databases;
  for (const auto& [key, cql_table] : exposed_) databases.insert(key.first);
  for (const std::string& db_name : databases) {
    if (!redeclare_tables(db_name)) continue;
    // SQLite compares the cookie when a statement starts, not when it is prepared: an INSERT
    // ... VALUES with the new number of columns would fail to prepare against the old schema.
    // A statement that starts now has this connection read the schema again at once (as a
    // statement that finds another connection's schema change does).
    sqlite3_stmt* stmt = nullptr;
    const std::string touch = "SELECT 1 FROM " + sql_quote(db_name) + ".sqlite_schema LIMIT 0";
    if (sqlite3_prepare_v2(db_, touch.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      sqlite3_step(stmt);
    }
    sqlite3_finalize(stmt);
  }
}

}  // namespace cassette::sqlite
