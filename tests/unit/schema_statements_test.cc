// CREATE/ALTER/DROP KEYSPACE, TABLE, TYPE, INDEX and TRUNCATE: Cassandra 4.1's semantics and
// exact messages, and the schema they leave behind (persisted through the catalog).
#include <doctest/doctest.h>

#include <variant>

#include "engine/cql/execution_context.h"
#include "engine/cql/parser.h"
#include "engine/schema/catalog.h"
#include "tests/unit/store_test_util.h"

namespace cassette::cql {
namespace {

// Runs schema statements (and USE / DESCRIBE) the way a session does, without the DML executors.
class SchemaFixture {
 public:
  SchemaFixture() {
    store_ = storage::Store::open(dir_.path()).value();
    catalog_ = schema::Catalog::open(store_).value();
  }

  Result<ExecutionResult> run(std::string_view cql) {
    CASSETTE_ASSIGN_OR_RETURN(Statement statement, parse_statement(cql));
    ExecutionContext context;
    context.store = store_.get();
    context.catalog = catalog_.get();
    CASSETTE_ASSIGN_OR_RETURN(context.schema, catalog_->current());
    context.keyspace = keyspace_;
    context.now_micros = store_->clock().now_micros();
    if (auto* use = std::get_if<UseStatement>(&statement)) {
      keyspace_ = use->keyspace;
      return ExecutionResult{};
    }
    if (auto* describe = std::get_if<DescribeStatement>(&statement)) {
      return execute_describe(*describe, context);
    }
    return execute_schema_statement(statement, context);
  }

  void ok(std::string_view cql) {
    auto result = run(cql);
    INFO(cql);
    REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  }

  std::string error(std::string_view cql) {
    auto result = run(cql);
    if (result.is_ok()) return "<no error>";
    return result.status().message();
  }

  StatusCode code(std::string_view cql) { return run(cql).status().code(); }

  std::shared_ptr<const schema::Schema> schema() { return catalog_->current().value(); }
  std::shared_ptr<const schema::TableDef> table(const std::string& ks, const std::string& name) {
    return schema()->find_table(ks, name);
  }
  std::vector<std::string> column_names(const std::string& ks, const std::string& name) {
    std::vector<std::string> out;
    for (const auto& c : table(ks, name)->columns) out.push_back(c.name);
    return out;
  }

