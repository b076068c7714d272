// Stores, tables and cql() for the PostgreSQL glue (cassette_api.h): the error slot, the
// per-process registry of open stores (one Store per directory, no background threads) and of
// resolved tables, the keyspace listing IMPORT FOREIGN SCHEMA uses, and cql(text) -> JSON.
#include <sys/stat.h>

#include <map>
#include <mutex>
#include <span>

#include "engine/cql/parser.h"
#include "engine/cql/statement_kind.h"
#include "engine/schema/index_components.h"
#include "engine/storage/store_directory.h"
#include "engine/util/json.h"
#include "ext/pg_common/pg_types.h"
#include "ext/pg_common/pg_values.h"
#include "ext/postgres/api_internal.h"

namespace cassette::pg {

namespace {

std::string& last_error() {
  static std::string message;
  return message;
}

// Whether last_error() is a serialization failure (cas_last_error_is_serialization_failure).
bool& last_error_is_serialization_failure() {
  static bool serialization_failure = false;
  return serialization_failure;
}

struct Registry {
  std::map<std::string, std::shared_ptr<storage::Store>> stores;
  std::map<std::string, std::shared_ptr<schema::Catalog>> catalogs;
  std::map<std::string, storage::SyncMode> sync;  // cas_set_store_sync, for opening
  uint64_t debug_spill_bytes = 0;                 // cas_set_debug_spill_bytes, for opening
  // Every handle stays alive for the process's life; the last one is the current definition.
  std::map<std::pair<std::string, std::string>, std::vector<std::unique_ptr<cas_table>>> tables;
  std::vector<std::string> table_names;  // the last cas_keyspace_tables answer
  std::vector<const char*> table_name_pointers;
  std::string cql_json;  // the last cas_cql answer
};

Registry& registry() {
  static Registry r;
  return r;
}

cas_in_doubt_resolver& in_doubt_resolver() {
  static cas_in_doubt_resolver resolve = nullptr;
  return resolve;
}

// The store's view of the host's resolver (cas_set_in_doubt_resolver).
storage::InDoubtDecision resolve_in_doubt(std::string_view host_tag) {
  cas_in_doubt_resolver resolve = in_doubt_resolver();
  if (resolve == nullptr) return storage::InDoubtDecision::kUnknown;
  switch (resolve(std::string(host_tag).c_str())) {
    case 1:
      return storage::InDoubtDecision::kCommit;
    case 0:
      return storage::InDoubtDecision::kAbort;
    default:
      return storage::InDoubtDecision::kUnknown;
  }
}

bool directory_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Splits "ks.t" (or "\"Ks\".\"T\"") into keyspace and table; unquoted names are lower-cased as
// CQL resolves identifiers.
Status split_table_name(const std::string& qualified, std::string* keyspace, std::string* table) {
  std::vector<std::string> parts(1);
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < qualified.size(); ++i) {
    char c = qualified[i];
    if (quoted) {
      if (c == '"' && i + 1 < qualified.size() && qualified[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        parts.back() += c;
      }
    } else if (c == '"') {
      quoted = was_quoted = true;
    } else if (c == '.') {
      parts.emplace_back();
    } else {
      parts.back() +=
          was_quoted ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return Status::invalid_argument(fmt::format(
        "invalid table option \"{}\": name the CQL table as keyspace.table", qualified));
  }
  *keyspace = parts[0];
  *table = parts[1];
  return Status::ok();
}

// Which columns an index holds, from the schema resolve_table last read (CREATE INDEX and DROP
// INDEX leave the table's definition as it is: a handle's flags follow the schema).
void mark_indexed_columns(cas_table* t) {
  for (cas_column_info& info : t->columns) info.indexed = 0;
  t->index_analysis.clear();
  if (t->schema == nullptr || t->def == nullptr) return;
  for (int c : schema::sai_indexed_columns(*t->schema, *t->def)) {
    t->columns[static_cast<size_t>(c)].indexed = 1;
  }
  t->index_analysis = schema::sai_column_analyses(*t->schema, *t->def);
}

void describe_columns(cas_table* t) {
  const schema::TableDef& def = *t->def;
  size_t n = def.columns.size();
  t->names.assign(n, {});
  t->cql_types.assign(n, {});
  t->pg_types.assign(n, {});
  t->columns.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    const schema::ColumnDef& c = def.columns[i];
    t->names[i] = c.name;
    t->cql_types[i] = types::cql_type_name(c.type, def.keyspace);
    // A timeuuid gets cassette_fdw's own type, which sorts by time; the bridge (pg-export),
    // whose tables need no extension, maps it to uuid.
    t->pg_types[i] =
        c.type.kind == types::TypeKind::kTimeuuid ? "timeuuid" : cli::pg::pg_type_name(c.type);
    cas_column_info& info = t->columns[i];
    info.name = t->names[i].c_str();
    info.cql_type = t->cql_types[i].c_str();
    info.pg_type = t->pg_types[i].c_str();
    info.natural_repr = natural_repr(c.type);
    info.kind = static_cast<cas_column_kind>(static_cast<int>(c.kind));
    info.position = c.position;
    info.descending = c.descending ? 1 : 0;
    info.orderable = pg_order_matches(c.type) ? 1 : 0;
  }
  mark_indexed_columns(t);
}

}  // namespace

int set_error(const Status& status) {
  set_error(status.message());
  // The commit-time conflict check's failure, which PostgreSQL reports as SQLSTATE 40001.
  last_error_is_serialization_failure() = status.is_serialization_failure();
  return 1;
}
int set_error(const std::string& message) {
  last_error() = message;
  last_error_is_serialization_failure() = false;
  return 1;
}

Result<std::shared_ptr<storage::Store>> open_store(const std::string& path, bool must_exist) {
  Registry& r = registry();
  auto it = r.stores.find(path);
  if (it != r.stores.end()) return it->second;
  if (path.empty()) return Status::invalid_argument("the cassette server has no store option");
  if (must_exist && path != ":memory:" && !directory_exists(path)) {
    return Status::not_found(fmt::format("Cassette store \"{}\" does not exist", path));
  }
  storage::StoreOptions options;
  options.background_threads = false;  // no engine thread ever runs inside a backend
  // A backend is one of many processes: a modest memtable (each backend replays the commit log
  // tail into its own), and a block cache (a cap, filled only by use) large enough that
  // repeated scans of a mid-sized table do not decompress its blocks again.
  options.block_cache_bytes = 64 << 20;
  options.memtable_budget_bytes = 16 << 20;
  options.resolve_in_doubt = resolve_in_doubt;
  if (auto sync = r.sync.find(path); sync != r.sync.end()) options.sync = sync->second;
  if (r.debug_spill_bytes != 0) options.transaction_spill_bytes = r.debug_spill_bytes;
  auto store = storage::Store::open(path, options);
  if (!store) {
    return Status(Status::io_error(
        fmt::format("cannot open Cassette store \"{}\": {}", path, store.status().message())));
  }
  r.stores[path] = *store;
  return *store;
}

Result<std::shared_ptr<schema::Catalog>> open_catalog(const std::string& path, bool must_exist) {
  Registry& r = registry();
  auto it = r.catalogs.find(path);
  if (it != r.catalogs.end()) return it->second;
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<storage::Store> store, open_store(path, must_exist));
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<schema::Catalog> catalog, cql::catalog_for(store));
  r.catalogs[path] = catalog;
  return catalog;
}

