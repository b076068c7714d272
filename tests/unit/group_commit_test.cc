// Group commit under SyncMode::kFull: concurrent commits share the commit log's fsyncs, and
// still return only once one covers their record (FORMAT.md, "Group commit"). The sharing is
// shown by counting syncs against a bound that commits syncing one after the other (under the
// store lock) cannot meet; durability by reopening and by a simulated power loss; failure by an
// injected failing sync, which fails every commit it covered and none that an earlier sync did.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/storage/commit_log.h"
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

bool is_log_segment(const std::string& path) {
  return path.find("/log/") != std::string::npos && path.ends_with(".log");
}

// The real file system, counting the commit log's writes and syncs. Once armed, the first sync
// of a log segment is held back until `writes` more log writes have happened (or ten seconds,
// so that a log that cannot let writers in meanwhile fails the test's bound instead of hanging).
class GatedLogSyncs final : public PosixForwardingFileSystem {
 public:
  using PosixForwardingFileSystem::PosixForwardingFileSystem;

  void arm(uint64_t writes) {
    std::lock_guard lock(mutex_);
    gate_writes_ = writes;
    gated_ = false;
    armed_ = true;
    log_writes_ = log_syncs_ = 0;
  }
  uint64_t log_syncs() {
    std::lock_guard lock(mutex_);
    return log_syncs_;
  }

  Status write(int fd, std::string_view data, const std::string& path) override {
    Status s = posix_.write(fd, data, path);
    if (is_log_segment(path)) {
      std::lock_guard lock(mutex_);
      ++log_writes_;
      cv_.notify_all();
    }
    return s;
  }
  // Every sync of a log segment takes `delay` longer (the busy disk of a loaded machine), and
  // the most syncs of log segments under way at once is counted.
  void slow_syncs(std::chrono::milliseconds delay) {
    std::lock_guard lock(mutex_);
    sync_delay_ = delay;
  }
  int most_concurrent_log_syncs() {
    std::lock_guard lock(mutex_);
    return most_syncing_;
  }

  Status sync(int fd, const std::string& path) override {
    if (!is_log_segment(path)) return posix_.sync(fd, path);
    std::chrono::milliseconds delay;
    {
      std::unique_lock lock(mutex_);
      if (armed_ && !gated_) {
        gated_ = true;
        cv_.wait_for(lock, std::chrono::seconds(10), [&] { return log_writes_ >= gate_writes_; });
      }
      ++log_syncs_;
      most_syncing_ = std::max(most_syncing_, ++syncing_);
      delay = sync_delay_;
    }
    std::this_thread::sleep_for(delay);
    Status s = posix_.sync(fd, path);
    std::lock_guard lock(mutex_);
    --syncing_;
    return s;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool gated_ = false;
  uint64_t gate_writes_ = 0;
  uint64_t log_writes_ = 0;
  uint64_t log_syncs_ = 0;
  std::chrono::milliseconds sync_delay_{0};
  int syncing_ = 0;
  int most_syncing_ = 0;
};

Status write_row(Store& store, int64_t c) {
  MutationBuilder batch;
  batch.partition(kTable, "p").rows.push_back({ck(c), insert_row("v" + std::to_string(c))});
  return apply_mutations(store, batch).status();
}

std::vector<ReadRow> rows_of(const std::vector<int64_t>& cs) {
  std::vector<int64_t> sorted = cs;
  std::sort(sorted.begin(), sorted.end());
  std::vector<ReadRow> rows;
  for (int64_t c : sorted) rows.push_back({"p", c, "v" + std::to_string(c)});
  return rows;
}

// Runs `threads` threads, each committing `per_thread` rows; returns the rows acknowledged and
// counts the commits that failed.
std::vector<int64_t> commit_concurrently(Store& store, int threads, int per_thread,
                                         int* failures = nullptr) {
  std::mutex mutex;
  std::vector<int64_t> acknowledged;
  int failed = 0;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const int64_t c = t * 1000 + i;
        Status s = write_row(store, c);
        std::lock_guard lock(mutex);
        if (s.is_ok()) {
          acknowledged.push_back(c);
        } else {
          ++failed;
        }
      }
    });
  }
  for (std::thread& w : workers) w.join();
  if (failures != nullptr) *failures = failed;
  return acknowledged;
}

}  // namespace

