// Expired liveness markers (LivenessInfo::expired, row.h): what a materialized view row gets
// when it loses its liveness, and ReadSpec::keep_deleted, the read view maintenance merges a
// write into.
#include <doctest/doctest.h>

#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

Row with_cell(int64_t timestamp, std::string value) {
  Row row;
  ColumnData col;
  col.id = kValueColumn;
  col.cell = Cell::live(timestamp, std::move(value));
  row.columns.push_back(std::move(col));
  return row;
}

LivenessInfo marker_at(int64_t timestamp) {
  LivenessInfo live;
  live.timestamp = timestamp;
  return live;
}

const MayPurge kPurgeAll = [](int64_t) { return true; };

}  // namespace

TEST_CASE("expired liveness: never live, wins ties, loses to a newer marker") {
  const LivenessInfo expired = LivenessInfo::expired(10, 100, /*strict=*/false);
  const LivenessInfo strict = LivenessInfo::expired(10, 100, /*strict=*/true);
  CHECK_FALSE(expired.is_live(50));  // whatever the clock says
  CHECK_FALSE(strict.is_live(50));
  CHECK(expired.is_expired_marker());
  CHECK_FALSE(expired.is_strict_marker());
  CHECK(strict.is_strict_marker());
  CHECK(expired.supersedes(marker_at(10)));
  CHECK_FALSE(marker_at(10).supersedes(expired));
  CHECK(marker_at(11).supersedes(expired));
  CHECK(expired.supersedes(LivenessInfo::written(10, 3600, 100)));  // an expiring one too
  CHECK_FALSE(marker_at(9).supersedes(strict));
}

TEST_CASE("expired liveness: a plain marker leaves the cells live, a strict one does not") {
  Row plain = with_cell(5, "a");
  plain.liveness = LivenessInfo::expired(10, 100, false);
  CHECK(purge_for_read(plain, DeletionTime{}, 100));
  CHECK(plain.liveness.is_empty());
  CHECK(cell_value(plain) == "a");

  Row strict = with_cell(50, "a");
  strict.liveness = LivenessInfo::expired(10, 100, true);
  CHECK_FALSE(strict.has_live_data(100));
  CHECK_FALSE(purge_for_read(strict, DeletionTime{}, 100));

  // A newer marker revives the row, cells and all.
  Row revived = with_cell(5, "a");
  revived.liveness = LivenessInfo::expired(10, 100, true);
  Row update;
  update.liveness = marker_at(11);
  reconcile_rows(revived, update);
  CHECK(purge_for_read(revived, DeletionTime{}, 100));
  CHECK(cell_value(revived) == "a");
}

TEST_CASE("expired liveness: a row deletion removes a plain marker, not a strict one") {
  Row plain;
  plain.liveness = LivenessInfo::expired(4, 100, false);
  plain.deletion = DeletionTime{4, 100};
  apply_deletion(plain, DeletionTime{});
  CHECK(plain.liveness.is_empty());

  Row strict = with_cell(9, "late");
  strict.liveness = LivenessInfo::expired(4, 100, true);
  strict.deletion = DeletionTime{4, 100};
  apply_deletion(strict, DeletionTime{});
  CHECK(strict.liveness.is_strict_marker());
  CHECK(cell_value(strict) == "late");
  CHECK_FALSE(purge_for_read(strict, DeletionTime{}, 100));
}

TEST_CASE("expired liveness: compaction keeps a marker for gc_grace after it was written") {
  // Written at second 100; gc_grace ends for it when gc_before passes 100.
  Row plain = with_cell(5, "a");
  plain.liveness = LivenessInfo::expired(10, 100, false);
  CHECK(purge_for_compaction(plain, DeletionTime{}, 150, /*gc_before=*/100, kPurgeAll));
  CHECK(plain.liveness.is_expired_marker());
  CHECK(purge_for_compaction(plain, DeletionTime{}, 150, /*gc_before=*/101, kPurgeAll));
  CHECK(plain.liveness.is_empty());
  CHECK(cell_value(plain) == "a");  // a plain marker's cells stay

  // Not while an older source may hold what it shadows.
  Row held = with_cell(5, "a");
  held.liveness = LivenessInfo::expired(10, 100, true);
  CHECK(purge_for_compaction(held, DeletionTime{}, 150, 101, [](int64_t) { return false; }));
  CHECK(held.liveness.is_strict_marker());

  // A strict row goes with its marker.
  Row strict = with_cell(5, "a");
  strict.liveness = LivenessInfo::expired(10, 100, true);
  CHECK_FALSE(purge_for_compaction(strict, DeletionTime{}, 150, 101, kPurgeAll));
}

TEST_CASE("ReadSpec::keep_deleted: rows with their covering deletion and tombstones") {
  TempDir dir;
  StoreOptions options;
  options.background_threads = false;
  auto store = Store::open(dir.file("store"), options).value();
  const TableId table = 7;
  put(*store, table, "p", 1, insert_row("one", 1));
  put(*store, table, "p", 2, deleted_row(100, 5));  // a row tombstone, nothing live
  {
    MutationBuilder batch;  // a partition deletion at 3: shadows row 1 (written at 1)
    batch.partition(table, "p").header.deletion = DeletionTime{3, 100};
    REQUIRE(apply_mutations(*store, batch).is_ok());
  }
  put(*store, table, "p", 4, with_cell(8, "four"));
  auto snap = store->snapshot().value();

  // An ordinary read sees row 4 only.
  CHECK(read_partition(*store, table, "p").size() == 1);

  ReadSpec spec = Store::partition_spec("p");
  spec.keep_deleted = true;
  auto cursor = store->read(*snap, table, spec);
  std::map<int64_t, Row> rows;
  while (cursor->next()) rows[ck_value(cursor->clustering())] = cursor->row();
  REQUIRE(cursor->status().is_ok());
  REQUIRE(rows.size() == 3);
  CHECK(rows[1].deletion.marked_for_delete_at == 3);  // the partition's, folded in
  CHECK(rows[1].columns.empty());                     // shadowed data removed
  CHECK(rows[1].liveness.is_empty());
  CHECK(rows[2].deletion.marked_for_delete_at == 5);  // its own, stronger
  CHECK(rows[4].deletion.marked_for_delete_at == 3);
  CHECK(cell_value(rows[4]) == "four");
  // A row that is not there: the partition header says what covers it.
  CHECK(cursor->partition_header().deletion_for(ck(3)).marked_for_delete_at == 3);
}
