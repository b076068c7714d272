// engine/query's QueryCursor: the values it decodes per row. Partition key values are decoded
// once per partition and clustering values once per row, into buffers reused from row to row;
// these cases check that every row still gets its own values, whatever order and how often the
// host asks for them, across partition changes, static-only rows and complex columns.
#include <doctest/doctest.h>

#include <map>

#include "engine/query/query.h"
#include "engine/types/scalar.h"
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

namespace {

// Every row of the partitions (1, 'x'), (2, 'yy') and (3, 'zzz'), read by partition lookups, every
// column asked for (b and v twice), as text.
std::vector<std::string> read_partitions(Fixture& f) {
  query::PlanRequest request;
  query::Constraint p, q;
  p.column = static_cast<int>(f.column("p"));
  q.column = static_cast<int>(f.column("q"));
  request.constraints = {p, q};
  query::Plan plan = query::plan_query(
      *f.table, request, query::table_statistics(*f.store().snapshot().value(), *f.table));
  REQUIRE(plan.access == query::AccessKind::kPartitions);
  const types::CqlType list_type = f.table->columns[f.column("l")].type;
  std::vector<std::string> out;
  for (auto [key, text] : {std::pair{1, "x"}, {2, "yy"}, {3, "zzz"}}) {
    query::Bindings bindings;
    bindings.values = {{types::store_be(key, 4)}, {std::string(text)}};
    auto cursor = f.open(plan, std::move(bindings));
    while (cursor->next()) {
      auto& c = *cursor;
      const std::string v = text_of(c.value(f.column("v")));
      const std::optional<std::string_view> l = c.value(f.column("l"));
      out.push_back(fmt::format(
          "{} {} {} {} s={} l={} v={} b={} v={} static_only={}", int_of(c.value(f.column("p"))),
          text_of(c.value(f.column("q"))), text_of(c.value(f.column("a"))),
          int_of(c.value(f.column("b"))), text_of(c.value(f.column("s"))),
          l ? types::to_json(list_type, std::string(*l)) : "null", v,
          int_of(c.value(f.column("b"))), text_of(c.value(f.column("v"))), c.is_static_only()));
    }
    REQUIRE(cursor->status().is_ok());
  }
  return out;
}

}  // namespace

TEST_CASE("query cursor: a row-cache hit gives every value a read from storage gives") {
  Fixture f;
  // A value with NUL bytes in it, and a column added later (a gap in the rows' column ids).
  f.ok("ALTER TABLE ks.t ADD w blob");
  f.ok("UPDATE ks.t SET w = 0x00ff0000 WHERE p = 1 AND q = 'x' AND a = 'b' AND b = 7");
  f.table = f.session().catalog().current().value()->find_table("ks", "t");
  const std::vector<std::string> stored = read_partitions(f);
  REQUIRE(stored.size() == 6);
  CHECK(stored[0] == "1 'x' 'aa' 2 s='s1' l=[3] v='v2' b=2 v='v2' static_only=false");
  CHECK(stored[5] ==
        "3 'zzz' null null s='only static' l=null v=null b=null v=null "
        "static_only=true");
  auto blob_of = [&](Fixture& fixture) {
    query::PlanRequest request;
    query::Constraint p, q;
    p.column = static_cast<int>(fixture.column("p"));
    q.column = static_cast<int>(fixture.column("q"));
    request.constraints = {p, q};
    query::Plan plan = query::plan_query(
        *fixture.table, request,
        query::table_statistics(*fixture.store().snapshot().value(), *fixture.table));
    query::Bindings bindings;
    bindings.values = {{types::store_be(1, 4)}, {std::string("x")}};
    auto cursor = fixture.open(plan, std::move(bindings));
    std::vector<std::string> out;
    while (cursor->next()) {
      std::optional<std::string_view> w = cursor->value(fixture.column("w"));
      out.push_back(w ? std::string(*w) : "null");
    }
    return out;
  };
  const std::vector<std::string> blobs = {"null", "null", std::string("\0\xff\0\0", 4)};
  CHECK(blob_of(f) == blobs);

  // Heads of 3 rows hold every partition whole; heads of 1 row leave rows past them, read from
  // storage. Each time the first read fills the cache (and is served from what it filled) and
  // the second hits it.
  for (std::string rows : {"3", "1"}) {
    CAPTURE(rows);
    f.ok(fmt::format(
        "ALTER TABLE ks.t WITH caching = {{'keys': 'ALL', 'rows_per_partition': '{}'}}", rows));
    f.table = f.session().catalog().current().value()->find_table("ks", "t");
    const uint64_t before = f.store().stats().row_cache_hits;
    CHECK(read_partitions(f) == stored);
    CHECK(read_partitions(f) == stored);
    CHECK(blob_of(f) == blobs);
    CHECK(f.store().stats().row_cache_hits == before + 4);  // the second read and blob_of
  }
}

}  // namespace cassette::test