TEST_CASE("group commit: commits that wait together share one sync of the log") {
  TempDir dir;
  auto writer = CommitLogWriter::open(dir.path(), {}, SyncMode::kFull, 1 << 20);
  REQUIRE(writer.is_ok());
  CommitLogWriter& w = **writer;
  const uint64_t before = w.sync_count();
  constexpr int kCommits = 16;
  std::vector<LogPosition> ends;
  for (int i = 0; i < kCommits; ++i) {
    Result<LogPosition> end = w.append("record " + std::to_string(i), /*sync=*/false);
    REQUIRE(end.is_ok());
    ends.push_back(*end);
  }
  CHECK_FALSE(w.covers(ends.front()));
  std::vector<std::thread> waiters;
  std::vector<Status> results(kCommits);
  for (int i = 0; i < kCommits; ++i) {
    waiters.emplace_back([&, i] { results[i] = w.wait_durable(ends[i]); });
  }
  for (std::thread& t : waiters) t.join();
  for (const Status& s : results) CHECK(s.is_ok());
  // The first waiter's sync covered every record appended before it began.
  CHECK(w.sync_count() - before == 1);
  CHECK(w.covers(ends.back()));
  // A later wait on a covered record syncs nothing more.
  CHECK(w.wait_durable(ends.front()).is_ok());
  CHECK(w.sync_count() - before == 1);
}

// Sync normal: the log's thread syncs what the appends of the last few milliseconds left. A roll
// to a new segment syncs the old one itself, then closes its descriptor: were the thread to start
// a sync meanwhile, it would sync a closed descriptor (EBADF: an append fails for nothing) or
// another file that reused its number. Slow syncs make the thread wake during every roll's.
TEST_CASE("group commit: sync normal's thread never syncs while a roll syncs the old segment") {
  TempDir dir;
  GatedLogSyncs fs(dir.path());
  fs.slow_syncs(std::chrono::milliseconds(20));
  auto writer = CommitLogWriter::open(dir.file("log"), {}, SyncMode::kNormal, 4096);
  REQUIRE(writer.is_ok());
  CommitLogWriter& w = **writer;
  const std::string record(1000, 'r');
  LogPosition end;
  for (int i = 0; i < 40; ++i) {  // a roll every fifth record
    Result<LogPosition> appended = w.append(record, /*sync=*/false);
    REQUIRE_MESSAGE(appended.is_ok(), appended.status().message());
    end = *appended;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CHECK(end.segment >= 8);
  CHECK(fs.most_concurrent_log_syncs() == 1);
  CHECK(w.sync().is_ok());
}

TEST_CASE("group commit: concurrent store commits use fewer syncs than commits, all kept") {
  TempDir dir;
  GatedLogSyncs fs(dir.path());
  StoreOptions options;
  options.sync = SyncMode::kFull;
  options.background_threads = false;
  const std::string path = dir.file("store");
  constexpr int kThreads = 8;
  std::vector<int64_t> acknowledged;
  {
    auto store = Store::open(path, options);
    REQUIRE(store.is_ok());
    REQUIRE(write_row(**store, -1).is_ok());  // creates the first segment (and syncs it)
    acknowledged.push_back(-1);
    // The first commit's sync waits until every thread has appended its record (two writes
    // each: header and payload). Commits that synced under the store lock would each wait for
    // their own sync, one after the other: kThreads syncs (after the gate's ten seconds).
    fs.arm(2 * kThreads);
    std::vector<int64_t> more = commit_concurrently(**store, kThreads, 1);
    CHECK(more.size() == kThreads);
    acknowledged.insert(acknowledged.end(), more.begin(), more.end());
    CHECK(fs.log_syncs() <= 2);
    CHECK(fs.log_syncs() < kThreads);
    CHECK(read_table(**store, kTable) == rows_of(acknowledged));
  }
  auto reopened = Store::open(path, options);
  REQUIRE(reopened.is_ok());
  CHECK(read_table(**reopened, kTable) == rows_of(acknowledged));
}

TEST_CASE("group commit: many threads' commits all survive reopening and a power loss") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  StoreOptions options;
  options.sync = SyncMode::kFull;
  options.commit_log_segment_bytes = 4096;   // segments roll while commits wait
  options.memtable_budget_bytes = 64 << 10;  // and memtables flush
  const std::string path = dir.file("store");
  auto store = Store::open(path, options);
  REQUIRE(store.is_ok());
  std::vector<int64_t> acknowledged = commit_concurrently(**store, 8, 60);
  REQUIRE(acknowledged.size() == 8 * 60);
  CHECK(read_table(**store, kTable) == rows_of(acknowledged));
  // A power loss at this moment, before closing syncs anything more: every acknowledged commit
  // was synced before it returned.
  DurableState state = fs.durable_state();
  store->reset();
  REQUIRE(fs.simulate_power_loss(state).is_ok());
  auto reopened = Store::open(path, options);
  REQUIRE_MESSAGE(reopened.is_ok(), reopened.status().message());
  CHECK(read_table(**reopened, kTable) == rows_of(acknowledged));
}

