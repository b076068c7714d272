// CQL SELECTs answered by storage-attached index components (engine/cql/index_read.h): the
// index is read (sai_index_reads() counts it), across SSTables and the memtable, through
// compaction, and paged reads resume even when the partition a page ended in has left the index.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/cql/parser.h"
#include "engine/schema/index_components.h"
#include "engine/storage/sai_component.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette {
namespace {

using test::CqlFixture;

TEST_CASE("cql sai: an indexed SELECT reads the index of every SSTable and the memtable") {
  CqlFixture f;
  f.ok("CREATE TABLE u (k int PRIMARY KEY, email text, age int)");
  f.ok("CREATE CUSTOM INDEX ON u (email) USING 'sai'");
  f.ok("CREATE CUSTOM INDEX ON u (age) USING 'sai'");
  for (int k = 0; k < 50; ++k) {
    f.ok(fmt::format("INSERT INTO u (k, email, age) VALUES ({}, 'u{}@x', {})", k, k, k % 10));
  }
  REQUIRE(f.store().flush().is_ok());
  for (int k = 50; k < 60; ++k) {
    f.ok(fmt::format("INSERT INTO u (k, email, age) VALUES ({}, 'u{}@x', {})", k, k, k % 10));
  }
  f.ok("UPDATE u SET email = 'moved@x' WHERE k = 7");
  REQUIRE(f.store().flush().is_ok());

  uint64_t before = storage::sai_index_reads();
  CHECK(f.rows("SELECT k FROM u WHERE email = 'u55@x'") == std::vector<std::string>{"55"});
  CHECK(f.rows("SELECT k FROM u WHERE email = 'u7@x'").empty());  // a stale entry, re-checked
  CHECK(f.rows("SELECT k FROM u WHERE email = 'moved@x'") == std::vector<std::string>{"7"});
  CHECK(storage::sai_index_reads() - before == 3);
  // A range on a numeric column, and the AND of two indexed columns.
  CHECK(f.rows("SELECT count(*) FROM u WHERE age >= 8") == std::vector<std::string>{"12"});
  CHECK(f.rows("SELECT k FROM u WHERE age = 3 AND email = 'u13@x'") ==
        std::vector<std::string>{"13"});
  CHECK(storage::sai_index_reads() - before == 5);

  // Compaction merges the components: the stale entry is gone, the answers the same.
  REQUIRE(f.store()
              .compact(f.session().catalog().current().value()->find_table("ks", "u")->table_id)
              .is_ok());
  CHECK(f.rows("SELECT k FROM u WHERE email = 'u7@x'").empty());
  CHECK(f.rows("SELECT k FROM u WHERE email = 'moved@x'") == std::vector<std::string>{"7"});
  CHECK(storage::sai_index_reads() - before == 7);
}

TEST_CASE("cql sai: a paged index read resumes after a partition the index no longer names") {
  CqlFixture f;
  f.ok("CREATE TABLE p (k int, c int, v int, PRIMARY KEY (k, c))");
  f.ok("CREATE CUSTOM INDEX ON p (v) USING 'sai'");
  for (int k = 0; k < 4; ++k) {
    for (int c = 0; c < 3; ++c)
      f.ok(fmt::format("INSERT INTO p (k, c, v) VALUES ({}, {}, 1)", k, c));
  }
  REQUIRE(f.store().flush().is_ok());
  const std::vector<std::string> all = f.rows("SELECT k, c FROM p WHERE v = 1");
  REQUIRE(all.size() == 12);

  auto parsed = cql::parse_statement("SELECT k, c FROM p WHERE v = 1");
  REQUIRE(parsed.is_ok());
  cql::StatementOptions options;
  options.page_size = 2;
  auto first = f.session().execute(*parsed, options);
  REQUIRE(first.is_ok());
  std::vector<std::string> rows = CqlFixture::lines(first->rows);
  REQUIRE(rows.size() == 2);
  REQUIRE(first->paging_state);
  // The first page ended inside partition `k`: its rows change value, then the table is
  // compacted so that no component names the partition any more.
  std::string k = rows.back().substr(0, rows.back().find('|'));
  f.ok(fmt::format("UPDATE p SET v = 2 WHERE k = {} AND c IN (0, 1, 2)", k));
  REQUIRE(f.store().flush().is_ok());
  REQUIRE(f.store()
              .compact(f.session().catalog().current().value()->find_table("ks", "p")->table_id)
              .is_ok());
  options.paging_state = first->paging_state;
  while (options.paging_state) {
    auto page = f.session().execute(*parsed, options);
    REQUIRE_MESSAGE(page.is_ok(), page.status().message());
    for (std::string& line : CqlFixture::lines(page->rows)) rows.push_back(std::move(line));
    options.paging_state = page->paging_state;
  }
  // Every row of the other partitions once; partition k's rows after the first page are gone.
  std::vector<std::string> expected;
  for (const std::string& row : all) {
    if (row.substr(0, row.find('|')) != k || row == rows[0] || row == rows[1]) {
      expected.push_back(row);
    }
  }
  CHECK(rows == expected);
}

// The index read reads its candidate rows by key (engine/storage/keyed_read.h): on random
// histories of writes of every kind (overwrites, static cells, cell, row, range and partition
// deletions, TTLs running out) over several SSTables and the memtable, an indexed table answers
// as its unindexed twin's filtering scan does, unpaged and by pages of 2.
TEST_CASE("cql sai: index reads return what the filtering scan of an unindexed twin returns") {
  CqlFixture f;
  for (const char* table : {"a", "b"}) {
    f.ok(
        fmt::format("CREATE TABLE {} (k int, c int, s int STATIC, v int, w int, "
                    "PRIMARY KEY (k, c))",
                    table));
  }
  f.ok("CREATE CUSTOM INDEX ON a (v) USING 'sai'");
  uint32_t state = 12345;
  auto next = [&](uint32_t n) {
    state = state * 1103515245 + 12345;
    return (state >> 8) % n;
  };
  auto compare = [&] {
    for (int v = 0; v < 4; ++v) {
      const uint64_t before = storage::sai_index_reads();
      const std::string select = fmt::format("SELECT k, c, s, v, w FROM a WHERE v = {}", v);
      const std::vector<std::string> indexed = f.rows(select);
      CHECK(storage::sai_index_reads() == before + 1);
      const std::vector<std::string> scanned =
          f.rows(fmt::format("SELECT k, c, s, v, w FROM b WHERE v = {} ALLOW FILTERING", v));
      INFO(select);
      CHECK(indexed == scanned);
      auto parsed = cql::parse_statement(select);
      REQUIRE(parsed.is_ok());
      cql::StatementOptions options;
      options.page_size = 2;
      std::vector<std::string> paged;
      do {
        auto page = f.session().execute(*parsed, options);
        REQUIRE_MESSAGE(page.is_ok(), page.status().message());
        for (std::string& line : CqlFixture::lines(page->rows)) paged.push_back(std::move(line));
        options.paging_state = page->paging_state;
      } while (options.paging_state);
      CHECK(paged == scanned);
    }
  };
  for (int i = 0; i < 600; ++i) {
    const int k = static_cast<int>(next(6)), c = static_cast<int>(next(8));
    const int v = static_cast<int>(next(4));
    std::string statement;
    switch (next(12)) {
      case 0:
        statement = fmt::format("DELETE FROM {{}} WHERE k = {} AND c = {}", k, c);
        break;
      case 1:
        statement = fmt::format("DELETE FROM {{}} WHERE k = {} AND c >= {} AND c < {}", k, c,
                                c + 1 + static_cast<int>(next(3)));
        break;
      case 2:
        if (next(3) == 0) statement = fmt::format("DELETE FROM {{}} WHERE k = {}", k);
        break;
      case 3:
        statement = fmt::format("UPDATE {{}} SET s = {} WHERE k = {}", i, k);
        break;
      case 4:
        statement = fmt::format("DELETE v FROM {{}} WHERE k = {} AND c = {}", k, c);
        break;
      case 5:
        statement =
            fmt::format("INSERT INTO {{}} (k, c, v, w) VALUES ({}, {}, {}, {}) USING TTL {}", k, c,
                        v, i, 1 + next(30));
        break;
      case 6:
        statement = fmt::format("UPDATE {{}} SET v = {} WHERE k = {} AND c = {}", v, k, c);
        break;
      default:
        statement =
            fmt::format("INSERT INTO {{}} (k, c, v, w) VALUES ({}, {}, {}, {})", k, c, v, i);
    }
    if (statement.empty()) continue;
    for (const char* table : {"a", "b"}) f.ok(fmt::format(fmt::runtime(statement), table));
    if (i % 97 == 96) REQUIRE(f.store().flush().is_ok());
    if (i % 40 == 39) f.clock().advance_seconds(5);
    if (i % 150 == 149) compare();
  }
  compare();
  f.clock().advance_seconds(60);  // every TTL has run out
  compare();
}

TEST_CASE("cql sai: an IN on an indexed column (ALLOW FILTERING) reads one term per value") {
  CqlFixture f;
  f.ok("CREATE TABLE t (pk int, ck int, v int, s text, PRIMARY KEY (pk, ck))");
  f.ok("CREATE CUSTOM INDEX ON t (v) USING 'sai'");
  f.ok("INSERT INTO t (pk, ck, v, s) VALUES (1, 1, 10, 'a')");
  f.ok("INSERT INTO t (pk, ck, v, s) VALUES (1, 2, 20, 'b')");
  f.ok("INSERT INTO t (pk, ck, v, s) VALUES (2, 1, 30, 'c')");
  REQUIRE(f.store().flush().is_ok());
  f.ok("INSERT INTO t (pk, ck, v, s) VALUES (3, 1, 20, 'd')");
  f.ok("UPDATE t SET v = 40 WHERE pk = 1 AND ck = 2");  // the SSTable's v = 20 is stale

  uint64_t before = storage::sai_index_reads();
  CHECK(f.rows("SELECT pk, ck FROM t WHERE v IN (20, 30) ALLOW FILTERING") ==
        std::vector<std::string>{"2|1", "3|1"});
  CHECK(f.rows("SELECT pk, ck FROM t WHERE v IN (40, 99) AND s = 'b' ALLOW FILTERING") ==
        std::vector<std::string>{"1|2"});
  CHECK(storage::sai_index_reads() - before == 2);
  // An equality on another indexed column is read rather than the IN; the IN is checked.
  f.ok("CREATE CUSTOM INDEX ON t (s) USING 'sai'");
  CHECK(f.rows("SELECT pk, ck FROM t WHERE s = 'd' AND v IN (10, 20) ALLOW FILTERING") ==
        std::vector<std::string>{"3|1"});
  CHECK(storage::sai_index_reads() - before == 3);
}

// SAI's text analysis (Cassandra 5.0's NonTokenizingAnalyzer; the Java test named per case).
TEST_CASE("cql sai: text analysis folds case, normalizes and folds to ASCII") {
  using schema::kAsciiFold;
  using schema::kLowerCase;
  using schema::kNormalize;
  // NonTokenizingAnalyzerTest.asciiAnalyzer, caseInsensitiveAnalyzer, caseSensitiveAnalyzer
  CHECK(schema::sai_analyze(kLowerCase | kAsciiFold, "Éppinger") == "eppinger");
  CHECK(schema::sai_analyze(kLowerCase, "Nip it in the bud") == "nip it in the bud");
  CHECK(schema::sai_analyze(0, "Nip it in the bud") == "Nip it in the bud");
  // Java's toLowerCase beyond ASCII (final sigma: 'Σ' at the end of a word is 'ς').
  CHECK(schema::sai_analyze(kLowerCase, "ÉPPINGER ΣΟΦΙΑ") == "éppinger σοφια");
  CHECK(schema::sai_analyze(kLowerCase, "ΟΔΟΣ") == "\u03bf\u03b4\u03bf\u03c2");
  // BasicResultFiltersTest.testNormalize: NFC composes 'E' + U+0301 into 'É'.
  CHECK(schema::sai_analyze(kNormalize, "E\u0301") == "\u00c9");
  CHECK(schema::sai_analyze(kAsciiFold, "Straße æon œuvre") == "Strasse aeon oeuvre");
  CHECK(schema::sai_analyze(kAsciiFold, "Ångström") == "Angstrom");
}

TEST_CASE("cql sai: an index with text analysis is read from its components") {
  CqlFixture f;
  f.ok("CREATE TABLE t (k int PRIMARY KEY, v text)");
  f.ok(
      "CREATE INDEX ON t (v) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false', "
      "'normalize': 'true', 'ascii': 'true'}");
  f.ok("INSERT INTO t (k, v) VALUES (1, 'Éppinger')");
  f.ok("INSERT INTO t (k, v) VALUES (2, 'E\u0301PPINGER')");
  f.ok("INSERT INTO t (k, v) VALUES (3, 'Moreau')");
  REQUIRE(f.store().flush().is_ok());
  f.ok("INSERT INTO t (k, v) VALUES (4, 'eppinger')");
  uint64_t before = storage::sai_index_reads();
  std::vector<std::string> rows = f.rows("SELECT k FROM t WHERE v = 'EPPINGER'");
  std::sort(rows.begin(), rows.end());
  CHECK(rows == std::vector<std::string>{"1", "2", "4"});
  CHECK(f.rows("SELECT k FROM t WHERE v = 'moreau'") == std::vector<std::string>{"3"});
  CHECK(storage::sai_index_reads() - before == 2);
}

}  // namespace
}  // namespace cassette
