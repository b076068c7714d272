// Parser tests: schema statements (keyspaces, tables, indexes, types), USE, TRUNCATE, DESCRIBE.
#include <doctest/doctest.h>

#include "engine/cql/parser.h"
#include "tests/unit/parser_test_util.h"

using namespace cassette;
using namespace cassette::cql;
using types::ConstantKind;
using types::CqlType;
using types::TypeKind;

namespace {

CqlType udt(std::string ks, std::string name, bool frozen = false) {
  CqlType t;
  t.kind = TypeKind::kUdt;
  t.udt_keyspace = std::move(ks);
  t.udt_name = std::move(name);
  t.frozen = frozen;
  return t;
}

}  // namespace

TEST_CASE("parser: keyspaces, USE, TRUNCATE, DROP") {
  auto ck = parse_as<CreateKeyspaceStatement>(
      "CREATE KEYSPACE IF NOT EXISTS Ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1} "
      "AND durable_writes = false");
  CHECK(ck.keyspace == "ks");
  CHECK(ck.if_not_exists);
  REQUIRE(ck.properties.size() == 2);
  CHECK(ck.properties[0].first == "replication");
  CHECK(ck.properties[0].second.is_map);
  CHECK(ck.properties[0].second.map ==
        std::vector<std::pair<std::string, std::string>>{{"class", "SimpleStrategy"},
                                                         {"replication_factor", "1"}});
  CHECK(ck.properties[1].first == "durable_writes");
  CHECK_FALSE(ck.properties[1].second.is_map);
  CHECK(ck.properties[1].second.constant_kind == ConstantKind::kBoolean);
  CHECK(ck.properties[1].second.text == "false");
  CHECK(parse_as<CreateKeyspaceStatement>("create schema \"KS\" with replication = {}").keyspace ==
        "KS");

  CHECK(parse_error("CREATE KEYSPACE ks WITH durable_writes = true AND durable_writes = false") ==
        "Multiple definitions for property 'durable_writes'");
  CHECK(parse_error("CREATE KEYSPACE ks WITH replication = {'a': 1, 'a': 2}") ==
        "Multiple definition for property a");
  CHECK(parse_error("CREATE KEYSPACE ks")
            .starts_with("line 0:-1 mismatched input '<EOF>' expecting K_WITH"));

  auto ak =
      parse_as<AlterKeyspaceStatement>("ALTER KEYSPACE IF EXISTS ks WITH durable_writes = true");
  CHECK(ak.if_exists);
  CHECK(ak.keyspace == "ks");
  CHECK(ak.properties.size() == 1);

  auto dk = parse_as<DropKeyspaceStatement>("DROP KEYSPACE IF EXISTS ks");
  CHECK(dk.keyspace == "ks");
  CHECK(dk.if_exists);
  CHECK(parse_as<UseStatement>("USE \"MyKs\"").keyspace == "MyKs");
  CHECK(parse_as<UseStatement>("use MyKs;").keyspace == "myks");
  CHECK(parse_as<TruncateStatement>("TRUNCATE TABLE ks.t").table.keyspace == "ks");
  CHECK(parse_as<TruncateStatement>("truncate t").table.name == "t");
  auto dt = parse_as<DropTableStatement>("DROP TABLE IF EXISTS ks.t");
  CHECK(dt.if_exists);
  CHECK(dt.table.name == "t");
  CHECK(parse_as<DropTableStatement>("DROP COLUMNFAMILY t").table.name == "t");
  auto di = parse_as<DropIndexStatement>("DROP INDEX IF EXISTS ks.idx");
  CHECK(di.index.keyspace == "ks");
  CHECK(di.index.name == "idx");
  auto dtype = parse_as<DropTypeStatement>("DROP TYPE IF EXISTS ks.addr");
  CHECK(dtype.type.keyspace == "ks");
  CHECK(dtype.type.name == "addr");
  CHECK(dtype.if_exists);
}

