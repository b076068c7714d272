// Parser tests: SELECT, its selectors and WHERE relations.
#include <doctest/doctest.h>

#include "engine/cql/parser.h"
#include "tests/unit/parser_test_util.h"

using namespace cassette;
using namespace cassette::cql;
using types::CqlType;
using types::TypeKind;

TEST_CASE("parser: SELECT clauses") {
  auto s = parse_as<SelectStatement>(
      "SELECT JSON DISTINCT a, b AS \"B\" FROM ks.t WHERE k = 1 GROUP BY k, c ORDER BY c DESC, d "
      "ASC, e "
      "PER PARTITION LIMIT 2 LIMIT 10 ALLOW FILTERING");
  CHECK(s.json);
  CHECK(s.distinct);
  REQUIRE(s.selectors.size() == 2);
  CHECK(s.selectors[0]->kind == Selector::Kind::kColumn);
  CHECK(s.selectors[0]->column == "a");
  CHECK_FALSE(s.selectors[0]->alias);
  CHECK(s.selectors[1]->alias == std::optional<std::string>("B"));
  CHECK(s.table.keyspace == "ks");
  CHECK(s.table.name == "t");
  CHECK(s.where.size() == 1);
  REQUIRE(s.group_by.size() == 2);
  CHECK(s.group_by[0]->column == "k");
  CHECK(s.group_by[1]->column == "c");
  REQUIRE(s.order_by.size() == 3);
  CHECK(s.order_by[0].column == "c");
  CHECK(s.order_by[0].descending);
  CHECK_FALSE(s.order_by[1].descending);
  CHECK_FALSE(s.order_by[2].descending);
  CHECK(s.per_partition_limit->text == "2");
  CHECK(s.limit->text == "10");
  CHECK(s.allow_filtering);

  s = parse_as<SelectStatement>("select * from t");
  CHECK(s.selectors.empty());
  CHECK_FALSE(s.json);
  CHECK_FALSE(s.distinct);
  CHECK_FALSE(s.limit);

  // json and distinct are column names unless a select clause follows
  s = parse_as<SelectStatement>("SELECT json, distinct FROM t");
  REQUIRE(s.selectors.size() == 2);
  CHECK(s.selectors[0]->column == "json");
  CHECK(s.selectors[1]->column == "distinct");
  CHECK_FALSE(s.json);
  s = parse_as<SelectStatement>("SELECT json FROM t");
  CHECK(s.selectors[0]->column == "json");
  s = parse_as<SelectStatement>("SELECT JSON json FROM t");
  CHECK(s.json);
  CHECK(s.selectors[0]->column == "json");
  s = parse_as<SelectStatement>("SELECT DISTINCT distinct FROM t");
  CHECK(s.distinct);
  CHECK(s.selectors[0]->column == "distinct");
  CHECK(parse_as<SelectStatement>("SELECT * FROM t LIMIT ?").limit->kind ==
        Term::Kind::kBindMarker);
  CHECK(parse_error("SELECT * FROM t LIMIT 1.5")
            .starts_with("line 1:22 no viable alternative at input '1.5'"));
}

TEST_CASE("parser: selectors") {
  auto sel = [](std::string_view text) {
    return parse_as<SelectStatement>(fmt::format("SELECT {} FROM t", text)).selectors;
  };
  auto v = sel(
      "WRITETIME(v), maxwritetime(v), ttl(\"V\"), token(k, c), count(*), COUNT(1), count(v), "
      "CAST(v AS text), u.f.g, m['k'], m['a'..'b'], m[..'b'], l[1..], 42, 'str', null, (int) 3, "
      "[1, 2], {1: 2}, (1, 'a'), ks.fn(v, 1) AS x, v + 1, -v, toJson(v), writetime(m['k'])");
  REQUIRE(v.size() == 25);
  using K = Selector::Kind;
  CHECK(v[0]->kind == K::kWritetime);
  CHECK(v[0]->column == "v");
  CHECK(v[0]->source == "WRITETIME(v)");
  CHECK(v[0]->arguments.empty());
  CHECK(v[1]->kind == K::kMaxWritetime);
  CHECK(v[2]->kind == K::kTtl);
  CHECK(v[2]->column == "V");
  CHECK(v[3]->kind == K::kFunction);
  CHECK(v[3]->function.name == "token");
  CHECK(v[3]->arguments.size() == 2);
  CHECK(v[4]->kind == K::kCountStar);
  CHECK(v[4]->source == "count(*)");
  CHECK(v[5]->kind == K::kCountStar);
  CHECK(v[6]->kind == K::kFunction);
  CHECK(v[6]->function.name == "count");
  CHECK(v[7]->kind == K::kCast);
  CHECK(v[7]->type == CqlType::simple(TypeKind::kText));
  CHECK(v[7]->arguments[0]->column == "v");
  CHECK(v[8]->kind == K::kFieldAccess);
  CHECK(v[8]->field == "g");
  CHECK(v[8]->arguments[0]->kind == K::kFieldAccess);
  CHECK(v[8]->arguments[0]->field == "f");
  CHECK(v[8]->arguments[0]->arguments[0]->column == "u");
  CHECK(v[8]->source == "u.f.g");
  CHECK(v[9]->kind == K::kElement);
  CHECK(v[9]->key->text == "k");
  CHECK(v[10]->kind == K::kSlice);
  CHECK(v[10]->key->text == "a");
  CHECK(v[10]->key_end->text == "b");
  CHECK(v[11]->kind == K::kSlice);
  CHECK_FALSE(v[11]->key);
  CHECK(v[11]->key_end->text == "b");
  CHECK(v[12]->kind == K::kSlice);
  CHECK(v[12]->key->text == "1");
  CHECK_FALSE(v[12]->key_end);
  CHECK(v[13]->kind == K::kTerm);
  CHECK(v[13]->term->text == "42");
  CHECK(v[14]->term->constant_kind == types::ConstantKind::kString);
  CHECK(v[15]->term->kind == Term::Kind::kNull);
  CHECK(v[16]->kind == K::kTerm);
  CHECK(v[16]->term->kind == Term::Kind::kTypeHint);
  CHECK(v[16]->source == "(int) 3");
  CHECK(v[17]->term->kind == Term::Kind::kList);
  CHECK(v[18]->term->kind == Term::Kind::kMap);
  CHECK(v[19]->term->kind == Term::Kind::kTuple);
  CHECK(v[20]->kind == K::kFunction);
  CHECK(v[20]->function.keyspace == "ks");
  CHECK(v[20]->function.name == "fn");
  CHECK(v[20]->alias == std::optional<std::string>("x"));
  CHECK(v[20]->source == "ks.fn(v, 1)");
  CHECK(v[21]->function.name == "_add");
  CHECK(v[22]->function.name == "_negate");
  CHECK(v[23]->function.name == "tojson");
  CHECK(v[24]->kind == K::kWritetime);
  CHECK(v[24]->column == "m");
  REQUIRE(v[24]->arguments.size() == 1);
  CHECK(v[24]->arguments[0]->kind == K::kElement);
}

