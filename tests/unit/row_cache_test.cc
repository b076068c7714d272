// The row cache (engine/storage/row_cache.h): a table with caching rows_per_partition keeps the
// head of its partitions, and every way a partition can change is seen by the next read. Each
// case reads once to fill the cache, changes the data, and checks the exact rows of the next
// read; the hit counters show the cache was in the path at all.
#include "engine/storage/row_cache.h"

#include <doctest/doctest.h>

#include "engine/storage/internal_key.h"
#include "engine/types/murmur3.h"
#include "tests/unit/cql_test_fixture.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/temp_dir.h"

namespace cassette::test {

namespace {

struct Fixture : CqlFixture {
  // t(k int, c int, v text) with `rows` rows per partition cached; k in 1..2, c in 0..5.
  explicit Fixture(std::string_view rows = "3") {
    ok(
        fmt::format("CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c)) WITH caching = "
                    "{{'keys': 'ALL', 'rows_per_partition': '{}'}}",
                    rows));
    for (int k = 1; k <= 2; ++k) {
      for (int c = 0; c < 6; ++c)
        ok(fmt::format("INSERT INTO t (k, c, v) VALUES ({}, {}, 'v{}')", k, c, c));
    }
  }
  uint64_t hits() { return store().stats().row_cache_hits; }
};

}  // namespace

TEST_CASE("row cache: reads inside the head are hits, and return the same rows as storage") {
  Fixture f;
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 2") == Rows{"0|v0", "1|v1"});  // fills
  const uint64_t before = f.hits();
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 2") == Rows{"0|v0", "1|v1"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c >= 1 AND c < 3") == Rows{"1", "2"});
  CHECK(f.rows("SELECT v FROM t WHERE k = 1 AND c = 2") == Rows{"v2"});
  CHECK(f.hits() == before + 3);
  // Past the head (3 rows): the cached rows, then the rest from storage.
  CHECK(f.rows("SELECT c FROM t WHERE k = 1") == Rows{"0", "1", "2", "3", "4", "5"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c >= 2") == Rows{"2", "3", "4", "5"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 AND c > 3") == Rows{"4", "5"});
  // In reverse an incomplete head cannot serve: storage does.
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 ORDER BY c DESC LIMIT 2") == Rows{"5", "4"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 9").empty());
  CHECK(f.store().stats().row_cache_bytes > 0);
}

