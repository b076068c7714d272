// Parser tests: INSERT, UPDATE, DELETE, BATCH and terms.
#include <doctest/doctest.h>

#include "engine/cql/parser.h"
#include "tests/unit/parser_test_util.h"

using namespace cassette;
using namespace cassette::cql;
using types::ConstantKind;

namespace {

void check_constant(const TermPtr& t, ConstantKind kind, std::string_view text) {
  REQUIRE(t);
  CHECK(t->kind == Term::Kind::kConstant);
  CHECK(t->constant_kind == kind);
  CHECK(t->text == text);
}

}  // namespace

TEST_CASE("parser: INSERT") {
  auto s = parse_as<InsertStatement>(
      "INSERT INTO ks.\"Tab\" (k, \"V\", key) VALUES (1, 'it''s', -2.5) IF NOT EXISTS USING TTL 10 "
      "AND TIMESTAMP 42");
  CHECK(s.table.keyspace == "ks");
  CHECK(s.table.name == "Tab");
  CHECK(s.columns == std::vector<std::string>{"k", "V", "key"});
  REQUIRE(s.values.size() == 3);
  check_constant(s.values[0], ConstantKind::kInteger, "1");
  check_constant(s.values[1], ConstantKind::kString, "it's");
  CHECK(s.values[1]->source == "'it''s'");
  check_constant(s.values[2], ConstantKind::kFloat, "-2.5");
  CHECK(s.if_not_exists);
  check_constant(s.using_clause.ttl, ConstantKind::kInteger, "10");
  check_constant(s.using_clause.timestamp, ConstantKind::kInteger, "42");
  CHECK_FALSE(s.json);

  s = parse_as<InsertStatement>("insert into T (K) values (?) using timestamp 1 and ttl :t");
  CHECK(s.table.name == "t");
  CHECK(s.columns == std::vector<std::string>{"k"});
  CHECK(s.values[0]->kind == Term::Kind::kBindMarker);
  CHECK(s.using_clause.ttl->kind == Term::Kind::kBindMarker);
  CHECK(s.using_clause.ttl->text == "t");

  s = parse_as<InsertStatement>("INSERT INTO t JSON '{\"k\": 1}' DEFAULT UNSET IF NOT EXISTS");
  CHECK(s.json);
  check_constant(s.json_value, ConstantKind::kString, "{\"k\": 1}");
  CHECK(s.json_default_unset);
  CHECK(s.if_not_exists);
  s = parse_as<InsertStatement>("INSERT INTO t JSON '{}' DEFAULT NULL");
  CHECK_FALSE(s.json_default_unset);

  CHECK(parse_error("INSERT INTO t (a) VALUES (1) USING TTL 'x'") ==
        "line 1:39 no viable alternative at input 'x' (...VALUES (1) USING TTL ['x'])");
}

