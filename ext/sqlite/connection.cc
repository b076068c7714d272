#include "ext/sqlite/connection.h"

#include <cctype>
#include <filesystem>

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

Result<std::shared_ptr<storage::Store>> Connection::store_for(const std::string& db_name,
                                                              const std::string& store_argument) {
  std::string path = store_argument;
  if (path.empty() && db_name == "main") path = main_store_path_;
  if (path.empty()) {
    const char* file = sqlite3_db_filename(db_, db_name.c_str());
    if (file != nullptr && file[0] != '\0') path = std::string(file) + ".cassette";
  }
  if (path.empty() || path == ":memory:") {
    if (!memory_store_) {
      CASSETTE_ASSIGN_OR_RETURN(memory_store_, storage::Store::open(":memory:", store_options()));
    }
    return memory_store_;
  }
  std::error_code error;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, error);
  std::string key = error ? path : canonical.string();
  auto it = stores_.find(key);
  if (it != stores_.end()) return it->second;
  // Like SQLite with a database file: the store directory may be new, its parent must exist
  // (a typo in a path should fail, not create a tree of directories).
  std::filesystem::path parent = std::filesystem::path(key).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, error)) {
    return Status::not_found("Cannot open store " + path + ": directory " + parent.string() +
                             " does not exist");
  }
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<storage::Store> store,
                            storage::Store::open(key, store_options()));
  stores_[key] = store;
  return store;
}

Result<std::string> Connection::open_main_store(const std::string& path) {
  if (path.empty()) return Status::invalid_argument("cql_open() needs a store path (or ':memory:').");
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<storage::Store> store, store_for("", path));
  main_store_path_ = path == ":memory:" ? path : store->path();
  return main_store_path_;
}

Result<cql::Session*> Connection::session(const std::shared_ptr<storage::Store>& store) {
  auto it = sessions_.find(store.get());
  if (it != sessions_.end()) return it->second.get();
  CASSETTE_ASSIGN_OR_RETURN(std::unique_ptr<cql::Session> session, cql::Session::open(store));
  cql::Session* raw = session.get();
  sessions_[store.get()] = std::move(session);
  return raw;
}

PendingWrites& Connection::pending(storage::Store* store) {
  auto& slot = pending_[store];
  if (!slot) slot = std::make_unique<PendingWrites>(store);
  return *slot;
}

Status Connection::commit_all() {
  Status first;
  for (auto& [store, writes] : pending_) {
    Status s = writes->commit();
    if (!s.is_ok() && first.is_ok()) first = s;
  }
  return first;
}

void Connection::discard_all() {
  for (auto& [store, writes] : pending_) writes->clear();
}

namespace {
std::string exposed_key(const std::string& schema, const std::string& sql_name) {
  std::string key = schema + "." + sql_name;
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}
}  // namespace

void Connection::set_exposed(const std::string& schema, const std::string& sql_name,
                             std::string cql_table) {
  exposed_[exposed_key(schema, sql_name)] = std::move(cql_table);
}

void Connection::clear_exposed(const std::string& schema, const std::string& sql_name) {
  exposed_.erase(exposed_key(schema, sql_name));
}

const std::string* Connection::exposed(const std::string& schema, const std::string& sql_name) const {
  auto it = exposed_.find(exposed_key(schema, sql_name));
  return it == exposed_.end() ? nullptr : &it->second;
}

}  // namespace cassette::sqlite