TEST_CASE("parser: CREATE TABLE") {
  auto s = parse_as<CreateTableStatement>(
      "CREATE TABLE IF NOT EXISTS ks.t (k int, c1 text, c2 timeuuid, s set<int> static, "
      "m map<text, frozen<list<int>>>, tu tuple<int, text>, u frozen<ks.addr>, u2 addr, c counter, "
      "d duration, v varchar, PRIMARY KEY ((k, c1), c2)) WITH CLUSTERING ORDER BY (c2 DESC) AND "
      "comment = 'hello' AND gc_grace_seconds = 10 AND compaction = {'class': "
      "'LeveledCompactionStrategy'} "
      "AND COMPACT STORAGE");
  CHECK(s.table.keyspace == "ks");
  CHECK(s.if_not_exists);
  REQUIRE(s.columns.size() == 11);
  CHECK(s.columns[0].name == "k");
  CHECK(s.columns[0].type == CqlType::simple(TypeKind::kInt));
  CHECK(s.columns[3].is_static);
  CHECK(s.columns[3].type == CqlType::set(CqlType::simple(TypeKind::kInt)));
  CHECK(s.columns[4].type == CqlType::map(CqlType::simple(TypeKind::kText),
                                          CqlType::list(CqlType::simple(TypeKind::kInt), true)));
  CHECK(s.columns[5].type ==
        CqlType::tuple({CqlType::simple(TypeKind::kInt), CqlType::simple(TypeKind::kText)}));
  CHECK(s.columns[6].type == udt("ks", "addr", true));
  CHECK(s.columns[7].type == udt("", "addr"));
  CHECK(s.columns[8].type == CqlType::simple(TypeKind::kCounter));
  CHECK(s.columns[9].type == CqlType::simple(TypeKind::kDuration));
  CHECK(s.columns[10].type == CqlType::simple(TypeKind::kText));
  CHECK(s.partition_key == std::vector<std::string>{"k", "c1"});
  CHECK(s.clustering == std::vector<std::string>{"c2"});
  CHECK(s.primary_key_clauses == 1);
  REQUIRE(s.properties.clustering_order.size() == 1);
  CHECK(s.properties.clustering_order[0].column == "c2");
  CHECK(s.properties.clustering_order[0].descending);
  CHECK(s.properties.compact_storage);
  REQUIRE(s.properties.properties.size() == 3);
  CHECK(s.properties.properties[0].first == "comment");
  CHECK(s.properties.properties[0].second.text == "hello");
  CHECK(s.properties.properties[1].second.constant_kind == ConstantKind::kInteger);
  CHECK(s.properties.properties[2].second.is_map);

  s = parse_as<CreateTableStatement>("create columnfamily T (K int PRIMARY KEY, \"V\" text,)");
  CHECK(s.table.name == "t");
  CHECK(s.columns[0].name == "k");
  CHECK(s.columns[0].primary_key);
  CHECK(s.columns[1].name == "V");
  CHECK(s.partition_key.empty());
  CHECK(s.primary_key_clauses == 1);

  s = parse_as<CreateTableStatement>(
      "CREATE TABLE t (k int PRIMARY KEY, c int, PRIMARY KEY (k, c))");
  CHECK(s.primary_key_clauses == 2);
  CHECK(s.partition_key == std::vector<std::string>{"k"});
  CHECK(s.clustering == std::vector<std::string>{"c"});

  // frozen<> nests: everything inside a frozen type is frozen
  s = parse_as<CreateTableStatement>(
      "CREATE TABLE t (k int PRIMARY KEY, v frozen<map<int, set<text>>>)");
  CHECK(s.columns[1].type == CqlType::map(CqlType::simple(TypeKind::kInt),
                                          CqlType::set(CqlType::simple(TypeKind::kText), true),
                                          true));

  s = parse_as<CreateTableStatement>("CREATE TABLE t (k int PRIMARY KEY, v tuple<int, list<int>>)");
  CHECK(s.columns[1].type ==
        CqlType::tuple({CqlType::simple(TypeKind::kInt),
                        CqlType::list(CqlType::simple(TypeKind::kInt), true)}));

  CHECK(parse_error("CREATE TABLE t (k int PRIMARY KEY, v frozen<int>)") ==
        "frozen<> is only allowed on collections, tuples, and user-defined types (got int)");
  CHECK(parse_error("CREATE TABLE t (k int PRIMARY KEY) WITH comment = 'a' AND comment = 'b'") ==
        "Multiple definitions for property 'comment'");
  CHECK(parse_error("CREATE TABLE t (k int PRIMARY KEY) WITH CLUSTERING ORDER BY (c)")
            .starts_with("line 1:62 no viable alternative at input ')'"));
  CHECK(parse_error("CREATE TABLE t (k int PRIMARY KEY, select int)")
            .starts_with("line 1:35 no viable alternative at input 'select'"));
}