TEST_CASE("parser: terms") {
  auto values = [](std::string_view text) {
    return parse_as<InsertStatement>(fmt::format("INSERT INTO t (a) VALUES ({})", text)).values;
  };
  auto v = values(
      "[1, 2], {'a', 'b'}, {'k': 1, 'l': 2}, {}, (1, 'x'), {f: 1, \"G\": [3]}, null, true, "
      "0xff, 123e4567-e89b-12d3-a456-426614174000, 1h, NaN, -Infinity, (int) 3, now(), "
      "ks.f(1, 2), -x(), 1 + 2 * 3, $$x$$");
  REQUIRE(v.size() == 19);
  CHECK(v[0]->kind == Term::Kind::kList);
  CHECK(v[0]->elements.size() == 2);
  CHECK(v[0]->source == "[1, 2]");
  CHECK(v[1]->kind == Term::Kind::kSet);
  CHECK(v[1]->elements[1]->text == "b");
  CHECK(v[2]->kind == Term::Kind::kMap);
  REQUIRE(v[2]->entries.size() == 2);
  CHECK(v[2]->entries[1].first->text == "l");
  CHECK(v[2]->entries[1].second->text == "2");
  CHECK(v[3]->kind == Term::Kind::kMap);
  CHECK(v[3]->entries.empty());
  CHECK(v[4]->kind == Term::Kind::kTuple);
  CHECK(v[4]->elements.size() == 2);
  CHECK(v[5]->kind == Term::Kind::kUserType);
  REQUIRE(v[5]->fields.size() == 2);
  CHECK(v[5]->fields[0].first == "f");
  CHECK(v[5]->fields[1].first == "G");
  CHECK(v[5]->fields[1].second->kind == Term::Kind::kList);
  CHECK(v[6]->kind == Term::Kind::kNull);
  check_constant(v[7], ConstantKind::kBoolean, "true");
  check_constant(v[8], ConstantKind::kHex, "0xff");
  check_constant(v[9], ConstantKind::kUuid, "123e4567-e89b-12d3-a456-426614174000");
  check_constant(v[10], ConstantKind::kDuration, "1h");
  check_constant(v[11], ConstantKind::kFloat, "NaN");
  check_constant(v[12], ConstantKind::kFloat, "-Infinity");
  CHECK(v[13]->kind == Term::Kind::kTypeHint);
  CHECK(v[13]->type == types::CqlType::simple(types::TypeKind::kInt));
  check_constant(v[13]->elements[0], ConstantKind::kInteger, "3");
  CHECK(v[14]->kind == Term::Kind::kFunctionCall);
  CHECK(v[14]->function.name == "now");
  CHECK(v[14]->function.keyspace == "");
  CHECK(v[14]->elements.empty());
  CHECK(v[15]->function.keyspace == "ks");
  CHECK(v[15]->function.name == "f");
  CHECK(v[15]->elements.size() == 2);
  CHECK(v[16]->kind == Term::Kind::kNegation);
  CHECK(v[16]->elements[0]->function.name == "x");
  CHECK(v[17]->kind == Term::Kind::kFunctionCall);
  CHECK(v[17]->function.name == "_add");
  CHECK(v[17]->elements[1]->function.name == "_multiply");
  CHECK(v[17]->source == "1 + 2 * 3");
  check_constant(v[18], ConstantKind::kString, "x");
  // a repeated user type field keeps its last value, as the grammar's map of fields does
  auto udt = values("{f: 1, g: 2, f: 3}");
  REQUIRE(udt[0]->fields.size() == 2);
  CHECK(udt[0]->fields[0].first == "f");
  check_constant(udt[0]->fields[0].second, ConstantKind::kInteger, "3");
  // CAST is a selector, not a term, in Cassandra 4.1 (CastFctsTest.testInvalidQueries)
  CHECK(parse_error("INSERT INTO t (a, b) VALUES (CAST(1.6 AS int), 1)") ==
        "line 1:33 no viable alternative at input '(' (...(a, b) VALUES ([CAST](...)");

  // bind markers, named and not
  v = values("?, :name, :\"Quoted\"");
  CHECK(v[0]->kind == Term::Kind::kBindMarker);
  CHECK(v[0]->text == "");
  CHECK(v[1]->text == "name");
  CHECK(v[2]->text == "Quoted");
  // a user type literal's field may be an unreserved keyword; a frozen type hint
  CHECK(parse_error("INSERT INTO t (a) VALUES ((frozen<int>) 1)") ==
        "frozen<> is only allowed on collections, tuples, and user-defined types (got int)");
  // comments anywhere, quoted names with escaped quotes, the empty quoted name
  auto ins =
      parse_as<InsertStatement>("INSERT /* c */ INTO t (\"a\"\"b\", \"\") -- c\n VALUES (1, 2)");
  CHECK(ins.columns == std::vector<std::string>{"a\"b", ""});
  v = values("{key: 1, type: 'x'}, (frozen<list<int>>) [1]");
  CHECK(v[0]->kind == Term::Kind::kUserType);
  CHECK(v[0]->fields[0].first == "key");
  CHECK(v[1]->type == types::CqlType::list(types::CqlType::simple(types::TypeKind::kInt), true));
}

