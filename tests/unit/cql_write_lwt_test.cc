// Lightweight transactions and BATCH through cql::Session, following Cassandra's
// InsertUpdateIfConditionTest and BatchTest.
#include <doctest/doctest.h>

#include "tests/unit/cql_write_test_util.h"

using cassette::test::Rows;
using cassette::test::WriteFixture;

TEST_CASE("cql write lwt: IF NOT EXISTS, IF EXISTS and column conditions") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v1 int, v2 text, v3 int)");
  CHECK(f.rows("UPDATE t SET v1 = 3, v2 = 'bar' WHERE k = 0 IF v1 = 4") == Rows{"False"});
  CHECK(f.rows("UPDATE t SET v1 = 3, v2 = 'bar' WHERE k = 0 IF EXISTS") == Rows{"False"});
  CHECK(f.rows("INSERT INTO t (k, v1, v2) VALUES (0, 2, 'foo') IF NOT EXISTS") == Rows{"True"});
  CHECK(f.column_names("INSERT INTO t (k, v1, v2) VALUES (0, 5, 'bar') IF NOT EXISTS") ==
        std::vector<std::string>{"[applied]", "k", "v1", "v2", "v3"});
  CHECK(f.rows("INSERT INTO t (k, v1, v2) VALUES (0, 5, 'bar') IF NOT EXISTS") ==
        Rows{"False|0|2|foo|null"});
  CHECK(f.rows("SELECT * FROM t") == Rows{"0|2|foo|null"});
  CHECK(f.rows("UPDATE t SET v1 = 3, v2 = 'bar' WHERE k = 0 IF v1 = 4") == Rows{"False|2"});
  CHECK(f.rows("UPDATE t SET v1 = 3, v2 = 'bar' WHERE k = 0 IF v1 = 2") == Rows{"True"});
  CHECK(f.rows("UPDATE t SET v1 = 5, v2 = 'foobar' WHERE k = 0 IF v1 = 3 AND v2 = 'foo'") ==
        Rows{"False|3|bar"});
  CHECK(f.rows("UPDATE t SET v1 = 5 WHERE k = 0 IF v3 = null") == Rows{"True"});
  CHECK(f.rows("UPDATE t SET v1 = 6 WHERE k = 0 IF v1 > 5") == Rows{"False|5"});
  CHECK(f.rows("UPDATE t SET v1 = 6 WHERE k = 0 IF v1 >= 5 AND v2 IN ('x', 'bar')") ==
        Rows{"True"});
  CHECK(f.rows("UPDATE t SET v1 = 7 WHERE k = 0 IF v1 != 6") == Rows{"False|6"});
  CHECK(f.rows("DELETE FROM t WHERE k = 0 IF v1 IN (null)") == Rows{"False|6"});
  CHECK(f.rows("DELETE FROM t WHERE k = 0 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM t").empty());
  CHECK(f.rows("DELETE FROM t WHERE k = 0 IF v1 IN (null)") == Rows{"True"});

  CHECK(f.error("UPDATE t SET v1 = 1 WHERE k = 0 IF v1 > null") ==
        "Invalid comparison with null for operator \">\"");
  CHECK(f.error("UPDATE t SET v1 = 1 WHERE k = 0 IF k = 1") ==
        "PRIMARY KEY column 'k' cannot have IF conditions");
  CHECK(f.error("UPDATE t USING TIMESTAMP 1 SET v1 = 1 WHERE k = 0 IF v1 = 1") ==
        "Cannot provide custom timestamp for conditional updates");
  CHECK(f.error("UPDATE t SET v1 = 1 WHERE k IN (0, 1) IF v1 = 1") ==
        "IN on the partition key is not supported with conditional updates");
  CHECK(f.error("DELETE FROM t WHERE k IN (0, 1) IF v1 = 1") ==
        "IN on the partition key is not supported with conditional deletions");
}

