// The storage engine through its front door: writes, reads, recovery, flush, compaction, TTL,
// tombstone purging, counters, truncate, and the store registry.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "engine/storage/internal_key.h"
#include "engine/types/murmur3.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;
using cassette::storage::ManualClock;

namespace {

StoreOptions test_options(const Clock* clock = nullptr) {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.clock = clock;
  o.background_threads = false;
  return o;
}

std::vector<ReadRow> expected_rows(const std::string& pk, const std::vector<int64_t>& cs,
                                   const std::string& prefix = "v") {
  std::vector<ReadRow> rows;
  for (int64_t c : cs) rows.push_back({pk, c, prefix + std::to_string(c)});
  return rows;
}

}  // namespace

TEST_CASE("store: rows written are read back in clustering order, forward and reverse") {
  TempDir dir;
  auto store = Store::open(dir.path(), test_options()).value();
  for (int64_t c : {5, 1, 3}) put(*store, 1, "p", c, insert_row("v" + std::to_string(c)));
  CHECK(read_partition(*store, 1, "p") == expected_rows("p", {1, 3, 5}));
  CHECK(read_partition(*store, 1, "p", true) == expected_rows("p", {5, 3, 1}));
  CHECK(read_partition(*store, 1, "q").empty());
  CHECK(read_partition(*store, 2, "p").empty());  // another table
}

TEST_CASE("store: one Store per directory per process; :memory: stores are private") {
  TempDir dir;
  auto a = Store::open(dir.path(), test_options()).value();
  auto b = Store::open(dir.path() + "/.", test_options()).value();
  CHECK(a.get() == b.get());
  auto m1 = Store::open(":memory:", test_options()).value();
  auto m2 = Store::open(":memory:", test_options()).value();
  CHECK(m1.get() != m2.get());
  put(*m1, 1, "p", 1, insert_row("v1"));
  CHECK(read_partition(*m1, 1, "p") == expected_rows("p", {1}));
  CHECK(read_partition(*m2, 1, "p").empty());
  std::string m1_dir = m1->path();
  m1.reset();
  CHECK_FALSE(std::filesystem::exists(m1_dir));
}

TEST_CASE("store: timestamps are assigned by the store and never repeat") {
  ManualClock clock;
  auto store = Store::open(":memory:", test_options(&clock)).value();
  int64_t t1 = put(*store, 1, "p", 1, insert_row("a"));
  int64_t t2 = put(*store, 1, "p", 2, insert_row("b"));
  CHECK(t1 == clock.now_micros());
  CHECK(t2 == t1 + 1);                               // the clock did not move
  clock.set_micros(clock.now_micros() - 1'000'000);  // nor when it goes backwards
  CHECK(put(*store, 1, "p", 3, insert_row("c")) == t2 + 1);
}

TEST_CASE("store: a batch is applied atomically with one timestamp; bad input writes nothing") {
  auto store = Store::open(":memory:", test_options()).value();
  MutationBuilder batch;
  batch.partition(1, "a").rows.push_back({ck(1), insert_row("a1")});
  batch.partition(1, "b").rows.push_back({ck(1), insert_row("b1")});
  batch.partition(1, "").rows.push_back({ck(1), insert_row("bad")});
  auto r = apply_mutations(*store, batch);
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() == "Key may not be empty");
  CHECK(read_table(*store, 1).empty());

  MutationBuilder good;
  good.partition(1, "a").rows.push_back({ck(1), insert_row("a1")});
  good.partition(1, "b").rows.push_back({ck(1), insert_row("b1")});
  int64_t ts = apply_mutations(*store, good).value();
  auto snap = store->snapshot().value();
  auto cursor = store->read(*snap, 1, Store::range_spec({}));
  int rows = 0;
  while (cursor->next()) {
    CHECK(cursor->row().liveness.timestamp == ts);
    CHECK(cursor->row().find_column(kValueColumn)->cell.timestamp == ts);
    ++rows;
  }
  CHECK(rows == 2);
  MutationBuilder huge;
  huge.partition(1, std::string(70000, 'k')).rows.push_back({ck(1), insert_row("x")});
  CHECK(apply_mutations(*store, huge).status().message() ==
        "Key length of 70000 is longer than maximum of 65535");
}

TEST_CASE("store: a snapshot does not see later writes") {
  auto store = Store::open(":memory:", test_options()).value();
  put(*store, 1, "p", 1, insert_row("v1"));
  auto snap = store->snapshot().value();
  put(*store, 1, "p", 2, insert_row("v2"));
  auto cursor = store->read(*snap, 1, Store::partition_spec("p"));
  CHECK(drain(*cursor) == expected_rows("p", {1}));
  CHECK(store->flush().is_ok());
  auto later = store->read(*store->snapshot().value(), 1, Store::partition_spec("p"));
  CHECK(drain(*later) == expected_rows("p", {1, 2}));
}

