// xCreate / xConnect: the module arguments become a CQL table (or name one), and the table's
// columns plus the hidden ones are declared to SQLite.
//
// SQLite splits the arguments at commas outside parentheses, so `map<text, int>` and
// `compression = {'a': 1, 'b': 2}` arrive in pieces; pieces are joined back while a `<`, `{`,
// `[` or quote is open.
#include <cctype>

#include "engine/cql/execution_context.h"
#include "engine/cql/parser.h"
#include "engine/schema/index_components.h"
#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Nesting depth change of a piece, ignoring quoted text; *quote carries an open quote.
int depth_change(std::string_view piece, char* quote) {
  int depth = 0;
  for (char c : piece) {
    if (*quote) {
      if (c == *quote) *quote = 0;
      continue;
    }
    if (c == '\'' || c == '"')
      *quote = c;
    else if (c == '<' || c == '{' || c == '[' || c == '(')
      ++depth;
    else if (c == '>' || c == '}' || c == ']' || c == ')')
      --depth;
  }
  return depth;
}

// Position of a top-level '=' (outside quotes and brackets), or npos.
size_t top_level_equals(std::string_view s) {
  char quote = 0;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '<' || c == '{' || c == '[' || c == '(')
      ++depth;
    else if (c == '>' || c == '}' || c == ']' || c == ')')
      --depth;
    else if (c == '=' && depth == 0)
      return i;
  }
  return std::string_view::npos;
}

std::string unquote(std::string value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// SQLite's tokenizer rejects `{` in module arguments, so a map option is written as a string:
// compression = '{''compression_level'': 6}' -> compression = {'compression_level': 6}.
std::string map_option_value(const std::string& value) {
  if (value.size() < 4 || value.front() != '\'' || value.back() != '\'' || value[1] != '{') {
    return value;
  }
  std::string out;
  for (size_t i = 1; i + 1 < value.size(); ++i) {
    out += value[i];
    if (value[i] == '\'' && value[i + 1] == '\'') ++i;
  }
  return out;
}

std::string quote_name(std::string_view name) {
  bool plain =
      !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    plain = plain && (std::islower(static_cast<unsigned char>(c)) ||
                      std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  }
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

struct Arguments {
  std::vector<std::string> columns;  // column definitions
  std::string primary_key;           // "PRIMARY KEY (...)"
  std::vector<std::string> with;     // CLUSTERING ORDER BY ..., option = value
  std::string keyspace = "main";
  std::string store;
  std::optional<storage::SyncMode> sync;  // sync = 'full' | 'normal' | 'off'
  std::string table;                      // table = '...'
};

Result<Arguments> parse_arguments(int argc, const char* const* argv) {
  std::vector<std::string> pieces;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (int i = 3; i < argc; ++i) {
    std::string_view piece = argv[i];
    if (!current.empty() || depth > 0 || quote) {
      current += ",";
      current += piece;
    } else {
      current = std::string(piece);
    }
    depth += depth_change(piece, &quote);
    if (depth <= 0 && !quote) {
      pieces.push_back(trim(current));
      current.clear();
      depth = 0;
    }
  }
  if (!current.empty()) pieces.push_back(trim(current));

  Arguments out;
  for (const std::string& piece : pieces) {
    if (piece.empty()) continue;
    std::string head = upper(piece.substr(0, 20));
    if (head.starts_with("PRIMARY KEY")) {
      out.primary_key = piece;
      continue;
    }
    if (head.starts_with("CLUSTERING ORDER")) {
      out.with.push_back(piece);
      continue;
    }
    size_t eq = top_level_equals(piece);
    if (eq != std::string::npos) {
      std::string name = trim(std::string_view(piece).substr(0, eq));
      std::string value = trim(std::string_view(piece).substr(eq + 1));
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "keyspace") {
        out.keyspace = unquote(value);
      } else if (lower == "store") {
        out.store = unquote(value);
      } else if (lower == "sync") {
        CASSETTE_ASSIGN_OR_RETURN(out.sync, storage::parse_sync_mode(unquote(value), "sync"));
      } else if (lower == "table") {
        out.table = unquote(value);
      } else {
        out.with.push_back(name + " = " + map_option_value(value));
      }
      continue;
    }
    out.columns.push_back(piece);
  }
  if (!out.table.empty()) {
    if (!out.columns.empty() || !out.primary_key.empty() || !out.with.empty()) {
      return Status::invalid_argument(
          "A cql virtual table takes either table = '...' or column definitions, not both.");
    }
    size_t dot = out.table.find('.');
    if (dot != std::string::npos) {
      out.keyspace = out.table.substr(0, dot);
      out.table = out.table.substr(dot + 1);
    }
  } else if (out.columns.empty()) {
    return Status::invalid_argument(
        "A cql virtual table needs CQL column definitions and a PRIMARY KEY, or table = 'ks.t'.");
  }
  return out;
}

// The name a column definition ("Name" text, k int PRIMARY KEY) declares, as CQL resolves it.
std::string defined_column_name(std::string_view definition) {
  size_t end = 0;
  if (!definition.empty() && definition[0] == '"') {
    for (end = 1; end < definition.size(); ++end) {
      if (definition[end] != '"') continue;
      if (end + 1 < definition.size() && definition[end + 1] == '"')
        ++end;
      else
        break;
    }
    ++end;
  } else {
    while (end < definition.size() && !std::isspace(static_cast<unsigned char>(definition[end])))
      ++end;
  }
  return cql_identifier(definition.substr(0, std::min(end, definition.size())));
}

// SQL position -> TableDef column. A table this virtual table created keeps the order its
// CREATE VIRTUAL TABLE declared (what SELECT * and INSERT ... VALUES (...) mean to an SQL user);
// an exposed CQL table (table = '...') shows CQL's order, as cqlsh's SELECT * does. Columns that
// CQL added later (ALTER TABLE) follow, in CQL's order.
std::vector<size_t> sql_column_order(const Arguments& args, const schema::TableDef& table) {
  std::vector<size_t> order;
  std::vector<bool> placed(table.columns.size(), false);
  for (const std::string& definition : args.columns) {
    const schema::ColumnDef* column = table.find_column(defined_column_name(definition));
    if (column == nullptr) continue;  // dropped since
    size_t index = static_cast<size_t>(column - table.columns.data());
    if (placed[index]) continue;
    placed[index] = true;
    order.push_back(index);
  }
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (!placed[i]) order.push_back(i);
  }
  return order;
}

