// SELECT end to end: restrictions, ordering, limits, selectors, aggregates, JSON, with the
// results and messages Cassandra 4.1 gives (cql3/validation/operations/Select*Test.java).
#include <doctest/doctest.h>

#include "tests/unit/cql_select_test_util.h"

namespace cassette::test {

namespace {

// k in 0..2, c in 0..3, v = "k-c".
void fill_kcv(SelectFixture& f) {
  f.ok("CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))");
  for (int k = 0; k < 3; ++k) {
    for (int c = 0; c < 4; ++c) {
      f.put(
          "t",
          {{"k", std::to_string(k)}, {"c", std::to_string(c)}, {"v", fmt::format("{}-{}", k, c)}});
    }
  }
}

}  // namespace

TEST_CASE("cql select: partition key and clustering slices") {
  SelectFixture f;
  fill_kcv(f);
  CHECK(f.column_names("SELECT * FROM t WHERE k = 1") == Rows{"k", "c", "v"});
  CHECK(f.rows("SELECT * FROM t WHERE k = 1") == Rows{"1|0|1-0", "1|1|1-1", "1|2|1-2", "1|3|1-3"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c > 1") == Rows{"2", "3"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c >= 1 AND c < 3") == Rows{"1", "2"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c <= 1") == Rows{"0", "1"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c > 2 AND c < 2").empty());
  CHECK(f.rows("SELECT c FROM t WHERE k = 7").empty());
  // IN on the partition key: key order, duplicates removed.
  CHECK(f.rows("SELECT k, c FROM t WHERE k IN (2, 0, 2) AND c = 1") == Rows{"0|1", "2|1"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c IN (3, 1, 3)") == Rows{"1", "3"});
  // No restriction: token order (tokens of 1, 0, 2 ascend).
  CHECK(f.rows("SELECT DISTINCT k FROM t") == Rows{"1", "0", "2"});
  CHECK(f.rows("SELECT k, c FROM t LIMIT 2") == Rows{"1|0", "1|1"});
}

TEST_CASE("cql select: token restrictions and token()") {
  SelectFixture f;
  fill_kcv(f);
  CHECK(f.column_names("SELECT token(k), k FROM t WHERE k = 0 LIMIT 1") ==
        Rows{"system.token(k)", "k"});
  CHECK(f.rows("SELECT token(k), k FROM t WHERE k = 0 LIMIT 1") == Rows{"-3485513579396041028|0"});
  CHECK(f.rows("SELECT DISTINCT k FROM t WHERE token(k) > token(1)") == Rows{"0", "2"});
  CHECK(f.rows("SELECT DISTINCT k FROM t WHERE token(k) >= token(0) AND token(k) < token(2)") ==
        Rows{"0"});
  CHECK(f.rows("SELECT DISTINCT k FROM t WHERE token(k) = -3485513579396041028") == Rows{"0"});
  CHECK(
      f.rows("SELECT DISTINCT k FROM t WHERE token(k) > token(2) AND token(k) < token(1)").empty());
  CHECK(f.rows("SELECT c FROM t WHERE token(k) > token(1) AND k = 2 AND c = 3") == Rows{"3"});
  CHECK(f.error("SELECT * FROM t WHERE token(k) > token(1) AND token(k) > token(2)") ==
        "More than one restriction was found for the start bound on k");
  CHECK(f.error("SELECT * FROM t WHERE token(k) > 0 AND k > 1") ==
        "Only EQ and IN relation are supported on the partition key (unless you use the token() "
        "function)");
  CHECK(f.error("SELECT * FROM t WHERE token(k) > 0 AND c = 1") == kFiltering);
}

TEST_CASE("cql select: ORDER BY") {
  SelectFixture f;
  fill_kcv(f);
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 ORDER BY c DESC") == Rows{"3", "2", "1", "0"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 ORDER BY c DESC LIMIT 2") == Rows{"3", "2"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c IN (3, 1) ORDER BY c DESC") == Rows{"3", "1"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c > 0 ORDER BY c DESC") == Rows{"3", "2", "1"});
  // IN on the partition key: sorted across partitions by the clustering columns.
  CHECK(f.rows("SELECT k, c FROM t WHERE k IN (0, 1) AND c IN (1, 2) ORDER BY c DESC") ==
        Rows{"0|2", "1|2", "0|1", "1|1"});
  CHECK(f.rows("SELECT v FROM t WHERE k IN (0, 1) AND c < 2 ORDER BY c DESC LIMIT 3") ==
        Rows{"0-1", "1-1", "0-0"});
  CHECK(f.error("SELECT * FROM t ORDER BY c DESC") ==
        "ORDER BY is only supported when the partition key is restricted by an EQ or an IN.");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 ORDER BY v DESC") ==
        "Order by is currently only supported on the clustered columns of the PRIMARY KEY, got v");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 ORDER BY x DESC") ==
        "Undefined column name x in table ks.t");
}

TEST_CASE("cql select: descending clustering order") {
  SelectFixture f;
  f.ok(
      "CREATE TABLE d (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY "
      "(c DESC)");
  for (int c = 0; c < 5; ++c) f.put("d", {{"k", "0"}, {"c", std::to_string(c)}, {"v", "0"}});
  CHECK(f.rows("SELECT c FROM d WHERE k = 0") == Rows{"4", "3", "2", "1", "0"});
  CHECK(f.rows("SELECT c FROM d WHERE k = 0 AND c > 1 AND c <= 3") == Rows{"3", "2"});
  CHECK(f.rows("SELECT c FROM d WHERE k = 0 AND c >= 3") == Rows{"4", "3"});
  CHECK(f.rows("SELECT c FROM d WHERE k = 0 AND c < 2 ORDER BY c ASC") == Rows{"0", "1"});
  CHECK(f.rows("SELECT c FROM d WHERE k = 0 AND c IN (1, 4, 2)") == Rows{"4", "2", "1"});
}

