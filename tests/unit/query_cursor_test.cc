// engine/query's QueryCursor: the values it decodes per row. Partition key values are decoded
// once per partition and clustering values once per row, into buffers reused from row to row;
// these cases check that every row still gets its own values, whatever order and how often the
// host asks for them, across partition changes, static-only rows and complex columns.
#include <doctest/doctest.h>

#include <map>

#include "engine/query/query.h"
#include "engine/types/value.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

namespace {

using query::Operator;

// t(p int, q text, a text, b int, s text static, l list<int>, v text,
//   PRIMARY KEY ((p, q), a, b)) WITH CLUSTERING ORDER BY (a ASC, b DESC)
struct Fixture : CqlFixture {
  std::shared_ptr<const schema::TableDef> table;

  Fixture() {
    ok("CREATE TABLE ks.t (p int, q text, a text, b int, s text static, l list<int>, v text, "
       "PRIMARY KEY ((p, q), a, b)) WITH CLUSTERING ORDER BY (a ASC, b DESC)");
    ok("INSERT INTO ks.t (p, q, a, b, s, l, v) VALUES (1, 'x', 'aa', 1, 's1', [1, 2], 'v1')");
    ok("INSERT INTO ks.t (p, q, a, b, l, v) VALUES (1, 'x', 'aa', 2, [3], 'v2')");
    ok("INSERT INTO ks.t (p, q, a, b, v) VALUES (1, 'x', 'b', 7, 'v3')");
    ok("INSERT INTO ks.t (p, q, a, b, l) VALUES (2, 'yy', 'c', -5, [4, 5, 6])");
    ok("INSERT INTO ks.t (p, q, a, b, l, v) VALUES (2, 'yy', '', 0, [7], '')");
    ok("INSERT INTO ks.t (p, q, s) VALUES (3, 'zzz', 'only static')");
    table = session().catalog().current().value()->find_table("ks", "t");
  }
  // The index of a column in TableDef::columns.
  size_t column(std::string_view name) const {
    const schema::ColumnDef* c = table->find_column(name);
    REQUIRE(c != nullptr);
    return static_cast<size_t>(c - table->columns.data());
  }
  std::unique_ptr<query::QueryCursor> open(const query::Plan& plan, query::Bindings bindings) {
    auto cursor = query::QueryCursor::open(store(), store().snapshot().value(), table, plan,
                                           std::move(bindings));
    REQUIRE_MESSAGE(cursor.is_ok(), cursor.status().message());
    return std::move(cursor).value();
  }
};

std::string text_of(const std::optional<std::string_view>& v) {
  return v ? "'" + std::string(*v) + "'" : "null";
}
std::string int_of(const std::optional<std::string_view>& v) {
  return v ? std::to_string(as_int(*v)) : "null";
}

}  // namespace

TEST_CASE("query cursor: every row gets its own decoded values, asked in any order") {
  Fixture f;
  query::Plan scan = query::plan_query(
      *f.table, {}, query::table_statistics(*f.store().snapshot().value(), *f.table));
  REQUIRE(scan.access == query::AccessKind::kFullScan);
  auto cursor = f.open(scan, {});
  const size_t p = f.column("p"), q = f.column("q"), a_ = f.column("a"), b_ = f.column("b"),
               s = f.column("s"), l_ = f.column("l"), v_ = f.column("v");
  types::CqlType list_type = f.table->columns[l_].type;
  // Rows grouped by partition (partitions come in token order, which the test does not fix).
  std::map<std::string, std::vector<std::string>> partitions;
  while (cursor->next()) {
    auto& c = *cursor;
    // Clustering b before a, the partition key last, and some values asked twice: each must be
    // the current row's.
    std::string b = int_of(c.value(b_));
    std::string l = c.value(l_) ? types::to_json(list_type, std::string(*c.value(l_))) : "null";
    std::string a = text_of(c.value(a_));
    std::string v = text_of(c.value(v_));
    CHECK(int_of(c.value(b_)) == b);
    CHECK(text_of(c.value(a_)) == a);
    std::string l_again =
        c.value(l_) ? types::to_json(list_type, std::string(*c.value(l_))) : "null";
    CHECK(l_again == l);
    std::string key = fmt::format("{}|{}", int_of(c.value(p)), text_of(c.value(q)));
    partitions[key].push_back(fmt::format("{} {} s={} l={} v={} static_only={}", a, b,
                                          text_of(c.value(s)), l, v, c.is_static_only()));
  }
  REQUIRE(cursor->status().is_ok());
  std::map<std::string, std::vector<std::string>> expected = {
      {"1|'x'",
       {"'aa' 2 s='s1' l=[3] v='v2' static_only=false",
        "'aa' 1 s='s1' l=[1, 2] v='v1' static_only=false",
        "'b' 7 s='s1' l=null v='v3' static_only=false"}},
      {"2|'yy'",
       {"'' 0 s=null l=[7] v='' static_only=false",
        "'c' -5 s=null l=[4, 5, 6] v=null static_only=false"}},
      {"3|'zzz'", {"null null s='only static' l=null v=null static_only=true"}},
  };
  auto text = [](const std::map<std::string, std::vector<std::string>>& m) {
    std::string out;
    for (const auto& [key, rows] : m) {
      out += key + ":\n";
      for (const std::string& row : rows) out += "  " + row + "\n";
    }
    return out;
  };
  CHECK(text(partitions) == text(expected));
}

TEST_CASE("query cursor: a reversed partition lookup with a limit, reading one clustering column") {
  Fixture f;
  query::PlanRequest request;
  query::Constraint p, q, limit;
  p.column = static_cast<int>(f.column("p"));
  q.column = static_cast<int>(f.column("q"));
  limit.column = -1;
  limit.op = Operator::kLimit;
  request.constraints = {p, q, limit};
  // a DESC, b ASC: the clustering order reversed.
  request.order_by = {{static_cast<int>(f.column("a")), true},
                      {static_cast<int>(f.column("b")), false}};
  query::Plan plan = query::plan_query(
      *f.table, request, query::table_statistics(*f.store().snapshot().value(), *f.table));
  REQUIRE(plan.access == query::AccessKind::kPartitions);
  REQUIRE(plan.reverse);
  REQUIRE(plan.order_satisfied);
  query::Bindings bindings;
  bindings.values = {{std::string("\0\0\0\1", 4)}, {std::string("x")}};
  bindings.limit = 2;
  auto cursor = f.open(plan, std::move(bindings));
  std::vector<std::string> rows;
  const size_t b = f.column("b");
  while (cursor->next()) rows.push_back(int_of(cursor->value(b)));  // b only, never a
  REQUIRE(cursor->status().is_ok());
  CHECK(rows == std::vector<std::string>{"7", "1"});
}

}  // namespace cassette::test
