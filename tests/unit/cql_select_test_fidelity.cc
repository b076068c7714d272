// SELECT details where Cassandra 4.1's behaviour is easy to get subtly wrong: the running
// average of decimals, the shared LIMIT messages, and null restriction values that are reported
// only after every preparation check (AggregationTest, SelectLimitTest, SelectTest).
#include <doctest/doctest.h>

#include "tests/unit/cql_select_test_util.h"

namespace cassette::test {

TEST_CASE("cql select fidelity: avg of decimals is a running average rounded half-even") {
  SelectFixture f;
  f.ok("CREATE TABLE d (k int, c int, v decimal, PRIMARY KEY (k, c))");
  f.ok("INSERT INTO d (k, c, v) VALUES (0, 1, 1)");
  f.ok("INSERT INTO d (k, c, v) VALUES (0, 2, 2)");
  // 0 + (1 - 0) / 1 = 1; 1 + (2 - 1) / 2 = 1 + 0 (0.5 rounds to even).
  CHECK(f.rows("SELECT avg(v), sum(v) FROM d WHERE k = 0") == Rows{"1|3"});
  f.ok("INSERT INTO d (k, c, v) VALUES (0, 3, 2)");
  f.ok("INSERT INTO d (k, c, v) VALUES (0, 4, 3)");
  CHECK(f.rows("SELECT avg(v) FROM d WHERE k = 0") == Rows{"1"});
  f.ok("INSERT INTO d (k, c, v) VALUES (1, 1, 1.0)");
  f.ok("INSERT INTO d (k, c, v) VALUES (1, 2, 2)");
  CHECK(f.rows("SELECT avg(v) FROM d WHERE k = 1") == Rows{"1.5"});
  // A negative scale is raised to BigDecimal.ZERO's scale 0 by the first addition.
  f.ok("INSERT INTO d (k, c, v) VALUES (2, 1, 1E+3)");
  CHECK(f.rows("SELECT sum(v), avg(v) FROM d WHERE k = 2") == Rows{"1000|1000"});
  CHECK(f.rows("SELECT sum(v), avg(v) FROM d WHERE k = 3") == Rows{"0|0"});
}

TEST_CASE("cql select fidelity: avg of doubles that overflow the double sum") {
  SelectFixture f;
  f.ok("CREATE TABLE d (k int, c int, v double, PRIMARY KEY (k, c))");
  f.ok("INSERT INTO d (k, c, v) VALUES (0, 1, 1.7976931348623157E308)");
  f.ok("INSERT INTO d (k, c, v) VALUES (0, 2, 1.7976931348623157E308)");
  CHECK(f.rows("SELECT sum(v), avg(v) FROM d WHERE k = 0") == Rows{"Infinity|1.79769313486e+308"});
}

TEST_CASE("cql select fidelity: LIMIT and PER PARTITION LIMIT share their messages") {
  SelectFixture f;
  f.ok("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))");
  CHECK(f.error("SELECT * FROM t PER PARTITION LIMIT 0") == "LIMIT must be strictly positive");
  CHECK(f.error("SELECT * FROM t LIMIT 0") == "LIMIT must be strictly positive");
}

TEST_CASE("cql select fidelity: null values are reported after the preparation checks") {
  SelectFixture f;
  f.ok("CREATE TABLE t (a int, b int, c int, s int STATIC, e map<int, int>, PRIMARY KEY (a, b))");
  CHECK(f.error("SELECT * FROM t WHERE c = null") == kFiltering);
  CHECK(f.error("SELECT * FROM t WHERE c = null ALLOW FILTERING") ==
        "Unsupported null value for column c");
  CHECK(f.error("SELECT * FROM t WHERE s > null") == kFiltering);
  CHECK(f.error("SELECT * FROM t WHERE s > null ALLOW FILTERING") ==
        "Unsupported null value for column s");
  CHECK(f.error("SELECT * FROM t WHERE e[null] = 2 ALLOW FILTERING") ==
        "Unsupported null map key for column e");
  CHECK(f.error("SELECT * FROM t WHERE e[1] = null ALLOW FILTERING") ==
        "Unsupported null map value for column e");
  CHECK(f.error("SELECT * FROM t WHERE a = null") ==
        "Invalid null value in condition for column a");
  CHECK(f.error("SELECT * FROM t WHERE a = null AND c = 1") == kFiltering);
  CHECK(f.error("SELECT * FROM t WHERE a = 1 AND (b) IN ((null))") ==
        "Invalid null value for column b");
  CHECK(f.error("SELECT * FROM t WHERE a = 1 AND (b) IN ((null), (1))") ==
        "Invalid null value in condition for columns: [b]");
  CHECK(f.error("SELECT * FROM t WHERE a = 1 AND (b) = (null)") ==
        "Invalid null value for column b");
  CHECK(f.error("SELECT * FROM t WHERE a = 1 AND (b) > (null)") ==
        "Invalid null value in condition for column b");
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select fidelity: relations on durations and non-frozen UDTs") {
  SelectFixture f;
  f.ok("CREATE TYPE ud (i int, d duration)");
  f.ok(
      "CREATE TABLE t (k int PRIMARY KEY, d duration, l list<duration>, t tuple<int, duration>, "
      "u ud, fu frozen<ud>)");
  CHECK(f.error("SELECT * FROM t WHERE d > 1s ALLOW FILTERING") ==
        "Slice restrictions are not supported on duration columns");
  CHECK(f.error("SELECT * FROM t WHERE l > [1s] ALLOW FILTERING") ==
        "Slice restrictions are not supported on collections containing durations");
  CHECK(f.error("SELECT * FROM t WHERE t <= (1, 1s) ALLOW FILTERING") ==
        "Slice restrictions are not supported on tuples containing durations");
  CHECK(f.error("SELECT * FROM t WHERE u < {i: 1, d: 1s} ALLOW FILTERING") ==
        "Slice restrictions are not supported on UDTs containing durations");
  CHECK(f.error("SELECT * FROM t WHERE fu >= {i: 1, d: 1s} ALLOW FILTERING") ==
        "Slice restrictions are not supported on UDTs containing durations");
  CHECK(f.error("SELECT * FROM t WHERE u = {i: 1, d: 1s} ALLOW FILTERING") ==
        "Non-frozen UDT column 'u' (ud) cannot be restricted by any relation");
  CHECK(f.error("SELECT * FROM t WHERE u LIKE 'x' ALLOW FILTERING") ==
        "Non-frozen UDT column 'u' (ud) cannot be restricted by any relation");
  f.ok("INSERT INTO t (k, d) VALUES (0, 1s)");
  CHECK(f.rows("SELECT k FROM t WHERE d = 1s ALLOW FILTERING") == Rows{"0"});
}

TEST_CASE("cql select fidelity: token() over any values of the key's types") {
  SelectFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int, s text)");
  f.ok("INSERT INTO t (k, v) VALUES (1, 1)");
  // Murmur3 of the int 1: the token of the row and of the value are the same.
  CHECK(f.rows("SELECT token(k), token(v), token(1) FROM t") ==
        Rows{"-4069959284402364209|-4069959284402364209|-4069959284402364209"});
  CHECK(f.error("SELECT token(s) FROM t") ==
        "Type error: s cannot be passed as argument 0 of function system.token of type int");
  CHECK(f.error("SELECT token(k, v) FROM t") ==
        "Invalid number of arguments in call to function system.token: 1 required but 2 provided");
  CHECK(f.column_names("SELECT token(v), (int) 3 FROM t") == Rows{"system.token(v)", "(int)3"});
}

