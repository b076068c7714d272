// Collections, UDTs, tuples and counters through INSERT/UPDATE/DELETE, with Cassandra's results
// and messages (cql3/validation/entities/{CollectionsTest,CountersTest,UserTypesTest}.java).
#include <doctest/doctest.h>

#include "tests/unit/cql_write_test_util.h"

using cassette::test::Rows;
using cassette::test::WriteFixture;

TEST_CASE("cql write collections: lists") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, l list<int>)");
  f.ok("INSERT INTO t (k, l) VALUES (0, [1, 2, 3])");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"[1, 2, 3]"});
  f.ok("UPDATE t SET l = l + [4, 5] WHERE k = 0");
  f.ok("UPDATE t SET l = [0] + l WHERE k = 0");
  f.ok("UPDATE t SET l = [-1] + l WHERE k = 0");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"[-1, 0, 1, 2, 3, 4, 5]"});
  f.ok("UPDATE t SET l[1] = 10 WHERE k = 0");
  f.ok("DELETE l[0] FROM t WHERE k = 0");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"[10, 1, 2, 3, 4, 5]"});
  f.ok("UPDATE t SET l = l - [2, 4] WHERE k = 0");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"[10, 1, 3, 5]"});
  // Overwriting replaces every element, also right after the last write.
  f.ok("UPDATE t SET l = [7, 8] WHERE k = 0");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"[7, 8]"});
  f.ok("UPDATE t SET l = [9] WHERE k = 0");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"[9]"});
  CHECK(f.error("UPDATE t SET l[5] = 1 WHERE k = 0") ==
        "List index 5 out of bound, list has size 1");
  CHECK(f.error("UPDATE t SET l[0] = 1 WHERE k = 1") ==
        "Attempted to set an element on a list which is null");
  CHECK(f.error("DELETE l[0] FROM t WHERE k = 1") ==
        "Attempted to delete an element from a list which is null");
  CHECK(f.error("INSERT INTO t (k, l) VALUES (0, {1, 2})") ==
        "Invalid set literal for l of type list<int>");
  CHECK(f.error("INSERT INTO t (k, l) VALUES (0, ['a'])") ==
        "Invalid list literal for l: value 'a' is not of type int");
  CHECK(f.error("INSERT INTO t (k, l) VALUES (0, [1, null])") ==
        "null is not supported inside collections");
  f.ok("DELETE l FROM t WHERE k = 0");
  CHECK(f.rows("SELECT l FROM t WHERE k = 0") == Rows{"null"});
  // With USING TIMESTAMP the overwrite is Cassandra's deletion at timestamp - 1.
  f.ok("INSERT INTO t (k, l) VALUES (2, [1, 2]) USING TIMESTAMP 100");
  f.ok("UPDATE t USING TIMESTAMP 200 SET l = [3] WHERE k = 2");
  CHECK(f.rows("SELECT l FROM t WHERE k = 2") == Rows{"[3]"});
}

TEST_CASE("cql write collections: sets and maps") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, s set<text>, m map<text, int>)");
  f.ok("INSERT INTO t (k, s, m) VALUES (0, {'b', 'a'}, {'x': 1, 'y': 2})");
  CHECK(f.rows("SELECT s, m FROM t") == Rows{"{'a', 'b'}|{'x': 1, 'y': 2}"});
  f.ok("UPDATE t SET s = s + {'c'}, m = m + {'z': 3} WHERE k = 0");
  f.ok("UPDATE t SET s = s - {'a'}, m = m - {'x'} WHERE k = 0");
  f.ok("UPDATE t SET m['y'] = 20 WHERE k = 0");
  CHECK(f.rows("SELECT s, m FROM t") == Rows{"{'b', 'c'}|{'y': 20, 'z': 3}"});
  f.ok("DELETE s['b'], m['z'] FROM t WHERE k = 0");
  CHECK(f.rows("SELECT s, m FROM t") == Rows{"{'c'}|{'y': 20}"});
  f.ok("UPDATE t SET s = {}, m = {'q': 1} WHERE k = 0");
  CHECK(f.rows("SELECT s, m FROM t") == Rows{"null|{'q': 1}"});
  CHECK(f.error("UPDATE t SET s[0] = 'a' WHERE k = 0") ==
        "Invalid operation (s[0] = 'a') for set column s");
  CHECK(f.error("UPDATE t SET m = m + {'a': 'b'} WHERE k = 0") ==
        "Value for a map addition has to be a map, but was: '{'a': 'b'}'");
  CHECK(f.error("UPDATE t SET m = m + {1} WHERE k = 0") ==
        "Value for a map addition has to be a map, but was: '{1}'");
  CHECK(f.error("UPDATE t SET m = m - {'v1': 1} WHERE k = 0") ==
        "Value for a map substraction has to be a set, but was: '{'v1': 1}'");
  CHECK(f.error("INSERT INTO t (k, m) VALUES (0, {'a': 'b'})") ==
        "Invalid map literal for m: value 'b' is not of type int");
  CHECK(f.error("INSERT INTO t (k, m) VALUES (0, {'a': null})") ==
        "null is not supported inside collections");
}

