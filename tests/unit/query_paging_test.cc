// Paging a read: QueryCursor::position() and AccessPath::resume_after(), what the CQL protocol's
// paging state needs (issue 19). A read of several partitions and several clustering ranges,
// forward and reverse, partition lookups and scans (with static-only rows), read in pages of 1..N
// rows must return exactly the rows of the unpaged read; with writes between the pages, no row
// twice and none missing that existed throughout.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "engine/query/query.h"
#include "engine/types/scalar.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

namespace {

std::string int32(int32_t v) {
  return types::store_be(static_cast<uint32_t>(v), 4);
}

// t(k int, c int, s int static, v int, PRIMARY KEY (k, c)): k 1..4 with c 1..5 (k 1 with a
// static value too), and k 5 with only its static column.
struct Fixture : CqlFixture {
  std::shared_ptr<const schema::TableDef> table;

  Fixture() {
    ok("CREATE TABLE ks.t (k int, c int, s int static, v int, PRIMARY KEY (k, c))");
    for (int k = 1; k <= 4; ++k) {
      for (int c = 1; c <= 5; ++c) {
        ok(fmt::format("INSERT INTO ks.t (k, c, v) VALUES ({}, {}, {})", k, c, k * 10 + c));
      }
    }
    ok("INSERT INTO ks.t (k, s) VALUES (1, 10)");  // a static row beside rows
    ok("INSERT INTO ks.t (k, s) VALUES (5, 50)");
    table = session().catalog().current().value()->find_table("ks", "t");
  }
  size_t column(std::string_view name) const {
    return static_cast<size_t>(table->find_column(name) - table->columns.data());
  }
  // The row's identity "k/c" ("k/static" for a static-only row).
  std::string identity(query::QueryCursor& row) {
    std::string k = std::to_string(as_int(*row.value(column("k"))));
    auto c = row.value(column("c"));
    return k + "/" + (c ? std::to_string(as_int(*c)) : "static");
  }
  std::unique_ptr<query::QueryCursor> open(query::AccessPath path) {
    auto cursor =
        query::QueryCursor::open(store(), store().snapshot().value(), table, std::move(path));
    REQUIRE_MESSAGE(cursor.is_ok(), cursor.status().message());
    return std::move(cursor).value();
  }
  std::vector<std::string> read_all(const query::AccessPath& path) {
    std::vector<std::string> rows;
    auto cursor = open(path);
    while (cursor->next()) rows.push_back(identity(*cursor));
    REQUIRE(cursor->status().is_ok());
    return rows;
  }
  // Reads `path` in pages of `page` rows, each from a new snapshot, calling between(i) after
  // page i.
  template <typename F>
  std::vector<std::string> read_paged(const query::AccessPath& path, int64_t page, F between) {
    std::vector<std::string> rows;
    std::optional<query::ReadPosition> position;
    for (int i = 0;; ++i) {
      REQUIRE(i < 1000);
      query::AccessPath next = path;
      next.limit = page;
      if (position) next.resume_after(*position);
      auto cursor = open(std::move(next));
      int64_t read = 0;
      while (cursor->next()) {
        rows.push_back(identity(*cursor));
        position = cursor->position();
        ++read;
      }
      REQUIRE(cursor->status().is_ok());
      if (read < page) return rows;
      between(i);
    }
  }
};

// k IN (3, 1, 2, 5) in key-value order (CQL's) or token order (SQL's), c IN (1, 2, 4, 5): four
// clustering ranges in each of four partitions.
query::AccessPath lookup(const Fixture& f, query::KeyOrder order, bool reverse) {
  std::vector<std::string> ks = {int32(3), int32(1), int32(2), int32(5)};
  std::vector<std::string> cs = {int32(1), int32(2), int32(4), int32(5)};
  const std::vector<std::string>* key_lists[] = {&ks};
  const std::vector<std::string>* c_lists[] = {&cs};
  query::AccessPath path;
  path.partitions = query::AccessPath::Partitions::kKeys;
  path.keys = query::partition_keys(*f.table, key_lists, order, query::BadKey::kError).value();
  path.ranges =
      query::clustering_ranges(*f.table, query::clustering_prefixes(c_lists), nullptr).value();
  REQUIRE(path.ranges.size() == 4);
  path.reverse_rows = reverse;
  path.reverse_partitions = reverse && order == query::KeyOrder::kToken;
  path.emit_static_only = false;
  return path;
}

// Every partition, static-only rows included.
query::AccessPath scan() {
  query::AccessPath path;
  path.ranges = {{"", ""}};
  return path;
}

}  // namespace

