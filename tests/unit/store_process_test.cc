// Processes sharing a store, for real: a writer killed with SIGKILL at random moments, a writer
// and a reader running side by side while flushes and compactions happen, and the busy error.
//
// Every transaction n writes the same shape: a row (clustering n, value "tx n") in three
// partitions and +1 to a counter. So a store is consistent exactly when each transaction is
// there whole or not at all, and the counter equals the number of transactions present.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;

std::vector<std::string> partitions_of(int64_t tx) {
  return {"a" + std::to_string(tx % 7), "b" + std::to_string(tx % 5), "c"};
}

Status write_transaction(Store& store, int64_t tx) {
  MutationBuilder batch;
  for (const std::string& pk : partitions_of(tx)) {
    batch.partition(kTable, pk).rows.push_back({ck(tx), insert_row("tx " + std::to_string(tx))});
  }
  batch.partition(kTable, "counter").rows.push_back({ck(0), counter_row(1)});
  return apply_mutations(store, batch).status();
}

struct StoreContents {
  std::map<int64_t, std::set<std::string>> rows_of_tx;  // tx -> partitions holding its row
  int64_t counter = 0;
  bool consistent = true;  // every tx whole, values right, counter == transactions present
  std::string problem;
};

StoreContents read_contents(Store& store) {
  StoreContents out;
  auto snap = store.snapshot().value();
  auto cursor = store.read(*snap, kTable, Store::range_spec({}));
  while (cursor->next()) {
    if (cursor->partition_key() == "counter") {
      out.counter = cursor->row().find_column(kValueColumn)->cell.counter_value();
      continue;
    }
    int64_t tx = ck_value(cursor->clustering());
    if (cell_value(cursor->row()) != "tx " + std::to_string(tx)) {
      out.consistent = false;
      out.problem = "wrong value for tx " + std::to_string(tx);
    }
    out.rows_of_tx[tx].insert(cursor->partition_key());
  }
  REQUIRE_MESSAGE(cursor->status().is_ok(), cursor->status().message());
  for (const auto& [tx, parts] : out.rows_of_tx) {
    auto want = partitions_of(tx);
    if (parts != std::set<std::string>(want.begin(), want.end())) {
      out.consistent = false;
      out.problem = "transaction " + std::to_string(tx) + " is half-applied";
    }
  }
  if (out.counter != static_cast<int64_t>(out.rows_of_tx.size())) {
    out.consistent = false;
    out.problem = "counter " + std::to_string(out.counter) + " but " +
                  std::to_string(out.rows_of_tx.size()) + " transactions";
  }
  return out;
}

// The writer child: transactions from `first` on; reports each acknowledged one on `fd`.
// Transactions of at least `sstable_commit_bytes` commit as SSTables (0: never).
[[noreturn]] void run_writer(const std::string& dir, StoreOptions options, int64_t first,
                             int64_t last, int fd, uint64_t sstable_commit_bytes = 0) {
  auto store = Store::open(dir, options);
  if (!store.is_ok()) _exit(2);
  StoreInternals::set_sstable_commit_bytes(**store, sstable_commit_bytes);
  for (int64_t tx = first; tx < last; ++tx) {
    if (!write_transaction(**store, tx).is_ok()) _exit(3);
    if (::write(fd, &tx, sizeof tx) != sizeof tx) _exit(4);
  }
  store->reset();
  _exit(0);
}

std::vector<int64_t> read_all(int fd) {
  std::vector<int64_t> out;
  int64_t v;
  while (::read(fd, &v, sizeof v) == sizeof v) out.push_back(v);
  return out;
}

// Kills a writer at `rounds` random moments (up to `max_delay_micros` after its start); after
// each, the store holds every acknowledged transaction and each one whole or not at all.
// `sstable_commit_bytes` as run_writer's.
void run_killed_writers(int rounds, uint64_t sstable_commit_bytes, int max_delay_micros) {
  TempDir dir;
  std::mt19937 rng(20261122);
  std::set<int64_t> acknowledged;
  int64_t next_tx = 0;
  for (int round = 0; round < rounds; ++round) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    StoreOptions options;
    options.sync = std::array{SyncMode::kFull, SyncMode::kNormal, SyncMode::kOff}[round % 3];
    options.memtable_budget_bytes = 256 << 10;  // flushes and compactions while being killed
    options.background_threads = round % 2 == 0;
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      run_writer(dir.path(), options, next_tx, next_tx + 1'000'000, fds[1], sstable_commit_bytes);
    }
    ::close(fds[1]);
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(500, max_delay_micros)(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    for (int64_t tx : read_all(fds[0])) acknowledged.insert(tx);
    ::close(fds[0]);

    StoreOptions reader;
    reader.background_threads = false;
    auto store = Store::open(dir.path(), reader).value();
    StoreContents contents = read_contents(*store);
    INFO("round ", round);
    REQUIRE_MESSAGE(contents.consistent, contents.problem);
    for (int64_t tx : acknowledged)
      REQUIRE_MESSAGE(contents.rows_of_tx.contains(tx), "lost tx ", tx);
    if (!contents.rows_of_tx.empty()) next_tx = contents.rows_of_tx.rbegin()->first + 1;
  }
  CHECK(acknowledged.size() > static_cast<size_t>(rounds));
}

}  // namespace