TEST_CASE("group commit: a failed sync fails every commit it covered, and the log then") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  auto writer = CommitLogWriter::open(dir.file("log"), {}, SyncMode::kFull, 1 << 20);
  REQUIRE(writer.is_ok());
  CommitLogWriter& w = **writer;
  Result<LogPosition> first = w.append("first", /*sync=*/false);
  REQUIRE(first.is_ok());
  REQUIRE(w.wait_durable(*first).is_ok());
  fs.inject({.op = FileOp::kSync, .pattern = "log/*", .error = EIO, .times = 1});
  Result<LogPosition> second = w.append("second", /*sync=*/false);
  Result<LogPosition> third = w.append("third", /*sync=*/false);
  REQUIRE(second.is_ok());
  REQUIRE(third.is_ok());
  const std::string message =
      "cannot sync " + dir.file("log/" + commit_log_segment_name(1)) + ": Input/output error";
  CHECK(w.wait_durable(*third).message() == message);
  CHECK(w.wait_durable(*second).message() == message);  // covered by the failed sync
  CHECK(w.wait_durable(*first).is_ok());                // synced before it
  CHECK(w.failed());
  CHECK_FALSE(w.covers(*second));
  // The fault is spent, but no later sync can be trusted: nothing more goes into this log.
  CHECK(w.append("fourth").status().message() == message);
  CHECK(w.append("fifth", /*sync=*/false).status().message() == message);
  CHECK(w.sync().message() == message);
  CHECK(fs.injected() == 1);
}

TEST_CASE("group commit: concurrent commits a failed sync covered fail and never appear") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  StoreOptions options;
  options.sync = SyncMode::kFull;
  const std::string path = dir.file("store");
  auto store = Store::open(path, options);
  REQUIRE(store.is_ok());
  REQUIRE(write_row(**store, -1).is_ok());
  fs.inject({.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1});
  int failures = 0;
  std::vector<int64_t> acknowledged = commit_concurrently(**store, 8, 20, &failures);
  acknowledged.push_back(-1);
  CHECK(fs.injected() == 1);
  CHECK(failures >= 1);
  CHECK(acknowledged.size() + failures == 8 * 20 + 1);
  // The failed commits' rows are not visible, now or after the next write took the failed
  // segment out of use, reopening, or a power loss.
  CHECK(read_table(**store, kTable) == rows_of(acknowledged));
  REQUIRE(write_row(**store, 9999).is_ok());
  acknowledged.push_back(9999);
  CHECK(read_table(**store, kTable) == rows_of(acknowledged));
  DurableState state = fs.durable_state();
  store->reset();
  REQUIRE(fs.simulate_power_loss(state).is_ok());
  auto reopened = Store::open(path, options);
  REQUIRE_MESSAGE(reopened.is_ok(), reopened.status().message());
  CHECK(read_table(**reopened, kTable) == rows_of(acknowledged));
}
