// A transaction of at least the store's sstable_commit_bytes (64 MiB; lowered here) commits as
// SSTables installed by one MANIFEST change (store_sstable_commit.cc): it must read exactly as the
// same transaction committed through the commit log and the memtable, with one timestamp, beside
// older and newer commits, after flushes and compactions and after reopening. Crashes around the
// install: store_process_test.cc runs its killed writers with this commit too.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "engine/storage/row_codec.h"
#include "tests/unit/file_size_limit.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

// A store (":memory:" or a directory) whose transactions of at least `sstable_commit_bytes`
// commit as SSTables (0: never).
std::shared_ptr<Store> open_store(const std::string& path, uint64_t sstable_commit_bytes,
                                  const Clock* clock = nullptr) {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  o.clock = clock;
  std::shared_ptr<Store> store = Store::open(path, o).value();
  StoreInternals::set_sstable_commit_bytes(*store, sstable_commit_bytes);
  return store;
}

// Adds `rows` rows to each of the partitions p0..p{partitions-1} of `table`, values "<tag><c>".
void add_rows(MutationBuilder& batch, TableId table, int partitions, int rows,
              const std::string& tag) {
  for (int p = 0; p < partitions; ++p) {
    auto& update = batch.partition(table, "p" + std::to_string(p));
    for (int c = 0; c < rows; ++c) {
      update.rows.push_back({ck(c), insert_row(tag + std::to_string(c))});
    }
  }
}

MutationBuilder rows_batch(TableId table, int partitions, int rows, const std::string& tag) {
  MutationBuilder batch;
  add_rows(batch, table, partitions, rows, tag);
  return batch;
}

void add_row(EncodedBatch& batch, TableId table, const std::string& pk, int64_t c, const Row& row) {
  std::string value;
  encode_row(row, &value);
  REQUIRE(batch.add_row(table, pk, EntryKind::kRow, ck(c), value).is_ok());
}

// A transaction that writes rows twice, deletes and rewrites them, and deletes a partition and
// a range of another: what a SQL transaction's unfolded log or a MutationBuilder may hand over.
EncodedBatch tricky_batch(int64_t now_seconds) {
  EncodedBatch batch;
  add_row(batch, 1, "a", 1, insert_row("first"));
  add_row(batch, 1, "a", 1, insert_row("second"));  // the same key again
  add_row(batch, 1, "a", 2, deleted_row(now_seconds));
  add_row(batch, 1, "a", 2, insert_row("written after its deletion"));
  add_row(batch, 1, "a", 3, insert_row("kept"));
  add_row(batch, 1, "b", 1, insert_row("under a partition deletion"));
  PartitionHeader gone;
  gone.deletion = DeletionTime{kAutoTimestamp, now_seconds};
  std::string header;
  encode_header(gone, &header);
  REQUIRE(batch.add_row(1, "b", EntryKind::kPartitionHeader, "", header).is_ok());
  PartitionHeader range;
  range.range_tombstones.push_back({ck(10), ck(20), DeletionTime{kAutoTimestamp, now_seconds}});
  header.clear();
  encode_header(range, &header);
  REQUIRE(batch.add_row(2, "c", EntryKind::kPartitionHeader, "", header).is_ok());
  for (int64_t c : {5, 10, 15, 20}) add_row(batch, 2, "c", c, insert_row("c" + std::to_string(c)));
  return batch;
}

}  // namespace

TEST_CASE("sstable commit: a large transaction is committed as SSTables, whole, at one timestamp") {
  TempDir dir;
  ManualClock clock;
  {
    auto store = open_store(dir.path(), 4 << 10, &clock);
    put(*store, 1, "small", 1, insert_row("through the log"));
    const StoreStats before = store->stats();
    MutationBuilder batch = rows_batch(1, 3, 500, "v");
    add_rows(batch, 2, 1, 200, "w");
    const int64_t ts = apply_mutations(*store, batch).value();

    const StoreStats after = store->stats();
    CHECK(after.sstable_count == before.sstable_count + 2);  // one per table
    CHECK(after.commit_log_bytes == before.commit_log_bytes);
    CHECK(after.memtable_bytes == before.memtable_bytes);
    auto snap = store->snapshot().value();
    auto cursor = store->read(*snap, 1, Store::range_spec({}));
    size_t rows = 0;
    while (cursor->next()) {
      if (cursor->partition_key() == "small") continue;
      CHECK(cursor->row().liveness.timestamp == ts);
      CHECK(cursor->row().find_column(kValueColumn)->cell.timestamp == ts);
      ++rows;
    }
    CHECK(rows == 1500);
    auto p1 = read_partition(*store, 1, "p1");
    REQUIRE(p1.size() == 500);
    CHECK(p1[499] == ReadRow{"p1", 499, "v499"});
    CHECK(read_table(*store, 2).size() == 200);
    // The next transaction's timestamp is above it, as after a record (the clock stands still).
    CHECK(put(*store, 1, "small", 2, insert_row("after")) == ts + 1);
  }
  auto store = open_store(dir.path(), 4 << 10);
  CHECK(read_table(*store, 1).size() == 1502);
  CHECK(read_table(*store, 2).size() == 200);
}