TEST_CASE("parser: WHERE relations") {
  auto w = parse_as<SelectStatement>(
               "SELECT * FROM t WHERE a = 1 AND b != 2 AND c < 3 AND d <= 4 AND e > 5 AND f >= 6 "
               "AND g IN (1, 2) "
               "AND h IN () AND i IN ? AND j CONTAINS 1 AND k CONTAINS KEY 'x' AND l IS NOT NULL "
               "AND m LIKE 'a%' "
               "AND n['key'] = 3 AND (o, p) = (1, 2) AND (o, p) > (1, 2) AND (o, p) IN ((1, 2), "
               "(3, 4)) AND "
               "(o, p) IN ? AND token(a, b) > token(1, 2) AND TOKEN(a) <= 5 AND q NOT IN (1) AND "
               "(r = 1) AND "
               "(o, p) >= ? AND \"Q\" = 1")
               .where;
  REQUIRE(w.size() == 24);
  using K = Relation::Kind;
  CHECK(w[0].kind == K::kSingleColumn);
  CHECK(w[0].columns == std::vector<std::string>{"a"});
  CHECK(w[0].op == Operator::kEq);
  CHECK(w[0].value->text == "1");
  CHECK(w[0].source == "a = 1");
  CHECK(w[1].op == Operator::kNeq);
  CHECK(w[2].op == Operator::kLt);
  CHECK(w[3].op == Operator::kLte);
  CHECK(w[4].op == Operator::kGt);
  CHECK(w[5].op == Operator::kGte);
  CHECK(w[6].op == Operator::kIn);
  CHECK(w[6].in_values.size() == 2);
  CHECK_FALSE(w[6].in_marker);
  CHECK(w[7].in_values.empty());
  CHECK(w[8].in_marker);
  CHECK(w[8].value->kind == Term::Kind::kBindMarker);
  CHECK(w[9].op == Operator::kContains);
  CHECK(w[10].op == Operator::kContainsKey);
  CHECK(w[10].value->text == "x");
  CHECK(w[11].op == Operator::kIsNotNull);
  CHECK(w[11].value->kind == Term::Kind::kNull);
  CHECK(w[12].op == Operator::kLike);
  CHECK(w[13].map_key->text == "key");
  CHECK(w[13].value->text == "3");
  CHECK(w[14].kind == K::kMultiColumn);
  CHECK(w[14].columns == std::vector<std::string>{"o", "p"});
  CHECK(w[14].value->kind == Term::Kind::kTuple);
  CHECK(w[14].source == "(o, p) = (1, 2)");
  CHECK(w[15].op == Operator::kGt);
  CHECK(w[16].op == Operator::kIn);
  REQUIRE(w[16].in_values.size() == 2);
  CHECK(w[16].in_values[1]->kind == Term::Kind::kTuple);
  CHECK(w[17].in_marker);
  CHECK(w[18].kind == K::kToken);
  CHECK(w[18].columns == std::vector<std::string>{"a", "b"});
  CHECK(w[18].op == Operator::kGt);
  CHECK(w[18].value->kind == Term::Kind::kFunctionCall);
  CHECK(w[18].value->function.name == "token");
  CHECK(w[19].kind == K::kToken);
  CHECK(w[19].op == Operator::kLte);
  CHECK(w[20].op == Operator::kNotIn);
  CHECK(w[21].columns == std::vector<std::string>{"r"});
  CHECK(w[22].kind == K::kMultiColumn);
  CHECK(w[22].value->kind == Term::Kind::kBindMarker);
  CHECK(w[23].columns == std::vector<std::string>{"Q"});

  CHECK(parse_error("SELECT * FROM t WHERE a CONTAINS") ==
        "line 0:-1 no viable alternative at input '<EOF>'");
  CHECK(parse_error("SELECT * FROM t WHERE a IS NULL")
            .starts_with("line 1:27 mismatched input 'NULL' expecting K_NOT"));
}