TEST_CASE("cql write collections: frozen collections, tuples and UDTs") {
  WriteFixture f;
  f.ok("CREATE TYPE addr (street text, zip int)");
  f.ok(
      "CREATE TABLE t (k int PRIMARY KEY, fl frozen<list<int>>, tu tuple<int, text>, "
      "a addr, fa frozen<addr>)");
  f.ok(
      "INSERT INTO t (k, fl, tu, a, fa) VALUES (0, [1, 2], (1, 'x'), {street: 's', zip: 1}, "
      "{street: 't'})");
  CHECK(f.rows("SELECT fl, tu, a, fa FROM t") ==
        Rows{"[1, 2]|(1, 'x')|{street: 's', zip: 1}|{street: 't', zip: null}"});
  f.ok("UPDATE t SET a.zip = 2 WHERE k = 0");
  CHECK(f.rows("SELECT a FROM t") == Rows{"{street: 's', zip: 2}"});
  f.ok("DELETE a.street FROM t WHERE k = 0");
  CHECK(f.rows("SELECT a FROM t") == Rows{"{street: null, zip: 2}"});
  CHECK(f.error("UPDATE t SET fl = fl + [3] WHERE k = 0") ==
        "Invalid operation (fl = fl + [3]) for frozen collection column fl");
  CHECK(f.error("UPDATE t SET fa.zip = 1 WHERE k = 0") ==
        "Invalid operation (fa.zip = 1) for frozen UDT column fa");
  CHECK(f.error("UPDATE t SET a.foo = 1 WHERE k = 0") ==
        "UDT column a does not have a field named foo");
  CHECK(f.error("INSERT INTO t (k, tu) VALUES (0, (1, 'x', 2))") ==
        "Invalid tuple literal for tu: too many elements. Type frozen<tuple<int, text>> expects 2 "
        "but got 3");
  CHECK(f.error("INSERT INTO t (k, a) VALUES (0, {foo: 1})") ==
        "Unknown field 'foo' in value of user defined type addr");
  CHECK(f.error("INSERT INTO t (k, a) VALUES (0, {zip: 'x'})") ==
        "Invalid user type literal for a: field zip is not of type int");
}

TEST_CASE("cql write collections: counters") {
  WriteFixture f;
  f.ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  f.ok("UPDATE c SET n = n + 5 WHERE k = 0");
  f.ok("UPDATE c SET n = n - 2 WHERE k = 0");
  f.ok("UPDATE c SET n = n + 1 WHERE k = 0");
  CHECK(f.rows("SELECT n FROM c WHERE k = 0") == Rows{"4"});
  CHECK(f.error("INSERT INTO c (k, n) VALUES (0, 1)") ==
        "INSERT statements are not allowed on counter tables, use UPDATE instead");
  CHECK(f.error("UPDATE c SET n = 1 WHERE k = 0") ==
        "Cannot set the value of counter column n (counters can only be incremented/decremented, "
        "not set)");
  CHECK(f.error("UPDATE c USING TTL 10 SET n = n + 1 WHERE k = 0") ==
        "Cannot provide custom TTL for counter updates");
  CHECK(f.error("UPDATE c USING TIMESTAMP 10 SET n = n + 1 WHERE k = 0") ==
        "Cannot provide custom timestamp for counter updates");
  CHECK(f.error("UPDATE c SET n = n + null WHERE k = 0") ==
        "Invalid null value for counter increment/decrement");
  CHECK(f.error("UPDATE c SET n = n + 1 WHERE k = 0 IF n = 1") ==
        "Conditions on counters are not supported");
  f.ok("DELETE n FROM c WHERE k = 0");
  CHECK(f.rows("SELECT n FROM c WHERE k = 0").empty());
}

