// ext/sqlite/grouped_rows: a real read regrouped as SQLite's GROUP BY needs it. The same rows,
// grouped in memory and through the spill file (a budget of one byte moves every chunk there),
// read as one cursor or as two token ranges on two threads, come out group by group, groups in
// SQLite's order of their values, every row once with its kept values intact.
#include "ext/sqlite/grouped_rows.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/query/query.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

namespace {

// g(p int, c int, kind text, n int, PRIMARY KEY (p, c)) with NULL, empty and negative values.
struct Fixture : CqlFixture {
  std::shared_ptr<const schema::TableDef> table;

  Fixture() {
    ok("CREATE TABLE ks.g (p int, c int, kind text, n int, PRIMARY KEY (p, c))");
    const char* kinds[] = {"'view'", "'buy'", "null", "''", "'Buy'"};
    for (int p = 0; p < 7; ++p) {
      for (int c = 0; c < 30; ++c) {
        const int i = p * 30 + c;
        ok(fmt::format("INSERT INTO ks.g (p, c, kind, n) VALUES ({}, {}, {}, {})", p, c,
                       kinds[i % 5],
                       i % 7 == 0 ? std::string("null") : std::to_string((i % 9 - 4) * 300)));
      }
    }
    table = session().catalog().current().value()->find_table("ks", "g");
  }
  size_t column(std::string_view name) const {
    return static_cast<size_t>(table->find_column(name) - table->columns.data());
  }

  // "kind:n,n,...|kind:..." for the grouped read, checking each row's values and writetime.
  // As one read, or as two token ranges (below 0, from 0) filled on two threads.
  std::string grouped(std::vector<sqlite::GroupTerm> terms, size_t budget, bool split = false) {
    auto snapshot = store().snapshot().value();
    std::vector<std::unique_ptr<query::QueryCursor>> parts;
    auto open = [&](std::string_view plan_text, query::Bindings bindings) {
      auto plan = query::Plan::decode(plan_text, *table);
      REQUIRE(plan.is_ok());
      auto rows =
          query::QueryCursor::open(store(), snapshot, table, plan.value(), std::move(bindings));
      REQUIRE(rows.is_ok());
      parts.push_back(std::move(rows).value());
    };
    const types::Value zero = std::string(8, '\0');
    if (split) {
      open("token-range token()<", query::Bindings{{{zero}}, {}, {}, {}});
      open("token-range token()>=", query::Bindings{{{zero}}, {}, {}, {}});
    } else {
      open("scan", {});
    }
    const std::vector<size_t> term_columns = [&] {
      std::vector<size_t> columns;
      for (const auto& t : terms) columns.push_back(t.column);
      return columns;
    }();
    sqlite::KeptColumns keep;
    keep.token = true;
    keep.values = {column("kind"), column("n"), column("c")};
    keep.writetimes = {column("n")};
    auto cursor = sqlite::group_rows(std::move(parts), table, std::move(terms), keep, budget);
    std::string out;
    std::optional<std::string> last_key;
    size_t count = 0;
    while (cursor->next()) {
      auto n = cursor->value(column("n"));
      std::string key;
      for (size_t t : term_columns) {
        auto v = cursor->value(t);
        key += key.empty() ? "" : "/";
        key += !v                    ? "null"
               : t == column("kind") ? "'" + std::string(*v) + "'"
                                     : std::to_string(as_int(*v));
      }
      if (key != last_key) out += (out.empty() ? "" : "|") + key + ":";
      last_key = key;
      ++count;
      CHECK(cursor->writetime(column("n")).has_value() == n.has_value());
      CHECK(cursor->token() != 0);
      CHECK(cursor->partition_key().size() == 4);
      CHECK(as_int(*cursor->value(column("c"))) >= 0);
    }
    CHECK(cursor->status().is_ok());
    CHECK(count == 210);
    return out;
  }
};

}  // namespace

TEST_CASE("grouped rows: groups in SQLite's order, in memory and spilled alike") {
  Fixture f;
  const size_t kind = f.column("kind"), n = f.column("n");
  // NULL first, then text by its bytes ('' < 'Buy' < 'buy').
  const std::string by_kind = "null:|'':|'Buy':|'buy':|'view':";
  CHECK(f.grouped({{kind, false}}, size_t{256} << 20) == by_kind);
  CHECK(f.grouped({{kind, false}}, 1) == by_kind);
  CHECK(f.grouped({{kind, false}}, size_t{256} << 20, /*split=*/true) == by_kind);
  CHECK(f.grouped({{kind, false}}, 1, /*split=*/true) == by_kind);
  CHECK(f.grouped({{kind, true}}, 1) == "'view':|'buy':|'Buy':|'':|null:");

  // n descending as numbers (a byte order would put -300 above 1200), NULL last; kind ascending
  // inside each n.
  std::string by_n_desc;
  for (std::string n_value :
       {"1200", "900", "600", "300", "0", "-300", "-600", "-900", "-1200", "null"}) {
    for (std::string k : {"null", "''", "'Buy'", "'buy'", "'view'"}) {
      by_n_desc += (by_n_desc.empty() ? "" : "|") + n_value + "/" + k + ":";
    }
  }
  CHECK(f.grouped({{n, true}, {kind, false}}, size_t{256} << 20) == by_n_desc);
  CHECK(f.grouped({{n, true}, {kind, false}}, 1) == by_n_desc);
  CHECK(f.grouped({{n, true}, {kind, false}}, 1, /*split=*/true) == by_n_desc);
}

}  // namespace cassette::test
