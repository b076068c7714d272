// storage::Overlay: a transaction's pending rows on top of a committed snapshot — visible only
// to snapshots made after they were added, stamped just above the clock, forgotten on reset.
#include "engine/storage/overlay.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/storage/row_codec.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::storage;
using cassette::test::ck;
using cassette::test::drain;
using cassette::test::insert_row;
using cassette::test::put;
using cassette::test::ReadRow;

namespace {

constexpr TableId kTable = 1;

StoreOptions options(const Clock* clock) {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.clock = clock;
  o.background_threads = false;
  return o;
}

// One pending row (kAutoTimestamp) of partition "p" at clustering `c`.
void add_pending(EncodedBatch& batch, int64_t c, const std::string& value) {
  std::string encoded;
  encode_row(insert_row(value), &encoded);
  REQUIRE(batch.add_row(kTable, "p", EntryKind::kRow, ck(c), encoded).is_ok());
}

std::vector<ReadRow> rows_of(Store& store, const Snapshot& snapshot) {
  auto cursor = store.read(snapshot, kTable, Store::partition_spec("p"));
  return drain(*cursor);
}

// The write timestamp of the row at clustering `c` of partition "p" (-1: no such row).
int64_t timestamp_of(Store& store, const Snapshot& snapshot, int64_t c) {
  auto cursor = store.read(snapshot, kTable, Store::partition_spec("p"));
  while (cursor->next()) {
    if (cursor->clustering() == ck(c)) return cursor->row().liveness.timestamp;
  }
  return -1;
}

}  // namespace

TEST_CASE("overlay: a batch is seen by snapshots made after it was added, never before") {
  ManualClock clock;
  auto store = Store::open(":memory:", options(&clock)).value();
  put(*store, kTable, "p", 1, insert_row("committed1"));
  auto committed = store->snapshot().value();

  Overlay overlay(&store->clock());
  CHECK_FALSE(overlay.started());
  auto before = overlay.on(*committed);
  CHECK(before->overlay == nullptr);
  CHECK(rows_of(*store, *before) == std::vector<ReadRow>{{"p", 1, "committed1"}});

  overlay.reset();
  CHECK(overlay.started());
  CHECK(overlay.sequence() == 0);
  EncodedBatch first;
  add_pending(first, 2, "pending2");
  REQUIRE(overlay.add(first).is_ok());
  CHECK(overlay.sequence() == 1);
  auto view1 = overlay.on(*committed);

  EncodedBatch second;
  add_pending(second, 3, "pending3");
  REQUIRE(overlay.add(second).is_ok());
  CHECK(overlay.sequence() == 2);
  auto view2 = overlay.on(*committed);

  CHECK(rows_of(*store, *view1) ==
        std::vector<ReadRow>{{"p", 1, "committed1"}, {"p", 2, "pending2"}});
  CHECK(rows_of(*store, *view2) ==
        std::vector<ReadRow>{{"p", 1, "committed1"}, {"p", 2, "pending2"}, {"p", 3, "pending3"}});
  // The committed snapshot itself is untouched.
  CHECK(rows_of(*store, *committed) == std::vector<ReadRow>{{"p", 1, "committed1"}});
  CHECK(overlay.entry_count() == 2);

  // An empty batch takes no sequence number.
  EncodedBatch none;
  REQUIRE(overlay.add(none).is_ok());
  CHECK(overlay.sequence() == 2);
}

TEST_CASE("overlay: rows are stamped just above the clock and shadow committed ones") {
  ManualClock clock;
  auto store = Store::open(":memory:", options(&clock)).value();
  const int64_t committed_ts = put(*store, kTable, "p", 1, insert_row("old"));
  CHECK(committed_ts == clock.now_micros());
  auto committed = store->snapshot().value();

  Overlay overlay(&store->clock());
  overlay.reset();
  CHECK(overlay.timestamp() == clock.now_micros() + 1);
  EncodedBatch batch;
  add_pending(batch, 1, "new");
  REQUIRE(overlay.add(batch).is_ok());
  auto view = overlay.on(*committed);
  CHECK(rows_of(*store, *view) == std::vector<ReadRow>{{"p", 1, "new"}});
  CHECK(timestamp_of(*store, *view, 1) == clock.now_micros() + 1);

  // advance_timestamp: strictly higher even when the clock has not moved, so a rewritten row's
  // new state shadows the one added before.
  overlay.advance_timestamp();
  CHECK(overlay.timestamp() == clock.now_micros() + 2);
  EncodedBatch rewrite;
  add_pending(rewrite, 1, "newer");
  REQUIRE(overlay.add(rewrite).is_ok());
  auto view2 = overlay.on(*committed);
  CHECK(rows_of(*store, *view2) == std::vector<ReadRow>{{"p", 1, "newer"}});
  CHECK(timestamp_of(*store, *view2, 1) == clock.now_micros() + 2);
  CHECK(rows_of(*store, *view) == std::vector<ReadRow>{{"p", 1, "new"}});

  // refresh_timestamp follows the clock: now + 1, even below the current timestamp.
  overlay.refresh_timestamp();
  CHECK(overlay.timestamp() == clock.now_micros() + 1);
  clock.advance_seconds(10);
  overlay.refresh_timestamp();
  CHECK(overlay.timestamp() == clock.now_micros() + 1);
  overlay.advance_timestamp();
  CHECK(overlay.timestamp() == clock.now_micros() + 2);
  overlay.reset();
  CHECK(overlay.timestamp() == clock.now_micros() + 1);
}

