// IF conditions as Cassandra 4.1 evaluates and answers them: CONTAINS / CONTAINS KEY, empty
// non-frozen collections, the order of the columns of an answer that did not apply, statements
// on the static row of a partition that has rows, and the rules for several checks of one row in
// a conditional BATCH (InsertUpdateIfConditionTest, InsertUpdateIfConditionCollectionsTest,
// InsertUpdateIfConditionStaticsTest).
#include <doctest/doctest.h>

#include "tests/unit/cql_write_test_util.h"

using cassette::test::Rows;
using cassette::test::WriteFixture;

TEST_CASE("cql write lwt: CONTAINS and CONTAINS KEY conditions") {
  WriteFixture f;
  f.ok(
      "CREATE TABLE t (k int PRIMARY KEY, v int, l list<text>, s set<text>, m map<text, text>, "
      "fl frozen<list<text>>)");
  f.ok(
      "INSERT INTO t (k, v, l, s, m, fl) VALUES (0, 1, ['foo', 'bar'], {'a'}, {'k': 'v'}, "
      "['x'])");
  CHECK(f.rows("UPDATE t SET v = 2 WHERE k = 0 IF l CONTAINS 'bar'") == Rows{"True"});
  CHECK(f.rows("UPDATE t SET v = 3 WHERE k = 0 IF l CONTAINS 'baz'") ==
        Rows{"False|['foo', 'bar']"});
  CHECK(f.rows("UPDATE t SET v = 3 WHERE k = 0 IF s CONTAINS 'a' AND fl CONTAINS 'x'") ==
        Rows{"True"});
  CHECK(f.rows("UPDATE t SET v = 4 WHERE k = 0 IF m CONTAINS 'v' AND m CONTAINS KEY 'k'") ==
        Rows{"True"});
  CHECK(f.rows("UPDATE t SET v = 5 WHERE k = 0 IF m CONTAINS 'k'") == Rows{"False|{'k': 'v'}"});
  CHECK(f.rows("SELECT v FROM t") == Rows{"4"});

  CHECK(f.error("UPDATE t SET v = 5 WHERE k = 0 IF v CONTAINS 1") ==
        "Cannot use CONTAINS on non-collection column v");
  CHECK(f.error("UPDATE t SET v = 5 WHERE k = 0 IF l CONTAINS KEY 1") ==
        "Cannot use CONTAINS KEY on non-map column l");
  CHECK(f.error("UPDATE t SET v = 5 WHERE k = 0 IF l CONTAINS null") ==
        "Invalid comparison with null for operator \"CONTAINS\"");
  CHECK(f.error("UPDATE t SET v = 5 WHERE k = 0 IF l CONTAINS 1") ==
        "Invalid INTEGER constant (1) for \"value(l)\" of type text");
  CHECK(f.error("UPDATE t SET v = 5 WHERE k = 0 IF k = 1") ==
        "PRIMARY KEY column 'k' cannot have IF conditions");
  CHECK(f.error("DELETE FROM t WHERE k = 0 IF l[-2] = 'foo'") == "Invalid negative list index -2");
}

TEST_CASE("cql write lwt: a non-frozen collection without elements compares as empty") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, l list<text>, fl frozen<list<text>>)");
  f.ok("INSERT INTO t (k, l, fl) VALUES (0, null, null)");
  CHECK(f.rows("UPDATE t SET l = null WHERE k = 0 IF l < ['a']") == Rows{"True"});
  CHECK(f.rows("UPDATE t SET l = null WHERE k = 0 IF l <= ['a'] AND l = []") == Rows{"True"});
  CHECK(f.rows("UPDATE t SET l = null WHERE k = 0 IF l > ['a']") == Rows{"False|null"});
  CHECK(f.rows("UPDATE t SET l = null WHERE k = 0 IF fl < ['a']") == Rows{"False|null"});
  CHECK(f.rows("UPDATE t SET l = null WHERE k = 0 IF fl != ['a']") == Rows{"True"});
}

TEST_CASE("cql write lwt: answers list regular columns, then static ones") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, s int static, v int, w int, PRIMARY KEY (k, c))");
  f.ok("INSERT INTO t (k, c, s, v, w) VALUES (0, 0, 1, 2, 3)");
  CHECK(f.column_names("UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF s = 9 AND w = 3 AND v = 2") ==
        std::vector<std::string>{"[applied]", "w", "v", "s"});
  CHECK(f.rows("UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF s = 9 AND w = 3 AND v = 2") ==
        Rows{"False|3|2|1"});
  const char* batch =
      "BEGIN BATCH UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF s = 9 AND w = 3; "
      "UPDATE t SET w = 5 WHERE k = 0 AND c = 0 IF v = 2; APPLY BATCH";
  CHECK(f.column_names(batch) == std::vector<std::string>{"[applied]", "k", "c", "w", "s", "v"});
  CHECK(f.rows(batch) == Rows{"False|0|0|3|1|2"});
}

