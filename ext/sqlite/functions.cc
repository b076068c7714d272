// The SQL functions: cql(statement) -> JSON text, cql_import_schema(keyspace) -> count,
// cql_open(path) -> the store's path, cql_flush() -> NULL, cql_compact([table]) -> NULL.
//
// cql(statement, value...) binds the values after the statement to its bind markers (? and
// :name), in the order they are written, each converted to its marker's CQL type as a value
// written to a column of that type is.
//
// cql() runs on the store of the connection's main database (README.md, "Stores") in a session
// kept per connection, so USE carries over between calls. Inside a SQL transaction it joins the
// transaction (Session::execute with the connection's txn::Transaction): its writes commit or
// roll back with the SQL statements', and its reads see the transaction's writes. Every function
// here has side effects, so extension.cc registers them SQLITE_DIRECTONLY: a view or trigger (of a
// database file someone else wrote) cannot call them.
#include "ext/sqlite/functions.h"

#include <optional>
#include <span>
#include <vector>

#include "engine/cql/ann_build.h"
#include "engine/cql/parser.h"
#include "engine/cql/statement_kind.h"
#include "engine/storage/sai_component.h"
#include "engine/util/json.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

void result_error(sqlite3_context* context, const std::string& message) {
  sqlite3_result_error(context, message.c_str(), static_cast<int>(message.size()));
}

// The error of a failed status; a write refused on a read-only connection is SQLITE_READONLY.
void result_error(sqlite3_context* context, const Status& status) {
  result_error(context, status.message());
  if (status.code() == StatusCode::kUnauthorized) {
    sqlite3_result_error_code(context, SQLITE_READONLY);
  }
}

std::string text_argument(sqlite3_value* value) {
  const unsigned char* text = sqlite3_value_text(value);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_value_bytes(value)))
              : std::string();
}

// `, store = '...'` naming the store cql_open() chose, so the imported tables find it again
// when the database is reopened; empty when main uses its default store.
std::string store_argument(const Connection& connection) {
  const std::string& path = connection.main_store_path();
  if (path.empty()) return "";
  std::string quoted;
  for (char c : path) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return ", store = '" + quoted + "'";
}

}  // namespace

Result<txn::Transaction*> open_transaction(Connection& connection, cql::Session& session,
                                           const cql::Statement& statement) {
  if (sqlite3_get_autocommit(connection.db()) != 0) return nullptr;
  // Created before taking part: the savepoints SQLite reports on joining mark it too.
  connection.pending(&session.store());
  if (cql::statement_writes(statement)) {
    CASSETTE_RETURN_IF_ERROR(connection.take_part_in_transaction());
  }
  return connection.reading(&session.store(), false);  // its reads: the transaction's snapshot
}

Result<cql::Session*> main_session(Connection& connection) {
  CASSETTE_ASSIGN_OR_RETURN(auto store, connection.store_for("main", ""));
  return connection.session(store);
}

std::string row_json(const cql::ResultSet& rows, size_t r) {
  const auto& columns = rows.columns;
  const auto& row = rows.rows[r];
  if (columns.size() == 1 && columns[0].name == "[json]" && row[0]) return *row[0];
  std::string out = "{";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) out += ", ";
    out += json::quote_json_string(columns[c].name);
    out += ": ";
    out += types::to_json(columns[c].type, row[c]);
  }
  return out + "}";
}

std::string result_json(const cql::ExecutionResult& result) {
  std::string warnings;
  if (!result.warnings.empty()) {
    warnings = ", \"warnings\": [";
    for (size_t i = 0; i < result.warnings.size(); ++i) {
      warnings += (i ? ", " : "") + json::quote_json_string(result.warnings[i]);
    }
    warnings += "]";
  }
  switch (result.kind) {
    case cql::ExecutionResult::Kind::kRows: {
      std::string out = "[";
      for (size_t r = 0; r < result.rows.rows.size(); ++r) {
        if (r) out += ", ";
        out += row_json(result.rows, r);
      }
      return out + "]";
    }
    case cql::ExecutionResult::Kind::kVoid:
      return "{\"result\": \"void\"" + warnings + "}";
    case cql::ExecutionResult::Kind::kSchemaChange:
      return "{\"result\": \"schema_change\"" + warnings + "}";
    case cql::ExecutionResult::Kind::kSetKeyspace:
      return "{\"result\": \"set_keyspace\", \"keyspace\": " +
             json::quote_json_string(result.keyspace) + warnings + "}";
  }
  return "{}";
}

