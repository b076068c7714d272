// INSERT, UPDATE and DELETE end to end through cql::Session, with Cassandra's results and
// messages (cql3/validation/operations/{InsertTest,UpdateTest,DeleteTest}.java).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "tests/unit/cql_write_test_util.h"

using cassette::test::Rows;
using cassette::test::WriteFixture;

TEST_CASE("cql write: insert and update simple rows") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, s int static, PRIMARY KEY (k, c))");
  f.ok("INSERT INTO t (k, c, v) VALUES (0, 0, 0)");
  f.ok("INSERT INTO t (k, c, v) VALUES (0, 1, 1)");
  f.ok("UPDATE t SET v = 10 WHERE k = 0 AND c = 0");
  CHECK(f.rows("SELECT k, c, v FROM t") == Rows{"0|0|10", "0|1|1"});
  // INSERT writes a row marker: the row survives its only column being deleted.
  f.ok("INSERT INTO t (k, c) VALUES (1, 0)");
  CHECK(f.rows("SELECT k, c, v FROM t WHERE k = 1") == Rows{"1|0|null"});
  // UPDATE does not: setting every column to null removes the row.
  f.ok("UPDATE t SET v = 3 WHERE k = 2 AND c = 0");
  f.ok("UPDATE t SET v = null WHERE k = 2 AND c = 0");
  CHECK(f.rows("SELECT k, c, v FROM t WHERE k = 2").empty());
  // Static columns need only the partition key.
  f.ok("UPDATE t SET s = 7 WHERE k = 0");
  f.ok("INSERT INTO t (k, s) VALUES (3, 8)");
  CHECK(f.rows("SELECT k, c, s, v FROM t WHERE k = 0") == Rows{"0|0|7|10", "0|1|7|1"});
  CHECK(f.rows("SELECT k, c, s, v FROM t WHERE k = 3") == Rows{"3|null|8|null"});
  // IN on keys writes every combination.
  f.ok("UPDATE t SET v = 5 WHERE k IN (5, 6) AND c IN (1, 2)");
  CHECK(f.rows("SELECT k, c, v FROM t WHERE k IN (5, 6)") ==
        Rows{"5|1|5", "5|2|5", "6|1|5", "6|2|5"});
}

TEST_CASE("cql write: insert and update messages") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, s int static, PRIMARY KEY (k, c))");
  CHECK(f.error("INSERT INTO t (k, v) VALUES (0, 0)") == "Some clustering keys are missing: c");
  CHECK(f.error("INSERT INTO t (c, v) VALUES (0, 0)") == "Some partition key parts are missing: k");
  CHECK(f.error("INSERT INTO t (k, c, v) VALUES (null, 0, 0)") ==
        "Invalid null value in condition for column k");
  CHECK(f.error("INSERT INTO t (k, c, v) VALUES (0, null, 0)") ==
        "Invalid null value in condition for column c");
  CHECK(f.error("INSERT INTO t (k, c, x) VALUES (0, 0, 0)") ==
        "Undefined column name x in table ks.t");
  CHECK(f.error("INSERT INTO t (k, c, v, v) VALUES (0, 0, 0, 1)") ==
        "The column names contains duplicates");
  CHECK(f.error("INSERT INTO t (k, c, v) VALUES (0, 0, 'a')") ==
        "Invalid STRING constant (a) for \"v\" of type int");
  CHECK(f.error("UPDATE t SET k = 1 WHERE k = 0 AND c = 0") ==
        "PRIMARY KEY part k found in SET part");
  CHECK(f.error("UPDATE t SET v = 1 WHERE k = 0") == "Some clustering keys are missing: c");
  CHECK(f.error("UPDATE t SET v = 1 WHERE c = 0") == "Some partition key parts are missing: k");
  CHECK(f.error("UPDATE t SET v = 1 WHERE k = 0 AND c > 0") ==
        "Slice restrictions are not supported on the clustering columns in UPDATE statements");
  CHECK(f.error("UPDATE t SET v = 1 WHERE k > 0 AND c = 0") ==
        "Only EQ and IN relation are supported on the partition key (unless you use the token() "
        "function) for UPDATE statements");
  CHECK(f.error("UPDATE t SET s = 1 WHERE k = 0 AND c = 0") ==
        "Invalid restrictions on clustering columns since the UPDATE statement modifies only "
        "static columns");
  CHECK(f.error("UPDATE t SET v = 1 WHERE k = 0 AND c = 0 AND v = 1") ==
        "Non PRIMARY KEY columns found in where clause: v ");
  CHECK(f.error("UPDATE t SET v = 1 WHERE k = 0 AND k = 1 AND c = 0") ==
        "k cannot be restricted by more than one relation if it includes an Equal");
  CHECK(f.error("UPDATE t SET v = 1 WHERE token(k) = 0 AND c = 0") ==
        "The token function cannot be used in WHERE clauses for UPDATE statements");
  CHECK(f.error("UPDATE t SET x = 1 WHERE k = 0 AND c = 0") ==
        "Undefined column name x in table ks.t");
  CHECK(f.error("UPDATE t SET v = v + 1 WHERE k = 0 AND c = 0") ==
        "Invalid operation (v = v + 1) for non counter column v");
}

