// Deferred durability (engine/storage/durability.h): under SyncMode::kFull a commit on a thread
// with a DeferredDurability returns before its fsync, stays invisible to other readers until one
// covers it, and the callback handed over runs only after that fsync (or with its error). A
// thread that reads again sees its own writes; every commit whose callback said OK survives a
// power loss.
#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/storage/durability.h"
#include "engine/util/file_system.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/posix_forwarding_fs.h"
#include "tests/unit/store_test_util.h"

using namespace cassette;
using namespace cassette::test;
using cassette::file::FileIdentity;
using cassette::file::UniqueFd;

namespace {

constexpr TableId kTable = 1;

// The real file system; once held, syncs of commit-log segments wait until released. Counts
// them.
class HeldLogSyncs final : public PosixForwardingFileSystem {
 public:
  using PosixForwardingFileSystem::PosixForwardingFileSystem;

  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    std::lock_guard lock(mutex_);
    held_ = false;
    cv_.notify_all();
  }
  uint64_t log_syncs() {
    std::lock_guard lock(mutex_);
    return log_syncs_;
  }

  Status sync(int fd, const std::string& path) override {
    if (path.find("/log/") != std::string::npos) {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return !held_; });
      Status s = posix_.sync(fd, path);
      ++log_syncs_;
      return s;
    }
    return posix_.sync(fd, path);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool held_ = false;
  uint64_t log_syncs_ = 0;
};

Status write_row(Store& store, int64_t c) {
  MutationBuilder batch;
  batch.partition(kTable, "p").rows.push_back({ck(c), insert_row("v" + std::to_string(c))});
  return apply_mutations(store, batch).status();
}

std::vector<ReadRow> rows_of(std::vector<int64_t> cs) {
  std::sort(cs.begin(), cs.end());
  std::vector<ReadRow> rows;
  for (int64_t c : cs) rows.push_back({"p", c, "v" + std::to_string(c)});
  return rows;
}

StoreOptions full_sync() {
  StoreOptions options;
  options.sync = SyncMode::kFull;
  options.background_threads = false;
  return options;
}

// A one-shot flag another thread waits for.
class Signal {
 public:
  void set() {
    std::lock_guard lock(mutex_);
    set_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return set_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool set_ = false;
};

}  // namespace

TEST_CASE("deferred durability: the commit returns before its fsync, the callback only after") {
  TempDir dir;
  HeldLogSyncs fs(dir.path());
  auto store = Store::open(dir.file("store"), full_sync());
  REQUIRE(store.is_ok());
  REQUIRE(write_row(**store, 1).is_ok());  // creates the first segment (and syncs it)
  fs.hold();
  const uint64_t syncs_before = fs.log_syncs();
  Signal committed;
  std::atomic<bool> called{false};
  Status outcome = Status::internal("not called");
  uint64_t syncs_at_callback = 0;
  std::thread request([&] {
    storage::DeferredDurability deferred;
    REQUIRE(write_row(**store, 2).is_ok());
    CHECK(deferred.pending());
    committed.set();
    // This thread leads the sync: it waits in it (held) and runs the callback after it.
    deferred.when_durable([&](const Status& synced) {
      syncs_at_callback = fs.log_syncs();
      outcome = synced;
      called = true;
    });
    CHECK_FALSE(deferred.pending());
  });
  committed.wait();
  // Appended, not synced: nobody else sees it, and nobody was told it is committed.
  CHECK(fs.log_syncs() == syncs_before);
  CHECK_FALSE(called.load());
  CHECK(read_table(**store, kTable) == rows_of({1}));
  fs.release();
  request.join();
  CHECK(called.load());
  CHECK(outcome.is_ok());
  CHECK(syncs_at_callback == syncs_before + 1);  // the callback came after the fsync
  CHECK(read_table(**store, kTable) == rows_of({1, 2}));
}

TEST_CASE("deferred durability: a thread reads its own deferred writes, and commits in order") {
  TempDir dir;
  auto store = Store::open(dir.file("store"), full_sync());
  REQUIRE(store.is_ok());
  REQUIRE(write_row(**store, 1).is_ok());
  storage::DeferredDurability deferred;
  REQUIRE(write_row(**store, 2).is_ok());
  CHECK(deferred.pending());
  // Reading waits for the commit first: the request sees its own write.
  CHECK(read_table(**store, kTable) == rows_of({1, 2}));
  CHECK_FALSE(deferred.pending());
  REQUIRE(write_row(**store, 3).is_ok());
  REQUIRE(write_row(**store, 4).is_ok());  // the second commit waits for the first
  Status outcome = Status::internal("not called");
  deferred.when_durable([&](const Status& synced) { outcome = synced; });
  CHECK(outcome.is_ok());
  CHECK(read_table(**store, kTable) == rows_of({1, 2, 3, 4}));
}

TEST_CASE("deferred durability: a failed sync fails the callback, and the row never appears") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  auto store = Store::open(dir.file("store"), full_sync());
  REQUIRE(store.is_ok());
  REQUIRE(write_row(**store, 1).is_ok());
  fs.inject({.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1});
  Status outcome;
  {
    storage::DeferredDurability deferred;
    REQUIRE(write_row(**store, 2).is_ok());  // appended; the sync is the callback's
    deferred.when_durable([&](const Status& synced) { outcome = synced; });
  }
  CHECK(fs.injected() == 1);
  CHECK(outcome.message().find("Input/output error") != std::string::npos);
  CHECK(read_table(**store, kTable) == rows_of({1}));
  REQUIRE(write_row(**store, 3).is_ok());  // in a new segment
  CHECK(read_table(**store, kTable) == rows_of({1, 3}));
}

TEST_CASE("deferred durability: every commit a callback acknowledged survives a power loss") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  StoreOptions options = full_sync();
  options.commit_log_segment_bytes = 4096;  // segments roll while commits wait
  const std::string path = dir.file("store");
  auto store = Store::open(path, options);
  REQUIRE(store.is_ok());
  std::mutex mutex;
  std::vector<int64_t> acknowledged;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        storage::DeferredDurability deferred;
        const int64_t c = t * 1000 + i;
        if (!write_row(**store, c).is_ok()) continue;
        deferred.when_durable([&, c](const Status& synced) {
          std::lock_guard lock(mutex);
          if (synced.is_ok()) acknowledged.push_back(c);
        });
      }
    });
  }
  for (std::thread& t : threads) t.join();
  REQUIRE(acknowledged.size() == 8 * 40);
  // A power loss now, before closing syncs anything more: every acknowledged commit was synced
  // before its callback ran.
  DurableState state = fs.durable_state();
  store->reset();
  REQUIRE(fs.simulate_power_loss(state).is_ok());
  auto reopened = Store::open(path, options);
  REQUIRE_MESSAGE(reopened.is_ok(), reopened.status().message());
  CHECK(read_table(**reopened, kTable) == rows_of(acknowledged));
}