TEST_CASE("row cache: ALL keeps whole partitions, reverse reads included") {
  Fixture f("ALL");
  CHECK(f.rows("SELECT c FROM t WHERE k = 2") == Rows{"0", "1", "2", "3", "4", "5"});
  const uint64_t before = f.hits();
  CHECK(f.rows("SELECT c FROM t WHERE k = 2 ORDER BY c DESC LIMIT 3") == Rows{"5", "4", "3"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 2 AND c < 2 ORDER BY c DESC") == Rows{"1", "0"});
  CHECK(f.hits() == before + 2);
}

TEST_CASE("row cache: every write to the partition is seen, other partitions stay cached") {
  Fixture f;
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 3") == Rows{"0|v0", "1|v1", "2|v2"});
  CHECK(f.rows("SELECT c FROM t WHERE k = 2 LIMIT 1") == Rows{"0"});
  f.ok("UPDATE t SET v = 'new' WHERE k = 1 AND c = 1");
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 3") == Rows{"0|v0", "1|new", "2|v2"});
  f.ok("DELETE FROM t WHERE k = 1 AND c = 0");  // a row deletion
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 LIMIT 3") == Rows{"1", "2", "3"});
  f.ok("DELETE FROM t WHERE k = 1 AND c >= 1 AND c < 3");  // a range tombstone
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 LIMIT 3") == Rows{"3", "4", "5"});
  f.ok("INSERT INTO t (k, c, v) VALUES (1, -1, 'first')");
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 2") == Rows{"-1|first", "3|v3"});
  f.ok(
      "BEGIN BATCH INSERT INTO t (k, c, v) VALUES (2, 9, 'x'); DELETE FROM t WHERE k = 1; "
      "APPLY BATCH");  // a partition deletion
  CHECK(f.rows("SELECT c FROM t WHERE k = 1").empty());
  const uint64_t before = f.hits();
  CHECK(f.rows("SELECT c FROM t WHERE k = 2") == Rows{"0", "1", "2", "3", "4", "5", "9"});
  CHECK(f.hits() == before);  // k = 2 was written by the batch: read again
  CHECK(f.rows("SELECT c FROM t WHERE k = 2 LIMIT 1") == Rows{"0"});
  CHECK(f.hits() == before + 1);
  f.ok("INSERT INTO t (k, c, v) VALUES (1, 0, 'back')");
  CHECK(f.rows("SELECT c FROM t WHERE k = 2 LIMIT 1") == Rows{"0"});  // not k = 1's write
  CHECK(f.hits() == before + 2);
}

TEST_CASE("row cache: TTLs are evaluated at read time") {
  Fixture f;
  f.ok("INSERT INTO t (k, c, v) VALUES (1, -2, 'brief') USING TTL 10");
  f.ok("UPDATE t USING TTL 20 SET v = 'fading' WHERE k = 1 AND c = 0");
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 2") == Rows{"-2|brief", "0|fading"});
  f.clock().advance_seconds(10);
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 2") == Rows{"0|fading", "1|v1"});
  f.clock().advance_seconds(10);
  // The cell expired; the row marker of the INSERT keeps the row.
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1 LIMIT 2") == Rows{"0|null", "1|v1"});
}

TEST_CASE("row cache: flush and compaction keep it; TRUNCATE, DROP and ALTER do not") {
  Fixture f;
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 LIMIT 1") == Rows{"0"});
  REQUIRE(f.store().flush().is_ok());
  uint64_t before = f.hits();
  CHECK(f.rows("SELECT c FROM t WHERE k = 1 LIMIT 1") == Rows{"0"});
  CHECK(f.hits() == before + 1);
  f.ok("TRUNCATE t");
  CHECK(f.rows("SELECT c FROM t WHERE k = 1").empty());
  f.ok("INSERT INTO t (k, c, v) VALUES (1, 7, 'after')");
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1") == Rows{"7|after"});
  f.ok("ALTER TABLE t WITH caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}");
  before = f.hits();
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1") == Rows{"7|after"});
  CHECK(f.hits() == before);
  CHECK(f.store().stats().row_cache_bytes == 0);
  f.ok("ALTER TABLE t WITH caching = {'keys': 'ALL', 'rows_per_partition': '10'}");
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1") == Rows{"7|after"});
  CHECK(f.rows("SELECT c, v FROM t WHERE k = 1") == Rows{"7|after"});
  CHECK(f.hits() == before + 1);
  f.ok("DROP TABLE t");
  f.ok(
      "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c)) WITH caching = "
      "{'keys': 'ALL', 'rows_per_partition': 'ALL'}");
  CHECK(f.rows("SELECT c FROM t WHERE k = 1").empty());
}

TEST_CASE("row cache: static rows and static-only partitions") {
  CqlFixture f;
  f.ok(
      "CREATE TABLE s (k int, c int, st text static, v text, PRIMARY KEY (k, c)) WITH caching = "
      "{'keys': 'ALL', 'rows_per_partition': '2'}");
  f.ok("INSERT INTO s (k, st) VALUES (1, 'alone')");
  CHECK(f.rows("SELECT k, c, st FROM s WHERE k = 1") == Rows{"1|null|alone"});
  CHECK(f.rows("SELECT k, c, st FROM s WHERE k = 1") == Rows{"1|null|alone"});
  f.ok("INSERT INTO s (k, c, v) VALUES (1, 1, 'a')");
  f.ok("INSERT INTO s (k, c, v) VALUES (1, 2, 'b')");
  f.ok("INSERT INTO s (k, c, v) VALUES (1, 3, 'c')");
  CHECK(f.rows("SELECT c, st, v FROM s WHERE k = 1") ==
        Rows{"1|alone|a", "2|alone|b", "3|alone|c"});
  CHECK(f.rows("SELECT c, st, v FROM s WHERE k = 1 AND c > 1") == Rows{"2|alone|b", "3|alone|c"});
  CHECK(f.rows("SELECT c, st FROM s WHERE k = 1 AND c > 5").empty());
  f.ok("UPDATE s SET st = 'changed' WHERE k = 1");
  CHECK(f.rows("SELECT c, st FROM s WHERE k = 1 LIMIT 1") == Rows{"1|changed"});
}

TEST_CASE("row cache: an older snapshot does not see a newer cached head") {
  Fixture f;
  auto table = f.session().catalog().current().value()->find_table("ks", "t");
  REQUIRE(table != nullptr);
  std::string key("\x00\x00\x00\x01", 4);  // k = 1
  auto old_snapshot = f.store().snapshot().value();
  f.ok("UPDATE t SET v = 'newer' WHERE k = 1 AND c = 0");
  CHECK(f.rows("SELECT v FROM t WHERE k = 1 LIMIT 1") == Rows{"newer"});  // fills
  CHECK(f.rows("SELECT v FROM t WHERE k = 1 LIMIT 1") == Rows{"newer"});  // hit
  auto cursor = f.store().read(*old_snapshot, table->table_id, storage::Store::partition_spec(key));
  REQUIRE(cursor->next());
  const storage::ColumnData* v = cursor->row().find_column(table->find_column("v")->id);
  REQUIRE(v != nullptr);
  CHECK(v->cell.value == "v0");
}

TEST_CASE("row cache: what another process does to the store") {
  TempDir dir;
  storage::StoreOptions options;
  options.background_threads = false;
  auto here = storage::Store::open(dir.path() + "/s", options).value();
  auto mine = cql::Session::open(here).value();
  auto run = [](cql::Session& s, std::string_view statement) {
    auto r = s.execute(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return CqlFixture::lines(r->rows);
  };
  run(*mine,
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  run(*mine,
      "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c)) WITH caching = "
      "{'keys': 'ALL', 'rows_per_partition': 'ALL'}");
  run(*mine, "INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')");
  auto there = storage::StoreInternals::open_as_another_process(dir.path() + "/s", options).value();
  auto theirs = cql::Session::open(there).value();
  const std::string read = "SELECT c, v FROM ks.t WHERE k = 1";
  auto hits = [&] { return here->stats().row_cache_hits; };

  CHECK(run(*mine, read) == Rows{"1|a"});                         // fills
  run(*theirs, "INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'b')");  // replayed by catch-up
  CHECK(run(*mine, read) == Rows{"1|a", "2|b"});
  uint64_t before = hits();
  CHECK(run(*mine, read) == Rows{"1|a", "2|b"});
  CHECK(hits() == before + 1);

  REQUIRE(there->flush().is_ok());  // their flush: our memtable is rebuilt, the cache dropped
  CHECK(run(*mine, read) == Rows{"1|a", "2|b"});
  run(*theirs, "UPDATE ks.t SET v = 'B' WHERE k = 1 AND c = 2");
  REQUIRE(there->flush().is_ok());
  CHECK(run(*mine, read) == Rows{"1|a", "2|B"});
  auto table = mine->catalog().current().value()->find_table("ks", "t");
  REQUIRE(there->compact(table->table_id).is_ok());  // their compaction
  CHECK(run(*mine, read) == Rows{"1|a", "2|B"});

  // A transaction committed as SSTables (no commit-log record to replay).
  storage::StoreInternals::set_sstable_commit_bytes(*there, 1);
  run(*theirs, "INSERT INTO ks.t (k, c, v) VALUES (1, 3, 'by sstable')");
  storage::StoreInternals::set_sstable_commit_bytes(*there, 0);
  CHECK(run(*mine, read) == Rows{"1|a", "2|B", "3|by sstable"});

  // Our own flush and compaction keep what is cached.
  REQUIRE(here->flush().is_ok());
  REQUIRE(here->compact(table->table_id).is_ok());
  before = hits();
  CHECK(run(*mine, read) == Rows{"1|a", "2|B", "3|by sstable"});
  CHECK(hits() == before + 1);

  // Their TRUNCATE of data that is only in memtables, then of data in SSTables.
  run(*theirs, "TRUNCATE ks.t");
  CHECK(run(*mine, read).empty());
  run(*theirs, "INSERT INTO ks.t (k, c, v) VALUES (1, 4, 'd')");
  CHECK(run(*mine, read) == Rows{"4|d"});
  run(*theirs, "TRUNCATE ks.t");
  CHECK(run(*mine, read).empty());
  // Their DROP and a new table of the same name.
  run(*theirs, "DROP TABLE ks.t");
  run(*theirs,
      "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c)) WITH caching = "
      "{'keys': 'ALL', 'rows_per_partition': '1'}");
  run(*theirs, "INSERT INTO ks.t (k, c, v) VALUES (1, 9, 'z')");
  CHECK(run(*mine, read) == Rows{"9|z"});
}

TEST_CASE("row cache: the budget bounds it, least recently used out first") {
  storage::RowCache cache(8000);
  cache.set_table_rows(7, 10);
  auto entry = [](int k, storage::SequenceNumber seq) {
    auto e = std::make_shared<storage::CachedPartition>();
    e->partition_key = std::string(4, static_cast<char>(k));
    e->token = types::murmur3_token(e->partition_key);
    e->prefix = storage::partition_prefix(e->token, e->partition_key);
    e->clustering.push_back("c");
    e->rows.emplace_back();
    e->rows.back().columns.push_back(storage::ColumnData{});
    e->rows.back().columns.back().cell = storage::Cell::live(1, std::string(100, 'x'));
    e->seq = seq;
    e->finish();
    return e;
  };
  uint64_t rows = 0;
  for (int k = 0; k < 40; ++k) cache.insert(7, entry(k, 5));
  CHECK(cache.usage() <= 8000);
  CHECK(cache.usage() > 4000);
  CHECK(cache.lookup(7, entry(39, 5)->prefix, 5, 0, 0, &rows) != nullptr);
  CHECK(rows == 10);
  CHECK(cache.lookup(7, entry(0, 5)->prefix, 5, 0, 0, &rows) == nullptr);  // evicted
  // Older snapshots miss; a write after the read that filled it refuses the fill.
  CHECK(cache.lookup(7, entry(39, 5)->prefix, 4, 0, 0, &rows) == nullptr);
  cache.invalidate_partition(7, entry(1, 9)->prefix, 9);
  cache.insert(7, entry(2, 8));
  CHECK(cache.lookup(7, entry(2, 8)->prefix, 10, 0, 0, &rows) == nullptr);
  cache.invalidate_partition(7, entry(39, 5)->prefix, 11);
  CHECK(cache.lookup(7, entry(39, 5)->prefix, 12, 0, 0, &rows) == nullptr);
  cache.invalidate_table(7);
  CHECK(cache.usage() == 0);
}

}  // namespace cassette::test