namespace {

// The values of a prepared statement's markers from SQL values, each converted to its marker's
// type as a value written to a column of that type is (value_mapping.h). Values beyond the
// markers count too, so that the session reports the count as Cassandra does.
Result<std::vector<cql::BoundValue>> bound_values(const cql::PreparedStatement& prepared,
                                                  std::span<sqlite3_value*> values) {
  std::vector<cql::BoundValue> bound;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i >= prepared.variables.size()) {
      bound.push_back(cql::BoundValue::null());
      continue;
    }
    const cql::BindVariable& variable = prepared.variables[i];
    CASSETTE_ASSIGN_OR_RETURN(types::Value value,
                              cql_value(variable.type, values[i], variable.name));
    bound.push_back(value ? cql::BoundValue::value(std::move(*value)) : cql::BoundValue::null());
  }
  return bound;
}

// cql(statement, value...): the statement prepared and run with `values` bound to its markers.
Result<cql::ExecutionResult> execute_bound(cql::Session& session, std::string_view text,
                                           std::span<sqlite3_value*> values,
                                           txn::Transaction* transaction) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const cql::PreparedStatement> prepared,
                            session.prepare(text, transaction));
  CASSETTE_ASSIGN_OR_RETURN(std::vector<cql::BoundValue> bound, bound_values(*prepared, values));
  return session.execute(*prepared, bound, transaction);
}

}  // namespace

void cql_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  try {
    auto* connection = static_cast<Connection*>(sqlite3_user_data(context));
    if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      return result_error(context, "cql() needs a CQL statement, not NULL.");
    }
    const std::string text = text_argument(argv[0]);
    auto statement = cql::parse_statement(text);
    if (!statement.is_ok()) return result_error(context, statement.status());
    if (cql::statement_writes(*statement)) {
      Status writable = connection->check_writable(cql::statement_name(*statement));
      if (!writable.is_ok()) return result_error(context, writable);
    }
    auto session = main_session(*connection);
    if (!session.is_ok()) return result_error(context, session.status().message());
    auto transaction = open_transaction(*connection, *session.value(), *statement);
    if (!transaction.is_ok()) return result_error(context, transaction.status().message());
    // With values after the statement, its markers are bound to them (no quoting, no injection).
    auto result = argc > 1 ? execute_bound(*session.value(), text,
                                           std::span(argv + 1, static_cast<size_t>(argc - 1)),
                                           transaction.value())
                           : session.value()->execute(*statement, transaction.value());
    if (!result.is_ok()) return result_error(context, result.status().message());
    // Columns added, dropped or renamed: the cql virtual tables connected now declare them anew
    // from the next statement on (the virtual tables of other connections on the same files
    // too); the table this statement reads, if any, keeps its columns until it ends.
    const auto* alter = std::get_if<cql::AlterTableStatement>(&*statement);
    if (alter != nullptr && alter->kind != cql::AlterTableStatement::Kind::kWith) {
      connection->redeclare_all_tables();
    }
    std::string json = result_json(result.value());
    sqlite3_result_text(context, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  } catch (const std::exception& e) {
    result_error(context, std::string("Internal error in cql(): ") + e.what());
  }
}