int fail(char** error, const std::string& message) {
  *error = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

// Records the virtual table's SQLite name and the CQL table it exposes with its connection
// (cql_import_schema tells its own earlier imports from other tables by it).
void expose(CqlTable& t, std::string sql_schema, std::string sql_name) {
  t.connection->clear_exposed(t.sql_schema, t.sql_name, t.keyspace + "." + t.name);
  t.sql_schema = std::move(sql_schema);
  t.sql_name = std::move(sql_name);
  t.connection->set_exposed(t.sql_schema, t.sql_name, t.keyspace + "." + t.name);
}

// A virtual table (SQLite's argv[1].argv[2]) of the CQL table keyspace.name, before its columns.
std::unique_ptr<CqlTable> new_table(const char* const* argv, Connection* connection,
                                    std::shared_ptr<storage::Store> store, cql::Session* session,
                                    const std::string& keyspace, const std::string& name,
                                    bool owns) {
  auto t = std::make_unique<CqlTable>();
  t->connection = connection;
  t->store = std::move(store);
  t->session = session;
  t->keyspace = keyspace;
  t->name = name;
  t->owns_table = owns;
  expose(*t, argv[1], argv[2]);
  return t;
}

// A virtual table whose CQL table is gone (dropped through cql() or by another process while
// the database was closed), or whose whole store is (`store` null: moved or deleted, or the
// database copied without it), still connects, so that DROP TABLE can remove it; any other use
// is the error `why` (CqlTable::refresh). It declares the columns its arguments named.
int connect_gone(sqlite3* db, const char* const* argv, Connection* connection,
                 std::shared_ptr<storage::Store> store, cql::Session* session,
                 const Arguments& args, const std::string& keyspace, const std::string& name,
                 const std::string& why, sqlite3_vtab** vtab) {
  auto t =
      new_table(argv, connection, std::move(store), session, keyspace, name, args.table.empty());
  t->gone = why + ": DROP TABLE removes this virtual table";
  std::string declaration = "CREATE TABLE x(";
  for (size_t i = 0; i < args.columns.size(); ++i) {
    declaration += (i ? ", " : "") + sql_quote(defined_column_name(args.columns[i]));
  }
  if (args.columns.empty()) declaration += "missing_table";
  declaration += ")";
  if (sqlite3_declare_vtab(db, declaration.c_str()) != SQLITE_OK) {
    declaration = "CREATE TABLE x(missing_table)";  // e.g. names SQLite refuses
    sqlite3_declare_vtab(db, declaration.c_str());
  }
  *vtab = &t.release()->base;
  return SQLITE_OK;
}

// The CREATE TABLE of a virtual table made with column definitions, checked against the
// schema as the open transaction sees it (Cassandra's errors: a bad type, an existing table...)
// but not applied: it is buffered with the transaction's writes and applied when it commits
// (engine/txn/transaction.h). The table's storage id is reserved now, so that its rows can be
// buffered.
Result<txn::SchemaChange> plan_created_table(Connection& connection, cql::Session& session,
                                             const Arguments& args, const std::string& keyspace,
                                             const std::string& name) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> base,
                            connection.schema_view(session));
  txn::SchemaChange change;
  if (base->find_keyspace(keyspace) == nullptr) {
    CASSETTE_ASSIGN_OR_RETURN(
        cql::Statement create_keyspace,
        cql::parse_statement(fmt::format(
            "CREATE KEYSPACE IF NOT EXISTS {} WITH replication = {{'class': 'SimpleStrategy', "
            "'replication_factor': 1}}",
            quote_name(keyspace))));
    CASSETTE_ASSIGN_OR_RETURN(schema::Schema with_keyspace,
                              session.plan_schema_change(create_keyspace, base));
    change.keyspace = with_keyspace.keyspaces.at(keyspace);
    base = std::make_shared<const schema::Schema>(std::move(with_keyspace));
  }
  std::string ddl = fmt::format("CREATE TABLE {}.{} (", quote_name(keyspace), quote_name(name));
  for (size_t i = 0; i < args.columns.size(); ++i) ddl += (i ? ", " : "") + args.columns[i];
  if (!args.primary_key.empty()) ddl += ", " + args.primary_key;
  ddl += ")";
  for (size_t i = 0; i < args.with.size(); ++i) ddl += (i ? " AND " : " WITH ") + args.with[i];
  CASSETTE_ASSIGN_OR_RETURN(cql::Statement create_table, cql::parse_statement(ddl));
  CASSETTE_ASSIGN_OR_RETURN(schema::Schema planned, session.plan_schema_change(create_table, base));
  std::shared_ptr<const schema::TableDef> table = planned.find_table(keyspace, name);
  if (table == nullptr) return Status::internal("CREATE TABLE made no table");
  schema::TableDef reserved = *table;
  CASSETTE_ASSIGN_OR_RETURN(reserved.table_id, session.catalog().reserve_table_id());
  change.kind = txn::SchemaChange::Kind::kCreateTable;
  change.table = std::make_shared<const schema::TableDef>(std::move(reserved));
  return change;
}

