// Prepared statements and bind markers through cql::Session: each marker's receiver (name and
// type, as Cassandra's prepared metadata gives them), the partition key indexes, binding values,
// null and unset, and the errors (cql3/validation/operations/InsertTest.testInsertWithUnset,
// cql3/PstmtPersistenceTest, native_protocol_v4.spec sections 4.1.4-4.2.5).
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/unit/cql_test_fixture.h"

using cassette::Result;
using cassette::StatusCode;
using cassette::cql::BoundValue;
using cassette::cql::PreparedStatement;
using cassette::test::CqlFixture;
using Rows = std::vector<std::string>;

namespace {

// The serialized value of `text` (Cassandra's fromString form) of type `type_name`.
BoundValue val(CqlFixture&, std::string_view type_name, std::string_view text) {
  auto type = cassette::types::simple_type_by_name(type_name);
  REQUIRE(type.has_value());
  auto bytes = cassette::types::parse_value_string(*type, text);
  REQUIRE(bytes.is_ok());
  return BoundValue::value(*bytes);
}

std::shared_ptr<const PreparedStatement> prepare(CqlFixture& f, std::string_view statement) {
  auto prepared = f.session().prepare(statement);
  INFO(statement);
  REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
  return *prepared;
}

// The variables as "name type" strings.
Rows variables(const PreparedStatement& prepared) {
  Rows out;
  for (const auto& v : prepared.variables) {
    out.push_back(v.name + " " + cassette::types::cql_type_name(v.type, v.keyspace));
  }
  return out;
}

void execute_ok(CqlFixture& f, const PreparedStatement& prepared, std::vector<BoundValue> values) {
  auto r = f.session().execute(prepared, values);
  INFO(prepared.query);
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
}

std::string execute_error(CqlFixture& f, const PreparedStatement& prepared,
                          std::vector<BoundValue> values) {
  auto r = f.session().execute(prepared, values);
  INFO(prepared.query);
  REQUIRE(!r.is_ok());
  return r.status().message();
}

}  // namespace

TEST_CASE("prepared: INSERT markers, metadata and partition key indexes") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))");
  auto p = prepare(f, "INSERT INTO t (c, v, k) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?");
  CHECK(variables(*p) == Rows{"c int", "v text", "k int", "[ttl] int", "[timestamp] bigint"});
  CHECK(p->variables[0].keyspace == "ks");
  CHECK(p->variables[0].table == "t");
  REQUIRE(p->partition_key_indexes.size() == 1);
  CHECK(p->partition_key_indexes[0] == 2);
  CHECK(p->result_columns.empty());
  execute_ok(f, *p,
             {val(f, "int", "1"), val(f, "text", "x"), val(f, "int", "0"), BoundValue::unset(),
              val(f, "bigint", "5")});
  CHECK(f.rows("SELECT k, c, v, writetime(v), ttl(v) FROM t") == Rows{"0|1|x|5|null"});
  // The same statement with other values, from another keyspace: names were qualified.
  f.ok(
      "CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  f.ok("USE other");
  execute_ok(f, *p,
             {val(f, "int", "2"), val(f, "text", "y"), val(f, "int", "0"), val(f, "int", "100"),
              BoundValue::unset()});
  CHECK(f.rows("SELECT k, c, v, ttl(v) FROM ks.t") == Rows{"0|1|x|null", "0|2|y|100"});
}

