// A read of some columns (ReadSpec::value_columns, what SQLite's colUsed and cassette_fdw's
// column lists become) against the read of every column, on randomized histories spread over
// the memtable (with several fragments of a row) and several SSTables: inserts with and without
// TTLs on the marker and on cells, updates of cells without a marker (rows kept alive by a cell
// alone), cell tombstones, collection elements and collection deletions, row deletions, range
// tombstones, partition deletions and static cells, with write timestamps out of the order of
// the writes (a later write may carry an older timestamp: a row deletion in one source may be
// newer than the marker of another), read at times where some TTLs have run out. For every
// subset of columns read (none at all, as count(*) reads, up to all of them), both directions,
// a clustering slice and a scan of the table, the subset read must return exactly the same rows
// (static-only rows included), with the same liveness, the same static row and, for each column
// it reads, the same cells.
//
// The decoder passes over the unread columns' cells of a version whose marker keeps the row
// alive (row_codec.h, UnreadSkip), and RowCursor reads the versions again when the merged row's
// marker does not; the fixed cases below are the histories where passing over would lose a row.
#include <doctest/doctest.h>

#include <random>

#include "engine/storage/clock.h"
#include "engine/storage/row_codec.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 5;
constexpr ColumnId kStatic = 9;
constexpr ColumnId kList = 6;        // a collection (complex) column
constexpr ColumnId kLastSimple = 5;  // simple regular columns 1..5

struct Seen {
  std::string partition_key;
  std::string clustering;
  bool static_only = false;
  LivenessInfo liveness;
  std::vector<ColumnData> columns;  // the columns read, as the row has them
  bool has_static = false;
  Row static_row;
  friend bool operator==(const Seen&, const Seen&) = default;
};

std::vector<Seen> drain(RowCursor& cursor, const ValueColumns* values) {
  std::vector<Seen> out;
  while (cursor.next()) {
    Seen s;
    s.partition_key = cursor.partition_key();
    s.clustering = cursor.clustering();
    s.static_only = cursor.is_static_only();
    if (const Row* st = cursor.static_row()) {
      s.has_static = true;
      s.static_row = *st;
    }
    if (!s.static_only) {
      const Row& row = cursor.row();
      s.liveness = row.liveness;
      for (const ColumnData& c : row.columns) {
        if (values == nullptr || values->wants(c.id)) s.columns.push_back(c);
      }
    }
    out.push_back(std::move(s));
  }
  REQUIRE(cursor.status().is_ok());
  return out;
}

// A timestamp near `*ts`: mostly the next one, sometimes one from the recent past, so that later
// writes may be older than earlier ones.
int64_t some_timestamp(std::mt19937& rng, int64_t* ts) {
  ++*ts;
  return rng() % 4 == 0 ? *ts - static_cast<int64_t>(rng() % 40) : *ts;
}

Cell some_cell(std::mt19937& rng, int64_t t, int64_t now, const std::string& value) {
  switch (rng() % 6) {
    case 0:
      return Cell::expiring(t, 1 + rng() % 20, now, value);
    case 1:
      return Cell::tombstone(t, now);
    default:
      return Cell::live(t, value);
  }
}

void random_write(Store& store, std::mt19937& rng, ManualClock& clock, int64_t* ts) {
  MutationBuilder batch;
  const std::string pk = "p" + std::to_string(rng() % 4);
  PartitionUpdate& update = batch.partition(kTable, pk);
  const int64_t now = clock.now_seconds();
  const int64_t t = some_timestamp(rng, ts);
  const std::string v = "v" + std::to_string(*ts);
  switch (rng() % 12) {
    case 0:  // a row deletion
      update.rows.push_back({ck(rng() % 10), deleted_row(now, t)});
      break;
    case 1: {  // a range tombstone
      const int64_t a = rng() % 10, b = a + 1 + rng() % 4;
      update.header.range_tombstones.push_back({ck(a), ck(b), DeletionTime{t, now}});
      break;
    }
    case 2:  // a partition deletion (rarely: it shadows everything older)
      if (rng() % 3 == 0) update.header.deletion = DeletionTime{t, now};
      break;
    case 3: {  // a static cell
      ColumnData col;
      col.id = kStatic;
      col.cell = some_cell(rng, t, now, "s" + v);
      update.static_row.columns.push_back(std::move(col));
      break;
    }
    case 4: {  // collection elements, or the collection's deletion with an element
      ColumnData col;
      col.id = kList;
      col.complex = true;
      if (rng() % 3 == 0) col.complex_deletion = DeletionTime{t - 1, now};
      col.cells.push_back(Cell::live(t, v, std::string(1, static_cast<char>('a' + rng() % 3))));
      Row row;
      row.columns.push_back(std::move(col));
      update.rows.push_back({ck(rng() % 10), std::move(row)});
      break;
    }
    default: {  // an insert (marker, maybe with a TTL) or an update (no marker) of some cells
      Row row;
      const uint32_t kind = rng() % 4;
      if (kind == 0) {
        row.liveness = LivenessInfo::written(t, 1 + rng() % 20, now);
      } else if (kind != 1) {
        row.liveness = LivenessInfo::written(t, 0, now);
      }
      for (ColumnId id = 1; id <= kLastSimple; ++id) {
        if (rng() % 3 != 0) continue;
        ColumnData col;
        col.id = id;
        col.cell = some_cell(rng, t, now, v);
        row.columns.push_back(std::move(col));
      }
      if (row.is_empty()) return;
      update.rows.push_back({ck(rng() % 10), std::move(row)});
    }
  }
  if (update.header.is_empty() && update.static_row.columns.empty() && update.rows.empty()) return;
  REQUIRE(apply_mutations(store, batch).is_ok());
}

