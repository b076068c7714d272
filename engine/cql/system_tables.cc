// The system tables' definitions (as Cassandra 4.1's SystemKeyspace and SchemaKeyspace declare
// them) and the rows generated for each from the schema a statement sees.
#include "engine/cql/system_tables.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "engine/cql/column_mask.h"
#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/parser.h"
#include "engine/cql/system_views.h"
#include "engine/cql/table_properties.h"
#include "engine/cql/tracing.h"
#include "engine/schema/schema_digest.h"
#include "engine/storage/overlay.h"
#include "engine/util/hash64.h"
#include "engine/write/row_encoder.h"

namespace cassette::cql {

namespace {

using schema::ColumnKind;
using schema::KeyspaceDef;
using schema::TableDef;
using types::CqlType;
using types::TypeKind;

// Storage ids no table of a store gets (the catalog counts up from 1): the generated rows of
// system table i live, in an overlay only, under kFirstSystemTableId + i.
constexpr storage::TableId kFirstSystemTableId = storage::TableId{1} << 62;

constexpr std::string_view kLocalStrategy = "org.apache.cassandra.locator.LocalStrategy";

// The options of Cassandra's system tables: local ones keep no tombstones, schema ones a week.
constexpr std::string_view kSystemOptions =
    "gc_grace_seconds = 0 AND memtable_flush_period_in_ms = 3600000";
constexpr std::string_view kSchemaOptions =
    "gc_grace_seconds = 604800 AND memtable_flush_period_in_ms = 3600000";

// The options shared by system_schema.tables and system_schema.views.
constexpr std::string_view kTableOptionColumns =
    "additional_write_policy text, allow_auto_snapshot boolean, bloom_filter_fp_chance double, "
    "caching frozen<map<text, "
    "text>>, cdc boolean, comment text, compaction frozen<map<text, text>>, compression "
    "frozen<map<text, text>>, crc_check_chance double, dclocal_read_repair_chance double, "
    "default_time_to_live int, extensions frozen<map<text, blob>>, gc_grace_seconds int, id "
    "uuid, incremental_backups boolean, max_index_interval int, memtable text, "
    "memtable_flush_period_in_ms int, "
    "min_index_interval int, read_repair text, read_repair_chance double, speculative_retry text";

// The tables (keyspace, CREATE TABLE), with Cassandra 4.1's columns, keys and comments.
std::vector<std::pair<std::string, std::string>> definitions() {
  auto system = [](std::string_view columns, std::string_view comment) {
    return std::pair<std::string, std::string>(
        "system", fmt::format("{}) WITH comment = '{}' AND {}", columns, comment, kSystemOptions));
  };
  auto traces = [](std::string_view columns, std::string_view comment) {
    return std::pair<std::string, std::string>(
        "system_traces",
        fmt::format("{}) WITH comment = '{}' AND gc_grace_seconds = 0", columns, comment));
  };
  auto schema = [](std::string_view columns, std::string_view comment) {
    return std::pair<std::string, std::string>(
        "system_schema",
        fmt::format("{}) WITH comment = '{}' AND {}", columns, comment, kSchemaOptions));
  };
  // Cassandra 5.0's virtual tables: a comment and nothing else (no options, no storage).
  auto virtual_table = [](std::string_view keyspace, std::string_view columns,
                          std::string_view comment) {
    return std::pair<std::string, std::string>(
        keyspace, fmt::format("{}) WITH comment = '{}'", columns, comment));
  };
  return {
      system("CREATE TABLE local (key text PRIMARY KEY, bootstrapped text, broadcast_address inet, "
             "broadcast_port int, cluster_name text, cql_version text, data_center text, "
             "gossip_generation int, host_id uuid, listen_address inet, listen_port int, "
             "native_protocol_version text, partitioner text, rack text, release_version text, "
             "rpc_address inet, rpc_port int, schema_version uuid, tokens set<text>, "
             "truncated_at map<uuid, blob>",
             "information about the local node"),
      system("CREATE TABLE peers (peer inet PRIMARY KEY, data_center text, host_id uuid, "
             "preferred_ip inet, rack text, release_version text, rpc_address inet, "
             "schema_version uuid, tokens set<text>",
             "information about known peers in the cluster"),
      system("CREATE TABLE peers_v2 (peer inet, peer_port int, data_center text, host_id uuid, "
             "native_address inet, native_port int, preferred_ip inet, preferred_port int, "
             "rack text, release_version text, schema_version uuid, tokens set<text>, "
             "PRIMARY KEY ((peer), peer_port)",
             "information about known peers in the cluster"),
      schema("CREATE TABLE keyspaces (keyspace_name text, durable_writes boolean, replication "
             "frozen<map<text, text>>, PRIMARY KEY ((keyspace_name))",
             "keyspace definitions"),
      schema(fmt::format("CREATE TABLE tables (keyspace_name text, table_name text, {}, flags "
                         "frozen<set<text>>, PRIMARY KEY ((keyspace_name), table_name)",
                         kTableOptionColumns),
             "table definitions"),
      schema("CREATE TABLE columns (keyspace_name text, table_name text, column_name text, "
             "clustering_order text, column_name_bytes blob, kind text, position int, type text, "
             "PRIMARY KEY ((keyspace_name), table_name, column_name)",
             "column definitions"),
      schema("CREATE TABLE dropped_columns (keyspace_name text, table_name text, column_name "
             "text, dropped_time timestamp, kind text, type text, PRIMARY KEY ((keyspace_name), "
             "table_name, column_name)",
             "dropped column registry"),
      schema("CREATE TABLE triggers (keyspace_name text, table_name text, trigger_name text, "
             "options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, "
             "trigger_name)",
             "trigger definitions"),
      schema(fmt::format("CREATE TABLE views (keyspace_name text, view_name text, base_table_id "
                         "uuid, base_table_name text, where_clause text, include_all_columns "
                         "boolean, {}, PRIMARY KEY ((keyspace_name), view_name)",
                         kTableOptionColumns),
             "view definitions"),
      schema("CREATE TABLE types (keyspace_name text, type_name text, field_names "
             "frozen<list<text>>, field_types frozen<list<text>>, PRIMARY KEY ((keyspace_name), "
             "type_name)",
             "user defined type definitions"),
      schema("CREATE TABLE functions (keyspace_name text, function_name text, argument_types "
             "frozen<list<text>>, argument_names frozen<list<text>>, body text, \"language\" text, "
             "return_type text, called_on_null_input boolean, PRIMARY KEY ((keyspace_name), "
             "function_name, argument_types)",
             "user defined function definitions"),
      schema("CREATE TABLE aggregates (keyspace_name text, aggregate_name text, argument_types "
             "frozen<list<text>>, final_func text, initcond text, return_type text, state_func "
             "text, state_type text, PRIMARY KEY ((keyspace_name), aggregate_name, "
             "argument_types)",
             "user defined aggregate definitions"),
      schema("CREATE TABLE indexes (keyspace_name text, table_name text, index_name text, kind "
             "text, options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, "
             "index_name)",
             "secondary index definitions"),
      traces("CREATE TABLE sessions (session_id uuid PRIMARY KEY, client inet, command text, "
             "coordinator inet, coordinator_port int, duration int, parameters map<text, text>, "
             "request text, started_at timestamp",
             "tracing sessions"),
      traces("CREATE TABLE events (session_id uuid, event_id timeuuid, activity text, source "
             "inet, source_elapsed int, source_port int, thread text, PRIMARY KEY ((session_id), "
             "event_id)",
             "tracing events"),
      schema("CREATE TABLE column_masks (keyspace_name text, table_name text, column_name text, "
             "function_keyspace text, function_name text, function_argument_types "
             "frozen<list<text>>, function_argument_values frozen<list<text>>, PRIMARY KEY "
             "((keyspace_name), table_name, column_name)",
             "column dynamic data masks"),
      // Cassandra fills these with its per-range estimates (SizeEstimatesRecorder); here they
      // stay empty, so that the tools that read them (Spark's connector) find the tables.
      system("CREATE TABLE size_estimates (keyspace_name text, table_name text, range_start "
             "text, range_end text, mean_partition_size bigint, partitions_count bigint, "
             "PRIMARY KEY ((keyspace_name), table_name, range_start, range_end)",
             "per-table primary range size estimates, table is deprecated in favor of "
             "table_estimates"),
      system("CREATE TABLE table_estimates (keyspace_name text, table_name text, range_type "
             "text, range_start text, range_end text, mean_partition_size bigint, "
             "partitions_count bigint, PRIMARY KEY ((keyspace_name), table_name, range_type, "
             "range_start, range_end)",
             "per-table range size estimates"),
      // system_virtual_schema (VirtualSchemaKeyspace): the virtual keyspaces' own schema, which
      // drivers read beside system_schema's (Python driver 3.25 SchemaParserV4, Node.js driver
      // 4.x SchemaParserV3 as `virtual` keyspaces).
      virtual_table("system_virtual_schema",
                    "CREATE TABLE keyspaces (keyspace_name text PRIMARY KEY",
                    "virtual keyspace definitions"),
      virtual_table("system_virtual_schema",
                    "CREATE TABLE tables (keyspace_name text, table_name text, comment text, "
                    "PRIMARY KEY ((keyspace_name), table_name)",
                    "virtual table definitions"),
      virtual_table("system_virtual_schema",
                    "CREATE TABLE columns (keyspace_name text, table_name text, column_name text, "
                    "clustering_order text, column_name_bytes blob, kind text, position int, "
                    "type text, PRIMARY KEY ((keyspace_name), table_name, column_name)",
                    "virtual column definitions"),
      // system_views: the node's connections (ClientsTable, with 5.0's authentication columns)
      // and its settings (SettingsTable: cassandra.yaml's names; system_views.h).
      virtual_table("system_views",
                    "CREATE TABLE clients (address inet, port int, authentication_metadata "
                    "map<text, text>, authentication_mode text, client_options map<text, text>, "
                    "connection_stage text, driver_name text, driver_version text, hostname text, "
                    "protocol_version int, request_count bigint, ssl_cipher_suite text, "
                    "ssl_enabled boolean, ssl_protocol text, username text, "
                    "PRIMARY KEY ((address), port)",
                    "currently connected clients"),
      virtual_table("system_views", "CREATE TABLE settings (name text PRIMARY KEY, value text",
                    "current settings"),
  };
}

// 128 bits as the text of a name-based (version 3) uuid.
std::string uuid_text(uint64_t high, uint64_t low) {
  high = (high & ~uint64_t{0xF000}) | uint64_t{0x3000};
  low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                     high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFull);
}

// A uuid (text form) named by `bytes`: the same bytes always give the same uuid. From two XXH64
// hashes rather than Cassandra's MD5: an identifier, not a digest anyone recomputes.
std::string name_based_uuid(std::string_view bytes) {
  return uuid_text(hash64(bytes, 0x5359535441424c45),   // "SYSTABLE"
                   hash64(bytes, 0x4341535345545445));  // "CASSETTE"
}

Result<std::shared_ptr<const TableDef>> build_system_table(const std::string& keyspace,
                                                           const std::string& cql,
                                                           storage::TableId id) {
  CASSETTE_ASSIGN_OR_RETURN(Statement statement, parse_statement(cql));
  auto* create = std::get_if<CreateTableStatement>(&statement);
  if (create == nullptr) return Status::internal("system table definition is not CREATE TABLE");
  KeyspaceDef empty;
  empty.name = keyspace;
  CASSETTE_ASSIGN_OR_RETURN(schema::TableDef table,
                            schema_internal::build_table(*create, keyspace, empty));
  table.id = name_based_uuid(keyspace + table.name);  // Cassandra: nameUUIDFromBytes(ks + table)
  table.table_id = id;
  return std::make_shared<const TableDef>(std::move(table));
}

schema::Schema build_system_keyspaces() {
  schema::Schema out;
  for (std::string name :
       {"system", "system_schema", "system_traces", "system_views", "system_virtual_schema"}) {
    auto keyspace = std::make_shared<KeyspaceDef>();
    keyspace->name = name;
    keyspace->replication = {{"class", std::string(kLocalStrategy)}};
    if (name == "system_traces") {  // as Cassandra creates it: replicated, not local
      keyspace->replication = {{"class", "org.apache.cassandra.locator.SimpleStrategy"},
                               {"replication_factor", "2"}};
    }
    out.keyspaces[name] = std::move(keyspace);
  }
  storage::TableId id = kFirstSystemTableId;
  for (const auto& [keyspace, cql] : definitions()) {
    Result<std::shared_ptr<const TableDef>> table = build_system_table(keyspace, cql, id++);
    // A definition that does not build is a bug the unit tests catch (every table is listed
    // there); the others still work.
    if (table.is_ok()) out = schema::with_table(out, *table);
  }
  return out;
}

// ---- generating rows ----------------------------------------------------------------------

// The rows of one system table, encoded into a batch as an INSERT would write them.
class RowWriter {
 public:
  RowWriter(std::shared_ptr<const TableDef> table, int64_t now_micros)
      : table_(std::move(table)), values_(table_->columns.size()) {
    std::vector<size_t> all(table_->columns.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    auto encoder = write::RowEncoder::make(table_, std::move(all), write::NullPolicy::kUnset);
    if (!encoder.is_ok()) {
      status_ = encoder.status();
      return;
    }
    encoder_ = std::move(*encoder);
    // An explicit timestamp: collections are then written whole, with no current row to read.
    encoder_->set_parameters(
        write::RowEncoder::parameters(*table_, now_micros, std::nullopt, now_micros));
  }

  // Sets a column of the current row from its string form (text as is, other types as
  // Cassandra's fromString reads them). A bad value is a bug: it fails the read.
  void set(std::string_view column, std::string_view text) {
    const schema::ColumnDef* def = table_->find_column(column);
    if (def == nullptr) return;  // an option with no column here (allow_auto_snapshot, ...)
    if (def->type.kind == TypeKind::kText) {
      values_[index(def)] = std::string(text);
      return;
    }
    Result<std::string> value = types::parse_value_string(def->type, text);
    if (!value.is_ok()) {
      note(Status::internal(fmt::format("system table {}.{}: column {}: {}", table_->keyspace,
                                        table_->name, column, value.status().message())));
      return;
    }
    values_[index(def)] = std::move(*value);
  }
  void set(std::string_view column, int value) { set(column, std::to_string(value)); }
  void set_bytes(std::string_view column, std::string bytes) {
    if (const schema::ColumnDef* def = table_->find_column(column)) {
      values_[index(def)] = std::move(bytes);
    }
  }
  void set_list(std::string_view column, const std::vector<std::string>& elements) {
    set_bytes(column, types::serialize_list(elements));
  }
  void set_set(std::string_view column, std::vector<std::string> elements) {
    set_bytes(column, types::serialize_set(CqlType::simple(TypeKind::kText), std::move(elements)));
  }
  void set_map(std::string_view column, const std::map<std::string, std::string>& map) {
    std::vector<std::pair<std::string, std::string>> entries(map.begin(), map.end());
    set_bytes(column, types::serialize_map(CqlType::simple(TypeKind::kText), std::move(entries)));
  }

  // Writes the current row and starts the next.
  void end_row() {
    if (!status_.is_ok()) return;
    write::BatchSink sink(batch_, table_->table_id);
    note(encoder_->insert(values_, sink));
    values_.assign(values_.size(), types::Value());
  }

  Result<storage::EncodedBatch> finish() {
    if (!status_.is_ok()) return status_;
    return std::move(batch_);
  }

 private:
  size_t index(const schema::ColumnDef* def) const {
    return static_cast<size_t>(def - table_->columns.data());
  }
  void note(Status status) {
    if (status_.is_ok()) status_ = std::move(status);
  }

  std::shared_ptr<const TableDef> table_;
  std::unique_ptr<write::RowEncoder> encoder_;
  std::vector<types::Value> values_;
  storage::EncodedBatch batch_;
  Status status_;
};

std::string host_id(const ExecutionContext& context) {
  return name_based_uuid("host:" + context.store->path());
}

void write_local(const ExecutionContext& context, RowWriter& rows) {
  const NodeInfo node = context.node != nullptr ? *context.node : NodeInfo();
  rows.set("key", "local");
  rows.set("bootstrapped", "COMPLETED");
  rows.set("broadcast_address", node.address);
  rows.set("broadcast_port", 7000);
  rows.set("cluster_name", kClusterName);
  rows.set("cql_version", kCqlVersion);
  rows.set("data_center", "datacenter1");
  rows.set("host_id", host_id(context));
  rows.set("listen_address", node.address);
  rows.set("listen_port", 7000);
  rows.set("native_protocol_version", node.native_protocol_version);
  rows.set("partitioner", "org.apache.cassandra.dht.Murmur3Partitioner");
  rows.set("rack", "rack1");
  rows.set("release_version", kReleaseVersion);
  rows.set("rpc_address", node.address);
  rows.set("rpc_port", node.port);
  rows.set("schema_version", schema_version_uuid(*context.schema));
  rows.set_set("tokens", {std::string(kToken)});
  rows.end_row();
}

// Every keyspace system_schema lists: the generated ones but the virtual ones (which
// system_virtual_schema lists), then the store's.
std::vector<const KeyspaceDef*> all_keyspaces(const schema::Schema& schema) {
  std::vector<const KeyspaceDef*> out;
  for (const auto& [name, keyspace] : system_keyspaces().keyspaces) {
    if (!is_virtual_keyspace(name)) out.push_back(keyspace.get());
  }
  for (const auto& [name, keyspace] : schema.keyspaces) out.push_back(keyspace.get());
  return out;
}

void write_keyspaces(const schema::Schema& schema, RowWriter& rows) {
  for (const KeyspaceDef* keyspace : all_keyspaces(schema)) {
    rows.set("keyspace_name", keyspace->name);
    rows.set("durable_writes", keyspace->durable_writes ? "true" : "false");
    rows.set_map("replication", keyspace->replication);
    rows.end_row();
  }
}

// A CQL string literal's text ('it''s' -> it's).
std::string unquote(std::string_view literal) {
  if (literal.size() < 2 || literal.front() != '\'') return std::string(literal);
  std::string out;
  for (size_t i = 1; i + 1 < literal.size(); ++i) {
    out += literal[i];
    if (literal[i] == '\'') ++i;  // a doubled quote
  }
  return out;
}

// The table's options, as DESCRIBE prints them (one source for both), into their columns.
void set_table_options(const TableDef& table, RowWriter& rows) {
  for (const std::string& option : describe_table_options(table.params)) {
    size_t equals = option.find(" = ");
    if (equals == std::string::npos) continue;
    std::string name = option.substr(0, equals);
    std::string_view literal = std::string_view(option).substr(equals + 3);
    if (!literal.empty() && literal.front() == '\'') {
      rows.set(name, unquote(literal));
    } else {
      rows.set(name, literal);
    }
  }
  rows.set("dclocal_read_repair_chance", "0.0");
  rows.set("read_repair_chance", "0.0");
  rows.set("id", table.id);
}

template <typename Visit>
void for_each_table(const schema::Schema& schema, Visit&& visit) {
  for (const KeyspaceDef* keyspace : all_keyspaces(schema)) {
    for (const auto& [name, table] : keyspace->tables) visit(*table);
  }
}

void write_tables(const schema::Schema& schema, RowWriter& rows) {
  for_each_table(schema, [&](const TableDef& table) {
    if (table.is_view()) return;  // in system_schema.views
    rows.set("keyspace_name", table.keyspace);
    rows.set("table_name", table.name);
    set_table_options(table, rows);
    std::vector<std::string> flags = {"compound"};
    if (table.is_counter_table()) flags.push_back("counter");
    rows.set_set("flags", std::move(flags));
    rows.end_row();
  });
}

void write_views(const schema::Schema& schema, RowWriter& rows) {
  for_each_table(schema, [&](const TableDef& view) {
    if (!view.is_view()) return;
    rows.set("keyspace_name", view.keyspace);
    rows.set("view_name", view.name);
    set_table_options(view, rows);
    rows.set("base_table_id", view.view->base_table_id);
    rows.set("base_table_name", view.view->base_table);
    rows.set("where_clause", view.view->where_clause);
    rows.set("include_all_columns", view.view->include_all_columns ? "true" : "false");
    rows.end_row();
  });
}

std::string_view kind_name(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kPartitionKey:
      return "partition_key";
    case ColumnKind::kClustering:
      return "clustering";
    case ColumnKind::kStatic:
      return "static";
    case ColumnKind::kRegular:
      return "regular";
  }
  return "regular";
}

// One table's rows of system_schema.columns (and system_virtual_schema.columns, which has the
// same columns).
void write_table_columns(const TableDef& table, RowWriter& rows) {
  for (const schema::ColumnDef& column : table.columns) {
    rows.set("keyspace_name", table.keyspace);
    rows.set("table_name", table.name);
    rows.set("column_name", column.name);
    std::string_view order = "none";
    if (column.kind == ColumnKind::kClustering) order = column.descending ? "desc" : "asc";
    rows.set("clustering_order", order);
    rows.set_bytes("column_name_bytes", column.name);
    rows.set("kind", kind_name(column.kind));
    rows.set("position", column.is_primary_key() ? column.position : -1);
    rows.set("type", schema_internal::type_name(column.type, table.keyspace));
    rows.end_row();
  }
}

void write_columns(const schema::Schema& schema, RowWriter& rows) {
  for_each_table(schema, [&](const TableDef& table) { write_table_columns(table, rows); });
}

void write_dropped_columns(const schema::Schema& schema, RowWriter& rows) {
  for_each_table(schema, [&](const TableDef& table) {
    for (const schema::DroppedColumn& dropped : table.dropped) {
      rows.set("keyspace_name", table.keyspace);
      rows.set("table_name", table.name);
      rows.set("column_name", dropped.name);
      rows.set("dropped_time", std::to_string(dropped.dropped_at_micros / 1000));
      rows.set("kind", dropped.is_static ? "static" : "regular");
      rows.set("type", schema_internal::type_name(dropped.type, table.keyspace));
      rows.end_row();
    }
  });
}

void write_types(const schema::Schema& schema, RowWriter& rows) {
  for (const KeyspaceDef* keyspace : all_keyspaces(schema)) {
    for (const auto& [name, type] : keyspace->types) {
      rows.set("keyspace_name", type->keyspace);
      rows.set("type_name", type->name);
      rows.set_list("field_names", type->field_names);
      std::vector<std::string> field_types;
      for (const CqlType& field : type->field_types) {
        field_types.push_back(schema_internal::type_name(field, type->keyspace));
      }
      rows.set_list("field_types", field_types);
      rows.end_row();
    }
  }
}

void write_indexes(const schema::Schema& schema, RowWriter& rows) {
  for (const KeyspaceDef* keyspace : all_keyspaces(schema)) {
    for (const auto& [name, index] : keyspace->indexes) {
      std::shared_ptr<const TableDef> table = schema.find_table(index->keyspace, index->table);
      if (table == nullptr) continue;
      std::map<std::string, std::string> options = index->options;
      options["target"] = schema_internal::index_target(*table, *index);
      if (!index->custom_class.empty()) options["class_name"] = index->custom_class;
      rows.set("keyspace_name", index->keyspace);
      rows.set("table_name", index->table);
      rows.set("index_name", index->name);
      rows.set("kind", index->custom_class.empty() ? "COMPOSITES" : "CUSTOM");
      rows.set_map("options", options);
      rows.end_row();
    }
  }
}

// The traces this process keeps (tracing.h).
void write_trace_sessions(RowWriter& rows) {
  for (const TraceSession& session : traced_sessions()) {
    rows.set_bytes("session_id", session.session_id);
    if (!session.client.empty()) rows.set("client", session.client);
    rows.set("command", session.command);
    rows.set("coordinator", session.coordinator);
    rows.set("coordinator_port", session.coordinator_port);
    if (session.duration) rows.set("duration", *session.duration);
    rows.set_map("parameters", session.parameters);
    rows.set("request", session.request);
    rows.set("started_at", std::to_string(session.started_at_micros / 1000));
    rows.end_row();
  }
}

void write_trace_events(RowWriter& rows) {
  for (const TraceSession& session : traced_sessions()) {
    for (const TraceEvent& event : session.events) {
      rows.set_bytes("session_id", session.session_id);
      rows.set_bytes("event_id", event.event_id);
      rows.set("activity", event.activity);
      rows.set("source", session.coordinator);
      rows.set("source_elapsed", event.source_elapsed);
      rows.set("source_port", 7000);
      rows.set("thread", event.thread);
      rows.end_row();
    }
  }
}

// Cassandra 5.0's system_schema.column_masks: one row per masked column (a materialized view's
// columns with their base table's masks, as Cassandra keeps them for the view), its partial
// arguments as their types' names and their values as text (AbstractType.getString).
void write_column_masks(const schema::Schema& schema, RowWriter& rows) {
  for_each_table(schema, [&](const TableDef& table) {
    for (const schema::ColumnDef& column : table.columns) {
      const schema::ColumnDef* masked = masked_definition(schema, table, column);
      if (masked == nullptr || !masked->mask) continue;
      const schema::ColumnMask& mask = *masked->mask;
      std::vector<std::string> types;
      std::vector<std::string> values;
      for (size_t i = 0; i < mask.argument_types.size(); ++i) {
        types.push_back(schema_internal::type_name(mask.argument_types[i], table.keyspace));
        const std::optional<std::string>& value = mask.argument_values[i];
        values.push_back(
            value ? types::format_value(mask.argument_types[i], *value, types::ValueStyle::kString)
                  : "null");
      }
      rows.set("keyspace_name", table.keyspace);
      rows.set("table_name", table.name);
      rows.set("column_name", column.name);
      rows.set("function_keyspace", "system");
      rows.set("function_name", mask.function);
      rows.set_list("function_argument_types", types);
      rows.set_list("function_argument_values", values);
      rows.end_row();
    }
  });
}

// system_virtual_schema.keyspaces, tables and columns: the virtual keyspaces as
// VirtualSchemaKeyspace lists them.
std::vector<const KeyspaceDef*> virtual_keyspaces() {
  std::vector<const KeyspaceDef*> out;
  for (const auto& [name, keyspace] : system_keyspaces().keyspaces) {
    if (is_virtual_keyspace(name)) out.push_back(keyspace.get());
  }
  return out;
}

void write_virtual_keyspaces(RowWriter& rows) {
  for (const KeyspaceDef* keyspace : virtual_keyspaces()) {
    rows.set("keyspace_name", keyspace->name);
    rows.end_row();
  }
}

void write_virtual_tables(RowWriter& rows) {
  for (const KeyspaceDef* keyspace : virtual_keyspaces()) {
    for (const auto& [name, table] : keyspace->tables) {
      rows.set("keyspace_name", table->keyspace);
      rows.set("table_name", table->name);
      rows.set("comment", table->params.comment);
      rows.end_row();
    }
  }
}

void write_virtual_columns(RowWriter& rows) {
  for (const KeyspaceDef* keyspace : virtual_keyspaces()) {
    for (const auto& [name, table] : keyspace->tables) write_table_columns(*table, rows);
  }
}

void write_clients(RowWriter& rows) {
  for (const ConnectedClient& client : connected_clients()) {
    rows.set("address", client.address);
    rows.set("port", client.port);
    if (!client.authentication_mode.empty()) {
      rows.set("authentication_mode", client.authentication_mode);
    }
    if (client.client_options) rows.set_map("client_options", *client.client_options);
    rows.set("connection_stage", client.connection_stage);
    if (client.driver_name) rows.set("driver_name", *client.driver_name);
    if (client.driver_version) rows.set("driver_version", *client.driver_version);
    rows.set("hostname", client.hostname);
    rows.set("protocol_version", client.protocol_version);
    rows.set("request_count", std::to_string(client.request_count));
    if (client.ssl_cipher_suite) rows.set("ssl_cipher_suite", *client.ssl_cipher_suite);
    rows.set("ssl_enabled", client.ssl_enabled ? "true" : "false");
    if (client.ssl_protocol) rows.set("ssl_protocol", *client.ssl_protocol);
    if (client.username) rows.set("username", *client.username);
    rows.end_row();
  }
}

void write_settings(RowWriter& rows) {
  for (const auto& [name, value] : all_settings()) {
    rows.set("name", name);
    rows.set("value", value);
    rows.end_row();
  }
}

using Generator = std::function<void(const ExecutionContext&, RowWriter&)>;

// What each table holds; the tables not listed (peers, peers_v2, triggers, functions,
// aggregates) are empty: one node, and no triggers or user functions in Cassette.
const std::map<std::string, Generator, std::less<>>& generators() {
  static const auto& instance = *new const std::map<std::string, Generator, std::less<>>{
      {"system.local", write_local},
      {"system_schema.keyspaces",
       [](const ExecutionContext& c, RowWriter& r) { write_keyspaces(*c.schema, r); }},
      {"system_schema.tables",
       [](const ExecutionContext& c, RowWriter& r) { write_tables(*c.schema, r); }},
      {"system_schema.views",
       [](const ExecutionContext& c, RowWriter& r) { write_views(*c.schema, r); }},
      {"system_schema.columns",
       [](const ExecutionContext& c, RowWriter& r) { write_columns(*c.schema, r); }},
      {"system_schema.dropped_columns",
       [](const ExecutionContext& c, RowWriter& r) { write_dropped_columns(*c.schema, r); }},
      {"system_schema.types",
       [](const ExecutionContext& c, RowWriter& r) { write_types(*c.schema, r); }},
      {"system_schema.indexes",
       [](const ExecutionContext& c, RowWriter& r) { write_indexes(*c.schema, r); }},
      {"system_traces.sessions",
       [](const ExecutionContext&, RowWriter& r) { write_trace_sessions(r); }},
      {"system_traces.events",
       [](const ExecutionContext&, RowWriter& r) { write_trace_events(r); }},
      {"system_schema.column_masks",
       [](const ExecutionContext& c, RowWriter& r) { write_column_masks(*c.schema, r); }},
      {"system_virtual_schema.keyspaces",
       [](const ExecutionContext&, RowWriter& r) { write_virtual_keyspaces(r); }},
      {"system_virtual_schema.tables",
       [](const ExecutionContext&, RowWriter& r) { write_virtual_tables(r); }},
      {"system_virtual_schema.columns",
       [](const ExecutionContext&, RowWriter& r) { write_virtual_columns(r); }},
      {"system_views.clients", [](const ExecutionContext&, RowWriter& r) { write_clients(r); }},
      {"system_views.settings", [](const ExecutionContext&, RowWriter& r) { write_settings(r); }},
  };
  return instance;
}

}  // namespace