TEST_CASE("prepared: null and unset values") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, s text, i int)");
  auto insert = prepare(f, "INSERT INTO t (k, s, i) VALUES (?, ?, ?)");
  execute_ok(f, *insert, {val(f, "int", "10"), val(f, "text", "text"), val(f, "int", "10")});
  execute_ok(f, *insert, {val(f, "int", "10"), BoundValue::null(), BoundValue::null()});
  CHECK(f.rows("SELECT s, i FROM t WHERE k = 10") == Rows{"null|null"});
  execute_ok(f, *insert, {val(f, "int", "11"), val(f, "text", "text"), val(f, "int", "10")});
  execute_ok(f, *insert, {val(f, "int", "11"), BoundValue::unset(), BoundValue::unset()});
  CHECK(f.rows("SELECT s, i FROM t WHERE k = 11") == Rows{"text|10"});

  auto update = prepare(f, "UPDATE t SET i = 0 WHERE k = ?");
  CHECK(execute_error(f, *update, {BoundValue::unset()}) == "Invalid unset value for column k");
  auto remove = prepare(f, "DELETE FROM t WHERE k = ?");
  CHECK(execute_error(f, *remove, {BoundValue::unset()}) == "Invalid unset value for column k");
  auto function = prepare(f, "SELECT * FROM t WHERE k = blobAsInt(?)");
  CHECK(variables(*function) == Rows{"arg0(system.blobasint) blob"});
  CHECK(execute_error(f, *function, {BoundValue::unset()}) ==
        "Invalid unset value for argument in call to function blobasint");
  // Every assignment unset: nothing to do, the row stays.
  auto set_both = prepare(f, "UPDATE t SET s = ?, i = ? WHERE k = ?");
  execute_ok(f, *set_both, {BoundValue::unset(), BoundValue::unset(), val(f, "int", "11")});
  CHECK(f.rows("SELECT s, i FROM t WHERE k = 11") == Rows{"text|10"});
  execute_ok(f, *set_both, {BoundValue::unset(), val(f, "int", "3"), val(f, "int", "11")});
  CHECK(f.rows("SELECT s, i FROM t WHERE k = 11") == Rows{"text|3"});
}

TEST_CASE("prepared: count, size and type errors change nothing") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int)");
  auto p = prepare(f, "INSERT INTO t (k, v) VALUES (?, ?)");
  CHECK(execute_error(f, *p, {val(f, "int", "1")}) ==
        "there were 2 markers(?) in CQL but 1 bound variables");
  CHECK(execute_error(f, *p, {val(f, "int", "1"), BoundValue::value("abc")}) ==
        "Expected 4 or 0 byte int (3)");
  CHECK(f.rows("SELECT * FROM t").empty());
  // A statement without markers runs as it does unprepared.
  auto plain = prepare(f, "INSERT INTO t (k, v) VALUES (1, 1)");
  CHECK(plain->variables.empty());
  execute_ok(f, *plain, {});
  CHECK(f.rows("SELECT * FROM t") == Rows{"1|1"});
  // Named values bind by the marker's name.
  auto named = prepare(f, "UPDATE t SET v = :value WHERE k = :key");
  CHECK(variables(*named) == Rows{"value int", "key int"});
  std::vector<std::pair<std::string, BoundValue>> values{{"key", val(f, "int", "1")},
                                                         {"value", val(f, "int", "7")}};
  auto r = f.session().execute(*named, values);
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  CHECK(f.rows("SELECT * FROM t") == Rows{"1|7"});
  values.pop_back();
  CHECK(f.session().execute(*named, values).status().message() ==
        "there were 2 markers(?) in CQL but 1 bound variables");
}