TEST_CASE("cql write lwt: static-row statements on a partition with rows but no statics") {
  WriteFixture f;
  f.ok("CREATE TABLE t (a int, b int, s int static, d text, PRIMARY KEY (a, b))");
  f.ok("INSERT INTO t (a, b) VALUES (3, 1)");
  // The partition exists: the condition's column is answered, null.
  CHECK(f.rows("UPDATE t SET s = 30 WHERE a = 3 IF s IN (10, 20, 30)") == Rows{"False|null"});
  CHECK(f.rows("UPDATE t SET s = 30 WHERE a = 3 IF s > 3") == Rows{"False|null"});
  // No partition at all: only [applied].
  CHECK(f.rows("UPDATE t SET s = 30 WHERE a = 4 IF s > 3") == Rows{"False"});
  // A conditional batch answers the partition's first row with the static value.
  CHECK(f.rows("BEGIN BATCH INSERT INTO t (a, b, s, d) VALUES (3, 3, 40, 'a'); "
               "UPDATE t SET s = 30 WHERE a = 3 IF s > 5; APPLY BATCH") == Rows{"False|3|1|null"});
  CHECK(f.rows("SELECT * FROM t WHERE a = 3") == Rows{"3|1|null|null"});
}

TEST_CASE("cql write batch: checks of one row must be of one kind") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v1 text, v2 text, PRIMARY KEY (k, c))");
  CHECK(f.rows("BEGIN BATCH INSERT INTO t (k, c, v1) VALUES (0, 0, 'foo') IF NOT EXISTS; "
               "INSERT INTO t (k, c, v2) VALUES (0, 0, 'bar') IF NOT EXISTS; APPLY BATCH") ==
        Rows{"True"});
  CHECK(f.error("BEGIN BATCH INSERT INTO t (k, c, v1) VALUES (0, 0, 'foo') IF NOT EXISTS; "
                "DELETE FROM t WHERE k = 0 AND c = 0 IF EXISTS; APPLY BATCH") ==
        "Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row");
  CHECK(f.error("BEGIN BATCH DELETE FROM t WHERE k = 0 AND c = 0 IF EXISTS; "
                "INSERT INTO t (k, c, v1) VALUES (0, 0, 'foo') IF NOT EXISTS; APPLY BATCH") ==
        "Cannot mix IF conditions and IF NOT EXISTS for the same row");
  CHECK(f.error("BEGIN BATCH INSERT INTO t (k, c, v1) VALUES (0, 0, 'foo') IF NOT EXISTS; "
                "UPDATE t SET v2 = 'bar' WHERE k = 0 AND c = 0 IF v1 = 'foo'; APPLY BATCH") ==
        "Cannot mix IF conditions and IF NOT EXISTS for the same row");
  // Different rows of one partition may use different kinds.
  CHECK(f.rows("BEGIN BATCH INSERT INTO t (k, c, v1) VALUES (0, 1, 'x') IF NOT EXISTS; "
               "UPDATE t SET v2 = 'y' WHERE k = 0 AND c = 0 IF v1 = 'foo'; APPLY BATCH") ==
        Rows{"True"});
  CHECK(f.rows("SELECT * FROM t") == Rows{"0|0|foo|y", "0|1|x|null"});
  CHECK(f.error("BEGIN BATCH UPDATE t SET v1 = 'a' WHERE k IN (0) AND c = 0 IF v1 = 'x'; "
                "APPLY BATCH") ==
        "Batch with conditions cannot span multiple partitions (you cannot use IN on the "
        "partition key)");
  CHECK(f.error("BEGIN BATCH UPDATE t SET v1 = 'a' WHERE k = 0 AND c = 0 IF v1 = 'x'; "
                "UPDATE t SET v2 = 'a' WHERE k = 0 AND c IN (0, 1); APPLY BATCH") ==
        "IN on the clustering key columns is not supported with conditional updates");
}

TEST_CASE("cql write lwt: IN on clustering columns is checked after the equality rule") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k text, s text static, i int, v text, PRIMARY KEY (k, i))");
  CHECK(f.error("DELETE FROM t WHERE k = 'k' AND i IN () IF v = 'foo'") ==
        "IN on the clustering key columns is not supported with conditional deletions");
  CHECK(f.error("DELETE FROM t WHERE k = 'k' AND i IN () IF EXISTS") ==
        "IN on the clustering key columns is not supported with conditional deletions");
  CHECK(f.error("DELETE FROM t WHERE k = 'k' AND i > 0 IF EXISTS") ==
        "DELETE statements must restrict all PRIMARY KEY columns with equality relations in "
        "order to delete non static columns");
}

TEST_CASE("cql write lwt: IF NOT EXISTS answers only the columns it reads") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, s int static, v int, PRIMARY KEY (k, c))");
  f.ok("INSERT INTO t (k, c, s, v) VALUES (0, 0, 1, 2)");
  // A regular row only: the static column is not read.
  CHECK(f.rows("INSERT INTO t (k, c, v) VALUES (0, 0, 3) IF NOT EXISTS") ==
        Rows{"False|0|0|null|2"});
  CHECK(f.rows("INSERT INTO t (k, c, s, v) VALUES (0, 0, 4, 3) IF NOT EXISTS") ==
        Rows{"False|0|0|1|2"});
  // The static row only: the regular columns of the partition's first row are not read.
  CHECK(f.rows("INSERT INTO t (k, s) VALUES (0, 5) IF NOT EXISTS") == Rows{"False|0|0|1|null"});
  CHECK(f.error("BEGIN UNLOGGED BATCH USING TIMESTAMP 10 UPDATE c SET n = n + 1 WHERE k = 0; "
                "APPLY BATCH") == "table c does not exist");
  f.ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  CHECK(f.error("BEGIN UNLOGGED BATCH USING TIMESTAMP 10 UPDATE c SET n = n + 1 WHERE k = 0; "
                "APPLY BATCH") ==
        "Cannot provide custom timestamp for a BATCH containing counters");
}
