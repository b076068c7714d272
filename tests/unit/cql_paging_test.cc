// Paged SELECTs (StatementOptions::page_size and paging_state, engine/cql/execute_select.cc):
// every page size gives the unpaged result, page after page, for each kind of read; a page
// resumes after its last row across writes; the cases Cassandra refuses or does in one page.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "engine/cql/parser.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette {
namespace {

using test::CqlFixture;

// The rows of `statement` read page by page with `page_size`, and the number of pages.
std::pair<std::vector<std::string>, int> paged(CqlFixture& f, std::string_view text,
                                               int32_t page_size) {
  auto parsed = cql::parse_statement(text);
  REQUIRE(parsed.is_ok());
  cql::StatementOptions options;
  options.page_size = page_size;
  std::vector<std::string> rows;
  int pages = 0;
  while (true) {
    auto result = f.session().execute(*parsed, options);
    INFO(text);
    REQUIRE_MESSAGE(result.is_ok(), result.status().message());
    ++pages;
    REQUIRE(static_cast<int32_t>(result->rows.rows.size()) <= page_size);
    for (std::string& line : CqlFixture::lines(result->rows)) rows.push_back(std::move(line));
    if (!result->paging_state) break;
    options.paging_state = result->paging_state;
    REQUIRE(pages < 1000);
  }
  return {rows, pages};
}

TEST_CASE("cql paging: each kind of read, paged at every size, gives the unpaged rows") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int, c int, s int STATIC, v int, PRIMARY KEY (k, c))");
  f.ok("CREATE TABLE i (k int PRIMARY KEY, v int)");
  f.ok("CREATE INDEX ON i (v)");
  for (int k = 0; k < 6; ++k) {
    f.ok(fmt::format("INSERT INTO t (k, s) VALUES ({}, {})", k, k));
    for (int c = 0; c < 5; ++c) {
      f.ok(fmt::format("INSERT INTO t (k, c, v) VALUES ({}, {}, {})", k, c, (k + c) % 3));
    }
    f.ok(fmt::format("INSERT INTO i (k, v) VALUES ({}, {})", k, k % 2));
  }
  f.ok("INSERT INTO t (k, s) VALUES (9, 9)");  // a static-only partition
  const std::vector<std::string> queries = {
      "SELECT * FROM t",
      "SELECT * FROM t WHERE k = 2",
      "SELECT * FROM t WHERE k = 2 AND c > 0 AND c <= 3",
      "SELECT * FROM t WHERE k = 2 ORDER BY c DESC",
      "SELECT * FROM t WHERE k IN (4, 1, 3)",
      "SELECT k, c FROM t WHERE token(k) > token(1) AND token(k) <= token(4)",
      "SELECT * FROM t WHERE v = 1 ALLOW FILTERING",
      "SELECT * FROM i WHERE v = 1",
      "SELECT DISTINCT k, s FROM t",
      "SELECT * FROM t PER PARTITION LIMIT 2",
      "SELECT * FROM t LIMIT 13",
      "SELECT k, count(*), max(v) FROM t GROUP BY k",
      "SELECT k, c, count(*) FROM t WHERE k IN (1, 2) GROUP BY k, c",
      "SELECT k, count(*) FROM t GROUP BY k PER PARTITION LIMIT 1 LIMIT 4",
      "SELECT JSON k, c FROM t WHERE k = 1",
  };
  for (const std::string& query : queries) {
    const std::vector<std::string> all = f.rows(query);
    for (int32_t size : {1, 2, 3, 7, 100}) {
      INFO(query, " page size ", size);
      CHECK(paged(f, query, size).first == all);
    }
  }
  // An aggregate without GROUP BY is one page.
  CHECK(paged(f, "SELECT count(*) FROM t", 1) ==
        std::pair<std::vector<std::string>, int>{{"31"}, 1});
}

// SelectGroupByTest.testGroupByTimeRangesWithTimestampTypeAndPaging: a page never splits a
// floor() time bucket, whatever its size.
TEST_CASE("cql paging: GROUP BY floor() pages whole time buckets") {
  CqlFixture f;
  f.ok("CREATE TABLE t (pk int, time timestamp, v int, PRIMARY KEY (pk, time))");
  const std::vector<std::pair<int, std::string>> rows = {
      {1, "16:10:00"}, {1, "16:12:00"}, {1, "16:14:00"}, {1, "16:15:00"}, {1, "16:21:00"},
      {1, "16:22:00"}, {1, "16:26:00"}, {1, "16:26:20"}, {2, "16:26:20"}, {2, "16:30:00"}};
  for (size_t i = 0; i < rows.size(); ++i) {
    f.ok(fmt::format("INSERT INTO t (pk, time, v) VALUES ({}, '2016-09-27 {} UTC', {})",
                     rows[i].first, rows[i].second, i < 8 ? i + 1 : i + 2));
  }
  const std::vector<std::string> buckets = {
      "1|2016-09-27 16:10:00.000000+0000|1|3|3",   "1|2016-09-27 16:15:00.000000+0000|4|4|1",
      "1|2016-09-27 16:20:00.000000+0000|5|6|2",   "1|2016-09-27 16:25:00.000000+0000|7|8|2",
      "2|2016-09-27 16:25:00.000000+0000|10|10|1", "2|2016-09-27 16:30:00.000000+0000|11|11|1"};
  const std::string select = "SELECT pk, floor(time, 5m{}), min(v), max(v), count(v) FROM t ";
  for (const char* start : {"", ", '2016-09-27 UTC'"}) {
    const std::string fn = fmt::format("floor(time, 5m{})", start);
    const std::string head = fmt::format(fmt::runtime(select), start);
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {head + "GROUP BY pk, " + fn, buckets},
        {head + "GROUP BY pk, " + fn + " LIMIT 2", {buckets[0], buckets[1]}},
        {head + "GROUP BY pk, " + fn + " PER PARTITION LIMIT 1", {buckets[0], buckets[4]}},
        {head + "WHERE pk = 1 GROUP BY pk, " + fn + " ORDER BY time DESC",
         {buckets[3], buckets[2], buckets[1], buckets[0]}},
        {head + "WHERE pk = 1 GROUP BY pk, " + fn + " ORDER BY time DESC LIMIT 2",
         {buckets[3], buckets[2]}},
    };
    for (const auto& c : cases) {
      const std::string& query = c.first;
      const std::vector<std::string>& expected = c.second;
      CHECK(f.rows(query) == expected);
      for (int32_t size = 1; size < 10; ++size) {
        INFO(query, " page size ", size);
        CHECK(paged(f, query, size).first == expected);
      }
    }
  }
}

