// The file reaper: removals handed over run off the caller's thread, in order, and
// drain_file_reaper (Store::flush, Store::compact, ~Store) waits for them; an SSTable compacted
// away while a snapshot reads it goes once the snapshot is released, not before, and only the
// stores that run threads anyway hand it over.
#include "engine/storage/file_reaper.h"

#include <doctest/doctest.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

size_t sstables_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().extension() == ".sst";
  return n;
}

}  // namespace

TEST_CASE("file reaper: a removal runs on another thread; drain waits for it, in order") {
  std::mutex mutex;
  std::condition_variable cv;
  bool release = false;
  std::vector<int> ran;
  std::thread::id ran_on;
  reap_later([&] {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return release; });  // held until the caller has gone on
    ran.push_back(1);
    ran_on = std::this_thread::get_id();
  });
  reap_later([&] {
    std::lock_guard lock(mutex);
    ran.push_back(2);
  });
  {
    std::lock_guard lock(mutex);
    CHECK(ran.empty());  // the caller did not wait for the held removal
    release = true;
  }
  cv.notify_all();
  drain_file_reaper();
  std::lock_guard lock(mutex);
  CHECK(ran == std::vector<int>{1, 2});
  CHECK(ran_on != std::this_thread::get_id());
}

TEST_CASE("file reaper: compacted files go when the last snapshot reading them is released") {
  TempDir dir;
  StoreOptions options;
  options.sync = SyncMode::kNormal;
  options.background_threads = false;
  options.compaction_min_threshold = 1'000'000;  // only Store::compact merges
  auto store = Store::open(dir.path(), options).value();
  for (int f = 0; f < 4; ++f) {
    put(*store, 1, "p" + std::to_string(f), 1, insert_row("v" + std::to_string(f)));
    REQUIRE(store->flush().is_ok());
  }
  const std::string data = dir.path() + "/data";
  REQUIRE(sstables_in(data) == 4);
  auto old = store->snapshot().value();
  REQUIRE(store->compact(1).is_ok());
  CHECK(sstables_in(data) == 5);  // the old snapshot still reads the inputs
  CHECK(drain(*store->read(*old, 1, Store::range_spec({}))).size() == 4);
  old.reset();  // the inputs' removal goes to the reaper
  drain_file_reaper();
  CHECK(sstables_in(data) == 1);
  CHECK(read_table(*store, 1).size() == 4);
  CHECK(threaded_store(data));
  store.reset();
  CHECK(!threaded_store(data));
}

TEST_CASE("file reaper: a store without threads removes its files itself") {
  TempDir dir;
  StoreOptions options;
  options.sync = SyncMode::kFull;
  options.background_threads = false;  // a PostgreSQL backend's store
  auto store = Store::open(dir.path(), options).value();
  CHECK(!threaded_store(dir.path() + "/data"));
}