TEST_CASE("store: recovery replays the commit log, and flushed data survives reopening") {
  TempDir dir;
  {
    auto store = Store::open(dir.path(), test_options()).value();
    for (int c = 0; c < 10; ++c) put(*store, 1, "p", c, insert_row("v" + std::to_string(c)));
    REQUIRE(store->flush().is_ok());
    for (int c = 10; c < 20; ++c) put(*store, 1, "p", c, insert_row("v" + std::to_string(c)));
    CHECK(store->stats().sstable_count == 1);
  }
  auto store = Store::open(dir.path(), test_options()).value();
  std::vector<int64_t> all(20);
  std::iota(all.begin(), all.end(), 0);
  CHECK(read_partition(*store, 1, "p") == expected_rows("p", all));
  CHECK(store->stats().sstable_count == 1);
}

TEST_CASE("store: a wide partition of 100k rows sliced across the memtable and several SSTables") {
  TempDir dir;
  StoreOptions options = test_options();
  options.compaction_min_threshold = 1'000'000;  // keep the four SSTables
  auto store = Store::open(dir.path(), options).value();
  TableOptions topts;
  topts.block_size = 4096;
  store->set_table_options(1, topts);
  std::vector<int64_t> order(100'000);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(42));
  // Four SSTables and the memtable each get a quarter... of a random permutation, in batches.
  for (size_t i = 0; i < order.size(); i += 500) {
    MutationBuilder batch;
    auto& update = batch.partition(1, "wide");
    for (size_t j = i; j < i + 500; ++j)
      update.rows.push_back({ck(order[j]), insert_row("v" + std::to_string(order[j]))});
    REQUIRE(apply_mutations(*store, batch).is_ok());
    if ((i + 500) % 20'000 == 0 && i + 500 < order.size()) REQUIRE(store->flush().is_ok());
  }
  CHECK(store->stats().sstable_count == 4);
  auto snap = store->snapshot().value();

  auto slice = [&](int64_t from, int64_t to, bool reverse, size_t limit) {
    ReadSpec spec = Store::partition_spec("wide");
    spec.clustering_start = ck(from);
    spec.clustering_end = ck(to);
    spec.reverse = reverse;
    auto cursor = store->read(*snap, 1, spec);
    return drain(*cursor, limit);
  };
  std::vector<int64_t> want;
  for (int64_t c = 40'000; c < 40'050; ++c) want.push_back(c);
  CHECK(slice(40'000, 60'000, false, 50) == expected_rows("wide", want));
  std::reverse(want.begin(), want.end());
  CHECK(slice(0, 40'050, true, 50) == expected_rows("wide", want));
  // The whole partition, both ways.
  auto forward = read_partition(*store, 1, "wide");
  REQUIRE(forward.size() == 100'000);
  for (int64_t c = 0; c < 100'000; ++c) REQUIRE(forward[c].clustering == c);
  auto backward = read_partition(*store, 1, "wide", true);
  REQUIRE(backward.size() == 100'000);
  for (int64_t c = 0; c < 100'000; ++c) REQUIRE(backward[c].clustering == 99'999 - c);
  // Compaction merges them into one file holding the same rows.
  REQUIRE(store->flush().is_ok());
  REQUIRE(store->compact(1).is_ok());
  CHECK(store->stats().sstable_count == 1);
  auto after = read_partition(*store, 1, "wide", true, 3);
  CHECK(after == expected_rows("wide", {99'999, 99'998, 99'997}));
}

TEST_CASE("store: a full scan returns partitions in Murmur3 token order") {
  auto store = Store::open(":memory:", test_options()).value();
  std::vector<std::pair<int64_t, std::string>> expected;
  for (int i = 0; i < 50; ++i) {
    std::string pk = "key" + std::to_string(i);
    put(*store, 1, pk, 0, insert_row("v0"));
    expected.push_back({cassette::types::murmur3_token(pk), pk});
  }
  REQUIRE(store->flush().is_ok());
  for (int i = 0; i < 50; i += 2) put(*store, 1, "key" + std::to_string(i), 1, insert_row("v1"));
  std::sort(expected.begin(), expected.end());
  auto snap = store->snapshot().value();
  auto cursor = store->read(*snap, 1, Store::range_spec({}));
  std::vector<std::string> seen;
  while (cursor->next()) {
    if (seen.empty() || seen.back() != cursor->partition_key())
      seen.push_back(cursor->partition_key());
    CHECK(cursor->token() == cassette::types::murmur3_token(cursor->partition_key()));
  }
  REQUIRE(seen.size() == expected.size());
  for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == expected[i].second);
  // A token range (a, b]: exactly the partitions with a < token <= b.
  TokenRange range{expected[10].first, false, expected[20].first, true};
  auto ranged = store->read(*snap, 1, Store::range_spec(range));
  std::vector<std::string> in_range;
  while (ranged->next()) {
    if (in_range.empty() || in_range.back() != ranged->partition_key())
      in_range.push_back(ranged->partition_key());
  }
  REQUIRE(in_range.size() == 10);
  CHECK(in_range.front() == expected[11].second);
  CHECK(in_range.back() == expected[20].second);
}

TEST_CASE("store: deletions shadow data in older files; partition and range tombstones") {
  ManualClock clock;
  auto store = Store::open(":memory:", test_options(&clock)).value();
  for (int c = 0; c < 10; ++c) put(*store, 1, "p", c, insert_row("v" + std::to_string(c)));
  REQUIRE(store->flush().is_ok());
  put(*store, 1, "p", 3, deleted_row(clock.now_seconds()));
  MutationBuilder range;
  range.partition(1, "p").header.range_tombstones.push_back(
      {ck(5), ck(8), DeletionTime{kAutoTimestamp, clock.now_seconds()}});
  REQUIRE(apply_mutations(*store, range).is_ok());
  CHECK(read_partition(*store, 1, "p") == expected_rows("p", {0, 1, 2, 4, 8, 9}));
  REQUIRE(store->flush().is_ok());
  put(*store, 1, "p", 6, insert_row("v6"));  // newer than the range tombstone: visible
  CHECK(read_partition(*store, 1, "p") == expected_rows("p", {0, 1, 2, 4, 6, 8, 9}));
  MutationBuilder drop;
  drop.partition(1, "p").header.deletion = DeletionTime{kAutoTimestamp, clock.now_seconds()};
  REQUIRE(apply_mutations(*store, drop).is_ok());
  CHECK(read_partition(*store, 1, "p").empty());
  put(*store, 1, "p", 42, insert_row("v42"));
  CHECK(read_partition(*store, 1, "p") == expected_rows("p", {42}));
}

TEST_CASE("store: static rows, and a partition with only a static row") {
  auto store = Store::open(":memory:", test_options()).value();
  MutationBuilder batch;
  batch.partition(1, "s").static_row = insert_row("static");
  REQUIRE(apply_mutations(*store, batch).is_ok());
  auto snap = store->snapshot().value();
  auto cursor = store->read(*snap, 1, Store::partition_spec("s"));
  REQUIRE(cursor->next());
  CHECK(cursor->is_static_only());
  REQUIRE(cursor->static_row() != nullptr);
  CHECK(cell_value(*cursor->static_row()) == "static");
  CHECK_FALSE(cursor->next());
  put(*store, 1, "s", 1, insert_row("v1"));
  REQUIRE(store->flush().is_ok());
  auto snap2 = store->snapshot().value();
  auto rows = store->read(*snap2, 1, Store::partition_spec("s"));
  REQUIRE(rows->next());
  CHECK_FALSE(rows->is_static_only());
  CHECK(cell_value(*rows->static_row()) == "static");
  CHECK(cell_value(rows->row()) == "v1");
  CHECK_FALSE(rows->next());
}

TEST_CASE("store: counters sum their deltas across memtable, SSTables and restarts, never twice") {
  TempDir dir;
  int64_t expected = 0;
  {
    auto store = Store::open(dir.path(), test_options()).value();
    for (int i = 1; i <= 10; ++i) {
      put(*store, 1, "c", 0, counter_row(i));
      expected += i;
      if (i % 3 == 0) REQUIRE(store->flush().is_ok());
    }
    put(*store, 1, "c", 0, counter_row(-5));
    expected -= 5;
  }
  auto store = Store::open(dir.path(), test_options()).value();
  auto total = [&] {
    auto snap = store->snapshot().value();
    auto cursor = store->read(*snap, 1, Store::partition_spec("c"));
    REQUIRE(cursor->next());
    return cursor->row().find_column(kValueColumn)->cell.counter_value();
  };
  CHECK(total() == expected);
  REQUIRE(store->flush().is_ok());
  REQUIRE(store->compact(1).is_ok());
  CHECK(total() == expected);
}

TEST_CASE("store: TTL expiry and tombstone purging follow the injected clock") {
  ManualClock clock;
  TempDir dir;
  auto store = Store::open(dir.path(), test_options(&clock)).value();
  TableOptions topts;
  topts.gc_grace_seconds = 3600;
  store->set_table_options(1, topts);
  MutationBuilder batch;
  batch.partition(1, "t").rows.push_back({ck(1), insert_row_ttl("short", 10, clock.now_seconds())});
  batch.partition(1, "t").rows.push_back({ck(2), insert_row("forever")});
  REQUIRE(apply_mutations(*store, batch).is_ok());
  put(*store, 1, "t", 3, insert_row("doomed"));
  put(*store, 1, "t", 3, deleted_row(clock.now_seconds()));
  REQUIRE(store->flush().is_ok());
  CHECK(read_partition(*store, 1, "t").size() == 2);
  clock.advance_seconds(9);
  CHECK(read_partition(*store, 1, "t") ==
        std::vector<ReadRow>{{"t", 1, "short"}, {"t", 2, "forever"}});
  clock.advance_seconds(1);
  CHECK(read_partition(*store, 1, "t") == std::vector<ReadRow>{{"t", 2, "forever"}});

  // Before gc_grace_seconds the expired row and the deletion stay as tombstones...
  REQUIRE(store->compact(1).is_ok());
  auto snap = store->snapshot().value();
  REQUIRE(snap->version->files(1).size() == 1);
  CHECK(snap->version->files(1)[0]->reader->stats().entries == 3);
  CHECK(snap->version->files(1)[0]->tombstones >= 2);
  // ...and once it has passed, compaction drops them.
  clock.advance_seconds(3600);
  REQUIRE(store->compact(1).is_ok());
  snap = store->snapshot().value();
  REQUIRE(snap->version->files(1).size() == 1);
  CHECK(snap->version->files(1)[0]->reader->stats().entries == 1);
  CHECK(snap->version->files(1)[0]->tombstones == 0);
  CHECK(read_partition(*store, 1, "t") == std::vector<ReadRow>{{"t", 2, "forever"}});
}

TEST_CASE("store: a tombstone is kept while a file outside the compaction may hold older data") {
  ManualClock clock;
  auto store = Store::open(":memory:", test_options(&clock)).value();
  TableOptions topts;
  topts.gc_grace_seconds = 0;
  store->set_table_options(1, topts);
  put(*store, 1, "p", 1, insert_row("old"));
  put(*store, 1, "p", 1, deleted_row(clock.now_seconds()));
  // The memtable holds an older-timestamped write of the row: the tombstone must stay.
  clock.advance_seconds(10);
  REQUIRE(store->flush().is_ok());
  int64_t old_ts = clock.now_micros() - 60'000'000;
  put(*store, 1, "p", 1, insert_row("older, via USING TIMESTAMP", old_ts));
  clock.advance_seconds(10);
  REQUIRE(store->compact(1).is_ok());
  auto snap = store->snapshot().value();
  CHECK(snap->version->files(1)[0]->tombstones == 1);
  CHECK(read_partition(*store, 1, "p").empty());
}

TEST_CASE("store: truncate removes a table's data and nothing else") {
  TempDir dir;
  {
    auto store = Store::open(dir.path(), test_options()).value();
    put(*store, 1, "p", 1, insert_row("a"));
    put(*store, 2, "p", 1, insert_row("b"));
    REQUIRE(store->flush().is_ok());
    put(*store, 1, "p", 2, insert_row("a2"));
    put(*store, 2, "p", 2, insert_row("b2"));
    REQUIRE(store->truncate(1).is_ok());
    CHECK(read_table(*store, 1).empty());
    CHECK(read_table(*store, 2).size() == 2);
    put(*store, 1, "p", 3, insert_row("after"));
  }
  auto store = Store::open(dir.path(), test_options()).value();
  CHECK(read_table(*store, 1) == std::vector<ReadRow>{{"p", 3, "after"}});
  CHECK(read_table(*store, 2).size() == 2);
}

TEST_CASE("store: the memtable budget triggers flushes and size-tiered compaction") {
  TempDir dir;
  StoreOptions options = test_options();
  options.memtable_budget_bytes = 256 << 10;
  auto store = Store::open(dir.path(), options).value();
  std::string value(200, 'x');
  for (int i = 0; i < 20'000; ++i)
    put(*store, 1, "p" + std::to_string(i % 100), i, insert_row(value));
  StoreStats stats = store->stats();
  CHECK(stats.flushes >= 10);
  CHECK(stats.compactions >= 1);
  CHECK(stats.sstable_count < stats.flushes);
  CHECK(read_table(*store, 1).size() == 20'000);
}

TEST_CASE("store: background flushes keep the data whole") {
  TempDir dir;
  StoreOptions options = test_options();
  options.background_threads = true;
  options.memtable_budget_bytes = 256 << 10;
  auto store = Store::open(dir.path(), options).value();
  std::string value(100, 'y');
  for (int i = 0; i < 30'000; ++i)
    put(*store, 1, "p" + std::to_string(i % 50), i, insert_row(value));
  REQUIRE(store->wait_for_background_work().is_ok());
  CHECK(store->stats().flushes >= 5);
  CHECK(read_table(*store, 1).size() == 30'000);
}

namespace {
void flip_byte(const std::string& path, uint64_t offset) {
  std::string bytes = cassette::file::read_whole_file(path).value();
  REQUIRE(offset < bytes.size());
  bytes[offset] ^= 0x20;
  REQUIRE(cassette::file::write_file_atomically(path, bytes).is_ok());
}
std::string only_sstable(const std::string& store_dir) {
  for (const auto& entry : std::filesystem::directory_iterator(store_dir + "/data")) {
    if (entry.path().extension() == ".sst") return entry.path().string();
  }
  FAIL("no SSTable");
  return {};
}
}  // namespace

TEST_CASE("store: a flipped byte in the manifest is an error naming the file") {
  TempDir dir;
  {
    auto store = Store::open(dir.path(), test_options()).value();
    put(*store, 1, "p", 1, insert_row("v1"));
    REQUIRE(store->flush().is_ok());
  }
  std::string manifest = dir.path() + "/MANIFEST";
  auto size = std::filesystem::file_size(manifest);
  for (uint64_t offset = 0; offset < size; offset += 7) {
    std::string saved = cassette::file::read_whole_file(manifest).value();
    flip_byte(manifest, offset);
    auto reopened = Store::open(dir.path(), test_options());
    REQUIRE_FALSE(reopened.is_ok());
    CHECK(reopened.status().is_corruption());
    CHECK(reopened.status().message().find(manifest) != std::string::npos);
    REQUIRE(cassette::file::write_file_atomically(manifest, saved).is_ok());
  }
  auto healthy = Store::open(dir.path(), test_options()).value();
  CHECK(read_partition(*healthy, 1, "p") == expected_rows("p", {1}));
}

TEST_CASE("store: a flipped byte in an SSTable never returns wrong data") {
  TempDir dir;
  std::vector<ReadRow> want;
  {
    auto store = Store::open(dir.path(), test_options()).value();
    for (int c = 0; c < 300; ++c)
      put(*store, 1, "p" + std::to_string(c % 3), c, insert_row("value " + std::to_string(c)));
    REQUIRE(store->flush().is_ok());
    want = read_table(*store, 1);
  }
  std::string sstable = only_sstable(dir.path());
  std::string saved = cassette::file::read_whole_file(sstable).value();
  int errors = 0;
  for (uint64_t offset = 0; offset < saved.size(); offset += 13) {
    flip_byte(sstable, offset);
    auto store = Store::open(dir.path(), test_options());
    if (!store.is_ok()) {
      CHECK(store.status().message().find(sstable) != std::string::npos);
      ++errors;
    } else {
      std::vector<ReadRow> got;
      std::string error;
      try {
        got = read_table(**store, 1);
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
      if (error.empty()) {
        CHECK(got == want);
      } else {
        CHECK(error.find(sstable) != std::string::npos);
        ++errors;
      }
    }
    store = Status::internal("closed");
    REQUIRE(cassette::file::write_file_atomically(sstable, saved).is_ok());
  }
  CHECK(errors > 0);
}

TEST_CASE("store: a torn commit-log tail is cut on recovery and the store goes on") {
  TempDir dir;
  {
    auto store = Store::open(dir.path(), test_options()).value();
    for (int c = 0; c < 3; ++c) put(*store, 1, "p", c, insert_row("v" + std::to_string(c)));
  }
  std::string segment = dir.path() + "/log/000000000001.log";
  auto full = std::filesystem::file_size(segment);
  std::filesystem::resize_file(segment, full - 5);  // the last record loses its end
  {
    auto store = Store::open(dir.path(), test_options()).value();
    CHECK(read_partition(*store, 1, "p") == expected_rows("p", {0, 1}));
    CHECK(std::filesystem::file_size(segment) < full - 5);  // cut back to the last whole record
    put(*store, 1, "p", 7, insert_row("v7"));
  }
  auto store = Store::open(dir.path(), test_options()).value();
  CHECK(read_partition(*store, 1, "p") == expected_rows("p", {0, 1, 7}));
}