TEST_CASE("cql write lwt: static columns and collection conditions") {
  WriteFixture f;
  f.ok(
      "CREATE TABLE t (pk int, ck int, static_col int static, value int, l list<int>, "
      "m map<text, int>, PRIMARY KEY (pk, ck))");
  f.ok("INSERT INTO t (pk, ck, static_col, value, l, m) VALUES (1, 1, 1, 2, [1, 2], {'a': 1})");
  CHECK(f.rows("DELETE value FROM t WHERE pk = 1 AND ck = 1 IF value = 2 AND static_col = 2") ==
        Rows{"False|2|1"});
  CHECK(f.rows("UPDATE t SET value = 3 WHERE pk = 1 AND ck = 1 IF l[1] = 2 AND m['a'] = 1") ==
        Rows{"True"});
  CHECK(f.rows("UPDATE t SET value = 4 WHERE pk = 1 AND ck = 1 IF l = [1, 2]") == Rows{"True"});
  CHECK(f.rows("UPDATE t SET value = 5 WHERE pk = 1 AND ck = 1 IF m = {'a': 2}") ==
        Rows{"False|{'a': 1}"});
  CHECK(f.rows("UPDATE t SET static_col = 5 WHERE pk = 1 IF static_col = 1") == Rows{"True"});
  CHECK(f.rows("SELECT static_col, value FROM t WHERE pk = 1") == Rows{"5|4"});
  CHECK(f.error("DELETE static_col FROM t WHERE pk = 1 AND ck = 1 IF static_col = 1") ==
        "Invalid restrictions on clustering columns since the DELETE statement modifies only "
        "static columns");
  CHECK(f.error("DELETE static_col, value FROM t WHERE pk = 1 IF static_col = 1") ==
        "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order "
        "to delete non static columns");
  CHECK(f.error("DELETE static_col FROM t WHERE pk = 1 IF value = 2 AND static_col = 1") ==
        "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order "
        "to use IF condition on non static columns");
}

TEST_CASE("cql write batch: one write, one timestamp") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))");
  f.ok("CREATE TABLE u (k int PRIMARY KEY, v text)");
  f.ok(
      "BEGIN BATCH INSERT INTO t (k, c, v) VALUES (0, 0, 0); UPDATE t SET v = 1 WHERE k = 0 AND "
      "c = 1; INSERT INTO u (k, v) VALUES (1, 'a'); DELETE FROM t WHERE k = 2 AND c = 0; "
      "APPLY BATCH");
  CHECK(f.rows("SELECT k, c, v, writetime(v) FROM t") ==
        f.rows("SELECT k, c, v, writetime(v) FROM t"));
  auto times = f.rows("SELECT writetime(v) FROM t WHERE k = 0");
  REQUIRE(times.size() == 2);
  CHECK(times[0] == times[1]);
  CHECK(f.rows("SELECT * FROM u") == Rows{"1|a"});
  f.ok("BEGIN BATCH USING TIMESTAMP 42 INSERT INTO u (k, v) VALUES (2, 'b'); APPLY BATCH");
  CHECK(f.rows("SELECT writetime(v) FROM u WHERE k = 2") == Rows{"42"});
  CHECK(f.error("BEGIN BATCH USING TIMESTAMP 1 INSERT INTO u (k, v) VALUES (2, 'b') USING "
                "TIMESTAMP 2; APPLY BATCH") ==
        "Timestamp must be set either on BATCH or individual statements");

  f.ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  f.ok(
      "BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = 0; UPDATE c SET n = n + 2 WHERE k = 0; "
      "APPLY BATCH");
  CHECK(f.rows("SELECT n FROM c") == Rows{"3"});
  CHECK(f.error("BEGIN COUNTER BATCH INSERT INTO u (k, v) VALUES (3, 'c'); APPLY BATCH") ==
        "Cannot include non-counter statement in a counter batch");
  CHECK(f.error("BEGIN UNLOGGED BATCH UPDATE c SET n = n + 1 WHERE k = 0; INSERT INTO u (k, v) "
                "VALUES (3, 'c'); APPLY BATCH") ==
        "Counter and non-counter mutations cannot exist in the same batch");
  CHECK(f.error("BEGIN BATCH UPDATE c SET n = n + 1 WHERE k = 0; APPLY BATCH") ==
        "Cannot include a counter statement in a logged batch");
}