TEST_CASE("cql select: multi-column relations") {
  SelectFixture f;
  f.ok("CREATE TABLE m (k int, a int, b int, v int, PRIMARY KEY (k, a, b))");
  f.ok(
      "CREATE TABLE md (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) WITH CLUSTERING "
      "ORDER BY (a DESC, b ASC)");
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      std::map<std::string, std::string> row{
          {"k", "0"}, {"a", std::to_string(a)}, {"b", std::to_string(b)}, {"v", "0"}};
      f.put("m", row);
      f.put("md", row);
    }
  }
  CHECK(f.rows("SELECT a, b FROM m WHERE k = 0 AND (a, b) > (0, 1)") ==
        Rows{"0|2", "1|0", "1|1", "1|2", "2|0", "2|1", "2|2"});
  CHECK(f.rows("SELECT a, b FROM m WHERE k = 0 AND (a, b) >= (1, 1) AND (a, b) < (2, 1)") ==
        Rows{"1|1", "1|2", "2|0"});
  CHECK(f.rows("SELECT a, b FROM m WHERE k = 0 AND (a, b) IN ((2, 0), (0, 1))") ==
        Rows{"0|1", "2|0"});
  CHECK(f.rows("SELECT a, b FROM m WHERE k = 0 AND (a, b) = (1, 2)") == Rows{"1|2"});
  CHECK(f.rows("SELECT a, b FROM m WHERE k = 0 AND (a, b) > (0, 1) AND a < 2") ==
        Rows{"0|2", "1|0", "1|1", "1|2"});
  CHECK(f.rows("SELECT a, b FROM m WHERE k = 0 AND a = 1 AND (b) > (0)") == Rows{"1|1", "1|2"});
  // Mixed clustering order: the comparison is on values.
  CHECK(f.rows("SELECT a, b FROM md WHERE k = 0 AND (a, b) > (1, 0)") ==
        Rows{"2|0", "2|1", "2|2", "1|1", "1|2"});
  CHECK(f.rows("SELECT a, b FROM md WHERE k = 0 AND (a, b) <= (1, 0)") ==
        Rows{"1|0", "0|0", "0|1", "0|2"});
  CHECK(f.error("SELECT * FROM m WHERE k = 0 AND (a, b) = (1, 2) AND (a, b) = (1, 2)") ==
        "a, b cannot be restricted by more than one relation if it includes an Equal");
  CHECK(f.error("SELECT * FROM m WHERE (k, a) = (0, 1)") ==
        "Multi-column relations can only be applied to clustering columns but was applied to: k");
}

TEST_CASE("cql select: restriction errors") {
  SelectFixture f;
  fill_kcv(f);
  f.ok("CREATE TABLE t2 (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2))");
  CHECK(f.error("SELECT * FROM t WHERE c = 1") == kFiltering);
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND v = 'a'") == kFiltering);
  CHECK(f.error("SELECT * FROM t WHERE k > 0") == kFiltering);
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND c = 1 AND c = 2") ==
        "c cannot be restricted by more than one relation if it includes an Equal");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND c IN (1, 2) AND c = 2") ==
        "c cannot be restricted by more than one relation if it includes a IN");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND c > 1 AND c > 2") ==
        "More than one restriction was found for the start bound on c");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND c < 1 AND c <= 2") ==
        "More than one restriction was found for the end bound on c");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND c > 1 AND c = 2") ==
        "Column \"c\" cannot be restricted by both an equality and an inequality relation");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND x = 2") == "Undefined column name x");
  CHECK(f.error("SELECT x FROM t") == "Undefined column name x");
  CHECK(f.error("SELECT * FROM t2 WHERE k = 0 AND c2 = 1") ==
        "PRIMARY KEY column \"c2\" cannot be restricted as preceding column \"c1\" is not "
        "restricted");
  CHECK(f.error("SELECT * FROM t2 WHERE k = 0 AND c1 > 0 AND c2 = 1") ==
        "Clustering column \"c2\" cannot be restricted (preceding column \"c1\" is restricted by "
        "a non-EQ relation)");
  CHECK(f.error("SELECT * FROM t WHERE k = 0 AND v CONTAINS 'a' ALLOW FILTERING") ==
        "Cannot use CONTAINS on non-collection column v");
  CHECK(f.error("SELECT * FROM t WHERE k IN (0, 1) AND v = 'a' AND c > 0 AND k > 0 ALLOW "
                "FILTERING") ==
        "k cannot be restricted by more than one relation if it includes a IN");
}

TEST_CASE("cql select: filtering with ALLOW FILTERING") {
  SelectFixture f;
  fill_kcv(f);
  CHECK(f.rows("SELECT k, c FROM t WHERE v = '2-1' ALLOW FILTERING") == Rows{"2|1"});
  CHECK(f.rows("SELECT k, c FROM t WHERE c = 3 ALLOW FILTERING") == Rows{"1|3", "0|3", "2|3"});
  CHECK(f.rows("SELECT k, c FROM t WHERE k > 0 AND c = 0 ALLOW FILTERING") == Rows{"1|0", "2|0"});
  CHECK(f.rows("SELECT k, c FROM t WHERE k = 0 AND v > '0-1' ALLOW FILTERING") ==
        Rows{"0|2", "0|3"});
  f.ok("CREATE TABLE t2 (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2))");
  f.put("t2", {{"k", "0"}, {"c1", "0"}, {"c2", "1"}, {"v", "1"}});
  f.put("t2", {{"k", "0"}, {"c1", "1"}, {"c2", "2"}, {"v", "2"}});
  CHECK(f.rows("SELECT v FROM t2 WHERE k = 0 AND c2 = 2 ALLOW FILTERING") == Rows{"2"});
  f.ok("CREATE TABLE coll (k int PRIMARY KEY, s frozen<set<int>>, m frozen<map<text, int>>)");
  f.put("coll", {{"k", "0"}, {"s", "{1, 2}"}, {"m", "{'a': 1}"}});
  f.put("coll", {{"k", "1"}, {"s", "{3}"}, {"m", "{'b': 2}"}});
  CHECK(f.rows("SELECT k FROM coll WHERE s CONTAINS 2 ALLOW FILTERING") == Rows{"0"});
  CHECK(f.rows("SELECT k FROM coll WHERE m CONTAINS KEY 'b' ALLOW FILTERING") == Rows{"1"});
  CHECK(f.rows("SELECT k FROM coll WHERE m CONTAINS 1 ALLOW FILTERING") == Rows{"0"});
  CHECK(f.error("SELECT k FROM coll WHERE s CONTAINS 2") == kFiltering);
}

