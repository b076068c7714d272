// Inline mode (no background thread) does a flush or a compaction in steps, a part of it in
// proportion to the writes before each write (inline_work_before_write), so that no commit waits
// for a whole one: what is under way is a temporary file in data/, every row stays readable
// meanwhile, an explicit flush or compaction finishes it, and a store closed in the middle leaves
// nothing of it behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tests/unit/store_test_util.h"

using namespace cassette::storage;
using namespace cassette::test;

namespace {

StoreOptions inline_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  // Flushed at 4 MiB: eight steps or more; two files of similar size make a compaction.
  o.memtable_budget_bytes = 8 << 20;
  o.compaction_min_threshold = 2;
  return o;
}

// The temporary SSTables in the store's data/ (a flush or a compaction under way).
int temporary_files(const std::string& store_dir) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(store_dir + "/data")) {
    if (entry.path().filename().string().rfind("tmp-", 0) == 0) ++n;
  }
  return n;
}

const std::string kValue(1000, 'v');

// Writes rows from `next` on until `done` holds after a write (at most `limit` rows).
template <typename Done>
int write_until(Store& store, int& next, int limit, Done done) {
  for (int written = 0; written < limit; ++written) {
    put(store, 1, "p" + std::to_string(next % 10), next, insert_row(kValue));
    ++next;
    if (done()) return written + 1;
  }
  return -1;
}

}  // namespace

TEST_CASE("store steps: an inline flush is written over several writes, every row readable") {
  TempDir dir;
  auto store = Store::open(dir.path(), inline_options()).value();
  int next = 0;
  // The write that fills the memtable starts the flush; it is not installed at once.
  REQUIRE(write_until(*store, next, 10'000, [&] { return temporary_files(dir.path()) > 0; }) > 0);
  CHECK(store->stats().flushes == 0);
  CHECK(read_table(*store, 1).size() == static_cast<size_t>(next));
  int writes = write_until(*store, next, 1000, [&] { return store->stats().flushes == 1; });
  // Nearly 4 MiB of entries in steps of 64 KiB (these writes add less): many more writes.
  CHECK(writes >= 16);
  CHECK(temporary_files(dir.path()) == 0);
  CHECK(store->stats().sstable_count == 1);
  CHECK(read_table(*store, 1).size() == static_cast<size_t>(next));
}

TEST_CASE("store steps: an inline compaction is merged over several writes; compact finishes it") {
  TempDir dir;
  auto store = Store::open(dir.path(), inline_options()).value();
  int next = 0;
  REQUIRE(write_until(*store, next, 20'000, [&] { return store->stats().flushes == 2; }) > 0);
  // The two files are merged a step per write: the compaction is under way, not done.
  CHECK(store->stats().compactions == 0);
  REQUIRE(write_until(*store, next, 10, [&] { return temporary_files(dir.path()) > 0; }) > 0);
  CHECK(store->stats().compactions == 0);
  CHECK(read_table(*store, 1).size() == static_cast<size_t>(next));

  SUBCASE("the next writes finish it") {
    int writes = write_until(*store, next, 1000, [&] { return store->stats().compactions == 1; });
    CHECK(writes >= 16);
  }
  SUBCASE("an explicit compaction finishes it first, then compacts the table") {
    REQUIRE(store->flush().is_ok());  // a third file, and the compaction finished
    CHECK(store->stats().compactions >= 1);
    REQUIRE(store->compact(1).is_ok());
    CHECK(store->stats().sstable_count == 1);
  }
  CHECK(temporary_files(dir.path()) == 0);
  CHECK(read_table(*store, 1).size() == static_cast<size_t>(next));
}

TEST_CASE("store steps: a store closed with a flush or a compaction under way loses nothing") {
  TempDir dir;
  int next = 0;
  {
    auto store = Store::open(dir.path(), inline_options()).value();
    SUBCASE("a flush") {}
    SUBCASE("a compaction") {
      REQUIRE(write_until(*store, next, 20'000, [&] { return store->stats().flushes == 2; }) > 0);
      CHECK(store->stats().compactions == 0);
    }
    REQUIRE(write_until(*store, next, 10'000, [&] { return temporary_files(dir.path()) > 0; }) > 0);
  }
  CHECK(temporary_files(dir.path()) == 0);
  auto store = Store::open(dir.path(), inline_options()).value();
  std::vector<ReadRow> rows = read_table(*store, 1);
  REQUIRE(rows.size() == static_cast<size_t>(next));
  for (const ReadRow& row : rows) CHECK(row.value == kValue);
}

TEST_CASE("store steps: with sync normal an inline flush syncs the log a step before installing") {
  // The step after the flush's files are written syncs the log through the flush's end; the
  // install (the step after) does not sync it again. Every row is there, before and after a
  // reopen (which replays the log from the manifest's end of it).
  TempDir dir;
  StoreOptions options = inline_options();
  options.sync = SyncMode::kNormal;
  int next = 0;
  {
    auto store = Store::open(dir.path(), options).value();
    REQUIRE(write_until(*store, next, 10'000, [&] { return temporary_files(dir.path()) > 0; }) > 0);
    REQUIRE(write_until(*store, next, 1000, [&] { return store->stats().flushes == 1; }) > 0);
    CHECK(temporary_files(dir.path()) == 0);
    CHECK_FALSE(std::filesystem::exists(dir.path() + "/MANIFEST.tmp"));
    CHECK(store->stats().sstable_count == 1);
    CHECK(read_table(*store, 1).size() == static_cast<size_t>(next));
  }
  auto reopened = Store::open(dir.path(), options).value();
  CHECK(reopened->stats().sstable_count == 1);
  CHECK(read_table(*reopened, 1).size() == static_cast<size_t>(next));
}