TEST_CASE("cql write batch: conditions") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))");
  CHECK(f.rows("BEGIN BATCH INSERT INTO t (k, c, v) VALUES (0, 0, 0) IF NOT EXISTS; "
               "INSERT INTO t (k, c, v) VALUES (0, 1, 1) IF NOT EXISTS; APPLY BATCH") ==
        Rows{"True"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF v = 1; "
               "UPDATE t SET v = 6 WHERE k = 0 AND c = 1 IF v = 1; APPLY BATCH") ==
        Rows{"False|0|0|0", "False|0|1|1"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF v = 0; "
               "INSERT INTO t (k, c, v) VALUES (0, 2, 2); APPLY BATCH") == Rows{"True"});
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 0") == Rows{"0|5", "1|1", "2|2"});
  CHECK(f.error("BEGIN BATCH UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF v = 0; "
                "INSERT INTO t (k, c, v) VALUES (1, 2, 2); APPLY BATCH") ==
        "Batch with conditions cannot span multiple partitions");
}

TEST_CASE("cql write json: INSERT JSON") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v text, l list<int>, \"Quoted\" int)");
  f.ok("INSERT INTO t JSON '{\"k\": 0, \"v\": \"a\", \"l\": [1, 2], \"\\\"Quoted\\\"\": 3}'");
  CHECK(f.rows("SELECT k, v, l, \"Quoted\" FROM t") == Rows{"0|a|[1, 2]|3"});
  f.ok("INSERT INTO t JSON '{\"k\": 0, \"v\": \"b\"}' DEFAULT UNSET");
  CHECK(f.rows("SELECT k, v, l, \"Quoted\" FROM t") == Rows{"0|b|[1, 2]|3"});
  f.ok("INSERT INTO t JSON '{\"K\": 0, \"v\": \"c\"}'");
  CHECK(f.rows("SELECT k, v, l, \"Quoted\" FROM t") == Rows{"0|c|null|null"});
  CHECK(f.error("INSERT INTO t JSON '{\"k\": 0, \"foo\": 1}'") ==
        "JSON values map contains unrecognized column: foo");
  CHECK(f.error("INSERT INTO t JSON '{\"v\": \"x\"}'") ==
        "Invalid null value in condition for column k");
  CHECK(f.error("INSERT INTO t JSON 'null'") == "Got null for INSERT JSON values");
  CHECK(f.error("INSERT INTO t JSON '12.34'") ==
        "Could not decode JSON string as a map: a JSON object was expected. (String was: 12.34)");
  CHECK(f.error("INSERT INTO t JSON '{\"k\": 0, \"v\": 1}'") ==
        "Error decoding JSON value for v: Expected a UTF-8 string, but got a Integer: 1");
}