int init(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** vtab,
         char** error, bool create) {
  auto* connection = static_cast<Connection*>(aux);
  Result<Arguments> parsed = parse_arguments(argc, argv);
  if (!parsed.is_ok()) return fail(error, parsed.status().message());
  Arguments& args = parsed.value();
  const bool owns = args.table.empty();
  std::string keyspace = cql_identifier(args.keyspace);
  std::string name = owns ? std::string(argv[2]) : cql_identifier(args.table);
  // Only CREATE VIRTUAL TABLE makes a store. Connecting (a table of a schema, which someone
  // else may have written) never creates one where its arguments point.
  auto store = connection->store_for(argv[1], args.store, create, args.sync);
  if (!store.is_ok() && store.status().code() == StatusCode::kNotFound && !create) {
    return connect_gone(db, argv, connection, nullptr, nullptr, args, keyspace, name,
                        store.status().message(), vtab);
  }
  if (!store.is_ok()) return fail(error, store.status().message());
  auto session = connection->session(store.value());
  if (!session.is_ok()) return fail(error, session.status().message());
  cql::Session* s = session.value();

  std::optional<txn::SchemaChange> created;
  if (owns && create) {
    auto planned = plan_created_table(*connection, *s, args, keyspace, name);
    if (!planned.is_ok()) return fail(error, planned.status().message());
    created = std::move(planned).value();
  }
  auto schema = connection->schema_view(*s);
  if (!schema.is_ok()) return fail(error, schema.status().message());
  std::shared_ptr<const schema::TableDef> table =
      created ? created->table : schema.value()->find_table(keyspace, name);
  if (!table && !create) {
    return connect_gone(db, argv, connection, store.value(), s, args, keyspace, name,
                        fmt::format("Table {}.{} does not exist in the store (dropped through "
                                    "cql() or by another process)",
                                    keyspace, name),
                        vtab);
  }
  if (!table) {
    if (schema.value()->find_keyspace(keyspace) == nullptr) {
      return fail(error, fmt::format("Keyspace {} does not exist", keyspace));
    }
    return fail(error, fmt::format("table {}.{} does not exist", keyspace, name));
  }

  auto t = new_table(argv, connection, store.value(), s, keyspace, name, owns);
  t->table = table;
  t->indexed_columns = schema::sai_indexed_columns(*schema.value(), *table);
  t->index_analysis = schema::sai_column_analyses(*schema.value(), *table);
  t->dropped.assign(table->columns.size(), 0);
  t->schema_seen = schema.value();

  // The declaration: real columns, then the hidden ones whose names are free.
  t->sql_order = sql_column_order(args, *table);
  t->sql_position.resize(t->sql_order.size());
  for (size_t i = 0; i < t->sql_order.size(); ++i) {
    t->sql_position[t->sql_order[i]] = i;
    const schema::ColumnDef& c = table->columns[t->sql_order[i]];
    t->reads.push_back(
        {static_cast<uint32_t>(t->sql_order[i]), c.is_primary_key(), c.type.kind, &c.type});
  }
  // No PRIMARY KEY (...): SQLite 3.40 would give the table an index whose root page is an
  // arbitrary number, which PRAGMA integrity_check reports (tests/sqlite/integrity_check.sql).
  std::string declaration = "CREATE TABLE x(";
  for (size_t i = 0; i < t->sql_order.size(); ++i) {
    const schema::ColumnDef& c = table->columns[t->sql_order[i]];
    declaration +=
        fmt::format("{}{} {}", i ? ", " : "", sql_quote(c.name), declared_sql_type(c.type));
  }
  auto add_hidden = [&](const std::string& hidden_name, HiddenColumn h) {
    if (table->find_column(hidden_name) != nullptr) return;
    for (const schema::ColumnDef& c : table->columns) {
      if (upper(c.name) == upper(hidden_name)) return;  // SQL names are case-insensitive
    }
    declaration += fmt::format(", {} INTEGER HIDDEN", sql_quote(hidden_name));
    t->hidden.push_back(h);
  };
  add_hidden("token", {HiddenColumn::Kind::kToken, 0});
  for (size_t i : t->sql_order) {
    const schema::ColumnDef& c = table->columns[i];
    if (c.is_primary_key()) continue;
    add_hidden("writetime_" + c.name, {HiddenColumn::Kind::kWritetime, i});
    add_hidden("ttl_" + c.name, {HiddenColumn::Kind::kTtl, i});
  }
  add_hidden("cql_ttl", {HiddenColumn::Kind::kCqlTtl, 0});
  add_hidden("cql_timestamp", {HiddenColumn::Kind::kCqlTimestamp, 0});
  declaration += ")";
  int rc = sqlite3_declare_vtab(db, declaration.c_str());
  if (rc != SQLITE_OK) {
    return fail(error, fmt::format("Could not declare the columns of {}.{}: {}", keyspace, name,
                                   sqlite3_errmsg(db)));
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  if (!connection->trusts_store(argv[1], connection->store_path(argv[1], args.store))) {
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);  // see Connection::trusts_store
  }
  if (created) {
    Status joined = connection->take_part_in_transaction();
    if (!joined.is_ok()) return fail(error, joined.message());
    auto catalog = cql::catalog_for(store.value());
    if (!catalog.is_ok()) return fail(error, catalog.status().message());
    connection->pending(store.value().get()).add_schema_change(*created, catalog.value());
  }
  *vtab = &t.release()->base;
  return SQLITE_OK;
}

}  // namespace