TEST_CASE("prepared: WHERE markers of every form") {
  CqlFixture f;
  f.ok(
      "CREATE TABLE t (k int, c1 int, c2 int, l list<int>, m map<text, int>, "
      "PRIMARY KEY (k, c1, c2))");
  for (int k = 0; k < 2; ++k)
    for (int c = 0; c < 3; ++c)
      f.ok(
          fmt::format("INSERT INTO t (k, c1, c2, l, m) VALUES ({0}, {1}, {1}, [{1}], "
                      "{{'a': {1}}})",
                      k, c));
  auto in_list = prepare(f, "SELECT k, c1 FROM t WHERE k IN ? AND c1 >= ? LIMIT ?");
  CHECK(variables(*in_list) == Rows{"in(k) list<int>", "c1 int", "[limit] int"});
  CHECK(in_list->partition_key_indexes == std::vector<std::optional<int>>{std::nullopt});
  REQUIRE(in_list->result_columns.size() == 2);
  CHECK(in_list->result_columns[1].name == "c1");
  auto r = f.session().execute(
      *in_list,
      std::vector<BoundValue>{
          BoundValue::value(cassette::types::parse_value_string(
                                cassette::types::CqlType::list(cassette::types::CqlType::simple(
                                    cassette::types::TypeKind::kInt)),
                                "[1, 0]")
                                .value()),
          val(f, "int", "1"), val(f, "int", "3")});
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  CHECK(CqlFixture::lines(r->rows) == Rows{"0|1", "0|2", "1|1"});

  auto in_markers = prepare(f, "SELECT c1 FROM t WHERE k IN (?, ?) AND (c1, c2) > (?, ?)");
  CHECK(variables(*in_markers) == Rows{"k int", "k int", "c1 int", "c2 int"});
  CHECK(in_markers->partition_key_indexes == std::vector<std::optional<int>>{1});
  auto tuple = prepare(f, "SELECT c1 FROM t WHERE k = ? AND (c1, c2) >= ?");
  CHECK(variables(*tuple) == Rows{"k int", "(c1,c2) frozen<tuple<int, int>>"});
  auto contains = prepare(f, "SELECT k FROM t WHERE l CONTAINS ? AND m[?] = ? ALLOW FILTERING");
  CHECK(variables(*contains) == Rows{"value(l) int", "key(m) text", "value(m) int"});
  execute_ok(f, *contains, {val(f, "int", "2"), val(f, "text", "a"), val(f, "int", "2")});
  auto token = prepare(f, "SELECT k FROM t WHERE token(k) >= token(?) AND token(k) <= token(?)");
  CHECK(variables(*token) == Rows{"arg0(system.token) int", "arg0(system.token) int"});
  auto same =
      f.session().execute(*token, std::vector<BoundValue>{val(f, "int", "1"), val(f, "int", "1")});
  REQUIRE_MESSAGE(same.is_ok(), same.status().message());
  CHECK(CqlFixture::lines(same->rows) == Rows{"1", "1", "1"});
  auto bare = prepare(f, "SELECT k FROM t WHERE token(k) > ?");
  CHECK(variables(*bare) == Rows{"partition key token bigint"});
  auto slice = prepare(f, "SELECT c1 FROM t WHERE k = ? AND c1 > ? AND c1 < ?");
  auto sliced = f.session().execute(
      *slice, std::vector<BoundValue>{val(f, "int", "1"), val(f, "int", "0"), val(f, "int", "2")});
  REQUIRE(sliced.is_ok());
  CHECK(CqlFixture::lines(sliced->rows) == Rows{"1"});
  CHECK(execute_error(f, *slice, {val(f, "int", "1"), BoundValue::unset(), val(f, "int", "2")}) ==
        "Invalid unset value for column c1");
}

