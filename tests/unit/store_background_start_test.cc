// A store with background threads starts its threads (flush and compaction) only when it has work
// for them: a process that opens a store and reads (or writes less than a memtable) stays
// single-threaded.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

// Whether the process comes to have `n` threads within 2 s. A joined thread can stay listed in
// /proc/self/task for a moment after pthread_join returns (the kernel clears its tid before it
// releases the task), so a count right after a join may still include it.
bool threads_become(size_t n) {
  for (int i = 0; i < 200; ++i) {
    if (thread_count() == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return thread_count() == n;
}

StoreOptions threaded_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;  // no group-commit thread either
  o.background_threads = true;
  return o;
}

}  // namespace

TEST_CASE("store: the background thread starts with the first flush, not at open") {
  TempDir dir;
  const size_t before = thread_count();
  {
    auto store = Store::open(dir.path(), threaded_options()).value();
    CHECK(threads_become(before));
    for (int64_t c : {1, 2, 3}) put(*store, 1, "p", c, insert_row("v" + std::to_string(c)));
    CHECK(read_table(*store, 1).size() == 3);
    CHECK(threads_become(before));  // reads and small writes need no thread

    REQUIRE(store->flush().is_ok());    // a flush may call for a compaction: the threads start
    CHECK(threads_become(before + 2));  // the flush thread and the compaction thread
    REQUIRE(store->wait_for_background_work().is_ok());
    CHECK(read_table(*store, 1).size() == 3);
  }
  CHECK(threads_become(before));  // joined when the store closes

  // Reopened with one SSTable: nothing to compact, no thread.
  {
    auto store = Store::open(dir.path(), threaded_options()).value();
    CHECK(threads_become(before));
    CHECK(read_table(*store, 1).size() == 3);
    CHECK(threads_become(before));
  }
}

TEST_CASE("store: a write that fills the memtable starts the background thread") {
  TempDir dir;
  const size_t before = thread_count();
  StoreOptions options = threaded_options();
  options.memtable_budget_bytes = 256 << 10;
  auto store = Store::open(dir.path(), options).value();
  std::string value(100, 'z');
  int i = 0;
  while (thread_count() == before && i < 10'000) {
    put(*store, 1, "p" + std::to_string(i % 50), i, insert_row(value));
    ++i;
  }
  CHECK(threads_become(before + 2));  // the flush thread and the compaction thread
  CHECK(store->stats().memtable_bytes > 0);
  for (; i < 20'000; ++i) put(*store, 1, "p" + std::to_string(i % 50), i, insert_row(value));
  REQUIRE(store->wait_for_background_work().is_ok());
  CHECK(store->stats().flushes >= 5);
  CHECK(read_table(*store, 1).size() == 20'000);
}

TEST_CASE("store: a store reopened with SSTables to compact starts its thread at open") {
  TempDir dir;
  {
    StoreOptions options = threaded_options();
    options.background_threads = false;
    options.compaction_min_threshold = 1'000'000;  // leave the four SSTables uncompacted
    auto store = Store::open(dir.path(), options).value();
    for (int f = 0; f < 4; ++f) {
      put(*store, 1, "p" + std::to_string(f), 1, insert_row("v"));
      REQUIRE(store->flush().is_ok());
    }
    CHECK(store->stats().sstable_count == 4);
  }
  const size_t before = thread_count();
  auto store = Store::open(dir.path(), threaded_options()).value();
  CHECK(threads_become(before + 2));
  REQUIRE(store->wait_for_background_work().is_ok());
  CHECK(store->stats().sstable_count == 1);
  CHECK(read_table(*store, 1).size() == 4);
}