  test::TempDir dir_;
  std::shared_ptr<storage::Store> store_;
  std::shared_ptr<schema::Catalog> catalog_;
  std::string keyspace_;
};

constexpr const char* kCreateKs =
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";

TEST_CASE("schema statements: keyspaces") {
  SchemaFixture f;
  auto created = f.run(kCreateKs);
  REQUIRE(created.is_ok());
  CHECK(created->kind == ExecutionResult::Kind::kSchemaChange);
  const schema::KeyspaceDef* ks = f.schema()->find_keyspace("ks");
  REQUIRE(ks != nullptr);
  CHECK(ks->replication.at("class") == "org.apache.cassandra.locator.SimpleStrategy");
  CHECK(ks->replication.at("replication_factor") == "1");
  CHECK(ks->durable_writes);

  CHECK(f.error(kCreateKs) == "Cannot add existing keyspace \"ks\"");
  CHECK(f.code(kCreateKs) == StatusCode::kAlreadyExists);
  auto again = f.run(
      "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  REQUIRE(again.is_ok());
  CHECK(again->kind == ExecutionResult::Kind::kVoid);

  CHECK(f.error("CREATE KEYSPACE ks2 WITH durable_writes = true") ==
        "Missing mandatory option 'replication'");
  CHECK(f.error("CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy'}") ==
        "SimpleStrategy requires a replication_factor strategy option.");
  CHECK(f.error("CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', "
                "'replication_factor': 1, 'foo': 2}") ==
        "Unrecognized strategy option {foo} passed to SimpleStrategy for keyspace ks2");
  CHECK(f.error("CREATE KEYSPACE ks2 WITH replication = {'replication_factor': 1}") ==
        "Missing replication strategy class");
  CHECK(f.error("CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', "
                "'replication_factor': 1} AND foo = 1") == "Unknown property 'foo'");
  CHECK(f.code("CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', "
               "'replication_factor': 1} AND foo = 1") == StatusCode::kSyntaxError);
  f.ok(
      "CREATE KEYSPACE nts WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3} "
      "AND durable_writes = false");
  CHECK(f.schema()->find_keyspace("nts")->replication.at("class") ==
        "org.apache.cassandra.locator.NetworkTopologyStrategy");
  CHECK(!f.schema()->find_keyspace("nts")->durable_writes);

  f.ok("ALTER KEYSPACE nts WITH durable_writes = true");
  CHECK(f.schema()->find_keyspace("nts")->durable_writes);
  CHECK(f.error("ALTER KEYSPACE nope WITH durable_writes = true") ==
        "Keyspace 'nope' doesn't exist");

  f.ok("DROP KEYSPACE nts");
  CHECK(f.schema()->find_keyspace("nts") == nullptr);
  CHECK(f.error("DROP KEYSPACE nts") == "Keyspace 'nts' doesn't exist");
  CHECK(f.run("DROP KEYSPACE IF EXISTS nts")->kind == ExecutionResult::Kind::kVoid);
}

TEST_CASE("schema statements: CREATE TABLE builds the table in select order") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok(
      "CREATE TABLE ks.t (k int, c2 text, c1 int, s int static, b list<int>, a int, z text, "
      "PRIMARY KEY ((k), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC) AND gc_grace_seconds = 10 "
      "AND comment = 'hi'");
  auto t = f.table("ks", "t");
  REQUIRE(t != nullptr);
  CHECK(f.column_names("ks", "t") == std::vector<std::string>{"k", "c1", "c2", "s", "a", "z", "b"});
  CHECK(t->clustering()[0]->name == "c1");
  CHECK(t->clustering()[0]->descending);
  CHECK(!t->clustering()[1]->descending);
  CHECK(t->params.gc_grace_seconds == 10);
  CHECK(t->params.comment == "hi");
  CHECK(t->table_id == 1);
  CHECK(t->id.size() == 36);
  CHECK(t->id[14] == '4');
  for (size_t i = 0; i < t->columns.size(); ++i) CHECK(t->columns[i].id == i);

  CHECK(f.error("CREATE TABLE ks.t (k int PRIMARY KEY)") ==
        "Cannot add already existing table \"t\" to keyspace \"ks\"");
  CHECK(f.code("CREATE TABLE ks.t (k int PRIMARY KEY)") == StatusCode::kAlreadyExists);
  CHECK(f.run("CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)")->kind ==
        ExecutionResult::Kind::kVoid);
  CHECK(f.error("CREATE TABLE t2 (k int PRIMARY KEY)") ==
        "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename");
  CHECK(f.error("CREATE TABLE nope.t2 (k int PRIMARY KEY)") == "Keyspace 'nope' doesn't exist");
  f.ok("USE ks");
  f.ok("CREATE TABLE t2 (k int PRIMARY KEY, v counter)");
  CHECK(f.table("ks", "t2")->is_counter_table());
  CHECK(f.table("ks", "t2")->table_id == 2);
}

TEST_CASE("schema statements: CREATE TABLE errors") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("USE ks");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v int, c counter)") ==
        "Cannot mix counter and non counter columns in the same table");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, s int static)") ==
        "Static columns are only useful (and thus allowed) if the table has at least one "
        "clustering column");
  CHECK(f.error("CREATE TABLE t (k int, v int)") ==
        "No PRIMARY KEY specifed for table 't' (exactly one required)");
  CHECK(f.error("CREATE TABLE ks.t (k int PRIMARY KEY, v int PRIMARY KEY)") ==
        "Multiple PRIMARY KEY specified for table 'ks.t' (exactly one required)");
  CHECK(f.error("CREATE TABLE t (k int, v int, PRIMARY KEY (k, x))") ==
        "Unknown column 'x' referenced in PRIMARY KEY for table 't'");
  CHECK(f.error("CREATE TABLE t (k int, v int, PRIMARY KEY (k, k))") ==
        "Duplicate column 'k' in PRIMARY KEY clause for table 't'");
  CHECK(f.error("CREATE TABLE t (k int, k text, PRIMARY KEY (k))") ==
        "Duplicate column 'k' declaration for table 't'");
  CHECK(f.error("CREATE TABLE t (k list<int>, v int, PRIMARY KEY (k))") ==
        "Invalid non-frozen collection type list<int> for PRIMARY KEY column 'k'");
  CHECK(f.error("CREATE TABLE t (k int, c counter, v counter, PRIMARY KEY (k, c))") ==
        "counter type is not supported for PRIMARY KEY column 'c'");
  CHECK(f.error("CREATE TABLE t (k duration PRIMARY KEY, v int)") ==
        "duration type is not supported for PRIMARY KEY column 'k'");
  CHECK(f.error("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING "
                "ORDER BY (v ASC)") ==
        "Only clustering key columns can be defined in CLUSTERING ORDER directive: [v]");
  CHECK(f.error("CREATE TABLE t (k int, c1 int, c2 int, PRIMARY KEY (k, c1, c2)) WITH "
                "CLUSTERING ORDER BY (c2 ASC, c1 DESC)") ==
        "The order of columns in the CLUSTERING ORDER directive must match that of the "
        "clustering columns (c1 must appear before c2)");
  CHECK(f.error("CREATE TABLE t (k int, c1 int, c2 int, PRIMARY KEY (k, c1, c2)) WITH "
                "CLUSTERING ORDER BY (c2 ASC)") == "Missing CLUSTERING ORDER for column c1");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v int) WITH foo = 1") ==
        "Unknown property 'foo'");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v int) WITH default_time_to_live = -1") ==
        "default_time_to_live must be greater than or equal to 0 (got -1)");
  CHECK(f.code("CREATE TABLE t (k int PRIMARY KEY, v int) WITH default_time_to_live = -1") ==
        StatusCode::kConfiguration);
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v int) WITH gc_grace_seconds = -5") ==
        "gc_grace_seconds must be greater than or equal to 0 (got -5)");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v counter) WITH default_time_to_live = 5") ==
        "Cannot set default_time_to_live on a table with counters");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v list<list<int>>)") ==
        "Non-frozen collections are not allowed inside collections: list<list<int>>");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY, v frozen<foo>)") == "Unknown type ks.foo");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY) WITH compression = {'class': 'Foo'}") ==
        "Could not create Compression for type org.apache.cassandra.io.compress.Foo");
  CHECK(f.error("CREATE TABLE t (k int PRIMARY KEY) WITH compaction = {'class': 'Foo'}") ==
        "Unable to find compaction strategy class 'org.apache.cassandra.db.compaction.Foo'");
  // Nothing was created by any of the failures.
  CHECK(f.schema()->find_keyspace("ks")->tables.empty());
}