TEST_CASE("parser: UPDATE assignments") {
  auto s = parse_as<UpdateStatement>(
      "UPDATE ks.t USING TIMESTAMP 5 AND TTL 7 SET a = 1, b = b + {1}, c = [2] + c, d = d - {3}, e "
      "+= 1, "
      "f -= 2, g[1] = 'x', h.fld = 3, i = i -1 WHERE k = 0 IF EXISTS");
  CHECK(s.table.keyspace == "ks");
  check_constant(s.using_clause.timestamp, ConstantKind::kInteger, "5");
  check_constant(s.using_clause.ttl, ConstantKind::kInteger, "7");
  REQUIRE(s.assignments.size() == 9);
  using K = Assignment::Kind;
  CHECK(s.assignments[0].kind == K::kSet);
  CHECK(s.assignments[0].column == "a");
  CHECK(s.assignments[0].source == "a = 1");
  CHECK(s.assignments[1].kind == K::kAdd);
  CHECK(s.assignments[1].value->kind == Term::Kind::kSet);
  CHECK(s.assignments[2].kind == K::kPrepend);
  CHECK(s.assignments[2].value->kind == Term::Kind::kList);
  CHECK(s.assignments[3].kind == K::kSubtract);
  CHECK(s.assignments[4].kind == K::kAdd);
  CHECK(s.assignments[5].kind == K::kSubtract);
  CHECK(s.assignments[6].kind == K::kSetElement);
  CHECK(s.assignments[6].key->text == "1");
  CHECK(s.assignments[6].value->text == "x");
  CHECK(s.assignments[7].kind == K::kSetField);
  CHECK(s.assignments[7].field == "fld");
  // "i = i -1" lexes as [i, =, i, -1]: Cassandra adds -1
  CHECK(s.assignments[8].kind == K::kAdd);
  check_constant(s.assignments[8].value, ConstantKind::kInteger, "-1");
  REQUIRE(s.where.size() == 1);
  CHECK(s.where[0].columns == std::vector<std::string>{"k"});
  CHECK(s.if_exists);

  // parser-level errors, with Cassandra's messages
  CHECK(parse_error("UPDATE t SET a = b + 1 WHERE k = 0") ==
        "Only expressions of the form X = X +<value> are supported.");
  CHECK(parse_error("UPDATE t SET a = [1] + b WHERE k = 0") ==
        "Only expressions of the form X = <value> + X are supported.");
  CHECK(parse_error("UPDATE t SET a = b -1 WHERE k = 0") ==
        "Only expressions of the form X = X - <value> are supported.");
  CHECK(parse_error("UPDATE t SET a = 1, a = 2 WHERE k = 0") ==
        "Multiple incompatible setting of column a");
  CHECK(parse_error("UPDATE t SET a[1] = 1, a = [2] WHERE k = 0") ==
        "Multiple incompatible setting of column a");
  CHECK(parse_error("UPDATE t SET u.x = 1, u.x = 2 WHERE k = 0") ==
        "Multiple incompatible setting of column u");
  CHECK(parse_ok("UPDATE t SET u.x = 1, u.y = 2, l = l + [1], l = l + [2] WHERE k = 0"));
  CHECK(parse_error("UPDATE t SET a = 1") ==
        "line 0:-1 mismatched input '<EOF>' expecting K_WHERE");
}