TEST_CASE("cql write: counter increments wrap around on overflow") {
  // As Java's long arithmetic in Cassandra; found by the cql_execute fuzz target under UBSan.
  WriteFixture f;
  f.ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  f.ok("UPDATE c SET n = n + 9223372036854775807, n = n + 1 WHERE k = 1");
  CHECK(f.rows("SELECT n FROM c WHERE k = 1") == Rows{"-9223372036854775808"});
  f.ok("UPDATE c SET n = n - 1 WHERE k = 1");
  CHECK(f.rows("SELECT n FROM c WHERE k = 1") == Rows{"9223372036854775807"});
}

TEST_CASE("cql write: TTL and timestamps") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int)");
  f.ok("INSERT INTO t (k, v) VALUES (0, 0) USING TTL 10");
  CHECK(f.rows("SELECT k, v, ttl(v) FROM t") == Rows{"0|0|10"});
  f.clock().advance_seconds(11);
  CHECK(f.rows("SELECT k, v FROM t").empty());
  CHECK(f.error("INSERT INTO t (k, v) VALUES (0, 0) USING TTL -1") ==
        "A TTL must be greater or equal to 0, but was -1");
  CHECK(f.error("INSERT INTO t (k, v) VALUES (0, 0) USING TTL 630720001") ==
        "ttl is too large. requested (630720001) maximum (630720000)");
  f.ok("INSERT INTO t (k, v) VALUES (1, 1) USING TIMESTAMP 1000");
  f.ok("INSERT INTO t (k, v) VALUES (1, 2) USING TIMESTAMP 999");
  CHECK(f.rows("SELECT v, writetime(v) FROM t WHERE k = 1") == Rows{"1|1000"});
  // A table's default TTL applies unless USING TTL says otherwise (0 = none).
  f.ok("CREATE TABLE d (k int PRIMARY KEY, v int) WITH default_time_to_live = 100");
  f.ok("INSERT INTO d (k, v) VALUES (0, 0)");
  f.ok("INSERT INTO d (k, v) VALUES (1, 1) USING TTL 0");
  CHECK(f.rows("SELECT k, ttl(v) FROM d") == Rows{"1|null", "0|100"});
}