TEST_CASE("cql select: LIMIT, PER PARTITION LIMIT, DISTINCT") {
  SelectFixture f;
  fill_kcv(f);
  CHECK(f.rows("SELECT k, c FROM t PER PARTITION LIMIT 1") == Rows{"1|0", "0|0", "2|0"});
  CHECK(f.rows("SELECT k, c FROM t PER PARTITION LIMIT 2 LIMIT 3") == Rows{"1|0", "1|1", "0|0"});
  CHECK(f.rows("SELECT k, c FROM t WHERE k IN (0, 2) PER PARTITION LIMIT 1") == Rows{"0|0", "2|0"});
  CHECK(f.error("SELECT * FROM t LIMIT 0") == "LIMIT must be strictly positive");
  CHECK(f.error("SELECT * FROM t PER PARTITION LIMIT -1") == "LIMIT must be strictly positive");
  CHECK(f.error("SELECT DISTINCT k FROM t PER PARTITION LIMIT 1") ==
        "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries");
  CHECK(f.error("SELECT DISTINCT c FROM t") ==
        "SELECT DISTINCT queries must only request partition key columns and/or static columns "
        "(not c)");
  CHECK(f.error("SELECT DISTINCT k FROM t WHERE k = 0 AND c = 1") ==
        "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or "
        "static columns.");
  CHECK(f.rows("SELECT DISTINCT k FROM t WHERE k IN (2, 1)") == Rows{"1", "2"});
  CHECK(f.rows("SELECT DISTINCT k FROM t LIMIT 2") == Rows{"1", "0"});
  f.ok("CREATE TABLE c2 (a int, b int, c int, PRIMARY KEY ((a, b), c))");
  f.put("c2", {{"a", "0"}, {"b", "0"}, {"c", "0"}});
  CHECK(f.error("SELECT DISTINCT a FROM c2") ==
        "SELECT DISTINCT queries must request all the partition key columns (missing b)");
  CHECK(f.error("SELECT * FROM c2 WHERE a = 0") == kFiltering);
  CHECK(f.rows("SELECT c FROM c2 WHERE a = 0 ALLOW FILTERING") == Rows{"0"});
  CHECK(f.rows("SELECT c FROM c2 WHERE a = 0 AND b = 0") == Rows{"0"});
}

TEST_CASE("cql select: static columns") {
  SelectFixture f;
  f.ok("CREATE TABLE s (k int, c int, st int static, v int, PRIMARY KEY (k, c))");
  f.put("s", {{"k", "0"}, {"st", "42"}});
  CHECK(f.rows("SELECT * FROM s") == Rows{"0|null|42|null"});
  CHECK(f.rows("SELECT * FROM s WHERE k = 0 AND c = 1").empty());
  f.put("s", {{"k", "0"}, {"c", "1"}, {"v", "1"}});
  f.put("s", {{"k", "0"}, {"c", "2"}, {"v", "2"}});
  CHECK(f.rows("SELECT * FROM s") == Rows{"0|1|42|1", "0|2|42|2"});
  CHECK(f.rows("SELECT st FROM s WHERE k = 0") == Rows{"42", "42"});
  CHECK(f.rows("SELECT DISTINCT k, st FROM s") == Rows{"0|42"});
  CHECK(f.error("SELECT st FROM s WHERE k = 0 AND c = 1") ==
        "Cannot restrict clustering columns when selecting only static columns");
  CHECK(f.rows("SELECT k, c FROM s WHERE st = 42 ALLOW FILTERING") == Rows{"0|1", "0|2"});
}

TEST_CASE("cql select: writetime, ttl, aliases, casts") {
  SelectFixture f;
  f.ok("CREATE TABLE w (k int, c int, v int, t text, PRIMARY KEY (k, c))");
  f.put("w", {{"k", "0"}, {"c", "0"}, {"v", "7"}}, 1234, 100);
  f.put("w", {{"k", "0"}, {"c", "1"}, {"v", "8"}, {"t", "x"}}, 1235);
  CHECK(f.column_names("SELECT writetime(v), ttl(v) AS left, v AS value FROM w WHERE k = 0") ==
        Rows{"writetime(v)", "left", "value"});
  CHECK(f.rows("SELECT writetime(v), ttl(v) FROM w WHERE k = 0") == Rows{"1234|100", "1235|null"});
  f.clock().advance_seconds(10);
  CHECK(f.rows("SELECT ttl(v), ttl(t) FROM w WHERE k = 0 AND c = 0") == Rows{"90|null"});
  CHECK(f.error("SELECT writetime(k) FROM w") ==
        "Cannot use selection function writetime on PRIMARY KEY part k");
  CHECK(f.error("SELECT ttl(c) FROM w") ==
        "Cannot use selection function ttl on PRIMARY KEY part c");
  CHECK(f.column_names("SELECT CAST(v AS text) FROM w WHERE k = 0") == Rows{"cast(v as text)"});
  CHECK(f.rows("SELECT CAST(v AS text), CAST(v AS double) FROM w WHERE k = 0") ==
        Rows{"7|7", "8|8"});
  f.ok("CREATE TABLE cl (k int PRIMARY KEY, l list<int>)");
  // Cassandra 5.0: one write time per element, maxwritetime() the latest of them.
  f.ok("INSERT INTO cl (k, l) VALUES (1, [1, 2]) USING TIMESTAMP 7");
  f.ok("UPDATE cl USING TIMESTAMP 9 SET l = l + [3] WHERE k = 1");
  CHECK(f.column_names("SELECT writetime(l), maxwritetime(l), ttl(l) FROM cl") ==
        Rows{"writetime(l)", "maxwritetime(l)", "ttl(l)"});
  CHECK(f.rows("SELECT writetime(l), maxwritetime(l) FROM cl") == Rows{"[7, 7, 9]|9"});
  CHECK(f.error("SELECT maxwritetime(k) FROM cl") ==
        "Cannot use selection function maxwritetime on PRIMARY KEY part k");
}