Status CqlTable::refresh(std::optional<storage::SequenceNumber> seq) {
  if (table == nullptr) return Status::invalid_argument(gone);  // connected without its table
  if (!seq || *seq != refreshed_at) {
    CASSETTE_RETURN_IF_ERROR(catch_up());
    if (seq) refreshed_at = *seq;
  }
  if (!gone.empty()) return Status::invalid_argument(gone);
  return Status::ok();
}

Status CqlTable::catch_up() {
  CASSETTE_ASSIGN_OR_RETURN(auto schema, connection->schema_view(*session));
  if (schema != schema_seen) {
    schema_seen = schema;
    std::shared_ptr<const schema::TableDef> now = schema->find_table(keyspace, name);
    gone.clear();
    if (now == nullptr || now->table_id != table->table_id) {
      gone = fmt::format(
          "Table {}.{} {} after this virtual table was connected (through cql() or by another "
          "process): drop the virtual table, or reopen the database to connect it again",
          keyspace, name, now == nullptr ? "was dropped" : "was dropped and created again");
    } else {
      dropped.assign(table->columns.size(), 0);
      any_dropped = false;
      insert_encoder.reset();  // its columns may have changed
      for (size_t i = 0; i < table->columns.size(); ++i) {
        const schema::ColumnDef* current = now->find_column(table->columns[i].name);
        dropped[i] = current == nullptr || current->id != table->columns[i].id;
        any_dropped = any_dropped || dropped[i];
      }
      columns_changed = any_dropped || now->columns.size() != table->columns.size();
      indexed_columns = schema::sai_indexed_columns(*schema, *now);
      for (int& c : indexed_columns) {  // `now`'s column indexes -> `table`'s
        const schema::ColumnDef* mine =
            table->find_column(now->columns[static_cast<size_t>(c)].name);
        c = mine == nullptr ? -1 : static_cast<int>(mine - table->columns.data());
      }
      std::erase(indexed_columns, -1);
      index_analysis = schema::sai_column_analyses(*schema, *table);
    }
  }
  return Status::ok();
}