void cql_import_schema_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  try {
    auto* connection = static_cast<Connection*>(sqlite3_user_data(context));
    if (Status s = connection->check_writable("cql_import_schema()"); !s.is_ok()) {
      return result_error(context, s);
    }
    std::string keyspace = text_argument(argv[0]);
    auto session = main_session(*connection);
    if (!session.is_ok()) return result_error(context, session.status().message());
    auto schema = session.value()->catalog().current();
    if (!schema.is_ok()) return result_error(context, schema.status().message());
    const schema::KeyspaceDef* ks = schema.value()->find_keyspace(keyspace);
    if (ks == nullptr) return result_error(context, "Keyspace " + keyspace + " does not exist");
    // Every name is checked before anything is created, so a conflict creates nothing.
    std::vector<std::string> to_create;
    for (const auto& [name, table] : ks->tables) {
      // A name SQLite already uses for something else is an error; our own earlier import is not.
      sqlite3_stmt* stmt = nullptr;
      std::string sql_name = "\"" + name + "\"";
      std::string check = "SELECT sql FROM sqlite_schema WHERE lower(name) = lower(?1)";
      int exists = 0;
      std::string existing_sql;
      if (sqlite3_prepare_v2(connection->db(), check.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(stmt) == SQLITE_ROW) {
          exists = 1;
          const unsigned char* s = sqlite3_column_text(stmt, 0);
          existing_sql = s ? reinterpret_cast<const char*>(s) : "";
        }
      }
      sqlite3_finalize(stmt);
      if (exists) {
        // Skipped when it is a cql virtual table of this very CQL table (an earlier import, or
        // one created with column definitions); preparing a statement on it connects it.
        sqlite3_stmt* probe = nullptr;
        sqlite3_prepare_v2(connection->db(), ("SELECT 0 FROM main." + sql_quote(name)).c_str(), -1,
                           &probe, nullptr);
        sqlite3_finalize(probe);
        const std::string* exposed = connection->exposed("main", name);
        if (exposed != nullptr && *exposed == keyspace + "." + name) continue;
        return result_error(context, "Cannot import " + keyspace + "." + name +
                                         ": an SQLite table named " + name + " exists already.");
      }
      to_create.push_back(name);
    }
    int created = 0;
    for (const std::string& name : to_create) {
      std::string escaped_ks, escaped_name;
      for (char c : keyspace) escaped_ks += c == '\'' ? std::string("''") : std::string(1, c);
      for (char c : name) escaped_name += c == '\'' ? std::string("''") : std::string(1, c);
      std::string ddl;
      for (char c : name) ddl += c == '"' ? std::string("\"\"") : std::string(1, c);
      ddl = "CREATE VIRTUAL TABLE \"" + ddl + "\" USING cql(table = '\"" + escaped_ks + "\".\"" +
            escaped_name + "\"'" + store_argument(*connection) + ")";
      char* error = nullptr;
      if (sqlite3_exec(connection->db(), ddl.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        std::string message = error ? error : "unknown error";
        sqlite3_free(error);
        return result_error(context, message);
      }
      ++created;
    }
    sqlite3_result_int(context, created);
  } catch (const std::exception& e) {
    result_error(context, std::string("Internal error in cql_import_schema(): ") + e.what());
  }
}

void cql_open_function(sqlite3_context* context, int, sqlite3_value** argv) {
  try {
    auto* connection = static_cast<Connection*>(sqlite3_user_data(context));
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      return result_error(context, "cql_open() needs a store path (or ':memory:'), not NULL.");
    }
    auto path = connection->open_main_store(text_argument(argv[0]));
    if (!path.is_ok()) return result_error(context, path.status().message());
    sqlite3_result_text(context, path.value().c_str(), -1, SQLITE_TRANSIENT);
  } catch (const std::exception& e) {
    result_error(context, std::string("Internal error in cql_open(): ") + e.what());
  }
}

void cql_flush_function(sqlite3_context* context, int, sqlite3_value**) {
  try {
    auto* connection = static_cast<Connection*>(sqlite3_user_data(context));
    if (Status s = connection->check_writable("cql_flush()"); !s.is_ok())
      return result_error(context, s);
    auto store = connection->store_for("main", "");
    if (!store.is_ok()) return result_error(context, store.status().message());
    // Committed writes only: what the open SQL transaction buffers reaches the store at COMMIT.
    Status status = store.value()->flush();
    if (status.is_ok()) status = store.value()->wait_for_background_work();
    if (!status.is_ok()) return result_error(context, status.message());
    sqlite3_result_null(context);
  } catch (const std::exception& e) {
    result_error(context, std::string("Internal error in cql_flush(): ") + e.what());
  }
}