TEST_CASE("cql select: aggregates") {
  SelectFixture f;
  f.ok("CREATE TABLE a (k int, c int, v int, d double, t text, PRIMARY KEY (k, c))");
  f.put("a", {{"k", "0"}, {"c", "0"}, {"v", "2147483647"}, {"d", "1.5"}, {"t", "b"}});
  f.put("a", {{"k", "0"}, {"c", "1"}, {"v", "1"}, {"d", "2.5"}, {"t", "a"}});
  f.put("a", {{"k", "0"}, {"c", "2"}, {"v", "10"}});
  CHECK(f.column_names("SELECT count(*), sum(v), avg(v), min(v), max(v), count(d) FROM a") ==
        Rows{"count", "system.sum(v)", "system.avg(v)", "system.min(v)", "system.max(v)",
             "system.count(d)"});
  // sum(int) wraps as Java's int; avg(int) is the int quotient of a long sum.
  CHECK(f.rows("SELECT count(*), sum(v), avg(v), min(v), max(v), count(d) FROM a WHERE k = 0") ==
        Rows{"3|-2147483638|715827886|1|2147483647|2"});
  CHECK(f.rows("SELECT sum(d), avg(d), min(t), max(t) FROM a") == Rows{"4|2|a|b"});
  CHECK(f.rows("SELECT count(*), max(v), sum(v) FROM a WHERE k = 5") == Rows{"0|null|0"});
  CHECK(f.rows("SELECT c, max(v) FROM a WHERE k = 0") == Rows{"0|2147483647"});
  CHECK(f.rows("SELECT count(1) FROM a") == Rows{"3"});
  CHECK(f.error("SELECT max(count(*)) FROM a") ==
        "aggregate functions cannot be used as arguments of aggregate functions");
  CHECK(f.error("SELECT count(*) FROM a PER PARTITION LIMIT 1") ==
        "PER PARTITION LIMIT is not allowed with aggregate queries.");
  CHECK(f.rows("SELECT count(*) FROM a LIMIT 1") == Rows{"3"});
}

TEST_CASE("cql select: GROUP BY") {
  SelectFixture f;
  f.ok("CREATE TABLE g (a int, b int, c int, v int, PRIMARY KEY (a, b, c))");
  int v = 0;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 2; ++c) {
        f.put("g", {{"a", std::to_string(a)},
                    {"b", std::to_string(b)},
                    {"c", std::to_string(c)},
                    {"v", std::to_string(v++)}});
      }
    }
  }
  // Token order of the partitions: a = 1, then a = 0.
  CHECK(f.rows("SELECT a, b, count(*), max(v) FROM g GROUP BY a, b") ==
        Rows{"1|0|2|5", "1|1|2|7", "0|0|2|1", "0|1|2|3"});
  CHECK(f.rows("SELECT a, sum(v) FROM g GROUP BY a") == Rows{"1|22", "0|6"});
  CHECK(f.rows("SELECT a, b, c FROM g WHERE a = 0 GROUP BY a, b") == Rows{"0|0|0", "0|1|0"});
  CHECK(f.rows("SELECT a, b, count(*) FROM g GROUP BY a, b LIMIT 3") ==
        Rows{"1|0|2", "1|1|2", "0|0|2"});
  CHECK(f.rows("SELECT a, b, count(*) FROM g GROUP BY a, b PER PARTITION LIMIT 1") ==
        Rows{"1|0|2", "0|0|2"});
  CHECK(f.rows("SELECT a, c, count(*) FROM g WHERE a = 0 AND b = 1 GROUP BY a, b, c") ==
        Rows{"0|0|1", "0|1|1"});
  CHECK(f.rows("SELECT count(*) FROM g WHERE a = 3 GROUP BY a").empty());
  CHECK(f.error("SELECT count(*) FROM g GROUP BY v") ==
        "Group by is currently only supported on the columns of the PRIMARY KEY, got v");
  CHECK(f.error("SELECT count(*) FROM g GROUP BY a, c") ==
        "Group by currently only support groups of columns following their declared order in "
        "the PRIMARY KEY");
  CHECK(f.error("SELECT count(*) FROM g GROUP BY b") ==
        "Group by currently only support groups of columns following their declared order in "
        "the PRIMARY KEY");
}