TEST_CASE("overlay: reset starts a fresh memtable; snapshots made before keep the old rows") {
  ManualClock clock;
  auto store = Store::open(":memory:", options(&clock)).value();
  auto committed = store->snapshot().value();
  Overlay overlay(&store->clock());
  overlay.reset();
  EncodedBatch batch;
  add_pending(batch, 1, "a");
  add_pending(batch, 2, "b");
  REQUIRE(overlay.add(batch).is_ok());
  auto old_view = overlay.on(*committed);

  overlay.reset();
  CHECK(overlay.started());
  CHECK(overlay.sequence() == 0);
  CHECK(overlay.entry_count() == 0);
  CHECK(rows_of(*store, *overlay.on(*committed)).empty());
  EncodedBatch again;
  add_pending(again, 2, "b2");
  REQUIRE(overlay.add(again).is_ok());
  CHECK(overlay.sequence() == 1);
  CHECK(rows_of(*store, *overlay.on(*committed)) == std::vector<ReadRow>{{"p", 2, "b2"}});
  CHECK(rows_of(*store, *old_view) == std::vector<ReadRow>{{"p", 1, "a"}, {"p", 2, "b"}});

  overlay.clear();
  CHECK_FALSE(overlay.started());
  CHECK(overlay.sequence() == 0);
  CHECK(overlay.on(*committed)->overlay == nullptr);
  CHECK(rows_of(*store, *old_view) == std::vector<ReadRow>{{"p", 1, "a"}, {"p", 2, "b"}});
}

TEST_CASE("overlay: a truncated table reads only the overlay's rows; other tables read all") {
  ManualClock clock;
  auto store = Store::open(":memory:", options(&clock)).value();
  put(*store, kTable, "p", 1, insert_row("in memtable"));
  REQUIRE(store->flush().is_ok());
  put(*store, kTable, "p", 2, insert_row("in memtable too"));
  auto committed = store->snapshot().value();
  Overlay overlay(&store->clock());
  CHECK(rows_of(*store, *overlay.on(*committed, {kTable})).empty());
  overlay.reset();
  EncodedBatch batch;
  add_pending(batch, 3, "after truncate");
  REQUIRE(overlay.add(batch).is_ok());
  CHECK(rows_of(*store, *overlay.on(*committed, {kTable})) ==
        std::vector<ReadRow>{{"p", 3, "after truncate"}});
  const std::vector<ReadRow> all{
      {"p", 1, "in memtable"}, {"p", 2, "in memtable too"}, {"p", 3, "after truncate"}};
  CHECK(rows_of(*store, *overlay.on(*committed)) == all);
  CHECK(rows_of(*store, *overlay.on(*committed, {kTable + 1})) == all);
}

TEST_CASE("overlay: a MutationBuilder's batch is stamped; static rows are found") {
  ManualClock clock;
  auto store = Store::open(":memory:", options(&clock)).value();
  auto committed = store->snapshot().value();
  Overlay overlay(&store->clock());
  overlay.reset();
  MutationBuilder builder;
  auto& partition = builder.partition(kTable, "p");
  partition.rows.push_back({ck(1), insert_row("row")});
  partition.static_row = insert_row("static");
  EncodedBatch batch;
  REQUIRE(builder.encode_to(&batch).is_ok());
  REQUIRE(overlay.add(batch).is_ok());
  CHECK(overlay.sequence() == 1);
  auto view = overlay.on(*committed);
  auto cursor = store->read(*view, kTable, Store::partition_spec("p"));
  REQUIRE(cursor->next());
  CHECK(cursor->clustering() == ck(1));
  CHECK(cursor->row().liveness.timestamp == clock.now_micros() + 1);
  REQUIRE(cursor->static_row() != nullptr);
  CHECK(cassette::test::cell_value(*cursor->static_row()) == "static");
  CHECK(cursor->static_row()->find_column(cassette::test::kValueColumn)->cell.timestamp ==
        clock.now_micros() + 1);
  CHECK_FALSE(cursor->next());
}

TEST_CASE("overlay: a malformed value adds nothing") {
  ManualClock clock;
  auto store = Store::open(":memory:", options(&clock)).value();
  auto committed = store->snapshot().value();
  Overlay overlay(&store->clock());
  overlay.reset();
  EncodedBatch batch;
  add_pending(batch, 1, "good");
  REQUIRE(batch.add_row(kTable, "p", EntryKind::kRow, ck(2), "\xff\xff\xff").is_ok());
  cassette::Status status = overlay.add(batch);
  CHECK(status.message() == "Could not decode the pending writes of a transaction.");
  CHECK(overlay.sequence() == 0);
  CHECK(overlay.entry_count() == 0);
  CHECK(rows_of(*store, *overlay.on(*committed)).empty());
}