void cql_index_reads_function(sqlite3_context* context, int, sqlite3_value**) {
  sqlite3_result_int64(context, static_cast<sqlite3_int64>(storage::sai_index_reads()));
}

namespace {

// The tables cql_compact() compacts: the one `name` names ("ks.t", CQL's quoting for mixed
// case), or, for NULL, every table of the store and its catalog.
// The tables `name` ('ks.t') names for `function` (cql_compact(), cql_build_indexes()); NULL or
// none: every table of the store (and its catalog).
Result<std::vector<storage::TableId>> tables_named(cql::Session& session, sqlite3_value* name,
                                                   std::string_view function) {
  CASSETTE_ASSIGN_OR_RETURN(auto schema, session.catalog().current());
  std::vector<storage::TableId> tables;
  if (name == nullptr || sqlite3_value_type(name) == SQLITE_NULL) {
    tables.push_back(schema::kCatalogTable);
    for (const auto& [ks_name, keyspace] : schema->keyspaces) {
      for (const auto& [table_name, table] : keyspace->tables) tables.push_back(table->table_id);
    }
    return tables;
  }
  const std::string qualified = text_argument(name);
  const size_t dot = qualified.find('.');
  if (dot == std::string::npos) {
    return Status::invalid_argument(
        fmt::format("{} takes a table as keyspace.table, not '{}'", function, qualified));
  }
  const std::string keyspace = cql_identifier(qualified.substr(0, dot));
  const std::string table_name = cql_identifier(qualified.substr(dot + 1));
  auto table = schema->find_table(keyspace, table_name);
  if (table == nullptr) {
    return Status::invalid_argument(
        fmt::format("table {}.{} does not exist", keyspace, table_name));
  }
  tables.push_back(table->table_id);
  return tables;
}

}  // namespace

void cql_compact_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  try {
    auto* connection = static_cast<Connection*>(sqlite3_user_data(context));
    if (Status s = connection->check_writable("cql_compact()"); !s.is_ok()) {
      return result_error(context, s);
    }
    auto session = main_session(*connection);
    if (!session.is_ok()) return result_error(context, session.status().message());
    auto tables = tables_named(*session.value(), argc > 0 ? argv[0] : nullptr, "cql_compact()");
    if (!tables.is_ok()) return result_error(context, tables.status().message());
    // Committed writes only, as cql_flush(): the memtables go to SSTables first, so that each
    // table ends in one file.
    storage::Store& store = session.value()->store();
    Status status = store.flush();
    for (storage::TableId table : tables.value()) {
      if (status.is_ok()) status = store.compact(table);
    }
    if (!status.is_ok()) return result_error(context, status.message());
    sqlite3_result_null(context);
  } catch (const std::exception& e) {
    result_error(context, std::string("Internal error in cql_compact(): ") + e.what());
  }
}

void cql_build_indexes_function(sqlite3_context* context, int argc, sqlite3_value** argv) {
  try {
    auto* connection = static_cast<Connection*>(sqlite3_user_data(context));
    if (Status s = connection->check_writable("cql_build_indexes()"); !s.is_ok()) {
      return result_error(context, s);
    }
    auto session = main_session(*connection);
    if (!session.is_ok()) return result_error(context, session.status().message());
    std::optional<storage::TableId> table;
    if (argc > 0) {
      auto tables = tables_named(*session.value(), argv[0], "cql_build_indexes()");
      if (!tables.is_ok()) return result_error(context, tables.status().message());
      if (sqlite3_value_type(argv[0]) != SQLITE_NULL) table = tables->front();
    }
    // Committed writes only, as cql_flush(): the memtables' vectors go to SSTables first.
    Status status = session.value()->store().flush();
    if (!status.is_ok()) return result_error(context, status.message());
    auto builds = cql::ann_build_indexes(session.value()->catalog(), table);
    if (!builds.is_ok()) return result_error(context, builds.status().message());
    int64_t built = 0;
    for (const cql::AnnIndexBuild& b : *builds) built += static_cast<int64_t>(b.built);
    sqlite3_result_int64(context, built);
  } catch (const std::exception& e) {
    result_error(context, std::string("Internal error in cql_build_indexes(): ") + e.what());
  }
}

}  // namespace cassette::sqlite