TEST_CASE("cql write lwt: static columns CAS (InsertUpdateIfConditionStaticsTest)") {
  WriteFixture f;
  f.ok("CREATE TABLE t (id int, k text, version int static, v text, PRIMARY KEY (id, k))");
  f.ok("INSERT INTO t (id, k, v) VALUES (1, 'foo', 'foo')");
  CHECK(f.rows("INSERT INTO t (id, k, version) VALUES (1, 'foo', 1) IF NOT EXISTS") ==
        Rows{"False|1|foo|null|foo"});
  CHECK(f.rows("INSERT INTO t (id, version) VALUES (1, 1) IF NOT EXISTS") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM t") == Rows{"1|foo|1|foo"});
  f.ok("DELETE FROM t WHERE id = 1");
  f.ok("INSERT INTO t (id, version) VALUES (0, 0)");
  CHECK(f.rows("UPDATE t SET v = 'foo', version = 1 WHERE id = 0 AND k = 'k1' IF version = 0") ==
        Rows{"True"});
  CHECK(f.rows("SELECT * FROM t") == Rows{"0|k1|1|foo"});
  CHECK(f.rows("UPDATE t SET v = 'bar', version = 1 WHERE id = 0 AND k = 'k2' IF version = 0") ==
        Rows{"False|1"});
  CHECK(f.rows("UPDATE t SET v = 'bar', version = 2 WHERE id = 0 AND k = 'k2' IF version = 1") ==
        Rows{"True"});
  CHECK(f.rows("SELECT * FROM t") == Rows{"0|k1|2|foo", "0|k2|2|bar"});
  CHECK(f.rows("UPDATE t SET version = 3 WHERE id = 0 IF version = 1") == Rows{"False|2"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET v = 'foobar' WHERE id = 0 AND k = 'k1'; "
               "UPDATE t SET v = 'barfoo' WHERE id = 0 AND k = 'k2'; "
               "UPDATE t SET version = 3 WHERE id = 0 IF version = 1; APPLY BATCH") ==
        Rows{"False|0|k1|2"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET v = 'foobar' WHERE id = 0 AND k = 'k1'; "
               "UPDATE t SET v = 'barfoo' WHERE id = 0 AND k = 'k2'; "
               "UPDATE t SET version = 3 WHERE id = 0 IF version = 2; APPLY BATCH") ==
        Rows{"True"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET version = 4 WHERE id = 0 IF version = 3; "
               "UPDATE t SET v = 'row1' WHERE id = 0 AND k = 'k1' IF v = 'foo'; "
               "UPDATE t SET v = 'row2' WHERE id = 0 AND k = 'k2' IF v = 'bar'; APPLY BATCH") ==
        Rows{"False|0|k1|3|foobar", "False|0|k2|3|barfoo"});
  CHECK(f.rows("BEGIN BATCH INSERT INTO t (id, k, v) VALUES (1, 'k1', 'val1') IF NOT EXISTS; "
               "INSERT INTO t (id, k, v) VALUES (1, 'k2', 'val2') IF NOT EXISTS; APPLY BATCH") ==
        Rows{"True"});
  CHECK(f.rows("BEGIN BATCH INSERT INTO t (id, k, v) VALUES (1, 'k2', 'val2') IF NOT EXISTS; "
               "INSERT INTO t (id, k, v) VALUES (1, 'k3', 'val3') IF NOT EXISTS; APPLY BATCH") ==
        Rows{"False|1|k2|null|val2"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET v = 'newVal' WHERE id = 1 AND k = 'k2' IF v = 'val2'; "
               "INSERT INTO t (id, k, v, version) VALUES (1, 'k3', 'val3', 1) IF NOT EXISTS; "
               "APPLY BATCH") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM t WHERE id = 1") ==
        Rows{"1|k1|1|val1", "1|k2|1|newVal", "1|k3|1|val3"});
  CHECK(f.rows("BEGIN BATCH UPDATE t SET v = 'newVal1' WHERE id = 1 AND k = 'k2' IF v = 'val2'; "
               "UPDATE t SET v = 'newVal2' WHERE id = 1 AND k = 'k2' IF v = 'val3'; APPLY BATCH") ==
        Rows{"False|1|k2|newVal"});
}

TEST_CASE("cql write lwt: static conditions with null and deleted statics") {
  WriteFixture f;
  f.ok("CREATE TABLE t (a int, b int, s int static, d text, PRIMARY KEY (a, b))");
  f.ok("INSERT INTO t (a, b, s, d) values (7, 7, 100, 'a')");
  CHECK(f.rows("UPDATE t SET s = 7 WHERE a = 7 IF s = 101") == Rows{"False|100"});
  CHECK(f.rows("UPDATE t SET s = 7 WHERE a = 7 IF s = NULL") == Rows{"False|100"});
  f.ok("DELETE FROM t WHERE a = 8");
  CHECK(f.rows("UPDATE t SET s = 8 WHERE a = 8 IF s = NULL") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM t WHERE a = 8") == Rows{"8|null|8|null"});

  f.ok(
      "CREATE TABLE u (pk int, ck int, s1 int static, s2 int static, value int, "
      "PRIMARY KEY (pk, ck))");
  f.ok("INSERT INTO u (pk, s1, s2) VALUES (1, 1, 1) USING TIMESTAMP 1000");
  f.ok("INSERT INTO u (pk, s1, s2) VALUES (2, 1, 1) USING TIMESTAMP 1001");
  f.ok("INSERT INTO u (pk, s1) VALUES (1, 2) USING TIMESTAMP 2000");
  f.ok("INSERT INTO u (pk, s1) VALUES (2, 2) USING TIMESTAMP 2001");
  f.ok("DELETE s1 FROM u USING TIMESTAMP 3000 WHERE pk = 1");
  f.ok("DELETE s1 FROM u USING TIMESTAMP 3001 WHERE pk = 2");
  CHECK(f.rows("UPDATE u SET s1 = 2 WHERE pk = 1 IF s1 = NULL") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM u WHERE pk = 1") == Rows{"1|null|2|1|null"});
  CHECK(f.rows("UPDATE u SET s1 = 2 WHERE pk = 2 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM u WHERE pk = 2") == Rows{"2|null|2|1|null"});
  CHECK(f.rows("DELETE s2 FROM u WHERE pk = 1 IF s1 = NULL") == Rows{"False|2"});
  CHECK(f.rows("DELETE s1, s2 FROM u WHERE pk = 2 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM u WHERE pk = 2").empty());
}

TEST_CASE("cql write lwt: conditional deletes (InsertUpdateIfConditionTest)") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v1 int)");
  CHECK(f.rows("DELETE FROM t WHERE k = 1 IF EXISTS") == Rows{"False"});
  f.ok("INSERT INTO t (k, v1) VALUES (1, 2)");
  CHECK(f.rows("DELETE FROM t WHERE k = 1 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM t WHERE k = 1").empty());
  f.ok("UPDATE t USING TTL 1 SET v1 = 2 WHERE k = 1");
  f.clock().advance_seconds(2);
  CHECK(f.rows("DELETE FROM t WHERE k = 1 IF EXISTS") == Rows{"False"});
  f.ok("INSERT INTO t (k, v1) VALUES (3, 2)");
  CHECK(f.rows("DELETE v1 FROM t WHERE k = 3 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("SELECT * FROM t WHERE k = 3") == Rows{"3|null"});
  CHECK(f.rows("DELETE v1 FROM t WHERE k = 3 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("DELETE FROM t WHERE k = 3 IF EXISTS") == Rows{"True"});

  f.ok("CREATE TABLE s (k text, s text static, i int, v text, PRIMARY KEY (k, i))");
  f.ok("INSERT INTO s (k, s, i, v) VALUES ('k', 's', 0, 'v')");
  CHECK(f.rows("DELETE v FROM s WHERE k = 'k' AND i = 0 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("DELETE FROM s WHERE k = 'k' AND i = 0 IF EXISTS") == Rows{"True"});
  CHECK(f.rows("DELETE v FROM s WHERE k = 'k' AND i = 0 IF v = 'z'") == Rows{"False"});
  CHECK(f.rows("DELETE v FROM s WHERE k = 'k' AND i = 0 IF v = 'z' AND s = 'z'") ==
        Rows{"False|null|s"});
  CHECK(f.rows("DELETE v FROM s WHERE k = 'k' AND i = 0 IF EXISTS") == Rows{"False"});
  CHECK(f.error("DELETE FROM s WHERE k = 'k' IF EXISTS") ==
        "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order "
        "to delete non static columns");
  CHECK(f.error("DELETE FROM s WHERE k = 'k' IF v = 'foo'") ==
        "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order "
        "to delete non static columns");
  CHECK(f.error("DELETE FROM s WHERE i = 0 IF EXISTS") ==
        "Some partition key parts are missing: k");
  CHECK(f.error("DELETE FROM s WHERE k = 0 AND i > 0 IF EXISTS") ==
        "Invalid INTEGER constant (0) for \"k\" of type text");
  CHECK(f.error("DELETE FROM s WHERE k = 'k' AND i IN (0, 1) IF v = 'foo'") ==
        "IN on the clustering key columns is not supported with conditional deletions");
  CHECK(f.error("UPDATE s SET v = 'A' WHERE k = 'k' AND i IN (1, 2) IF EXISTS") ==
        "IN on the clustering key columns is not supported with conditional updates");
  CHECK(f.rows("UPDATE t SET v1 = 3 WHERE k = 0 IF v1 IN ()") == Rows{"False"});
}

TEST_CASE("cql write batch: lists, range deletes and multi-column updates (BatchTest)") {
  WriteFixture f;
  f.ok("CREATE TABLE l (k int PRIMARY KEY, l list<int>)");
  f.ok(
      "BEGIN BATCH UPDATE l SET l = l + [1] WHERE k = 0; UPDATE l SET l = l + [2] WHERE k = 0; "
      "UPDATE l SET l = l + [3] WHERE k = 0; APPLY BATCH");
  CHECK(f.rows("SELECT l FROM l WHERE k = 0") == Rows{"[1, 2, 3]"});
  f.ok(
      "BEGIN BATCH UPDATE l SET l = [1] + l WHERE k = 1; UPDATE l SET l = [2] + l WHERE k = 1; "
      "UPDATE l SET l = [3] + l WHERE k = 1; APPLY BATCH");
  CHECK(f.rows("SELECT l FROM l WHERE k = 1") == Rows{"[3, 2, 1]"});

  f.ok("CREATE TABLE t (pk int, c int, v int, PRIMARY KEY (pk, c))");
  int value = 0;
  for (int pk = 0; pk < 4; ++pk) {
    for (int c = 0; c < 5; ++c) {
      f.ok("INSERT INTO t (pk, c, v) VALUES (" + std::to_string(pk) + ", " + std::to_string(c) +
           ", " + std::to_string(value++) + ")");
    }
  }
  f.ok(
      "BEGIN BATCH DELETE FROM t WHERE pk = 1; DELETE FROM t WHERE pk = 0 AND c >= 4; "
      "DELETE FROM t WHERE pk = 0 AND c <= 0; DELETE FROM t WHERE pk = 2 AND c >= 0 AND c <= 3; "
      "DELETE FROM t WHERE pk = 2 AND c <= 3 AND c >= 4; "
      "DELETE FROM t WHERE pk = 3 AND (c) >= (3) AND (c) <= (6); APPLY BATCH");
  CHECK(f.rows("SELECT * FROM t") ==
        Rows{"0|1|1", "0|2|2", "0|3|3", "2|4|14", "3|0|15", "3|1|16", "3|2|17"});

  f.ok(
      "BEGIN BATCH UPDATE t SET v = 7 WHERE pk = 0 AND c = 1; "
      "UPDATE t SET v = 8 WHERE pk = 0 AND (c) = (2); "
      "UPDATE t SET v = 10 WHERE pk = 0 AND c IN (3, 4); "
      "UPDATE t SET v = 20 WHERE pk = 0 AND (c) IN ((5), (6)); APPLY BATCH");
  CHECK(f.rows("SELECT c, v FROM t WHERE pk = 0") ==
        Rows{"1|7", "2|8", "3|10", "4|10", "5|20", "6|20"});
  f.ok(
      "BEGIN BATCH DELETE FROM t WHERE pk = 0 AND c = 1; INSERT INTO t (pk, c, v) VALUES (0, 1, "
      "2); "
      "APPLY BATCH");
  CHECK(f.rows("SELECT c, v FROM t WHERE pk = 0 AND c = 1").empty());
  f.ok("BEGIN BATCH APPLY BATCH");
}

TEST_CASE("cql write lwt: IF NOT EXISTS shows columns in SELECT * order") {
  WriteFixture f;
  f.ok(
      "CREATE TABLE t (k int, c int, z int, s2 int static, a int, s1 int static, PRIMARY KEY (k, "
      "c))");
  f.ok("INSERT INTO t (k, c, z, a, s1, s2) VALUES (0, 0, 1, 2, 3, 4)");
  CHECK(f.column_names("INSERT INTO t (k, c) VALUES (0, 0) IF NOT EXISTS") ==
        std::vector<std::string>{"[applied]", "k", "c", "s1", "s2", "a", "z"});
  // Static columns are not read when the INSERT writes no static value (CQL3CasRequest).
  CHECK(f.rows("INSERT INTO t (k, c) VALUES (0, 0) IF NOT EXISTS") ==
        Rows{"False|0|0|null|null|2|1"});
  CHECK(f.rows("INSERT INTO t (k, c, s1) VALUES (0, 0, 5) IF NOT EXISTS") ==
        Rows{"False|0|0|3|4|2|1"});
}