TEST_CASE("parser: IF conditions") {
  auto s = parse_as<UpdateStatement>(
      "UPDATE t SET v = 1 WHERE k = 0 IF a = 1 AND b != 2 AND c < 3 AND d <= 4 AND e > 5 AND f >= "
      "6 AND "
      "g IN (1, 2) AND h[1] = 'x' AND i.f = 2 AND j[0] IN ('a') AND l.f IN ? AND m CONTAINS 1 AND "
      "n CONTAINS KEY 2");
  REQUIRE(s.conditions.size() == 13);
  CHECK(s.conditions[0].column == "a");
  CHECK(s.conditions[0].op == Operator::kEq);
  CHECK(s.conditions[1].op == Operator::kNeq);
  CHECK(s.conditions[2].op == Operator::kLt);
  CHECK(s.conditions[3].op == Operator::kLte);
  CHECK(s.conditions[4].op == Operator::kGt);
  CHECK(s.conditions[5].op == Operator::kGte);
  CHECK(s.conditions[6].op == Operator::kIn);
  CHECK(s.conditions[6].in_values.size() == 2);
  CHECK(s.conditions[7].element->text == "1");
  CHECK(s.conditions[7].value->text == "x");
  CHECK(s.conditions[7].source == "h[1] = 'x'");
  CHECK(s.conditions[8].field == "f");
  CHECK(s.conditions[9].op == Operator::kIn);
  CHECK(s.conditions[9].element->text == "0");
  CHECK(s.conditions[9].in_values.size() == 1);
  CHECK(s.conditions[10].value->kind == Term::Kind::kBindMarker);
  CHECK(s.conditions[11].op == Operator::kContains);
  CHECK(s.conditions[12].op == Operator::kContainsKey);
  CHECK_FALSE(s.if_exists);
}

TEST_CASE("parser: DELETE") {
  auto s = parse_as<DeleteStatement>(
      "DELETE a, b[1], c.f FROM ks.t USING TIMESTAMP 10 WHERE k = 1 AND c > 2 IF v = 3");
  REQUIRE(s.targets.size() == 3);
  CHECK(s.targets[0].column == "a");
  CHECK(s.targets[1].column == "b");
  CHECK(s.targets[1].element->text == "1");
  CHECK(s.targets[1].source == "b[1]");
  CHECK(s.targets[2].field == "f");
  CHECK(s.table.keyspace == "ks");
  check_constant(s.using_clause.timestamp, ConstantKind::kInteger, "10");
  CHECK_FALSE(s.using_clause.ttl);
  CHECK(s.where.size() == 2);
  CHECK(s.conditions.size() == 1);

  s = parse_as<DeleteStatement>("delete from t where k = 1 if exists");
  CHECK(s.targets.empty());
  CHECK(s.if_exists);
  CHECK(parse_error("DELETE FROM t WHERE k = 1 USING TIMESTAMP 1") ==
        "line 1:26 mismatched input 'USING' expecting EOF (...t WHERE k = 1 [USING]...)");
}

TEST_CASE("parser: BATCH") {
  auto s = parse_as<BatchStatement>(
      "BEGIN BATCH USING TIMESTAMP 3 INSERT INTO t (k) VALUES (1); UPDATE t SET v = 1 WHERE k = 1 "
      "DELETE FROM t WHERE k = 2; APPLY BATCH;");
  CHECK(s.type == BatchStatement::Type::kLogged);
  check_constant(s.using_clause.timestamp, ConstantKind::kInteger, "3");
  REQUIRE(s.statements.size() == 3);
  CHECK(std::holds_alternative<InsertStatement>(s.statements[0]));
  CHECK(std::holds_alternative<UpdateStatement>(s.statements[1]));
  CHECK(std::holds_alternative<DeleteStatement>(s.statements[2]));
  CHECK(parse_as<BatchStatement>("begin unlogged batch apply batch").type ==
        BatchStatement::Type::kUnlogged);
  CHECK(
      parse_as<BatchStatement>("BEGIN COUNTER BATCH UPDATE t SET c = c + 1 WHERE k = 1 APPLY BATCH")
          .type == BatchStatement::Type::kCounter);
  CHECK(parse_error("BEGIN BATCH SELECT * FROM t APPLY BATCH") ==
        "line 1:12 mismatched input 'SELECT' expecting K_APPLY (BEGIN BATCH [SELECT]...)");
}