TEST_CASE("cql write: delete rows, ranges, partitions and columns") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, s int static, PRIMARY KEY (k, c))");
  for (int c = 0; c < 6; ++c) {
    f.ok("INSERT INTO t (k, c, v, s) VALUES (0, " + std::to_string(c) + ", " + std::to_string(c) +
         ", 9)");
  }
  f.ok("DELETE FROM t WHERE k = 0 AND c = 0");
  f.ok("DELETE v FROM t WHERE k = 0 AND c = 1");
  f.ok("DELETE FROM t WHERE k = 0 AND c > 3");
  CHECK(f.rows("SELECT c, v, s FROM t WHERE k = 0") == Rows{"1|null|9", "2|2|9", "3|3|9"});
  f.ok("DELETE FROM t WHERE k = 0 AND c >= 2 AND c < 3");
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 0") == Rows{"1|null", "3|3"});
  f.ok("DELETE s FROM t WHERE k = 0");
  CHECK(f.rows("SELECT c, s FROM t WHERE k = 0") == Rows{"1|null", "3|null"});
  f.ok("DELETE FROM t WHERE k = 0");
  CHECK(f.rows("SELECT * FROM t WHERE k = 0").empty());
  CHECK(f.error("DELETE v FROM t WHERE k = 0") ==
        "Range deletions are not supported for specific columns");
  CHECK(f.error("DELETE v FROM t WHERE k = 0 AND c > 1") ==
        "Range deletions are not supported for specific columns");
  CHECK(f.error("DELETE k FROM t WHERE k = 0 AND c = 1") ==
        "Invalid identifier k for deletion (should not be a PRIMARY KEY part)");
  CHECK(f.error("DELETE s FROM t WHERE k = 0 AND c = 1") ==
        "Invalid restrictions on clustering columns since the DELETE statement modifies only "
        "static columns");
  CHECK(f.error("DELETE FROM t WHERE c = 1") == "Some partition key parts are missing: k");
}

TEST_CASE("cql write: descending clustering range deletion") {
  WriteFixture f;
  f.ok(
      "CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)");
  for (int c = 0; c < 5; ++c) {
    f.ok("INSERT INTO t (k, c, v) VALUES (0, " + std::to_string(c) + ", 0)");
  }
  f.ok("DELETE FROM t WHERE k = 0 AND c > 2");
  CHECK(f.rows("SELECT c FROM t WHERE k = 0") == Rows{"2", "1", "0"});
  f.ok("DELETE FROM t WHERE k = 0 AND c <= 0");
  CHECK(f.rows("SELECT c FROM t WHERE k = 0") == Rows{"2", "1"});
}

TEST_CASE("cql write: multi-column and mixed deletions (DeleteTest)") {
  WriteFixture f;
  f.ok("CREATE TABLE t (pk int, c1 int, c2 int, v int, PRIMARY KEY (pk, c1, c2))");
  int value = 0;
  for (int c1 = 0; c1 < 5; ++c1) {
    for (int c2 = 0; c2 < 5; ++c2) {
      f.ok(fmt::format("INSERT INTO t (pk, c1, c2, v) VALUES (2, {}, {}, {})", c1, c2, value++));
    }
  }
  f.ok("DELETE FROM t WHERE pk = 2 AND c1 >= 0 AND c1 < 3");
  f.ok("DELETE FROM t WHERE pk = 2 AND (c1, c2) > (3, 3)");
  CHECK(f.rows("SELECT c1, c2, v FROM t WHERE pk = 2") ==
        Rows{"3|0|15", "3|1|16", "3|2|17", "3|3|18"});
  f.ok("DELETE FROM t WHERE pk = 2 AND (c1, c2) < (3, 1)");
  f.ok("DELETE FROM t WHERE pk = 2 AND (c1, c2) >= (3, 3) AND (c1) <= (4)");
  CHECK(f.rows("SELECT c1, c2 FROM t WHERE pk = 2") == Rows{"3|1", "3|2"});
  f.ok("DELETE FROM t WHERE pk = 2 AND (c1) IN ((3), (4)) AND c2 < 2");
  CHECK(f.rows("SELECT c1, c2 FROM t WHERE pk = 2") == Rows{"3|2"});
  f.ok("DELETE FROM t WHERE pk = 2 AND (c1, c2) IN ((3, 2), (4, 4))");
  CHECK(f.rows("SELECT c1, c2 FROM t WHERE pk = 2").empty());
  CHECK(f.error("DELETE v FROM t WHERE pk = 2 AND (c1, c2) >= (3, 1)") ==
        "Range deletions are not supported for specific columns");
  CHECK(f.error("DELETE v FROM t WHERE pk = 2 AND c1 = 3") ==
        "Range deletions are not supported for specific columns");
  CHECK(f.error("DELETE FROM t WHERE pk = 2 AND c2 = 1") ==
        "PRIMARY KEY column \"c2\" cannot be restricted as preceding column \"c1\" is not "
        "restricted");
  CHECK(f.error("DELETE FROM t WHERE pk CONTAINS 1") ==
        "Cannot use CONTAINS on non-collection column pk");
  CHECK(f.error("DELETE FROM t WHERE token(pk) = token(1)") ==
        "The token function cannot be used in WHERE clauses for DELETE statements");
  CHECK(f.error("DELETE FROM t WHERE pk = 1 AND c1 = 1 AND c2 = 1 AND c1 = 2") ==
        "c1 cannot be restricted by more than one relation if it includes an Equal");
  CHECK(f.error("DELETE x FROM t WHERE pk = 1") == "Undefined column name x in table ks.t");
  CHECK(f.error("DELETE FROM t WHERE pkx = 1") == "Undefined column name pkx in table ks.t");
}