TEST_CASE("cql select: SELECT JSON") {
  SelectFixture f;
  f.ok("CREATE TABLE j (k int, c int, v text, \"Up\" int, PRIMARY KEY (k, c))");
  f.put("j", {{"k", "0"}, {"c", "1"}, {"v", "a\"b"}, {"Up", "3"}});
  f.put("j", {{"k", "0"}, {"c", "2"}});
  CHECK(f.column_names("SELECT JSON * FROM j") == Rows{"[json]"});
  CHECK(f.texts("SELECT JSON k, v, \"Up\" FROM j WHERE k = 0") ==
        Rows{"{\"k\": 0, \"v\": \"a\\\"b\", \"\\\"Up\\\"\": 3}",
             "{\"k\": 0, \"v\": null, \"\\\"Up\\\"\": null}"});
  CHECK(f.texts("SELECT JSON count(*) FROM j") == Rows{"{\"count\": 2}"});
  CHECK(f.texts("SELECT JSON c AS x, writetime(v) FROM j WHERE k = 0 AND c = 1") ==
        Rows{"{\"x\": 1, \"writetime(v)\": 1000}"});
  CHECK(f.texts("SELECT toJson(v) FROM j WHERE k = 0 AND c = 1") == Rows{"\"a\\\"b\""});
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select: collections, secondary indexes, SELECT * order") {
  SelectFixture f;
  f.ok("CREATE TABLE c (k int PRIMARY KEY, s set<int>, m map<text, int>, l list<int>, v int)");
  f.ok("CREATE INDEX ON c (v)");
  f.ok("CREATE INDEX ON c (s)");
  f.ok("CREATE INDEX ON c (keys(m))");
  f.ok("INSERT INTO c (k, s, m, l, v) VALUES (0, {1, 2}, {'a': 1}, [1, 2], 10)");
  f.ok("INSERT INTO c (k, s, m, l, v) VALUES (1, {3}, {'b': 2}, [3], 20)");
  // Regular columns in alphabetical order after the key.
  CHECK(f.column_names("SELECT * FROM c") == Rows{"k", "l", "m", "s", "v"});
  CHECK(f.rows("SELECT * FROM c") == Rows{"1|[3]|{'b': 2}|{3}|20", "0|[1, 2]|{'a': 1}|{1, 2}|10"});
  // Queries an index supports need no ALLOW FILTERING.
  CHECK(f.rows("SELECT k FROM c WHERE v = 10") == Rows{"0"});
  CHECK(f.rows("SELECT k FROM c WHERE s CONTAINS 3") == Rows{"1"});
  CHECK(f.rows("SELECT k FROM c WHERE m CONTAINS KEY 'a'") == Rows{"0"});
  CHECK(f.error("SELECT k FROM c WHERE m['b'] = 2") == kFiltering);
  CHECK(f.rows("SELECT k FROM c WHERE m['b'] = 2 ALLOW FILTERING") == Rows{"1"});
  CHECK(f.error("SELECT k FROM c WHERE v = 10 AND s CONTAINS 3") == kFiltering);
  CHECK(f.rows("SELECT k FROM c WHERE v = 20 AND s CONTAINS 3 ALLOW FILTERING") == Rows{"1"});
  CHECK(f.error("SELECT k FROM c WHERE v > 10") == kFiltering);
  CHECK(f.error("SELECT k FROM c WHERE v = 10 ORDER BY k") ==
        "ORDER BY with 2ndary indexes is not supported.");
  CHECK(f.rows("SELECT k FROM c WHERE l CONTAINS 3 ALLOW FILTERING") == Rows{"1"});
  CHECK(f.error("SELECT k FROM c WHERE s = {1, 2}") ==
        "Collection column 's' (set<int>) cannot be restricted by a '=' relation");
  CHECK(f.error("SELECT k FROM c WHERE s > {1} ALLOW FILTERING") ==
        "Collection column 's' (set<int>) cannot be restricted by a '>' relation");
  CHECK(f.error("SELECT k FROM c WHERE l[0] = 1 ALLOW FILTERING") ==
        "Indexes on list entries (l[index] = value) are not currently supported.");
  CHECK(f.error("SELECT k FROM c WHERE v CONTAINS KEY 1 ALLOW FILTERING") ==
        "Cannot use CONTAINS KEY on non-map column v");
  // Element and slice selection.
  CHECK(f.column_names("SELECT m['a'], s[2], m['a'..'c'] FROM c") ==
        Rows{"m['a']", "s[2]", "m['a'..'c']"});
  CHECK(f.rows("SELECT k, m['a'], s[2], m['a'..'c'] FROM c") ==
        Rows{"1|null|null|{'b': 2}", "0|1|2|{'a': 1}"});
  CHECK(f.column_names("SELECT writetime(s), ttl(m) FROM c") == Rows{"writetime(s)", "ttl(m)"});
  CHECK(f.texts("SELECT JSON k, s, m FROM c WHERE k = 0") ==
        Rows{"{\"k\": 0, \"s\": [1, 2], \"m\": {\"a\": 1}}"});
}

TEST_CASE("cql select: terms and functions in the selection") {
  SelectFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int, ts timestamp)");
  f.ok("INSERT INTO t (k, v, ts) VALUES (0, 5, '2024-01-02 03:04:05+0000')");
  CHECK(f.column_names("SELECT (int)3, (text)'x' FROM t") == Rows{"(int)3", "(text)'x'"});
  CHECK(f.rows("SELECT (int)3, (text)'x' FROM t") == Rows{"3|x"});
  CHECK(f.error("SELECT 3 FROM t") ==
        "Cannot infer type for term 3 in selection clause (try using a cast to force a type)");
  CHECK(f.column_names("SELECT toUnixTimestamp(ts) FROM t") == Rows{"system.tounixtimestamp(ts)"});
  CHECK(f.rows("SELECT toUnixTimestamp(ts) FROM t") == Rows{"1704164645000"});
  CHECK(f.rows("SELECT max(toUnixTimestamp(ts)) FROM t") == Rows{"1704164645000"});
  CHECK(f.column_names("SELECT max(toUnixTimestamp(ts)) FROM t") ==
        Rows{"system.max(system.tounixtimestamp(ts))"});
  CHECK(f.error("SELECT sum(ts) FROM t") ==
        "Invalid call to function system.sum, none of its type signatures match (known type "
        "signatures: system.sum : (tinyint) -> tinyint, system.sum : (smallint) -> smallint, "
        "system.sum : (int) -> int, system.sum : (bigint) -> bigint, system.sum : (float) -> "
        "float, system.sum : (double) -> double, system.sum : (decimal) -> decimal, system.sum : "
        "(varint) -> varint, system.sum : (counter) -> bigint)");
}