TEST_CASE("parser: ALTER TABLE") {
  auto s =
      parse_as<AlterTableStatement>("ALTER TABLE IF EXISTS ks.t ADD IF NOT EXISTS v int static");
  CHECK(s.kind == AlterTableStatement::Kind::kAdd);
  CHECK(s.if_exists);
  CHECK(s.column_if_not_exists);
  REQUIRE(s.added.size() == 1);
  CHECK(s.added[0].name == "v");
  CHECK(s.added[0].is_static);
  s = parse_as<AlterTableStatement>("ALTER TABLE t ADD (a int, b list<text>)");
  REQUIRE(s.added.size() == 2);
  CHECK(s.added[1].type == CqlType::list(CqlType::simple(TypeKind::kText)));

  s = parse_as<AlterTableStatement>("ALTER TABLE t DROP IF EXISTS (a, b) USING TIMESTAMP 100");
  CHECK(s.kind == AlterTableStatement::Kind::kDrop);
  CHECK(s.column_if_exists);
  CHECK(s.dropped == std::vector<std::string>{"a", "b"});
  CHECK(s.drop_timestamp == 100);
  CHECK(parse_as<AlterTableStatement>("ALTER TABLE t DROP a USING TIMESTAMP -9223372036854775808")
            .drop_timestamp == INT64_MIN);
  // Parser.g reads the timestamp with Long.parseLong: a NumberFormatException, reported as
  // QueryProcessor reports any exception thrown while parsing.
  auto overflow = parse_statement("ALTER TABLE t DROP v USING TIMESTAMP 99999999999999999999");
  REQUIRE_FALSE(overflow.is_ok());
  CHECK(overflow.status().code() == StatusCode::kSyntaxError);
  CHECK(overflow.status().message() ==
        "Failed parsing statement: [ALTER TABLE t DROP v USING TIMESTAMP 99999999999999999999] "
        "reason: NumberFormatException For input string: \"99999999999999999999\"");
  CHECK(parse_as<AlterTableStatement>("ALTER TABLE t DROP a").dropped ==
        std::vector<std::string>{"a"});

  s = parse_as<AlterTableStatement>("ALTER TABLE t RENAME IF EXISTS a TO b AND c TO \"D\"");
  CHECK(s.kind == AlterTableStatement::Kind::kRename);
  CHECK(s.column_if_exists);
  CHECK(s.renames == std::vector<std::pair<std::string, std::string>>{{"a", "b"}, {"c", "D"}});

  s = parse_as<AlterTableStatement>(
      "ALTER TABLE t WITH comment = 'x' AND default_time_to_live = 5");
  CHECK(s.kind == AlterTableStatement::Kind::kWith);
  CHECK(s.properties.properties.size() == 2);

  s = parse_as<AlterTableStatement>("ALTER TABLE t ALTER v TYPE blob");
  CHECK(s.kind == AlterTableStatement::Kind::kAlterColumnType);
  CHECK(s.added[0].name == "v");
  CHECK(s.added[0].type == CqlType::simple(TypeKind::kBlob));
}

TEST_CASE("parser: indexes") {
  auto s = parse_as<CreateIndexStatement>("CREATE INDEX IF NOT EXISTS idx ON ks.t (v)");
  CHECK(s.name == "idx");
  CHECK(s.if_not_exists);
  CHECK(s.table.keyspace == "ks");
  CHECK(s.column == "v");
  CHECK(s.target == CreateIndexStatement::Target::kValues);
  CHECK_FALSE(s.target_written);
  CHECK_FALSE(s.custom);

  s = parse_as<CreateIndexStatement>("CREATE INDEX ON t (keys(m))");
  CHECK(s.name == "");
  CHECK(s.column == "m");
  CHECK(s.target == CreateIndexStatement::Target::kKeys);
  CHECK(s.target_written);
  CHECK(parse_as<CreateIndexStatement>("CREATE INDEX ON t (values(l))").target ==
        CreateIndexStatement::Target::kValues);
  CHECK(parse_as<CreateIndexStatement>("CREATE INDEX ON t (entries(m))").target ==
        CreateIndexStatement::Target::kEntries);
  CHECK(parse_as<CreateIndexStatement>("CREATE INDEX ON t (FULL(f))").target ==
        CreateIndexStatement::Target::kFull);

  s = parse_as<CreateIndexStatement>(
      "CREATE CUSTOM INDEX i ON t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex' WITH "
      "OPTIONS = {'mode': 'CONTAINS'}");
  CHECK(s.custom);
  CHECK(s.custom_class == "org.apache.cassandra.index.sasi.SASIIndex");
  REQUIRE(s.options.size() == 1);
  CHECK(s.options[0].first == "options");
  CHECK(s.options[0].second.map ==
        std::vector<std::pair<std::string, std::string>>{{"mode", "CONTAINS"}});

  auto r = parse_statement("CREATE INDEX ON t (a, b)");
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  CHECK(r.status().message() == "Only CUSTOM indexes support multiple columns");
  r = parse_statement("CREATE INDEX ON t ()");
  CHECK(r.status().message() ==
        "Only CUSTOM indexes can be created without specifying a target column");
}