TEST_CASE("crash: a writer killed at 50 random moments loses no acknowledged transaction") {
  run_killed_writers(50, /*sstable_commit_bytes=*/0, /*max_delay_micros=*/60'000);
}

TEST_CASE("crash: a writer committing as SSTables, killed at 30 random moments, likewise") {
  // Every transaction commits as SSTables and a MANIFEST change: killed while writing the
  // files, installing them or between the two, a transaction is there whole or not at all.
  // Such a commit syncs a file, the directory and MANIFEST: slower, so the writers live longer.
  run_killed_writers(30, /*sstable_commit_bytes=*/1, /*max_delay_micros=*/200'000);
}

namespace {

// A writer child runs `transactions` transactions while this process reads the store over and
// over: each read sees a prefix of them, each whole. `sstable_commit_bytes` as run_writer's.
void read_while_writing(int64_t transactions, uint64_t sstable_commit_bytes) {
  TempDir dir;
  const int64_t kTransactions = transactions;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  StoreOptions options;
  options.sync = SyncMode::kOff;
  options.memtable_budget_bytes = 256 << 10;
  {
    auto created = Store::open(dir.path(), options);  // create it before both start
    REQUIRE(created.is_ok());
  }
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    run_writer(dir.path(), options, 0, kTransactions, fds[1], sstable_commit_bytes);
  }
  ::close(fds[1]);
  StoreOptions reader_options;
  reader_options.background_threads = false;
  auto store = Store::open(dir.path(), reader_options).value();
  int reads = 0;
  int64_t last_seen = 0;
  while (true) {
    int status = 0;
    bool done = ::waitpid(pid, &status, WNOHANG) == pid;
    StoreContents contents = read_contents(*store);
    ++reads;
    REQUIRE_MESSAGE(contents.consistent, contents.problem);
    int64_t seen = static_cast<int64_t>(contents.rows_of_tx.size());
    // A prefix of the writer's transactions, never fewer than before.
    REQUIRE(seen >= last_seen);
    if (seen > 0) REQUIRE(contents.rows_of_tx.rbegin()->first == seen - 1);
    last_seen = seen;
    if (done) {
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
      break;
    }
  }
  CHECK(read_all(fds[0]).size() == kTransactions);
  ::close(fds[0]);
  CHECK(last_seen == kTransactions);
  CHECK(reads > 3);
  auto stats = store->stats();
  CHECK(stats.sstable_count >= 1);
}

}  // namespace

TEST_CASE(
    "processes: a reader sees every commit of a writer whole, in order, during flush and "
    "compaction") {
  read_while_writing(4000, /*sstable_commit_bytes=*/0);
}

TEST_CASE("processes: a reader sees every commit of a writer committing as SSTables whole") {
  // Each transaction is a MANIFEST change the reader catches up with, between compactions.
  read_while_writing(200, /*sstable_commit_bytes=*/1);
}

TEST_CASE("processes: a writer that cannot get the lock gets a clear busy error") {
  TempDir dir;
  StoreOptions options;
  options.busy_timeout = std::chrono::milliseconds(200);
  options.background_threads = false;
  auto store = Store::open(dir.path(), options).value();
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t pid = ::fork();
  if (pid == 0) {  // another process holds the write lock for a while
    int fd = ::open((dir.path() + "/LOCK").c_str(), O_RDWR);
    ::flock(fd, LOCK_EX);
    char c = 1;
    (void)::write(ready[1], &c, 1);
    ::sleep(5);
    _exit(0);
  }
  char c;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  MutationBuilder batch;
  batch.partition(kTable, "p").rows.push_back({ck(1), insert_row("v")});
  auto start = std::chrono::steady_clock::now();
  auto result = apply_mutations(*store, batch);
  auto waited = std::chrono::steady_clock::now() - start;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  REQUIRE_FALSE(result.is_ok());
  CHECK(result.status().is_busy());
  CHECK(result.status().message().rfind("store is busy", 0) == 0);
  CHECK(waited >= std::chrono::milliseconds(200));
  CHECK(read_partition(*store, kTable, "p").empty());
  // Once the lock is free, writing works.
  MutationBuilder again;
  again.partition(kTable, "p").rows.push_back({ck(1), insert_row("v")});
  CHECK(apply_mutations(*store, again).is_ok());
  CHECK(read_partition(*store, kTable, "p").size() == 1);
}