Result<std::shared_ptr<const schema::TableDef>> resolve_table(cas_table* t) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> schema, t->catalog->current());
  std::string keyspace, name;
  CASSETTE_RETURN_IF_ERROR(split_table_name(t->qualified_name, &keyspace, &name));
  if (!schema->find_keyspace(keyspace)) {
    return Status::not_found(fmt::format("Keyspace {} does not exist", keyspace));
  }
  std::shared_ptr<const schema::TableDef> def = schema->find_table(keyspace, name);
  if (!def) return Status::not_found(fmt::format("table {}.{} does not exist", keyspace, name));
  t->schema_version = schema->version;
  t->schema = schema;
  return def;
}

// The values bound to a cql() statement's markers (C++ results: outside the extern "C" block).
namespace {

// What pg_values.h needs to know of an argument's PostgreSQL type: its kind, from its oid (an
// array's from its element's); a type the bridge does not know by oid is read as text.
cli::pg::PgSourceType source_type(const cas_cql_value& value) {
  cli::pg::PgSourceType source;
  source.oid = value.type;
  source.name = value.type_name;
  if (value.element_type != 0) {
    source.kind = cli::pg::PgKind::kArray;
    source.element = cli::pg::pg_kind_of_oid(value.element_type).value_or(cli::pg::PgKind::kText);
  } else {
    source.kind = cli::pg::pg_kind_of_oid(value.type).value_or(cli::pg::PgKind::kText);
  }
  return source;
}

// "bind marker 2 (at timestamp)": the marker's position, receiver and type, for messages.
std::string describe_marker(const cql::PreparedStatement& prepared, size_t i) {
  const cql::BindVariable& marker = prepared.variables[i];
  return fmt::format("bind marker {} ({} {})", i + 1, marker.name,
                     types::cql_type_name(marker.type));
}

// Cassandra's count message, with the first marker left without a value or the first value
// left without a marker.
Status count_mismatch(const cql::PreparedStatement& prepared, size_t count) {
  const size_t markers = prepared.variables.size();
  return Status::invalid_argument(
      fmt::format("there were {} markers(?) in CQL but {} bound variables: {}", markers, count,
                  count < markers ? describe_marker(prepared, count) + " has no value"
                                  : fmt::format("value {} has no marker", markers + 1)));
}

// The values of `prepared`'s markers, one per marker.
Result<std::vector<cql::BoundValue>> bound_values(const cql::PreparedStatement& prepared,
                                                  std::span<const cas_cql_value> values) {
  if (values.size() != prepared.variables.size()) {
    return count_mismatch(prepared, values.size());
  }
  std::vector<cql::BoundValue> bound;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].text == nullptr) {
      bound.push_back(cql::BoundValue::null());
      continue;
    }
    const cql::BindVariable& marker = prepared.variables[i];
    const cli::pg::PgSourceType source = source_type(values[i]);
    const std::string marker_name = describe_marker(prepared, i);
    if (!cli::pg::pg_kind_converts_to(source, marker.type)) {
      return Status::invalid_argument(
          fmt::format("{} cannot take a value of type {}", marker_name, source.name));
    }
    Result<types::Value> value = cli::pg::cql_value_from_pg(
        marker.type, source, std::string_view(values[i].text, values[i].len), marker.name);
    if (!value.is_ok()) {
      return Status::invalid_argument(fmt::format("{}: {}", marker_name, value.status().message()));
    }
    bound.push_back(*value ? cql::BoundValue::value(std::move(**value)) : cql::BoundValue::null());
  }
  return bound;
}