TEST_CASE("parser: user types") {
  auto s = parse_as<CreateTypeStatement>(
      "CREATE TYPE IF NOT EXISTS ks.addr (street text, \"Zip\" int, tags set<text>)");
  CHECK(s.type.keyspace == "ks");
  CHECK(s.type.name == "addr");
  CHECK(s.if_not_exists);
  REQUIRE(s.fields.size() == 3);
  CHECK(s.fields[1].first == "Zip");
  CHECK(s.fields[2].second == CqlType::set(CqlType::simple(TypeKind::kText)));
  CHECK(parse_error("CREATE TYPE int (a int)")
            .starts_with("line 1:12 no viable alternative at input 'int'"));
  CHECK(parse_error("CREATE TYPE byte (a int)") == "Invalid (reserved) user type name byte");

  auto a = parse_as<AlterTypeStatement>("ALTER TYPE addr ADD IF NOT EXISTS city text");
  CHECK(a.kind == AlterTypeStatement::Kind::kAdd);
  CHECK(a.field_if_not_exists);
  CHECK(a.added[0].first == "city");
  a = parse_as<AlterTypeStatement>(
      "ALTER TYPE IF EXISTS ks.addr RENAME IF EXISTS a TO b AND c TO d");
  CHECK(a.kind == AlterTypeStatement::Kind::kRename);
  CHECK(a.if_exists);
  CHECK(a.field_if_exists);
  CHECK(a.renames.size() == 2);
  a = parse_as<AlterTypeStatement>("ALTER TYPE addr ALTER f TYPE blob");
  CHECK(a.kind == AlterTypeStatement::Kind::kAlterFieldType);
  CHECK(a.added[0].second == CqlType::simple(TypeKind::kBlob));
}

TEST_CASE("parser: DESCRIBE") {
  using K = DescribeStatement::Kind;
  CHECK(parse_as<DescribeStatement>("DESCRIBE KEYSPACES").kind == K::kKeyspaces);
  auto d = parse_as<DescribeStatement>("DESC ONLY KEYSPACE ks");
  CHECK(d.kind == K::kKeyspace);
  CHECK(d.only);
  CHECK(d.name.name == "ks");
  d = parse_as<DescribeStatement>("DESCRIBE KEYSPACE");
  CHECK(d.kind == K::kKeyspace);
  CHECK(d.name.name == "");
  CHECK(parse_as<DescribeStatement>("DESCRIBE TABLES").kind == K::kTables);
  d = parse_as<DescribeStatement>("DESCRIBE TABLE ks.t");
  CHECK(d.kind == K::kTable);
  CHECK(d.name.keyspace == "ks");
  CHECK(d.name.name == "t");
  CHECK(parse_as<DescribeStatement>("DESCRIBE COLUMNFAMILY t").kind == K::kTable);
  CHECK(parse_as<DescribeStatement>("DESCRIBE TYPES").kind == K::kTypes);
  CHECK(parse_as<DescribeStatement>("DESCRIBE TYPE ks.a").name.name == "a");
  CHECK(parse_as<DescribeStatement>("DESCRIBE INDEX i").kind == K::kIndex);
  d = parse_as<DescribeStatement>("DESCRIBE FULL SCHEMA");
  CHECK(d.kind == K::kSchema);
  CHECK(d.full);
  CHECK(parse_as<DescribeStatement>("DESCRIBE SCHEMA").kind == K::kSchema);
  d = parse_as<DescribeStatement>("DESCRIBE ks.t WITH INTERNALS");
  CHECK(d.kind == K::kName);
  CHECK(d.name.keyspace == "ks");
  CHECK(d.name.name == "t");
}