TEST_CASE("prepared: collection and UDT updates, conditions, batches") {
  CqlFixture f;
  f.ok("CREATE TYPE addr (street text, zip int)");
  f.ok(
      "CREATE TABLE t (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>, "
      "a addr, f frozen<addr>)");
  f.ok("INSERT INTO t (k, l, s, m) VALUES (0, [1], {'x', 'y'}, {'a': 1})");
  auto p = prepare(f,
                   "UPDATE t SET m[?] = ?, l = l + ?, s = s - ?, a.zip = ?, "
                   "f = {street: ?, zip: 9} WHERE k = ? IF l[?] = ?");
  CHECK(variables(*p) == Rows{"key(m) text", "value(m) int", "l list<int>", "s set<text>",
                              "a.zip int", "f.street text", "k int", "idx(l) int", "value(l) int"});
  auto list = cassette::types::CqlType::list(
      cassette::types::CqlType::simple(cassette::types::TypeKind::kInt));
  auto set = cassette::types::CqlType::set(
      cassette::types::CqlType::simple(cassette::types::TypeKind::kText));
  execute_ok(f, *p,
             {val(f, "text", "b"), val(f, "int", "2"),
              BoundValue::value(cassette::types::parse_value_string(list, "[2, 3]").value()),
              BoundValue::value(cassette::types::parse_value_string(set, "{'x'}").value()),
              val(f, "int", "75"), val(f, "text", "Main"), val(f, "int", "0"), val(f, "int", "0"),
              val(f, "int", "1")});
  CHECK(f.rows("SELECT l, s, m, a, f FROM t") ==
        Rows{"[1, 2, 3]|{'y'}|{'a': 1, 'b': 2}|{street: null, zip: 75}|{street: 'Main', zip: 9}"});
  CHECK(execute_error(f, *p,
                      {val(f, "text", "b"), val(f, "int", "2"), BoundValue::unset(),
                       BoundValue::unset(), BoundValue::unset(), val(f, "text", "x"),
                       val(f, "int", "0"), BoundValue::unset(), val(f, "int", "1")}) ==
        "Invalid unset value for column l");

  auto batch = prepare(f,
                       "BEGIN BATCH INSERT INTO t (k, l) VALUES (?, ?); "
                       "DELETE l[?] FROM t WHERE k = ?; APPLY BATCH");
  CHECK(variables(*batch) == Rows{"k int", "l list<int>", "idx(l) int", "k int"});
  CHECK(batch->partition_key_indexes.empty());
  execute_ok(f, *batch,
             {val(f, "int", "1"),
              BoundValue::value(cassette::types::parse_value_string(list, "[4, 5]").value()),
              val(f, "int", "0"), val(f, "int", "0")});
  CHECK(f.rows("SELECT k, l FROM t") == Rows{"1|[4, 5]", "0|[2, 3]"});
  // DELETE l[?] with ? unset deletes nothing (and not the row).
  auto delete_element = prepare(f, "DELETE l[?] FROM t WHERE k = ?");
  execute_ok(f, *delete_element, {BoundValue::unset(), val(f, "int", "1")});
  CHECK(f.rows("SELECT k, l FROM t WHERE k = 1") == Rows{"1|[4, 5]"});

  auto json = prepare(f, "INSERT INTO t JSON ?");
  CHECK(variables(*json) == Rows{"[json] text"});
  execute_ok(f, *json, {val(f, "text", R"({"k": 2, "l": [7]})")});
  CHECK(f.rows("SELECT k, l FROM t WHERE k = 2") == Rows{"2|[7]"});
}

TEST_CASE("prepared: a schema change makes the statement unprepared") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int)");
  auto p = prepare(f, "SELECT * FROM t WHERE k = ?");
  CHECK(p->result_columns.size() == 2);
  f.ok("CREATE TABLE other (k int PRIMARY KEY)");  // another table: still fine
  execute_ok(f, *p, {val(f, "int", "1")});
  f.ok("ALTER TABLE t ADD w text");
  auto altered = f.session().execute(*p, std::vector<BoundValue>{val(f, "int", "1")});
  REQUIRE(!altered.is_ok());
  CHECK(altered.status().code() == StatusCode::kUnprepared);
  CHECK(altered.status().message() == "Prepared statement is out of date: table ks.t was altered");
  auto again = prepare(f, "SELECT * FROM t WHERE k = ?");
  CHECK(again->result_columns.size() == 3);
  f.ok("DROP TABLE t");
  auto dropped = f.session().execute(*again, std::vector<BoundValue>{val(f, "int", "1")});
  CHECK(dropped.status().code() == StatusCode::kUnprepared);
  CHECK(dropped.status().message() == "Prepared statement is out of date: table ks.t was dropped");
  // Prepare-time errors are Cassandra's.
  CHECK(f.session().prepare("SELECT * FROM nope WHERE k = ?").status().message() ==
        "table nope does not exist");
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int)");
  CHECK(f.session().prepare("UPDATE t SET x = ? WHERE k = 1").status().message() ==
        "Undefined column name x");
}