bool is_system_keyspace(std::string_view keyspace) {
  return keyspace == "system" || keyspace == "system_schema" || keyspace == "system_traces" ||
         is_virtual_keyspace(keyspace);
}

bool is_virtual_keyspace(std::string_view keyspace) {
  return keyspace == "system_views" || keyspace == "system_virtual_schema";
}

const schema::Schema& system_keyspaces() {
  static const schema::Schema& instance = *new const schema::Schema(build_system_keyspaces());
  return instance;
}

bool is_system_table(const schema::TableDef& table) {
  return table.table_id >= kFirstSystemTableId;
}

Result<std::shared_ptr<const storage::Snapshot>> system_table_snapshot(
    const schema::TableDef& table, const ExecutionContext& context) {
  std::shared_ptr<const TableDef> shared =
      system_keyspaces().find_table(table.keyspace, table.name);
  if (shared == nullptr) return Status::internal("not a system table: " + table.name);
  RowWriter rows(shared, context.now_micros);
  auto generator = generators().find(fmt::format("{}.{}", table.keyspace, table.name));
  if (generator != generators().end()) generator->second(context, rows);
  CASSETTE_ASSIGN_OR_RETURN(storage::EncodedBatch batch, rows.finish());
  storage::Overlay overlay(&context.store->clock());
  overlay.reset();
  CASSETTE_RETURN_IF_ERROR(overlay.add(batch));
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> committed,
                            context.store->snapshot());
  return overlay.on(*committed, {shared->table_id});
}

std::string schema_version_uuid(const schema::Schema& schema) {
  auto [high, low] = schema::schema_digest(schema);
  return uuid_text(high, low);
}

}  // namespace cassette::cql