TEST_CASE("sstable commit: a transaction reads the same as through the commit log") {
  ManualClock clock;
  auto log_store = open_store(":memory:", 0, &clock);
  auto sstable_store = open_store(":memory:", 1, &clock);
  for (Store* store : {log_store.get(), sstable_store.get()}) {
    put(*store, 1, "b", 2, insert_row("older, deleted by the partition deletion"));
    REQUIRE(store->apply(tricky_batch(clock.now_seconds())).is_ok());
  }
  CHECK(log_store->stats().sstable_count == 0);
  CHECK(sstable_store->stats().sstable_count == 3);  // the put's, and one per table of the batch
  // Two writes of a row at one timestamp: the greater value wins; a deletion at the same
  // timestamp shadows a write.
  const std::vector<ReadRow> want_a = {{"a", 1, "second"}, {"a", 3, "kept"}};
  CHECK(read_partition(*log_store, 1, "a") == want_a);
  CHECK(read_partition(*sstable_store, 1, "a") == want_a);
  CHECK(read_partition(*log_store, 1, "b").empty());
  CHECK(read_partition(*sstable_store, 1, "b").empty());
  const std::vector<ReadRow> want_c = {{"c", 5, "c5"}, {"c", 20, "c20"}};
  CHECK(read_partition(*log_store, 2, "c") == want_c);
  CHECK(read_partition(*sstable_store, 2, "c") == want_c);
}

TEST_CASE("sstable commit: older and newer commits reconcile with it by timestamp, also merged") {
  TempDir dir;
  auto store = open_store(dir.path(), 4 << 10);
  put(*store, 1, "p0", 7, insert_row("older, in the memtable"));
  put(*store, 1, "p9", 1, insert_row("older, untouched"));
  REQUIRE(apply_mutations(*store, rows_batch(1, 2, 300, "big")).is_ok());
  put(*store, 1, "p1", 8, insert_row("newer, in the memtable"));
  auto check = [&] {
    auto p0 = read_partition(*store, 1, "p0");
    REQUIRE(p0.size() == 300);
    CHECK(p0[7].value == "big7");
    auto p1 = read_partition(*store, 1, "p1");
    REQUIRE(p1.size() == 300);
    CHECK(p1[8].value == "newer, in the memtable");
    CHECK(p1[9].value == "big9");
    CHECK(read_partition(*store, 1, "p9") == std::vector<ReadRow>{{"p9", 1, "older, untouched"}});
  };
  check();
  REQUIRE(store->flush().is_ok());
  check();
  REQUIRE(store->compact(1).is_ok());
  CHECK(store->stats().sstable_count == 1);
  check();
}

namespace {

// `rows` rows of 100 pseudo-random letters in partition `pk`: about as large compressed.
MutationBuilder incompressible_batch(TableId table, const std::string& pk, int rows) {
  MutationBuilder batch;
  auto& update = batch.partition(table, pk);
  uint64_t state = 20261128;
  for (int c = 0; c < rows; ++c) {
    std::string value;
    for (int i = 0; i < 100; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      value.push_back(static_cast<char>('a' + (state >> 59)));
    }
    update.rows.push_back({ck(c), insert_row(std::move(value))});
  }
  return batch;
}

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) n += entry.is_regular_file();
  return n;
}

}  // namespace

TEST_CASE("sstable commit: a commit whose SSTable cannot be written leaves nothing behind") {
  TempDir dir;
  {
    auto store = open_store(dir.path(), 64 << 10);
    put(*store, 1, "a", 1, insert_row("before"));
    const size_t data_files = files_in(dir.path() + "/data");
    {
      FileSizeLimit limit(256 << 10);  // the 2 MB SSTable cannot be written
      auto result = apply_mutations(*store, incompressible_batch(1, "lost", 20000));
      REQUIRE_FALSE(result.is_ok());
      CHECK(result.status().message().find("/data/tmp-") != std::string::npos);
      CHECK(read_partition(*store, 1, "lost").empty());
    }
    CHECK(files_in(dir.path() + "/data") == data_files);  // its temporary file is gone
    REQUIRE(apply_mutations(*store, incompressible_batch(1, "kept", 20000)).is_ok());
    put(*store, 1, "a", 2, insert_row("after"));
    CHECK(read_partition(*store, 1, "kept").size() == 20000);
  }
  auto store = open_store(dir.path(), 64 << 10);
  CHECK(read_partition(*store, 1, "lost").empty());
  CHECK(read_partition(*store, 1, "kept").size() == 20000);
  CHECK(read_partition(*store, 1, "a").size() == 2);
}