TEST_CASE("cql select: more partition key rules") {
  SelectFixture f;
  f.ok("CREATE TABLE p (a int, b int, c int, v int, PRIMARY KEY ((a, b), c))");
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      f.ok(fmt::format("INSERT INTO p (a, b, c, v) VALUES ({}, {}, 0, {})", a, b, a * 2 + b));
    }
  }
  CHECK(f.rows("SELECT v FROM p WHERE a IN (1, 0) AND b IN (1, 0)") == Rows{"0", "1", "2", "3"});
  // Cassandra 4.1 filters with IN on a partition key component (CASSANDRA-14344); rows come in
  // token order: (0, 0), (0, 1), (1, 0), (1, 1).
  CHECK(f.rows("SELECT v FROM p WHERE a IN (1, 0) ALLOW FILTERING") == Rows{"0", "1", "2", "3"});
  CHECK(f.rows("SELECT v FROM p WHERE a IN (1) AND b IN (1, 0) AND v > 2 ALLOW FILTERING") ==
        Rows{"3"});
  CHECK(f.error("SELECT v FROM p WHERE a IN (1, 0)") == kFiltering);
  CHECK(f.error("SELECT v FROM p WHERE token(a) > 0") ==
        "The token() function must be applied to all partition key components or none of them");
  CHECK(f.error("SELECT v FROM p WHERE token(b, a) > 0") ==
        "The token function arguments must be in the partition key order: a, b");
  CHECK(f.error("SELECT v FROM p WHERE a = 0 AND b = 0 AND c = 0 AND v = 0") == kFiltering);
  CHECK(f.rows("SELECT v FROM p WHERE a = 0 AND b = 1 AND c = 0 AND v = 1 ALLOW FILTERING") ==
        Rows{"1"});
  CHECK(f.error("SELECT v FROM p WHERE a = 0 AND b = 1 AND v != 1 ALLOW FILTERING") ==
        "Unsupported \"!=\" relation: v != 1");
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select: static columns with an index, DISTINCT on statics") {
  SelectFixture f;
  f.ok("CREATE TABLE s (k int, p int, s int static, v int, PRIMARY KEY (k, p))");
  f.ok("CREATE INDEX ON s (v)");
  f.ok("INSERT INTO s (k, p, s, v) VALUES (0, 0, 42, 1)");
  f.ok("INSERT INTO s (k, p, v) VALUES (0, 1, 1)");
  f.ok("INSERT INTO s (k, p, v) VALUES (0, 2, 2)");
  CHECK(f.rows("SELECT * FROM s WHERE v = 1") == Rows{"0|0|42|1", "0|1|42|1"});
  CHECK(f.rows("SELECT p, s FROM s WHERE v = 1") == Rows{"0|42", "1|42"});
  CHECK(f.error("SELECT s FROM s WHERE v = 1") ==
        "Queries using 2ndary indexes don't support selecting only static columns");
  CHECK(f.error("SELECT p FROM s WHERE k IN (0, 1) AND v = 1") ==
        "Select on indexed columns and with IN clause for the PRIMARY KEY are not supported");
  CHECK(f.rows("SELECT DISTINCT s FROM s WHERE k = 0") == Rows{"42"});
  CHECK(f.rows("SELECT DISTINCT s FROM s WHERE k = 2").empty());
  CHECK(f.error("SELECT DISTINCT s FROM s") ==
        "SELECT DISTINCT queries must request all the partition key columns (missing k)");
  CHECK(f.rows("SELECT * FROM s WHERE k = 0 LIMIT 2") == Rows{"0|0|42|1", "0|1|42|1"});
}

}  // namespace cassette::test