TEST_CASE("cql paging: a page resumes after its last row across writes in between") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))");
  for (int c = 0; c < 6; c += 2) f.ok(fmt::format("INSERT INTO t (k, c) VALUES (1, {})", c));
  auto parsed = cql::parse_statement("SELECT c FROM t WHERE k = 1");
  cql::StatementOptions options;
  options.page_size = 2;
  auto first = f.session().execute(*parsed, options);
  REQUIRE(first.is_ok());
  CHECK(CqlFixture::lines(first->rows) == std::vector<std::string>{"0", "2"});
  // Before the position (never seen), at it (deleted: no matter), after it (seen once).
  f.ok("INSERT INTO t (k, c) VALUES (1, 1)");
  f.ok("DELETE FROM t WHERE k = 1 AND c = 2");
  f.ok("INSERT INTO t (k, c) VALUES (1, 3)");
  options.paging_state = first->paging_state;
  auto second = f.session().execute(*parsed, options);
  REQUIRE(second.is_ok());
  CHECK(CqlFixture::lines(second->rows) == std::vector<std::string>{"3", "4"});
  REQUIRE(second->paging_state);
}

TEST_CASE("cql paging: Cassandra's refusals and the cases that stay one page") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))");
  for (int k = 0; k < 3; ++k) f.ok(fmt::format("INSERT INTO t (k, c) VALUES ({}, 0)", k));
  cql::StatementOptions options;
  options.page_size = 1;
  auto ordered = f.session().execute(
      cql::parse_statement("SELECT * FROM t WHERE k IN (1, 2) ORDER BY c").value(), options);
  REQUIRE(!ordered.is_ok());
  CHECK(ordered.status().message() ==
        "Cannot page queries with both ORDER BY and a IN restriction on the partition key; you "
        "must either remove the ORDER BY or the IN and sort client side, or disable paging for "
        "this query");
  // A LIMIT within the page size: not paged (as Cassandra decides), so ORDER BY with IN sorts.
  options.page_size = 10;
  auto limited = f.session().execute(
      cql::parse_statement("SELECT k FROM t WHERE k IN (1, 2) ORDER BY c LIMIT 5").value(),
      options);
  REQUIRE(limited.is_ok());
  CHECK(CqlFixture::lines(limited->rows).size() == 2);
  CHECK(!limited->paging_state);
  options.paging_state = std::string("\x02garbage");
  auto bad = f.session().execute(cql::parse_statement("SELECT * FROM t").value(), options);
  REQUIRE(!bad.is_ok());
  CHECK(bad.status().message() == "Invalid value for the paging state");
}

TEST_CASE("cql default timestamp: the write timestamp unless USING TIMESTAMP, LWT or counter") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v int)");
  f.ok("CREATE TABLE n (k int PRIMARY KEY, c counter)");
  cql::StatementOptions options;
  options.default_timestamp = 4242;
  auto run = [&](std::string_view text) {
    auto r = f.session().execute(cql::parse_statement(text).value(), options);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  };
  run("INSERT INTO t (k, v) VALUES (1, 1)");
  run("INSERT INTO t (k, v) VALUES (2, 2) USING TIMESTAMP 7");
  run("BEGIN BATCH INSERT INTO t (k, v) VALUES (3, 3); APPLY BATCH");
  run("INSERT INTO t (k, v) VALUES (4, 4) IF NOT EXISTS");
  run("UPDATE n SET c = c + 1 WHERE k = 1");
  CHECK(f.rows("SELECT k, writetime(v) FROM t WHERE k IN (1, 2, 3)") ==
        std::vector<std::string>{"1|4242", "2|7", "3|4242"});
  CHECK(f.rows("SELECT writetime(v) FROM t WHERE k = 4") != std::vector<std::string>{"4242"});
  CHECK(f.rows("SELECT c FROM n") == std::vector<std::string>{"1"});
}

}  // namespace
}  // namespace cassette