TEST_CASE("schema statements: ALTER TABLE") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))");
  f.ok("ALTER TABLE ks.t ADD w text");
  CHECK(f.column_names("ks", "t") == std::vector<std::string>{"k", "c", "v", "w"});
  CHECK(f.table("ks", "t")->find_column("w")->id == 3);
  CHECK(f.error("ALTER TABLE ks.t ADD v int") == "Column with name 'v' already exists");
  CHECK(f.error("ALTER TABLE ks.t DROP k") == "Cannot drop PRIMARY KEY column k");
  CHECK(f.error("ALTER TABLE ks.t DROP x") == "Column x was not found in table 'ks.t'");
  CHECK(f.error("ALTER TABLE ks.t RENAME v TO v2") == "Cannot rename non PRIMARY KEY column v");
  CHECK(f.error("ALTER TABLE ks.t RENAME c TO v") ==
        "Cannot rename column c to v in table 'ks.t'; another column with that name already "
        "exists");
  CHECK(f.error("ALTER TABLE ks.nope ADD x int") == "Table 'ks.nope' doesn't exist");
  CHECK(f.error("ALTER TABLE ks.t ALTER v TYPE bigint") ==
        "Altering column types is no longer supported");
  CHECK(f.error("ALTER TABLE ks.t ADD x counter") ==
        "ks.t: Cannot have a counter column (\"x\") in a non counter table");

  f.ok("ALTER TABLE ks.t DROP v");
  auto t = f.table("ks", "t");
  CHECK(t->find_column("v") == nullptr);
  REQUIRE(t->dropped.size() == 1);
  CHECK(t->dropped[0].name == "v");
  CHECK(t->dropped[0].id == 2);
  f.ok("ALTER TABLE ks.t ADD v int");
  CHECK(f.table("ks", "t")->find_column("v")->id == 4);  // a new id: old cells stay invisible
  CHECK(f.error("ALTER TABLE ks.t DROP v; ") == "<no error>");
  CHECK(f.error("ALTER TABLE ks.t ADD v text") ==
        "Cannot re-add previously dropped column 'v' of type text, incompatible with previous "
        "type int");

  f.ok("ALTER TABLE ks.t RENAME c TO c2");
  CHECK(f.table("ks", "t")->clustering()[0]->name == "c2");
  CHECK(f.table("ks", "t")->clustering()[0]->id == 1);

  f.ok("ALTER TABLE ks.t WITH gc_grace_seconds = 5 AND default_time_to_live = 7");
  CHECK(f.table("ks", "t")->params.gc_grace_seconds == 5);
  CHECK(f.table("ks", "t")->params.default_time_to_live == 7);
}