namespace cassette::test {

// From Cassandra's SelectGroupByTest.testGroupByWithoutPaging.
TEST_CASE("cql select: GROUP BY as SelectGroupByTest") {
  SelectFixture f;
  f.ok("CREATE TABLE g (a int, b int, c int, d int, e int, primary key (a, b, c, d))");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (1, 2, 1, 3, 6)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (1, 2, 2, 6, 12)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (1, 3, 2, 12, 24)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (1, 4, 2, 12, 24)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (1, 4, 2, 6, 12)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (2, 2, 3, 3, 6)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (2, 4, 3, 6, 12)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (3, 3, 2, 12, 24)");
  f.ok("INSERT INTO g (a, b, c, d, e) VALUES (4, 8, 2, 12, 24)");
  // Some tombstones.
  f.ok("DELETE FROM g WHERE a = 1 AND b = 3 AND c = 2 AND d = 12");
  f.ok("DELETE FROM g WHERE a = 3");
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g GROUP BY a") ==
        Rows{"1|2|6|4|24", "2|2|6|2|12", "4|8|24|1|24"});
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g GROUP BY a, b") ==
        Rows{"1|2|6|2|12", "1|4|12|2|24", "2|2|6|1|6", "2|4|12|1|12", "4|8|24|1|24"});
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g WHERE b = 2 GROUP BY a, b ALLOW "
               "FILTERING") == Rows{"1|2|6|2|12", "2|2|6|1|6"});
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g WHERE b IN () GROUP BY a, b ALLOW "
               "FILTERING")
            .empty());
  CHECK(f.rows("SELECT a, b, c, d FROM g GROUP BY a, b") ==
        Rows{"1|2|1|3", "1|4|2|6", "2|2|3|3", "2|4|3|6", "4|8|2|12"});
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g GROUP BY a, b PER PARTITION LIMIT 1 "
               "LIMIT 2") == Rows{"1|2|6|2|12", "2|2|6|1|6"});
  CHECK(f.rows("SELECT a, b, c, d FROM g GROUP BY a, b, c PER PARTITION LIMIT 2 LIMIT 3") ==
        Rows{"1|2|1|3", "1|2|2|6", "2|2|3|3"});
  CHECK(f.rows("SELECT DISTINCT a, count(a) FROM g GROUP BY a") == Rows{"1|1", "2|1", "4|1"});
  CHECK(f.rows("SELECT DISTINCT a, count(a) FROM g GROUP BY a LIMIT 2") == Rows{"1|1", "2|1"});
  CHECK(f.error("SELECT DISTINCT a, count(a) FROM g GROUP BY a, b") ==
        "Grouping on clustering columns is not allowed for SELECT DISTINCT queries");
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g WHERE a = 1 GROUP BY b, c") ==
        Rows{"1|2|6|1|6", "1|2|12|1|12", "1|4|12|2|24"});
  CHECK(f.rows("SELECT a, b, c, d FROM g WHERE a = 1 and token(a) = token(1) GROUP BY b, c") ==
        Rows{"1|2|1|3", "1|2|2|6", "1|4|2|6"});
  CHECK(f.rows("SELECT count(b), max(e) FROM g WHERE a = 1 GROUP BY a, b, c LIMIT 1") ==
        Rows{"1|6"});
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g WHERE a = 1 GROUP BY a, b, c ORDER BY "
               "b DESC, c DESC") == Rows{"1|4|24|2|24", "1|2|12|1|12", "1|2|6|1|6"});
  CHECK(f.rows("SELECT a, b, c, count(b), max(e) FROM g WHERE a IN (1, 2, 4) GROUP BY a, b "
               "ORDER BY b DESC, c DESC") ==
        Rows{"4|8|2|1|24", "2|4|3|1|12", "1|4|2|2|24", "2|2|3|1|6", "1|2|2|2|12"});
  CHECK(f.rows("SELECT a, b, e, count(b), max(e) FROM g") == Rows{"1|2|6|7|24"});
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select: UDT fields, decimal and varint aggregates, nulls in restrictions") {
  SelectFixture f;
  f.ok("CREATE TYPE addr (street text, zip int)");
  f.ok(
      "CREATE TABLE u (k int PRIMARY KEY, a frozen<addr>, b addr, fl frozen<list<int>>, n int, "
      "d decimal, vi varint, f float)");
  f.ok(
      "INSERT INTO u (k, a, b, fl, n, d, vi, f) VALUES (0, {street: 'x', zip: 1}, {street: "
      "'y', zip: 2}, [1, 2], 3, 1.5, 10, 1.25)");
  f.ok("INSERT INTO u (k, a, d, vi, f) VALUES (1, {street: 'z'}, 2.25, 11, 2.5)");
  CHECK(f.column_names("SELECT a.street, b.zip FROM u") == Rows{"a.street", "b.zip"});
  CHECK(f.rows("SELECT a.street, a.zip, b.zip FROM u") == Rows{"z|null|null", "x|1|2"});
  CHECK(f.error("SELECT a.foo FROM u") == "a of type frozen<addr> has no field foo");
  CHECK(f.error("SELECT n.foo FROM u") ==
        "Invalid field selection: n of type int is not a user type");
  // Cassandra 5.0: a TTL per field of a non-frozen UDT (null: no TTL), null without cells.
  CHECK(f.rows("SELECT ttl(b), maxwritetime(b) FROM u WHERE k = 1") == Rows{"null|null"});
  CHECK(f.rows("SELECT ttl(b) FROM u WHERE k = 0") == Rows{"[null, null]"});
  CHECK(f.texts("SELECT JSON a, b FROM u WHERE k = 0") ==
        Rows{"{\"a\": {\"street\": \"x\", \"zip\": 1}, \"b\": {\"street\": \"y\", \"zip\": 2}}"});
  // avg(decimal) is Cassandra's running average, rounded half-even at each step: rows come
  // in token order (2.25 then 1.5), so 2.25 + (1.50 - 2.25) / 2 = 2.25 - 0.38 = 1.87.
  CHECK(f.rows("SELECT sum(d), avg(d), sum(vi), avg(vi), sum(f), avg(f), min(d), max(vi) FROM u") ==
        Rows{"3.75|1.87|21|10|3.75|1.875|1.5|11"});
  CHECK(f.rows("SELECT k FROM u WHERE a = {street: 'x', zip: 1} ALLOW FILTERING") == Rows{"0"});
  CHECK(f.rows("SELECT k FROM u WHERE fl CONTAINS 2 ALLOW FILTERING") == Rows{"0"});
  CHECK(f.rows("SELECT k, n FROM u WHERE n IN (3, 4) ALLOW FILTERING") == Rows{"0|3"});
  CHECK(f.rows("SELECT k FROM u WHERE k IN ()").empty());
  CHECK(f.rows("SELECT count(*) FROM u WHERE k IN ()") == Rows{"0"});
  CHECK(f.error("SELECT k FROM u WHERE k = null") ==
        "Invalid null value in condition for column k");
  CHECK(f.error("SELECT k FROM u WHERE n = null ALLOW FILTERING") ==
        "Unsupported null value for column n");
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select: aggregation warnings") {
  SelectFixture f;
  fill_kcv(f);
  auto warnings = [&](std::string_view q) {
    auto r = f.run(q);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return r->warnings;
  };
  CHECK(warnings("SELECT count(*) FROM t") ==
        std::vector<std::string>{"Aggregation query used without partition key"});
  CHECK(warnings("SELECT k, count(*) FROM t GROUP BY k") ==
        std::vector<std::string>{"Aggregation query used without partition key"});
  CHECK(warnings("SELECT count(*) FROM t WHERE k IN (0, 1)") ==
        std::vector<std::string>{
            "Aggregation query used on multiple partition keys (IN restriction)"});
  CHECK(warnings("SELECT count(*) FROM t WHERE k = 0").empty());
  CHECK(warnings("SELECT * FROM t").empty());
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select: arithmetic in the selection") {
  SelectFixture f;
  f.ok("CREATE TABLE ar (k int PRIMARY KEY, i int, b bigint, t tinyint, fl float, d double)");
  f.ok("INSERT INTO ar (k, i, b, t, fl, d) VALUES (0, 2147483647, 10, 127, 1.5, 0.25)");
  CHECK(f.column_names("SELECT i + 1, -i, b * 2, i - b FROM ar") ==
        Rows{"i + 1", "-i", "b * 2", "i - b"});
  // int + int wraps as Java's int; int - bigint is a bigint.
  CHECK(f.rows("SELECT i + 1, -i, b * 2, i - b, t + t, b % 3, b / 4 FROM ar") ==
        Rows{"-2147483648|-2147483647|20|2147483637|-2|1|2"});
  CHECK(f.rows("SELECT fl * 2, d + fl, i + 0.5 FROM ar") == Rows{"3|1.75|2147483647.5"});
  CHECK(f.error("SELECT i / 0 FROM ar") == "the operation 'int / int' failed: / by zero");
}

}  // namespace cassette::test