TEST_CASE("cql write collections: TTL on elements, counters summed, UDT conditions") {
  WriteFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, l list<int>, m map<int, int>)");
  f.ok("INSERT INTO t (k, l, m) VALUES (0, [1], {1: 1})");
  f.ok("UPDATE t USING TTL 10 SET l = l + [2], m[2] = 2 WHERE k = 0");
  CHECK(f.rows("SELECT l, m FROM t") == Rows{"[1, 2]|{1: 1, 2: 2}"});
  f.clock().advance_seconds(11);
  CHECK(f.rows("SELECT l, m FROM t") == Rows{"[1]|{1: 1}"});

  f.ok("CREATE TABLE c (k int PRIMARY KEY, n counter, o counter)");
  f.ok("UPDATE c SET n = n + 1, n = n + 2, o = o - 3 WHERE k = 0");
  CHECK(f.rows("SELECT n, o FROM c") == Rows{"3|-3"});

  f.ok("CREATE TYPE ut (a int, b text)");
  for (std::string type : {"ut", "frozen<ut>"}) {
    f.ok("DROP TABLE IF EXISTS u");
    f.ok("CREATE TABLE u (k int PRIMARY KEY, v " + type + ")");
    f.ok("INSERT INTO u (k, v) VALUES (0, {a: 0, b: 'abc'})");
    CHECK(f.rows("UPDATE u SET v = {a: 0, b: 'abc'} WHERE k = 0 IF v = {a: 0, b: 'abc'}") ==
          Rows{"True"});
    CHECK(f.rows("UPDATE u SET v = {a: 0, b: 'abc'} WHERE k = 0 IF v > {a: 0}") == Rows{"True"});
    CHECK(f.rows("UPDATE u SET v = {a: 0, b: 'abc'} WHERE k = 0 IF v.b = 'abc' AND v.a < 1") ==
          Rows{"True"});
    CHECK(f.rows("UPDATE u SET v = {a: 0, b: 'abc'} WHERE k = 0 IF v = {a: 1}") ==
          Rows{"False|{a: 0, b: 'abc'}"});
    CHECK(f.error("UPDATE u SET v = {a: 0} WHERE k = 0 IF v.c = 1") ==
          "Unknown field c for column v");
    f.ok("INSERT INTO u (k, v) VALUES (0, {a: 0})");
    CHECK(f.rows("UPDATE u SET v = {a: 0} WHERE k = 0 IF v = {a: 0, b: null}") == Rows{"True"});
  }
}

TEST_CASE("cql write: an empty {} literal is a set literal in messages") {
  WriteFixture f;
  f.ok("CREATE TYPE addr (street text, zip int)");
  f.ok("CREATE TABLE t (k int PRIMARY KEY, a addr, l list<int>, m map<int, int>, s set<int>)");
  CHECK(f.error("UPDATE t SET a = {} WHERE k = 0") == "Invalid set literal for a of type addr");
  CHECK(f.error("UPDATE t SET l = {} WHERE k = 0") ==
        "Invalid set literal for l of type list<int>");
  CHECK(f.error("UPDATE t SET l = {1: 2} WHERE k = 0") ==
        "Invalid map literal for l of type list<int>");
  f.ok("UPDATE t SET m = {}, s = {} WHERE k = 0");
  CHECK(f.rows("SELECT * FROM t").empty());
}

TEST_CASE("cql write: prepend and tuple additions use Cassandra's operation texts") {
  WriteFixture f;
  f.ok(
      "CREATE TABLE t (k int PRIMARY KEY, v int, s set<int>, fl frozen<list<int>>, "
      "tu tuple<int, int>)");
  // Operation.Prepend prints itself with a '-' and checks the value first.
  CHECK(f.error("UPDATE t SET v = 1 + v WHERE k = 0") ==
        "Invalid operation (v = 1 - v) for non list column v");
  CHECK(f.error("UPDATE t SET s = {1} + s WHERE k = 0") ==
        "Invalid operation (s = {1} - s) for non list column s");
  CHECK(f.error("UPDATE t SET fl = [1] + fl WHERE k = 0") ==
        "Invalid operation (fl = [1] - fl) for frozen list column fl");
  CHECK(f.error("UPDATE t SET v = 'a' + v WHERE k = 0") ==
        "Invalid STRING constant (a) for \"v\" of type int");
  CHECK(f.error("UPDATE t SET tu = tu + (1, 1) WHERE k = 0") ==
        "Invalid operation (tu = tu + (1, 1)) for tuple column tu");
  CHECK(f.error("UPDATE t SET tu = tu - (1, 1) WHERE k = 0") ==
        "Invalid operation (tu = tu - (1, 1)) for non counter column tu");
}