// Runs `parsed` (the text `statement`), with `values` bound to its markers when there are any.
Result<cql::ExecutionResult> execute_cql(cql::Session& session, const cql::Statement& parsed,
                                         const char* statement, const cas_cql_value* values,
                                         int nvalues, txn::Transaction* transaction) {
  if (values == nullptr) return session.execute(parsed, transaction);
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const cql::PreparedStatement> prepared,
                            session.prepare(statement, transaction));
  CASSETTE_ASSIGN_OR_RETURN(
      std::vector<cql::BoundValue> bound,
      bound_values(*prepared, std::span(values, static_cast<size_t>(nvalues))));
  return session.execute(*prepared, bound, transaction);
}

}  // namespace

}  // namespace cassette::pg

using namespace cassette;
using namespace cassette::pg;

extern "C" {

void cas_set_in_doubt_resolver(cas_in_doubt_resolver resolve) {
  in_doubt_resolver() = resolve;
}

int cas_set_store_sync(const char* store_path, const char* sync) {
  storage::SyncMode mode = storage::SyncMode::kFull;
  if (sync != nullptr) {
    Result<storage::SyncMode> parsed = storage::parse_sync_mode(sync, "sync");
    if (!parsed.is_ok()) return set_error(parsed.status().message());
    mode = *parsed;
  }
  if (store_path != nullptr) registry().sync[store_path] = mode;
  return 0;
}

void cas_set_debug_spill_bytes(int bytes) {
  registry().debug_spill_bytes = bytes > 0 ? static_cast<uint64_t>(bytes) : 0;
}

const char* cas_last_error(void) {
  return last_error().c_str();
}

int cas_last_error_is_serialization_failure(void) {
  return last_error_is_serialization_failure() ? 1 : 0;
}

int cas_table_open(const char* store_path, const char* qualified_name, cas_table** out) {
  return guarded([&]() -> Status {
    Registry& r = registry();
    auto key = std::make_pair(std::string(store_path), std::string(qualified_name));
    auto it = r.tables.find(key);
    cas_table* current = it == r.tables.end() ? nullptr : it->second.back().get();
    std::shared_ptr<schema::Catalog> catalog;
    if (current) {
      catalog = current->catalog;
    } else {
      CASSETTE_ASSIGN_OR_RETURN(catalog, open_catalog(store_path, true));
    }
    auto probe = std::make_unique<cas_table>();
    probe->store_path = store_path;
    probe->qualified_name = qualified_name;
    probe->catalog = catalog;
    probe->store = catalog->shared_store();
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> def,
                              resolve_table(probe.get()));
    // A table handle never changes once handed out (the glue keeps pointers into its column
    // descriptions for a whole query); a changed definition gets a new handle.
    if (current && current->def == def) {
      current->schema = probe->schema;  // a view or an index made or dropped since
      mark_indexed_columns(current);
      *out = current;
      return Status::ok();
    }
    probe->def = def;
    describe_columns(probe.get());
    *out = probe.get();
    r.tables[key].push_back(std::move(probe));
    return Status::ok();
  });
}