namespace cassette::test {

TEST_CASE("cql select: key validation and error precedence") {
  SelectFixture f;
  f.ok("CREATE TABLE kt (k text, c int, v int, PRIMARY KEY (k, c))");
  CHECK(f.error("SELECT * FROM kt WHERE k = ''") == "Key may not be empty");
  CHECK(f.error("SELECT * FROM kt WHERE k = 'a' AND c IN ('', 1)") ==
        "Invalid STRING constant () for \"c\" of type int");
  // Unknown selected columns are reported before WHERE clause errors, selector errors after.
  CHECK(f.error("SELECT x FROM kt WHERE v = 1") == "Undefined column name x");
  CHECK(f.error("SELECT writetime(k) FROM kt WHERE v = 1") == kFiltering);
  CHECK(f.error("SELECT * FROM kt WHERE k = 'a' ORDER BY x") ==
        "Undefined column name x in table ks.kt");
}

}  // namespace cassette::test

namespace cassette::test {

// From Cassandra's SelectMultiColumnRelationTest.testMultiClusteringInvalidQueries.
TEST_CASE("cql select: multi-column relation errors") {
  SelectFixture f;
  f.ok("CREATE TABLE mc (a int, b int, c int, d int, PRIMARY KEY (a, b, c, d))");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b, c) > (1, 2, 3)") ==
        "Expected 2 elements in value tuple, but got 3: (1, 2, 3)");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b, c) > (1, null)") ==
        "Invalid null value in condition for column c");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (d, c, b) = (0, 0, 0)") ==
        "Clustering columns must appear in the PRIMARY KEY order in multi-column relations: "
        "(d, c, b) = (0, 0, 0)");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b, c, d) IN ((0, 1))") ==
        "Expected 3 elements in value tuple, but got 2: (0, 1)");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (c, d) = (0, 0)") ==
        "PRIMARY KEY column \"c\" cannot be restricted as preceding column \"b\" is not "
        "restricted");
  // An IN of one tuple is an EQRestriction (MultiColumnRelation.newINRestriction).
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b, c, d) IN ((1, 2, null))") ==
        "Invalid null value for column d");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b, c, d) IN ((1, 2, null), (1, 2, 3))") ==
        "Invalid null value in condition for columns: [b, c, d]");
  CHECK(f.error("SELECT * FROM mc WHERE (c, d) IN ((0, 1))") ==
        "PRIMARY KEY column \"c\" cannot be restricted as preceding column \"b\" is not "
        "restricted");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND b > 0 AND (c, d) IN ((0, 0))") ==
        "Clustering column \"c\" cannot be restricted (preceding column \"b\" is restricted by "
        "a non-EQ relation)");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (c, d) > (0, 0) AND b > 0") ==
        "PRIMARY KEY column \"c\" cannot be restricted (preceding column \"b\" is restricted by "
        "a non-EQ relation)");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b, c) > (0, 0) AND (b) < (0) AND (c) < (0)") ==
        "Column \"c\" cannot be restricted by two inequalities not starting with the same column");
  CHECK(f.error("SELECT * FROM mc WHERE a = 0 AND (b) < (0) AND (c) < (0) AND (b, c) > (0, 0)") ==
        "Clustering column \"c\" cannot be restricted (preceding column \"b\" is restricted by "
        "a non-EQ relation)");
  for (int b = 0; b < 2; ++b) {
    for (int c = 0; c < 2; ++c) {
      f.ok(fmt::format("INSERT INTO mc (a, b, c, d) VALUES (0, {}, {}, 0)", b, c));
    }
  }
  CHECK(f.rows("SELECT b, c FROM mc WHERE a = 0 AND (b, c, d) > (0, 0, 0) AND b < 1") ==
        Rows{"0|1"});
  CHECK(f.rows("SELECT b, c FROM mc WHERE a = 0 and b IN (0, 1) and (c, d) > (0, 0)") ==
        Rows{"0|1", "1|1"});
  CHECK(f.rows("SELECT b, c FROM mc WHERE a = 0 and (b, c) IN ((1, 0), (0, 1)) and d = 0") ==
        Rows{"0|1", "1|0"});
}

}  // namespace cassette::test
