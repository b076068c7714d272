// engine/storage/keyed_read.h: the keyed read of an index read's candidate rows against the
// general read of the partition (Store::read), on randomized histories: inserts with and without
// TTLs, row deletions, range tombstones, partition deletions, static rows (and their deletion
// by a partition deletion), spread over several SSTables and the memtable, read at times where
// some TTLs have run out. For every partition and a random subset of clustering keys (present
// or not), both directions and a clustering slice, the keyed read must return exactly the
// general read's rows among those keys (whole Row objects: cells, timestamps, TTLs) and the same
// static row; and so must the keyed read given where the SSTables hold those rows (positions, as
// SAI version 3 components record them: sstable_positions.h).
#include "engine/storage/keyed_read.h"

#include <doctest/doctest.h>

#include <random>

#include "engine/storage/clock.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_cache.h"
#include "engine/storage/sstable_positions.h"
#include "engine/storage/store_state.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 7;
constexpr ColumnId kStaticColumn = 9;

struct Seen {
  std::vector<std::string> clustering;
  std::vector<Row> rows;
  bool has_static = false;
  Row static_row;
  friend bool operator==(const Seen&, const Seen&) = default;
};

Seen drain_all(RowCursor& cursor) {
  Seen seen;
  while (cursor.next()) {
    if (const Row* s = cursor.static_row()) {
      seen.has_static = true;
      seen.static_row = *s;
    }
    if (cursor.is_static_only()) continue;
    seen.clustering.push_back(cursor.clustering());
    seen.rows.push_back(cursor.row());
  }
  REQUIRE(cursor.status().is_ok());
  return seen;
}

// The general read of the partition, keeping the rows at `keys`; the static row as the keyed
// read sees it (with a row of the partition live or not).
Seen general(Store& store, const Snapshot& snap, const ReadSpec& spec,
             const std::vector<std::string>& keys) {
  auto cursor = store.read(snap, kTable, spec);
  Seen all = drain_all(*cursor);
  Seen out;
  out.has_static = all.has_static;
  out.static_row = all.static_row;
  for (size_t i = 0; i < all.clustering.size(); ++i) {
    if (std::binary_search(keys.begin(), keys.end(), all.clustering[i])) {
      out.clustering.push_back(all.clustering[i]);
      out.rows.push_back(all.rows[i]);
    }
  }
  return out;
}

void random_write(Store& store, std::mt19937& rng, ManualClock& clock, int64_t* ts) {
  MutationBuilder batch;
  const std::string pk = "p" + std::to_string(rng() % 4);
  PartitionUpdate& update = batch.partition(kTable, pk);
  const int64_t now = clock.now_seconds();
  const int64_t t = ++*ts;
  switch (rng() % 10) {
    case 0: {  // a row deletion
      update.rows.push_back({ck(rng() % 12), deleted_row(now, t)});
      break;
    }
    case 1: {  // a range tombstone
      int64_t a = rng() % 12, b = a + 1 + rng() % 4;
      update.header.range_tombstones.push_back({ck(a), ck(b), DeletionTime{t, now}});
      break;
    }
    case 2:  // a partition deletion (rarely: it shadows everything older)
      if (rng() % 3 == 0) update.header.deletion = DeletionTime{t, now};
      break;
    case 3: {  // a static cell
      ColumnData col;
      col.id = kStaticColumn;
      col.cell = rng() % 2 ? Cell::live(t, "s" + std::to_string(t))
                           : Cell::expiring(t, 1 + rng() % 20, now, "e" + std::to_string(t));
      update.static_row.columns.push_back(std::move(col));
      break;
    }
    case 4: {  // an insert with a TTL
      Row row = insert_row_ttl("ttl" + std::to_string(t), 1 + rng() % 20, now);
      row.liveness.timestamp = t;
      row.columns[0].cell.timestamp = t;
      update.rows.push_back({ck(rng() % 12), std::move(row)});
      break;
    }
    default:  // an insert, or an update of the cell only (no row marker)
      Row row = insert_row("v" + std::to_string(t), t);
      if (rng() % 3 == 0) row.liveness = LivenessInfo{};
      update.rows.push_back({ck(rng() % 12), std::move(row)});
  }
  if (update.header.is_empty() && update.static_row.columns.empty() && update.rows.empty()) return;
  REQUIRE(apply_mutations(store, batch).is_ok());
}

// Where the snapshot's SSTables hold the rows at `keys` of partition `pk`, found through each
// SSTable's own index: what a version 3 component records.
std::vector<RowPosition> positions_of(const Snapshot& snap, const std::string& pk,
                                      const std::vector<std::string>& keys) {
  std::vector<RowPosition> out;
  const std::string prefix = Store::partition_spec(pk).partition_prefix;
  for (const auto& file : snap.version->files(kTable)) {
    const std::vector<DataBlockRef> blocks = sstable_data_blocks(*file->reader).value();
    auto it = file->reader->new_iterator();
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string key = entry_key(prefix, EntryKind::kRow, keys[i]);
      it->seek(key);
      if (!it->valid() || it->key() != key) continue;
      auto block = std::find_if(blocks.begin(), blocks.end(),
                                [&](const DataBlockRef& b) { return b.index_key >= key; });
      REQUIRE(block != blocks.end());
      out.push_back({static_cast<uint32_t>(i), file->reader.get(), block->handle});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RowPosition& a, const RowPosition& b) { return a.row < b.row; });
  return out;
}