TEST_CASE("query paging: pages of 1..N rows return exactly the rows of the unpaged read") {
  Fixture f;
  struct Case {
    const char* name;
    query::AccessPath path;
  };
  std::vector<Case> cases = {
      {"lookup by key value", lookup(f, query::KeyOrder::kKeyValue, false)},
      {"lookup by key value, reversed rows", lookup(f, query::KeyOrder::kKeyValue, true)},
      {"lookup in token order, reversed", lookup(f, query::KeyOrder::kToken, true)},
      {"scan with a static-only partition", scan()},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<std::string> all = f.read_all(c.path);
    REQUIRE(all.size() >= 12);
    for (int64_t page = 1; page <= static_cast<int64_t>(all.size()) + 1; ++page) {
      INFO("page size " << page);
      CHECK(f.read_paged(c.path, page, [](int) {}) == all);
    }
  }
  // The static-only partition is one row of the scan, and a lookup's first row is k 1's (key
  // order) with its clustering rows reversed.
  std::vector<std::string> scanned = f.read_all(scan());
  CHECK(std::count(scanned.begin(), scanned.end(), "5/static") == 1);
  CHECK(f.read_all(lookup(f, query::KeyOrder::kKeyValue, true)).front() == "1/5");
}

TEST_CASE("query paging: writes between pages, no row twice and none skipped that existed") {
  for (bool use_scan : {false, true}) {
    for (int64_t page : {1, 2, 3, 7}) {
      INFO((use_scan ? "scan" : "lookup") << ", page size " << page);
      Fixture f;
      query::AccessPath path = use_scan ? scan() : lookup(f, query::KeyOrder::kKeyValue, false);
      std::vector<std::string> before = f.read_all(path);
      std::set<std::string> deleted;  // rows deleted at some time during the read
      auto write = [&](int i) {
        f.clock().advance_seconds(1);
        int k = i % 4 + 1;
        // A new row (c 3 is outside the lookup's ranges; the scan reads it), an overwrite, a
        // deletion and a row inserted again.
        f.ok(fmt::format("INSERT INTO ks.t (k, c, v) VALUES ({}, 3, {})", k, 100 + i));
        f.ok(fmt::format("INSERT INTO ks.t (k, c, v) VALUES ({}, 2, {})", (i + 1) % 4 + 1, i));
        int dk = (i + 2) % 4 + 1, dc = (i * 3) % 5 + 1;
        f.ok(fmt::format("DELETE FROM ks.t WHERE k = {} AND c = {}", dk, dc));
        deleted.insert(fmt::format("{}/{}", dk, dc));
        f.clock().advance_seconds(1);
        if (i % 2 == 0) f.ok(fmt::format("INSERT INTO ks.t (k, c, v) VALUES ({}, {}, 0)", dk, dc));
      };
      std::vector<std::string> paged = f.read_paged(path, page, write);
      std::vector<std::string> after = f.read_all(path);

      std::set<std::string> seen;
      for (const std::string& row : paged) {
        INFO(row);
        CHECK(seen.insert(row).second);  // no row twice
      }
      std::set<std::string> at_end(after.begin(), after.end());
      for (const std::string& row : before) {
        if (!at_end.count(row) || deleted.count(row)) continue;  // did not exist throughout
        INFO(row);
        CHECK(seen.count(row) == 1);
      }
      // The paged rows come in the read's order: each one's position in the final read grows.
      std::map<std::string, size_t> order;
      for (size_t i = 0; i < after.size(); ++i) order[after[i]] = i;
      std::optional<size_t> last;
      for (const std::string& row : paged) {
        if (!order.count(row)) continue;  // deleted since
        if (last) CHECK(order[row] > *last);
        last = order[row];
      }
    }
  }
}

TEST_CASE("query paging: a position outside the read's partitions is an error") {
  Fixture f;
  query::AccessPath path = lookup(f, query::KeyOrder::kKeyValue, false);
  path.resume_after({int32(4), "", true});  // k 4 is not among the keys
  auto cursor = query::QueryCursor::open(f.store(), f.store().snapshot().value(), f.table, path);
  REQUIRE_FALSE(cursor.is_ok());
  CHECK(cursor.status().message() ==
        "The position to resume a read after is not in one of its partitions.");
}

}  // namespace cassette::test