TEST_CASE("schema statements: DROP TABLE and TRUNCATE remove data") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
  storage::TableId id = f.table("ks", "t")->table_id;
  test::put(*f.store_, id, "pk", 1, test::insert_row("x"));
  f.ok("TRUNCATE ks.t");
  CHECK(test::read_table(*f.store_, id).empty());
  CHECK(f.error("TRUNCATE ks.nope") == "table nope does not exist");
  CHECK(f.error("TRUNCATE nope.t") == "keyspace nope does not exist");

  test::put(*f.store_, id, "pk", 1, test::insert_row("x"));
  f.ok("DROP TABLE ks.t");
  CHECK(f.table("ks", "t") == nullptr);
  CHECK(test::read_table(*f.store_, id).empty());
  CHECK(f.error("DROP TABLE ks.t") == "Table 'ks.t' doesn't exist");
  CHECK(f.run("DROP TABLE IF EXISTS ks.t")->kind == ExecutionResult::Kind::kVoid);
  f.ok("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
  CHECK(f.table("ks", "t")->table_id == id + 1);
}

TEST_CASE("schema statements: user types") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("USE ks");
  f.ok("CREATE TYPE address (street text, zip int)");
  CHECK(f.error("CREATE TYPE address (a int)") == "A user type with name 'address' already exists");
  CHECK(f.error("CREATE TYPE bad (a int, a text)") == "Duplicate field name 'a' in type 'bad'");
  CHECK(f.error("CREATE TYPE bad (a counter)") == "A user type cannot contain counters");
  CHECK(f.error("CREATE TYPE bad (a address)") == "A user type cannot contain non-frozen UDTs");
  f.ok("CREATE TYPE person (name text, home frozen<address>)");
  f.ok("CREATE TABLE t (k int PRIMARY KEY, p frozen<person>, a address)");
  auto t = f.table("ks", "t");
  const schema::ColumnDef* p = t->find_column("p");
  REQUIRE(p != nullptr);
  CHECK(p->type.kind == types::TypeKind::kUdt);
  CHECK(p->type.udt_keyspace == "ks");
  CHECK(p->type.field_names == std::vector<std::string>{"name", "home"});
  CHECK(p->type.params[1].field_names == std::vector<std::string>{"street", "zip"});
  CHECK(t->find_column("a")->type.is_multi_cell());
  CHECK(f.error("CREATE TABLE t2 (k int PRIMARY KEY, l list<address>)") ==
        "Non-frozen UDTs are not allowed inside collections: list<address>");

  f.ok("ALTER TYPE address ADD city text");
  t = f.table("ks", "t");
  CHECK(t->find_column("a")->type.field_names == std::vector<std::string>{"street", "zip", "city"});
  CHECK(t->find_column("p")->type.params[1].field_names ==
        std::vector<std::string>{"street", "zip", "city"});
  CHECK(f.error("ALTER TYPE address ADD zip int") ==
        "Cannot add new field zip to type ks.address: a field with name zip already exists");
  f.ok("ALTER TYPE address RENAME zip TO postcode");
  CHECK(f.schema()->find_type("ks", "address")->field_names ==
        std::vector<std::string>{"street", "postcode", "city"});
  CHECK(f.error("ALTER TYPE address RENAME nope TO x") ==
        "Unkown field nope in user type ks.address");
  CHECK(f.error("ALTER TYPE nope ADD x int") == "Type 'ks.nope' doesn't exist");

  CHECK(f.error("DROP TYPE address") ==
        "Cannot drop user type 'ks.address' as it is still used by user types person");
  CHECK(f.error("DROP TYPE person") ==
        "Cannot drop user type 'ks.person' as it is still used by tables t");
  f.ok("DROP TABLE t");
  f.ok("DROP TYPE person");
  f.ok("DROP TYPE address");
  CHECK(f.error("DROP TYPE address") == "Type 'ks.address' doesn't exist");
}

