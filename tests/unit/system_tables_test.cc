// System tables (engine/cql/system_tables.h): the definitions all build, and what system.local
// derives from the store (host_id, schema_version) is stable where it must be and changes where
// it must. The rows themselves are shown by tests/cql/system_tables.cql.
#include "engine/cql/system_tables.h"

#include <doctest/doctest.h>

#include "engine/cql/session.h"
#include "engine/cql/system_views.h"
#include "engine/cql/tracing.h"
#include "tests/unit/cql_test_fixture.h"
#include "tests/unit/temp_dir.h"

namespace cassette::cql {
namespace {

using test::CqlFixture;
using test::Rows;

// One value of system.local, as text.
std::string local_value(Session& session, std::string_view column) {
  auto result = session.execute(fmt::format("SELECT {} FROM system.local", column));
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  REQUIRE(result->rows.rows.size() == 1);
  const auto& value = result->rows.rows[0][0];
  REQUIRE(value.has_value());
  return types::format_value(result->rows.columns[0].type, *value, types::ValueStyle::kCqlsh);
}

std::unique_ptr<Session> open_session(const std::string& path) {
  auto store = storage::Store::open(path).value();
  return Session::open(store).value();
}

TEST_CASE(
    "system tables: every table of system, system_schema, system_traces and the virtual "
    "keyspaces is defined") {
  const schema::Schema& system = system_keyspaces();
  CHECK(system.keyspaces.size() == 5);
  std::vector<std::string> names;
  for (const auto& [keyspace, definition] : system.keyspaces) {
    for (const auto& [name, table] : definition->tables) {
      names.push_back(keyspace + "." + name);
      CHECK(is_system_table(*table));
    }
  }
  CHECK(names == std::vector<std::string>{"system.local",
                                          "system.peers",
                                          "system.peers_v2",
                                          "system.size_estimates",
                                          "system.table_estimates",
                                          "system_schema.aggregates",
                                          "system_schema.column_masks",
                                          "system_schema.columns",
                                          "system_schema.dropped_columns",
                                          "system_schema.functions",
                                          "system_schema.indexes",
                                          "system_schema.keyspaces",
                                          "system_schema.tables",
                                          "system_schema.triggers",
                                          "system_schema.types",
                                          "system_schema.views",
                                          "system_traces.events",
                                          "system_traces.sessions",
                                          "system_views.clients",
                                          "system_views.settings",
                                          "system_virtual_schema.columns",
                                          "system_virtual_schema.keyspaces",
                                          "system_virtual_schema.tables"});
  CHECK(is_system_keyspace("system"));
  CHECK(is_system_keyspace("system_schema"));
  CHECK(is_system_keyspace("system_traces"));
  CHECK(is_system_keyspace("system_views"));
  CHECK(is_system_keyspace("system_virtual_schema"));
  CHECK(is_virtual_keyspace("system_views"));
  CHECK_FALSE(is_virtual_keyspace("system_schema"));
  CHECK_FALSE(is_system_keyspace("System"));
  CHECK_FALSE(is_system_keyspace("ks"));
}

TEST_CASE("system tables: schema_version changes with the schema, equal for equal schemas") {
  test::TempDir dir;
  std::string before;
  std::string after;
  {
    auto session = open_session(dir.path());
    before = local_value(*session, "schema_version");
    REQUIRE(session
                ->execute("CREATE KEYSPACE ks WITH replication = {'class': "
                          "'SimpleStrategy', 'replication_factor': 1}")
                .is_ok());
    const std::string with_keyspace = local_value(*session, "schema_version");
    CHECK(with_keyspace != before);
    REQUIRE(session->execute("CREATE TABLE ks.t (k int PRIMARY KEY, v int)").is_ok());
    after = local_value(*session, "schema_version");
    CHECK(after != with_keyspace);
    // Another session of the store sees the same version.
    auto other = open_session(dir.path());
    CHECK(local_value(*other, "schema_version") == after);
  }
  // The store opened afresh (as another process would) computes the same version.
  auto reopened = open_session(dir.path());
  CHECK(local_value(*reopened, "schema_version") == after);
  REQUIRE(reopened->execute("ALTER TABLE ks.t ADD w text").is_ok());
  CHECK(local_value(*reopened, "schema_version") != after);
}

TEST_CASE("system tables: host_id is the store's, stable across opens") {
  test::TempDir first;
  test::TempDir second;
  std::string host;
  {
    auto session = open_session(first.path());
    host = local_value(*session, "host_id");
  }
  CHECK(host.size() == 36);
  CHECK(local_value(*open_session(first.path()), "host_id") == host);
  CHECK(local_value(*open_session(second.path()), "host_id") != host);
}

TEST_CASE("system tables: system.local reports the node the host gives the session") {
  CqlFixture f;
  CHECK(f.rows("SELECT rpc_address, rpc_port, native_protocol_version FROM system.local") ==
        Rows{"127.0.0.1|9042|5"});
  f.session().set_node_info({"10.1.2.3", 19042, "5"});
  CHECK(f.rows("SELECT rpc_address, rpc_port, listen_address, broadcast_address, "
               "native_protocol_version FROM system.local WHERE key = 'local'") ==
        Rows{"10.1.2.3|19042|10.1.2.3|10.1.2.3|5"});
}

TEST_CASE("system tables: a SELECT sees the schema as the statement starts") {
  CqlFixture f;
  CHECK(f.rows("SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks'") == Rows{});
  f.ok("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)");
  CHECK(f.rows("SELECT column_name, clustering_order, kind, position FROM system_schema.columns "
               "WHERE keyspace_name = 'ks' AND table_name = 't'") ==
        Rows{"c|desc|clustering|0", "k|none|partition_key|0"});
  CHECK(f.error("INSERT INTO system.local (key) VALUES ('x')") ==
        "Modification is not supported by table system.local");
  CHECK(f.error("SELECT * FROM system_schema.nothing") == "table nothing does not exist");
}

TEST_CASE("system tables: system_traces holds this process's traces, the latest kept") {
  CqlFixture f;
  TraceSession first;
  first.command = "QUERY";
  first.request = "Execute CQL3 query";
  first.client = "10.0.0.7";
  first.parameters = {{"query", "SELECT * FROM ks.t"}, {"consistency_level", "ONE"}};
  const Trace trace = Trace::start(first);
  trace.event("Parsing SELECT * FROM ks.t");
  const std::string id = types::format_value(types::CqlType::simple(types::TypeKind::kUuid),
                                             trace.session_id(), types::ValueStyle::kCqlsh);
  const std::string where = fmt::format(" WHERE session_id = {}", id);
  // Unfinished: no duration yet (drivers wait for it).
  CHECK(f.rows("SELECT client, request, duration, parameters FROM system_traces.sessions" +
               where) == Rows{"10.0.0.7|Execute CQL3 query|null|{'consistency_level': 'ONE', "
                              "'query': 'SELECT * FROM ks.t'}"});
  trace.event("Request complete");
  trace.finish();
  const Rows finished = f.rows("SELECT duration FROM system_traces.sessions" + where);
  REQUIRE(finished.size() == 1);
  CHECK(finished[0] != "null");
  CHECK(f.rows("SELECT activity, source, thread FROM system_traces.events" + where) ==
        Rows{"Parsing SELECT * FROM ks.t|127.0.0.1|Native-Transport-Requests-1",
             "Request complete|127.0.0.1|Native-Transport-Requests-1"});
  // Bounded: after kMaxTraceSessions more, the first is gone.
  for (size_t i = 0; i < kMaxTraceSessions; ++i) Trace::start(TraceSession{}).finish();
  CHECK(traced_sessions().size() == kMaxTraceSessions);
  CHECK(f.rows("SELECT request FROM system_traces.sessions" + where) == Rows{});
  CHECK(f.error("TRUNCATE system_traces.events") ==
        "Truncation is not supported by table system_traces.events");
}

}  // namespace
}  // namespace cassette::cql
