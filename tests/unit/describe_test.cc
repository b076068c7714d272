// DESCRIBE: Cassandra 4.1's exact CQL text for keyspaces, tables, types and indexes.
#include <doctest/doctest.h>

#include <variant>

#include "engine/cql/execution_context.h"
#include "engine/cql/parser.h"
#include "engine/schema/catalog.h"
#include "tests/unit/temp_dir.h"

namespace cassette::cql {
namespace {

class DescribeFixture {
 public:
  DescribeFixture() {
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

  // Each row as "keyspace|type|name" plus "\n<statement>" when there is one.
  std::vector<std::string> rows(std::string_view cql) {
    auto result = run(cql);
    INFO(cql);
    REQUIRE_MESSAGE(result.is_ok(), result.status().message());
    CHECK(result->is_describe);
    std::vector<std::string> out;
    for (const auto& row : result->rows.rows) {
      std::string line = *row[0] + "|" + *row[1] + "|" + *row[2];
      if (row.size() == 4) line += "\n" + *row[3];
      out.push_back(line);
    }
    return out;
  }

  std::string error(std::string_view cql) {
    auto result = run(cql);
    return result.is_ok() ? "<no error>" : result.status().message();
  }

  test::TempDir dir_;
  std::shared_ptr<storage::Store> store_;
  std::shared_ptr<schema::Catalog> catalog_;
  std::string keyspace_;
};

const std::string kOptions =
    "additional_write_policy = '99p'\n"
    "    AND allow_auto_snapshot = true\n"
    "    AND bloom_filter_fp_chance = 0.01\n"
    "    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}\n"
    "    AND cdc = false\n"
    "    AND comment = ''\n"
    "    AND compaction = {'class': "
    "'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', "
    "'min_threshold': '4'}\n"
    "    AND compression = {'chunk_length_in_kb': '16', 'class': "
    "'org.apache.cassandra.io.compress.LZ4Compressor'}\n"
    "    AND memtable = 'default'\n"
    "    AND crc_check_chance = 1.0\n"
    "    AND default_time_to_live = 0\n"
    "    AND extensions = {}\n"
    "    AND gc_grace_seconds = 864000\n"
    "    AND incremental_backups = true\n"
    "    AND max_index_interval = 2048\n"
    "    AND memtable_flush_period_in_ms = 0\n"
    "    AND min_index_interval = 128\n"
    "    AND read_repair = 'BLOCKING'\n"
    "    AND speculative_retry = '99p';";

const std::string kKeyspace =
    "CREATE KEYSPACE test WITH replication = {'class': "
    "'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '1'}  AND "
    "durable_writes = true;";

TEST_CASE("describe: tables, indexes and keyspaces as Cassandra prints them") {
  DescribeFixture f;
  f.ok(
      "CREATE KEYSPACE test WITH REPLICATION = {'class' : 'SimpleStrategy', "
      "'replication_factor' : 1}");
  f.ok("CREATE TABLE test.users (userid text PRIMARY KEY, firstname text, lastname text, age int)");
  f.ok("CREATE INDEX myindex ON test.users (age)");
  f.ok("CREATE TABLE test.\"Test\" (id int, col int, val text, PRIMARY KEY(id, col))");
  f.ok("CREATE INDEX ON test.\"Test\" (col)");

  const std::string users =
      "CREATE TABLE test.users (\n"
      "    userid text PRIMARY KEY,\n"
      "    age int,\n"
      "    firstname text,\n"
      "    lastname text\n"
      ") WITH " +
      kOptions;
  const std::string test_table =
      "CREATE TABLE test.\"Test\" (\n"
      "    id int,\n"
      "    col int,\n"
      "    val text,\n"
      "    PRIMARY KEY (id, col)\n"
      ") WITH CLUSTERING ORDER BY (col ASC)\n"
      "    AND " +
      kOptions;

  CHECK(f.rows("DESCRIBE TABLE test.users") ==
        std::vector<std::string>{"test|table|users\n" + users,
                                 "test|index|myindex\nCREATE INDEX myindex ON test.users (age);"});
  CHECK(f.rows("DESCRIBE KEYSPACE test") ==
        std::vector<std::string>{
            "test|keyspace|test\n" + kKeyspace, "test|table|\"Test\"\n" + test_table,
            "test|index|\"Test_col_idx\"\nCREATE INDEX \"Test_col_idx\" ON test.\"Test\" (col);",
            "test|table|users\n" + users,
            "test|index|myindex\nCREATE INDEX myindex ON test.users (age);"});
  CHECK(f.rows("DESCRIBE ONLY KEYSPACE test") ==
        std::vector<std::string>{"test|keyspace|test\n" + kKeyspace});
  CHECK(f.rows("DESCRIBE KEYSPACES") == std::vector<std::string>{"test|keyspace|test"});
  f.ok("USE test");
  CHECK(f.rows("DESCRIBE TABLES") ==
        std::vector<std::string>{"test|table|\"Test\"", "test|table|users"});
  CHECK(f.rows("DESCRIBE users").size() == 2);
  CHECK(f.rows("DESCRIBE INDEX myindex") ==
        std::vector<std::string>{"test|index|myindex\nCREATE INDEX myindex ON test.users (age);"});
  CHECK(f.error("DESCRIBE test2") == "'test2' not found in keyspace 'test'");
  CHECK(f.error("DESCRIBE test.users2") == "'users2' not found in keyspace 'test'");
  CHECK(f.error("DESCRIBE TABLE test.users2") == "Table 'users2' not found in keyspace 'test'");
}

TEST_CASE("describe: clustering order, statics, collections, options given") {
  DescribeFixture f;
  f.ok(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  f.ok(
      "CREATE TABLE ks.t (pk1 int, pk2 int, ck1 int, ck2 int, s decimal static, reg1 int, "
      "reg2 list<int>, reg3 int, PRIMARY KEY ((pk1, pk2), ck1, ck2)) WITH CLUSTERING ORDER BY "
      "(ck1 ASC, ck2 DESC) AND gc_grace_seconds = 100 AND comment = 'it''s' AND "
      "compression = {'class': 'ZstdCompressor', 'compression_level': 5}");
  std::string expected =
      "CREATE TABLE ks.t (\n"
      "    pk1 int,\n"
      "    pk2 int,\n"
      "    ck1 int,\n"
      "    ck2 int,\n"
      "    s decimal static,\n"
      "    reg1 int,\n"
      "    reg3 int,\n"
      "    reg2 list<int>,\n"
      "    PRIMARY KEY ((pk1, pk2), ck1, ck2)\n"
      ") WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC)\n"
      "    AND additional_write_policy = '99p'\n"
      "    AND allow_auto_snapshot = true\n"
      "    AND bloom_filter_fp_chance = 0.01\n"
      "    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}\n"
      "    AND cdc = false\n"
      "    AND comment = 'it''s'\n"
      "    AND compaction = {'class': "
      "'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', "
      "'min_threshold': '4'}\n"
      "    AND compression = {'chunk_length_in_kb': '16', 'class': "
      "'org.apache.cassandra.io.compress.ZstdCompressor', 'compression_level': '5'}\n"
      "    AND memtable = 'default'\n"
      "    AND crc_check_chance = 1.0\n"
      "    AND default_time_to_live = 0\n"
      "    AND extensions = {}\n"
      "    AND gc_grace_seconds = 100\n"
      "    AND incremental_backups = true\n"
      "    AND max_index_interval = 2048\n"
      "    AND memtable_flush_period_in_ms = 0\n"
      "    AND min_index_interval = 128\n"
      "    AND read_repair = 'BLOCKING'\n"
      "    AND speculative_retry = '99p';";
  CHECK(f.rows("DESCRIBE TABLE ks.t") == std::vector<std::string>{"ks|table|t\n" + expected});
}

TEST_CASE("describe: types in dependency order") {
  DescribeFixture f;
  f.ok(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  f.ok("USE ks");
  f.ok("CREATE TYPE type1 (a int)");
  f.ok("CREATE TYPE type2 (x text, y text)");
  f.ok("CREATE TYPE type3 (a text, b frozen<type2>)");
  f.ok("ALTER TYPE type1 ADD b frozen<type3>");
  CHECK(f.rows("DESCRIBE TYPES") ==
        std::vector<std::string>{"ks|type|type1", "ks|type|type2", "ks|type|type3"});
  CHECK(f.rows("DESCRIBE TYPE type1") ==
        std::vector<std::string>{
            "ks|type|type1\nCREATE TYPE ks.type1 (\n    a int,\n    b frozen<type3>\n);"});
  auto rows = f.rows("DESCRIBE KEYSPACE ks");
  REQUIRE(rows.size() == 4);
  CHECK(rows[1].starts_with("ks|type|type2\n"));
  CHECK(rows[2].starts_with("ks|type|type3\n"));
  CHECK(rows[3].starts_with("ks|type|type1\n"));
  CHECK(f.error("DESCRIBE TYPE nope") == "User defined type 'nope' not found in 'ks'");
}

TEST_CASE("describe: errors without a keyspace") {
  DescribeFixture f;
  CHECK(f.error("DESCRIBE TABLE foop") == "No keyspace specified and no current keyspace");
  CHECK(f.error("DESCRIBE KEYSPACE foo") == "'foo' not found in keyspaces");
  CHECK(f.error("DESCRIBE foo") == "'foo' not found in keyspaces");
}

}  // namespace
}  // namespace cassette::cql