// Every read of the table (each partition both ways, with and without a slice, and the scan)
// with every column and with `values`; returns the rows the full reads saw.
size_t compare_reads(Store& store, const ValueColumns& values) {
  auto snap = store.snapshot().value();
  std::vector<ReadSpec> specs;
  for (int p = 0; p < 4; ++p) {
    for (bool reverse : {false, true}) {
      for (bool slice : {false, true}) {
        ReadSpec spec = Store::partition_spec("p" + std::to_string(p));
        spec.reverse = reverse;
        if (slice) {
          spec.clustering_start = ck(2);
          spec.clustering_end = ck(7);
        }
        specs.push_back(std::move(spec));
      }
    }
  }
  specs.push_back(Store::range_spec({}));
  ReadSpec sliced_scan = Store::range_spec({});
  sliced_scan.clustering_start = ck(3);
  sliced_scan.clustering_end = ck(8);
  specs.push_back(sliced_scan);
  size_t rows = 0;
  for (ReadSpec& spec : specs) {
    CAPTURE(spec.partition_prefix);
    CAPTURE(spec.reverse);
    CAPTURE(spec.clustering_start);
    auto full = store.read(*snap, kTable, spec);
    const std::vector<Seen> want = drain(*full, &values);
    spec.value_columns = &values;
    auto subset = store.read(*snap, kTable, spec);
    const std::vector<Seen> got = drain(*subset, &values);
    CHECK(got.size() == want.size());
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
      CAPTURE(i);
      CHECK(got[i] == want[i]);
    }
    rows += want.size();
  }
  return rows;
}

ValueColumns columns(std::initializer_list<ColumnId> ids) {
  ValueColumns values;
  values.wanted.assign(kStatic + 1, 0);
  for (ColumnId id : ids) values.wanted[id] = 1;
  return values;
}

StoreOptions test_options(ManualClock* clock) {
  StoreOptions options;
  options.sync = SyncMode::kOff;
  options.background_threads = false;
  options.compaction_min_threshold = 1000;  // every flush stays an SSTable of its own
  options.compaction_max_threshold = 1000;
  options.clock = clock;
  return options;
}

// The rows of `pk` read with `values` (nullptr: every column), as clustering -> liveness
// timestamp (kNoTimestamp: kept alive by cells).
std::vector<std::pair<int64_t, int64_t>> rows_of(Store& store, const std::string& pk,
                                                 const ValueColumns* values, bool reverse) {
  auto snap = store.snapshot().value();
  ReadSpec spec = Store::partition_spec(pk);
  spec.reverse = reverse;
  spec.value_columns = values;
  auto cursor = store.read(*snap, kTable, spec);
  std::vector<std::pair<int64_t, int64_t>> out;
  while (cursor->next()) {
    if (!cursor->is_static_only()) {
      out.emplace_back(ck_value(cursor->clustering()), cursor->row().liveness.timestamp);
    }
  }
  REQUIRE(cursor->status().is_ok());
  return out;
}

}  // namespace

TEST_CASE("column subsets: a read of some columns sees the rows and cells a full read sees") {
  const std::vector<ValueColumns> subsets = {
      columns({}),
      columns({1}),
      columns({3}),
      columns({kList}),
      columns({kStatic}),
      columns({2, 4}),
      columns({1, 5, kList}),
      columns({1, 2, 3, 4, 5, kList, kStatic}),
  };
  size_t rows = 0;
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    TempDir dir;
    ManualClock clock;
    auto store = Store::open(dir.path(), test_options(&clock)).value();
    std::mt19937 rng(seed);
    int64_t ts = 1'700'000'000'000'000;
    for (int i = 0; i < 500; ++i) {
      random_write(*store, rng, clock, &ts);
      if (i % 70 == 69) REQUIRE(store->flush().is_ok());
      if (i % 25 == 24) clock.advance_seconds(3);  // some TTLs run out
      if (i % 125 == 124) {
        for (const ValueColumns& values : subsets) rows += compare_reads(*store, values);
      }
    }
    CHECK(store->stats().sstable_count >= 6);
    clock.advance_seconds(30);  // every TTL has run out
    for (const ValueColumns& values : subsets) rows += compare_reads(*store, values);
  }
  CHECK(rows > 5000);
}