int cas_table_columns(cas_table* table, const cas_column_info** columns, int* count) {
  *columns = table->columns.data();
  *count = static_cast<int>(table->columns.size());
  return 0;
}

const char* cas_table_name(cas_table* table) {
  return table->qualified_name.c_str();
}

int cas_keyspace_tables(const char* store_path, const char* keyspace, const char* const** names,
                        int* count) {
  return guarded([&]() -> Status {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<schema::Catalog> catalog,
                              open_catalog(store_path, true));
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> schema, catalog->current());
    const schema::KeyspaceDef* ks = schema->find_keyspace(keyspace);
    if (!ks) {
      return Status::not_found(fmt::format("Keyspace {} does not exist", keyspace));
    }
    Registry& r = registry();
    r.table_names.clear();
    r.table_name_pointers.clear();
    for (const auto& [name, def] : ks->tables) r.table_names.push_back(name);
    for (const std::string& name : r.table_names) r.table_name_pointers.push_back(name.c_str());
    *names = r.table_name_pointers.data();
    *count = static_cast<int>(r.table_names.size());
    return Status::ok();
  });
}

int cas_cql_statement_writes(const char* statement, int* writes, const char** command) {
  return guarded([&]() -> Status {
    CASSETTE_ASSIGN_OR_RETURN(cql::Statement parsed, cql::parse_statement(statement));
    *writes = cql::statement_writes(parsed) ? 1 : 0;
    *command = cql::statement_name(parsed).data();  // a string literal
    return Status::ok();
  });
}

namespace {

// The transaction block's transaction on `store`, for a cql() statement at (sub)transaction
// `level` with command id `command`: its writes are tagged with the command (later statements
// see them, foreign scans of the same command do not); it reads every write made so far.
txn::Transaction* join_transaction(storage::Store* store, int level, uint32_t command) {
  txn::Transaction& transaction = store_transaction(store, level);
  transaction.set_statement(command);
  return &transaction;
}

}  // namespace

int cas_cql(const char* store_path, int create, const char* statement, int in_transaction_block,
            int level, uint32_t command, const cas_cql_value* values, int nvalues,
            const char** json_out) {
  return guarded([&]() -> Status {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<storage::Store> store,
                              open_store(store_path, create == 0));
    CASSETTE_ASSIGN_OR_RETURN(std::unique_ptr<cql::Session> session, cql::Session::open(store));
    CASSETTE_ASSIGN_OR_RETURN(cql::Statement parsed, cql::parse_statement(statement));
    // A write to a read-only store fails at its statement, not at the COMMIT after it.
    if (in_transaction_block && store->read_only() && cql::statement_writes(parsed)) {
      return storage::read_only_store_error(store->path());
    }
    txn::Transaction* transaction =
        in_transaction_block ? join_transaction(store.get(), level, command) : nullptr;
    CASSETTE_ASSIGN_OR_RETURN(
        cql::ExecutionResult result,
        execute_cql(*session, parsed, statement, values, nvalues, transaction));
    std::string& out = registry().cql_json;
    out.clear();
    switch (result.kind) {
      case cql::ExecutionResult::Kind::kRows: {
        out += '[';
        const cql::ResultSet& rs = result.rows;
        for (size_t r = 0; r < rs.rows.size(); ++r) {
          if (r) out += ", ";
          out += '{';
          for (size_t c = 0; c < rs.columns.size(); ++c) {
            if (c) out += ", ";
            out += json::quote_json_string(rs.columns[c].name);
            out += ": ";
            out += types::to_json(rs.columns[c].type, rs.rows[r][c]);
          }
          out += '}';
        }
        out += ']';
        break;
      }
      case cql::ExecutionResult::Kind::kVoid:
        out = R"({"result": "ok"})";
        break;
      case cql::ExecutionResult::Kind::kSetKeyspace:
        out = fmt::format(R"({{"result": "keyspace", "keyspace": {}}})",
                          json::quote_json_string(result.keyspace));
        break;
      case cql::ExecutionResult::Kind::kSchemaChange:
        out = R"({"result": "schema changed"})";
        break;
    }
    *json_out = out.c_str();
    return Status::ok();
  });
}

}  // extern "C"