TEST_CASE("cql write: empty IN restrictions write nothing (UpdateTest)") {
  WriteFixture f;
  f.ok("CREATE TABLE t (a int, b int, c int, PRIMARY KEY (a, b))");
  f.ok("INSERT INTO t (a, b, c) VALUES (1, 1, 1)");
  CHECK(f.error("UPDATE t SET c = 100 WHERE a IN ()") == "Some clustering keys are missing: b");
  f.ok("UPDATE t SET c = 100 WHERE a IN () AND b IN ()");
  f.ok("UPDATE t SET c = 100 WHERE a IN () AND b = 1");
  f.ok("UPDATE t SET c = 100 WHERE a = 1 AND b IN ()");
  f.ok("DELETE FROM t WHERE a = 1 AND b IN ()");
  CHECK(f.rows("SELECT * FROM t") == Rows{"1|1|1"});
  f.ok("CREATE TABLE s (a int, b int, c int, d int, s int static, PRIMARY KEY ((a, b), c))");
  f.ok("INSERT INTO s (a, b, c, d, s) VALUES (1, 1, 1, 1, 1)");
  f.ok("UPDATE s SET s = 200 WHERE a = 1 AND b IN ()");
  f.ok("UPDATE s SET s = 100 WHERE a = 1 AND b = 1");
  CHECK(f.rows("SELECT * FROM s") == Rows{"1|1|1|100|1"});
  // Type hints must be value-compatible with the column.
  f.ok("CREATE TABLE h (k int PRIMARY KEY, t text, a ascii, d double, i int)");
  f.ok("UPDATE h SET t = (ascii)'foo', a = (ascii)'foo', i = (int)3, d = (double)3 WHERE k = 0");
  CHECK(f.error("UPDATE h SET a = (text)'foo' WHERE k = 0") ==
        "Cannot assign value (text)'foo' to a of type ascii");
  CHECK(f.error("UPDATE h SET d = (int)3 WHERE k = 0") ==
        "Cannot assign value (int)3 to d of type double");
  CHECK(f.error("UPDATE h SET t = 1, t = 2 WHERE k = 0") ==
        "Multiple incompatible setting of column t");
}