TEST_CASE("column subsets: a newer row deletion elsewhere leaves a row alive by an unread cell") {
  ManualClock clock;
  TempDir dir;
  auto store = Store::open(dir.path(), test_options(&clock)).value();
  const int64_t now = clock.now_seconds();
  // SSTable: the marker at 10 and column 2 at 30 (an INSERT, then an UPDATE with a later
  // timestamp, folded by the flush).
  Row insert;
  insert.liveness = LivenessInfo::written(10, 0, now);
  insert.columns.push_back({1, false, Cell::live(10, "one"), {}, {}});
  put(*store, kTable, "p", 1, insert);
  Row update;
  update.columns.push_back({2, false, Cell::live(30, "two"), {}, {}});
  put(*store, kTable, "p", 1, update);
  REQUIRE(store->flush().is_ok());
  // Memtable: the row deleted at 20, after the marker and before column 2.
  put(*store, kTable, "p", 1, deleted_row(now, 20));

  const ValueColumns only_1 = columns({1}), none = columns({});
  const std::vector<std::pair<int64_t, int64_t>> alive = {{1, kNoTimestamp}};
  for (bool reverse : {false, true}) {
    CHECK(rows_of(*store, "p", nullptr, reverse) == alive);
    CHECK(rows_of(*store, "p", &only_1, reverse) == alive);
    CHECK(rows_of(*store, "p", &none, reverse) == alive);
  }
  // Flushed too: the deletion in a second SSTable.
  REQUIRE(store->flush().is_ok());
  CHECK(rows_of(*store, "p", &none, false) == alive);
  CHECK(rows_of(*store, "p", &none, true) == alive);
}

TEST_CASE("column subsets: an expired newer marker leaves a row alive by an unread cell") {
  ManualClock clock;
  TempDir dir;
  auto store = Store::open(dir.path(), test_options(&clock)).value();
  const int64_t now = clock.now_seconds();
  Row insert;  // a marker without TTL at 10, column 2 at 10
  insert.liveness = LivenessInfo::written(10, 0, now);
  insert.columns.push_back({2, false, Cell::live(10, "two"), {}, {}});
  put(*store, kTable, "p", 1, insert);
  REQUIRE(store->flush().is_ok());
  Row ttl;  // a marker with a 5 s TTL at 20 (supersedes the first) and column 1, in the memtable
  ttl.liveness = LivenessInfo::written(20, 5, now);
  ttl.columns.push_back({1, false, Cell::expiring(20, 5, now, "one"), {}, {}});
  put(*store, kTable, "p", 1, ttl);
  // And in one source: two fragments of the row in the memtable of a second partition.
  put(*store, kTable, "q", 1, insert);
  put(*store, kTable, "q", 1, ttl);

  const ValueColumns only_1 = columns({1}), none = columns({});
  for (const char* pk : {"p", "q"}) {
    CAPTURE(pk);
    const std::vector<std::pair<int64_t, int64_t>> live_marker = {{1, 20}};
    CHECK(rows_of(*store, pk, &none, false) == live_marker);
    CHECK(rows_of(*store, pk, &only_1, true) == live_marker);
  }
  clock.advance_seconds(6);  // the TTL'd marker and column 1 expire; column 2 keeps the row
  for (const char* pk : {"p", "q"}) {
    CAPTURE(pk);
    const std::vector<std::pair<int64_t, int64_t>> alive = {{1, kNoTimestamp}};
    for (bool reverse : {false, true}) {
      CHECK(rows_of(*store, pk, nullptr, reverse) == alive);
      CHECK(rows_of(*store, pk, &only_1, reverse) == alive);
      CHECK(rows_of(*store, pk, &none, reverse) == alive);
    }
  }
}

TEST_CASE("column subsets: a row whose marker keeps it alive records only the columns read") {
  ManualClock clock;
  TempDir dir;
  auto store = Store::open(dir.path(), test_options(&clock)).value();
  Row insert;
  insert.liveness = LivenessInfo::written(10, 0, clock.now_seconds());
  for (ColumnId id = 1; id <= kLastSimple; ++id) {
    insert.columns.push_back({id, false, Cell::live(10, "v" + std::to_string(id)), {}, {}});
  }
  put(*store, kTable, "p", 1, insert);
  const ValueColumns values = columns({2, 4});
  auto snap = store->snapshot().value();
  ReadSpec spec = Store::partition_spec("p");
  spec.value_columns = &values;
  auto cursor = store->read(*snap, kTable, spec);
  REQUIRE(cursor->next());
  const Row& row = cursor->row();
  REQUIRE(row.columns.size() == 2);
  CHECK(row.columns[0] == ColumnData{2, false, Cell::live(10, "v2"), {}, {}});
  CHECK(row.columns[1] == ColumnData{4, false, Cell::live(10, "v4"), {}, {}});
  CHECK_FALSE(cursor->next());
}