void CqlTable::redeclare_columns() {
  if (!columns_changed || redeclared) return;
  // Not inside a transaction that has not written the database: the cookie would make it a
  // write transaction, holding the file's write lock until it ends. The first statement after
  // it that reads the table redeclares.
  sqlite3* db = connection->db();
  if (sqlite3_get_autocommit(db) == 0 &&
      sqlite3_txn_state(db, sql_schema.c_str()) != SQLITE_TXN_WRITE) {
    return;
  }
  redeclared = connection->redeclare_tables(sql_schema);
}

int CqlTable::error(const std::string& message) {
  sqlite3_free(base.zErrMsg);
  base.zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

int cql_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** vtab,
               char** error) {
  try {
    return init(db, aux, argc, argv, vtab, error, true);
  } catch (const std::exception& e) {
    return fail(error, e.what());
  }
}

int cql_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** vtab,
                char** error) {
  try {
    return init(db, aux, argc, argv, vtab, error, false);
  } catch (const std::exception& e) {
    return fail(error, e.what());
  }
}

int cql_disconnect(sqlite3_vtab* vtab) {
  auto* t = reinterpret_cast<CqlTable*>(vtab);
  t->connection->clear_exposed(t->sql_schema, t->sql_name, t->keyspace + "." + t->name);
  delete t;
  return SQLITE_OK;
}

// DROP TABLE of a table created with column definitions drops its CQL table when the SQL
// transaction commits (buffered as CREATE VIRTUAL TABLE is: engine/txn/transaction.h); a ROLLBACK,
// a ROLLBACK TO before it or a connection closed first leaves the table and its rows untouched.
int cql_destroy(sqlite3_vtab* vtab) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    // A CQL table that is gone (or was created again: another table) is not this one to drop.
    if (t->owns_table && t->refresh().is_ok()) {
      Status joined = t->connection->take_part_in_transaction();
      if (!joined.is_ok()) return t->error(joined.message());
      auto catalog = cql::catalog_for(t->store);
      if (!catalog.is_ok()) return t->error(catalog.status().message());
      t->connection->pending(t->store.get())
          .add_schema_change({txn::SchemaChange::Kind::kDropTable, t->table, nullptr},
                             catalog.value());
    }
    t->connection->clear_exposed(t->sql_schema, t->sql_name, t->keyspace + "." + t->name);
    delete t;
    return SQLITE_OK;
  });
}

// A created table is found again by its virtual table's name, and CQL cannot rename tables, so
// only a table = '...' virtual table can be renamed.
int cql_rename(sqlite3_vtab* vtab, const char* new_name) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    if (!t->owns_table) {
      expose(*t, t->sql_schema, new_name);
      return SQLITE_OK;
    }
    return t->error(fmt::format(
        "Cannot rename {}: CQL tables cannot be renamed; expose it under another name with "
        "CREATE VIRTUAL TABLE ... USING cql(table = '{}.{}')",
        t->name, t->keyspace, t->name));
  });
}

int cql_shadow_name(const char*) {
  return 0;
}  // no shadow tables

}  // namespace cassette::sqlite