TEST_CASE("schema statements: indexes") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("USE ks");
  f.ok(
      "CREATE TABLE t (k int, c int, v int, m map<text, int>, l frozen<list<int>>, "
      "PRIMARY KEY (k, c))");
  f.ok("CREATE INDEX ON t (v)");
  auto indexes = f.schema()->find_keyspace("ks")->indexes;
  REQUIRE(indexes.contains("t_v_idx"));
  CHECK(indexes.at("t_v_idx")->column == "v");
  CHECK(f.error("CREATE INDEX ON t (v)") ==
        "Index t_v_idx_1 is a duplicate of existing index t_v_idx");
  CHECK(f.error("CREATE INDEX t_v_idx ON t (c)") == "Index 't_v_idx' already exists");
  CHECK(f.run("CREATE INDEX IF NOT EXISTS t_v_idx ON t (c)")->kind == ExecutionResult::Kind::kVoid);
  f.ok("CREATE INDEX mk ON t (keys(m))");
  CHECK(f.schema()->find_keyspace("ks")->indexes.at("mk")->target ==
        schema::IndexDef::Target::kKeys);
  CHECK(f.error("CREATE INDEX ON t (keys(v))") ==
        "Cannot create keys() index on v. Non-collection columns only support simple indexes");
  CHECK(f.error("CREATE INDEX ON t (l)") ==
        "Cannot create values() index on frozen column l. Frozen collections are immutable and "
        "must be fully indexed by using the 'full(l)' modifier");
  f.ok("CREATE INDEX ON t (full(l))");
  CHECK(f.error("CREATE INDEX ON t (x)") == "Column 'x' doesn't exist");
  f.ok("CREATE TABLE single (k int PRIMARY KEY, v int)");
  CHECK(f.error("CREATE INDEX ON single (k)") ==
        "Cannot create secondary index on the only partition key column k");
  CHECK(f.error("ALTER TABLE t DROP v") ==
        "Cannot drop column v because it has dependent secondary indexes (t_v_idx)");
  f.ok("DROP INDEX t_v_idx");
  CHECK(f.error("DROP INDEX t_v_idx") == "Index 'ks.t_v_idx' doesn't exist'");
  f.ok("DROP TABLE t");
  CHECK(f.schema()->find_keyspace("ks")->indexes.empty());
}

TEST_CASE("schema statements: the schema survives a reopen") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("CREATE TYPE ks.u (a int)");
  f.ok(
      "CREATE TABLE ks.t (k int, c int, v frozen<u>, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER "
      "BY (c DESC) AND default_time_to_live = 9");
  f.ok("CREATE INDEX ON ks.t (c)");
  std::string path = f.dir_.path();
  f.catalog_.reset();
  f.store_.reset();
  f.store_ = storage::Store::open(path).value();
  f.catalog_ = schema::Catalog::open(f.store_).value();
  auto t = f.table("ks", "t");
  REQUIRE(t != nullptr);
  CHECK(t->clustering()[0]->descending);
  CHECK(t->params.default_time_to_live == 9);
  CHECK(t->find_column("v")->type.field_names == std::vector<std::string>{"a"});
  CHECK(f.schema()->find_type("ks", "u") != nullptr);
  CHECK(f.schema()->find_keyspace("ks")->indexes.contains("t_c_idx"));
  f.ok("DROP KEYSPACE ks");
  CHECK(f.schema()->keyspaces.empty());
}

// The key layout a table publishes is the one of its current columns (TableDef::finalize).
TEST_CASE("schema statements: every change leaves the table's key layout current") {
  SchemaFixture f;
  f.ok(kCreateKs);
  f.ok("USE ks");
  f.ok("CREATE TYPE point (x int)");
  f.ok(
      "CREATE TABLE t (k int, c frozen<point>, d int, v int, PRIMARY KEY (k, c, d)) "
      "WITH CLUSTERING ORDER BY (c DESC)");
  f.ok("ALTER TYPE point ADD y int");
  auto t = f.table("ks", "t");
  REQUIRE(t->layout().clustering_types.size() == 2);
  CHECK(t->layout().clustering_types[0].field_names == std::vector<std::string>{"x", "y"});
  CHECK(t->layout().clustering_types[0] == t->clustering()[0]->type);

  f.ok("ALTER TABLE t ADD (s int static, l list<int>)");
  t = f.table("ks", "t");
  CHECK(t->has_static_columns());
  CHECK_FALSE(t->layout().single_cell_rows);
  CHECK(t->layout().non_key_columns.size() == 3);
  f.ok("ALTER TABLE t DROP l");
  f.ok("ALTER TABLE t DROP s");
  t = f.table("ks", "t");
  CHECK_FALSE(t->has_static_columns());
  CHECK(t->layout().single_cell_rows);
  CHECK(t->layout().non_key_columns.size() == 1);
  f.ok("ALTER TABLE t RENAME d TO a");
  t = f.table("ks", "t");
  REQUIRE(t->clustering().size() == 2);
  CHECK(t->clustering()[1]->name == "a");
  CHECK(t->clustering()[1] == t->find_column("a"));
  CHECK(t->layout().clustering_orders()[0]);
}

}  // namespace
}  // namespace cassette::cql