TEST_CASE("cql select fidelity: COUNT takes * or 1 only") {
  SelectFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY)");
  CHECK(f.error("SELECT COUNT(2) FROM t") == "Only COUNT(1) is supported, got COUNT(2)");
  CHECK(f.rows("SELECT COUNT(1) FROM t") == Rows{"0"});
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select fidelity: an IN of one value is an equality") {
  SelectFixture f;
  f.ok("CREATE TABLE t (k int, c int, v int, w int, PRIMARY KEY (k, c))");
  f.ok("CREATE INDEX ON t (w)");
  f.ok("INSERT INTO t (k, c, v, w) VALUES (1, 1, 1, 1)");
  f.ok("INSERT INTO t (k, c, v, w) VALUES (1, 2, 2, 2)");
  CHECK(f.error("SELECT * FROM t WHERE k = 1 AND c IN (1) AND c > 0") ==
        "c cannot be restricted by more than one relation if it includes an Equal");
  CHECK(f.error("SELECT * FROM t WHERE k = 1 AND (c) IN ((1)) AND (c) > (0)") ==
        "c cannot be restricted by more than one relation if it includes an Equal");
  CHECK(f.error("SELECT * FROM t WHERE k = 1 AND c IN (1, 2) AND c > 0") ==
        "c cannot be restricted by more than one relation if it includes a IN");
  // One value uses the index on w; two values would need filtering.
  CHECK(f.rows("SELECT c FROM t WHERE w IN (2)") == Rows{"2"});
  CHECK(f.error("SELECT c FROM t WHERE w IN (1, 2)") == kFiltering);
  CHECK(f.rows("SELECT c FROM t WHERE w IN (1, 2) ALLOW FILTERING") == Rows{"1", "2"});
}

}  // namespace cassette::test