// Returns the rows the keyed reads returned (the histories must leave some); counts the
// positions the positioned reads were given in `positioned`.
size_t compare_all(Store& store, std::mt19937& rng, size_t* positioned = nullptr) {
  size_t rows = 0;
  auto snap = store.snapshot().value();
  KeyedReader reader(snap, kTable);
  for (int p = 0; p < 4; ++p) {
    const std::string pk = "p" + std::to_string(p);
    std::vector<std::string> keys;
    for (int c = 0; c < 14; ++c) {
      if (rng() % 2) keys.push_back(ck(c));  // 12 and 13 were never written
    }
    for (bool reverse : {false, true}) {
      for (bool slice : {false, true}) {
        ReadSpec spec = Store::partition_spec(pk);
        spec.reverse = reverse;
        if (slice) {
          spec.clustering_start = ck(3);
          spec.clustering_end = ck(9);
        }
        Seen want = general(store, *snap, spec, keys);
        Seen got = drain_all(*reader.read(spec, keys));
        const std::vector<RowPosition> positions = positions_of(*snap, pk, keys);
        if (positioned != nullptr) *positioned += positions.size();
        CHECK(drain_all(*reader.read(spec, keys, positions)) == got);
        rows += got.rows.size();
        CAPTURE(pk);
        CAPTURE(reverse);
        CAPTURE(slice);
        CHECK(got.clustering == want.clustering);
        CHECK(got.rows == want.rows);
        // The general read shows the static row with its rows, or alone as a static-only row;
        // the keyed read with its rows only.
        if (!got.rows.empty()) {
          CHECK(got.has_static == want.has_static);
          CHECK(got.static_row == want.static_row);
        }
      }
    }
  }
  return rows;
}

}  // namespace

TEST_CASE("keyed read: the candidate rows read by key equal the general read's") {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    TempDir dir;
    ManualClock clock;
    StoreOptions options;
    options.sync = SyncMode::kOff;
    options.background_threads = false;
    options.compaction_min_threshold = 1000;  // every flush stays an SSTable of its own
    options.compaction_max_threshold = 1000;
    options.clock = &clock;
    auto store = Store::open(dir.path(), options).value();
    std::mt19937 rng(seed);
    int64_t ts = 1'700'000'000'000'000;
    size_t rows = 0, positioned = 0;
    for (int i = 0; i < 400; ++i) {
      random_write(*store, rng, clock, &ts);
      if (i % 60 == 59) REQUIRE(store->flush().is_ok());
      if (i % 25 == 24) clock.advance_seconds(3);  // some TTLs run out
      if (i % 100 == 99) rows += compare_all(*store, rng, &positioned);
    }
    CHECK(store->stats().sstable_count >= 6);
    rows += compare_all(*store, rng, &positioned);
    CHECK(rows > 100);
    CHECK(positioned > 100);
    clock.advance_seconds(30);  // every TTL has run out
    compare_all(*store, rng);
  }
}

TEST_CASE("keyed read: a partition's static row comes with its rows; none without a live row") {
  TempDir dir;
  StoreOptions options;
  options.sync = SyncMode::kOff;
  options.background_threads = false;
  auto store = Store::open(dir.path(), options).value();
  MutationBuilder batch;
  PartitionUpdate& update = batch.partition(kTable, "p");
  ColumnData col;
  col.id = kStaticColumn;
  col.cell = Cell::live(5, "static");
  update.static_row.columns.push_back(col);
  update.rows.push_back({ck(1), insert_row("one", 5)});
  REQUIRE(apply_mutations(*store, batch).is_ok());
  REQUIRE(store->flush().is_ok());
  put(*store, kTable, "p", 2, insert_row("two", 6));  // in the memtable

  auto snap = store->snapshot().value();
  KeyedReader reader(snap, kTable);
  const std::vector<std::string> both = {ck(1), ck(2)}, three = {ck(3)}, one = {ck(1)};
  Seen seen = drain_all(*reader.read(Store::partition_spec("p"), both));
  REQUIRE(seen.clustering == std::vector<std::string>{ck(1), ck(2)});
  CHECK(cell_value(seen.rows[0]) == "one");
  CHECK(cell_value(seen.rows[1]) == "two");
  CHECK(seen.has_static);
  REQUIRE(seen.static_row.columns.size() == 1);
  CHECK(seen.static_row.columns[0].cell.value == "static");
  // A key without a row: nothing, not even the static row alone (the general read would return
  // it as a static-only row).
  CHECK(drain_all(*reader.read(Store::partition_spec("p"), three)) == Seen{});
  CHECK(drain_all(*reader.read(Store::partition_spec("q"), one)) == Seen{});
}