TEST_CASE("cql write: custom timestamps (TimestampTest)") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int)");
  f.ok("INSERT INTO t (k, v) VALUES (1, 1) USING TIMESTAMP -42");
  CHECK(f.rows("SELECT writetime(v) FROM t WHERE k = 1") == Rows{"-42"});
  CHECK(f.error("INSERT INTO t (k, v) VALUES (2, 2) USING TIMESTAMP -9223372036854775808") ==
        "Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]");
  CHECK(f.error("INSERT INTO t (k, v) VALUES (1, 1) IF NOT EXISTS USING TIMESTAMP 5") ==
        "Cannot provide custom timestamp for conditional updates");
  CHECK(f.error("BEGIN BATCH USING TIMESTAMP 1 INSERT INTO t (k, v) VALUES (0, 4) IF NOT EXISTS; "
                "APPLY BATCH") == "Cannot provide custom timestamp for conditional BATCH");
  // Deletions win over writes at the same timestamp; later timestamps win over earlier ones.
  f.ok("INSERT INTO t (k, v) VALUES (3, 3) USING TIMESTAMP 10");
  f.ok("DELETE FROM t USING TIMESTAMP 10 WHERE k = 3");
  CHECK(f.rows("SELECT * FROM t WHERE k = 3").empty());
  f.ok("INSERT INTO t (k, v) VALUES (3, 4) USING TIMESTAMP 11");
  CHECK(f.rows("SELECT * FROM t WHERE k = 3") == Rows{"3|4"});
}

TEST_CASE("cql write: function calls as values") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, u timeuuid, ts timestamp, i int, l list<timeuuid>)");
  f.ok(
      "INSERT INTO t (k, u, ts, i, l) VALUES (0, now(), toTimestamp(now()), blobAsInt(0x00000007), "
      "[now()])");
  CHECK(f.rows("SELECT i FROM t WHERE k = 0") == Rows{"7"});
  CHECK(f.rows("SELECT k FROM t WHERE k = 0 AND u > minTimeuuid('2000-01-01') ALLOW FILTERING") ==
        Rows{"0"});
  CHECK(f.error("INSERT INTO t (k, i) VALUES (1, now())") ==
        "Type error: cannot assign result of function system.now (type timeuuid) to i (type int)");
}

// Ctrl-C (Session::set_interrupt_flag) stops a write before it applies and never after: with
// the flag set, every kind of write fails "interrupted" and the table is as it was. (These used
// to apply in full: only SELECT looked at the flag.)
TEST_CASE("cql write: an interrupted write applies nothing") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, l list<int>, PRIMARY KEY (k, c))");
  f.ok("INSERT INTO t (k, c, v, l) VALUES (0, 0, 0, [0])");
  const Rows before{"0|0|[0]|0"};
  std::atomic<bool> interrupted{true};
  f.session().set_interrupt_flag(&interrupted);
  const char* writes[] = {
      "INSERT INTO t (k, c, v) VALUES (1, 1, 1)",
      "UPDATE t SET v = 5 WHERE k = 0 AND c = 0",
      "UPDATE t SET l[0] = 5 WHERE k = 0 AND c = 0",  // reads the list first
      "UPDATE t SET v = 5 WHERE k = 0 AND c = 0 IF v = 0",
      "DELETE FROM t WHERE k IN (0, 1, 2)",
      "BEGIN BATCH INSERT INTO t (k, c, v) VALUES (2, 2, 2); "
      "DELETE FROM t WHERE k = 0 APPLY BATCH",
      "BEGIN BATCH UPDATE t SET l[0] = 7 WHERE k = 0 AND c = 0; "
      "INSERT INTO t (k, c, v) VALUES (3, 3, 3) APPLY BATCH",
      "BEGIN BATCH UPDATE t SET v = 7 WHERE k = 0 AND c = 0 IF v = 0; "
      "UPDATE t SET v = 8 WHERE k = 0 AND c = 1 APPLY BATCH",
      "TRUNCATE t",
  };
  for (const char* write : writes) {
    CHECK(f.error(write) == "The statement was interrupted");
  }
  interrupted = false;
  CHECK(f.rows("SELECT * FROM t") == before);
  f.ok("INSERT INTO t (k, c, v) VALUES (1, 1, 1)");  // the session goes on
  CHECK(f.rows("SELECT k, c, v FROM t") == Rows{"1|1|1", "0|0|0"});
}
