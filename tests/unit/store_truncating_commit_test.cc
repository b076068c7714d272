// A transaction that TRUNCATEs a table and writes (PostgreSQL's TRUNCATE then INSERT in one
// transaction) commits both as one step, on each of the store's four ways to commit one:
// apply_prepared's record, apply_sorted's SSTables (a spilled transaction), and the two-phase
// commit of either kind (prepare_commit, prepare_sorted). Under the fault-injecting file system
// a power loss after any call that changes a file is recovered as a store of its own, which must
// hold the old rows (not committed) or exactly the new ones: never an empty table, never a mix.
// And a reader, in this process or another, never sees the table empty between the two.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "tests/unit/batch_entry_source.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;       // truncated and written by the transaction
constexpr TableId kOtherTable = 2;  // only written by it
const std::string kTag = "test host xid 9";
constexpr int kOldRows = 20;

enum class CommitPath { kApplyPrepared, kApplySorted, kPrepareCommit, kPrepareSorted };
const CommitPath kPaths[] = {CommitPath::kApplyPrepared, CommitPath::kApplySorted,
                             CommitPath::kPrepareCommit, CommitPath::kPrepareSorted};

const char* path_name(CommitPath path) {
  switch (path) {
    case CommitPath::kApplyPrepared:
      return "apply_prepared";
    case CommitPath::kApplySorted:
      return "apply_sorted";
    case CommitPath::kPrepareCommit:
      return "prepare_commit";
    case CommitPath::kPrepareSorted:
      return "prepare_sorted";
  }
  return "?";
}

// The transaction's writes: `rows` rows of partition "new" valued `label`<c>, and one row of
// kOtherTable valued `label`.
MutationBuilder transaction_rows(int rows, const std::string& label) {
  MutationBuilder out;
  for (int c = 0; c < rows; ++c) {
    out.partition(kTable, "new").rows.push_back({ck(c), insert_row(fmt::format("{}{}", label, c))});
  }
  out.partition(kOtherTable, "other").rows.push_back({ck(1), insert_row(label)});
  return out;
}

// TRUNCATE kTable, then write transaction_rows(rows, label), committed through `path`.
Status commit_truncating(Store& store, CommitPath path, int rows, const std::string& label) {
  const MutationBuilder writes = transaction_rows(rows, label);
  const std::vector<TableId> truncate{kTable};
  auto accept = [](const Snapshot&) { return cassette::Result<bool>(true); };
  auto prepare = [&](const Snapshot&, EncodedBatch& batch) -> cassette::Result<bool> {
    CASSETTE_RETURN_IF_ERROR(writes.encode_to(&batch));
    return true;
  };
  BatchSource source(writes);
  switch (path) {
    case CommitPath::kApplyPrepared:
      return store.apply_prepared(prepare, truncate).status();
    case CommitPath::kApplySorted:
      return store.apply_sorted(accept, source, truncate).status();
    case CommitPath::kPrepareCommit: {
      CASSETTE_ASSIGN_OR_RETURN(auto prepared, store.prepare_commit(prepare, truncate, kTag));
      return prepared->commit();
    }
    case CommitPath::kPrepareSorted: {
      CASSETTE_ASSIGN_OR_RETURN(auto prepared,
                                store.prepare_sorted(accept, source, truncate, kTag));
      return prepared->commit();
    }
  }
  return Status::ok();
}

// Both tables from one snapshot: "kTable's rows | kOtherTable's rows".
std::string both_tables(Store& store) {
  auto snap = store.snapshot();
  if (!snap.is_ok()) throw std::runtime_error(snap.status().message());
  std::string out;
  for (TableId table : {kTable, kOtherTable}) {
    auto cursor = store.read(**snap, table, Store::range_spec({}));
    for (const ReadRow& r : drain(*cursor)) {
      out += fmt::format("{}:{}={} ", r.partition_key, r.clustering, r.value);
    }
    if (table == kTable) out += "| ";
  }
  return out;
}

size_t table_rows(Store& store) {
  return read_table(store, kTable).size();
}

std::string scratch_directory() {
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

StoreOptions test_options() {
  StoreOptions options;
  options.sync = SyncMode::kFull;
  options.background_threads = false;
  options.busy_timeout = std::chrono::milliseconds(2000);
  return options;
}

// kTable's old rows: half of them in an SSTable, half in the memtable.
void write_old_rows(Store& store) {
  for (int c = 0; c < kOldRows; ++c) {
    if (c == kOldRows / 2) REQUIRE(store.flush().is_ok());
    put(store, kTable, "old", c, insert_row(fmt::format("old{}", c)));
  }
}

InDoubtResolver answer(InDoubtDecision decision) {
  return [=](std::string_view) { return decision; };
}

struct CrashRun {
  std::vector<bool> held;  // by state: whether it holds the transaction
  std::string before;      // both_tables without the transaction
  std::string after;       // and with it
};

// Power loss after every call that changes a file through a truncating commit on `path`; each
// state is recovered by an opener whose host says `resolution` of a transaction in doubt.
CrashRun crash_at_every_step(CommitPath path, InDoubtDecision resolution) {
  TempDir dir(scratch_directory());
  FaultInjectionFileSystem fs(dir.path());
  const StoreOptions options = test_options();
  CrashRun run;
  std::mutex points_mutex;
  std::vector<DurableState> points;
  {
    auto store = Store::open(dir.file("store"), options).value();
    write_old_rows(*store);
    run.before = both_tables(*store);
    fs.set_observer([&](const FaultInjectionFileSystem::Mutation&, const DurableState& state) {
      std::lock_guard guard(points_mutex);
      points.push_back(state);
    });
    REQUIRE(commit_truncating(*store, path, 7, "new").is_ok());
    fs.set_observer(nullptr);
    run.after = both_tables(*store);
  }
  REQUIRE(run.after.starts_with("new:0=new0 "));
  REQUIRE(points.size() >= 3);
  for (size_t i = 0; i < points.size(); ++i) {
    CAPTURE(i);
    TempDir recovered(scratch_directory());
    REQUIRE(points[i].restore(recovered.path()).is_ok());
    FaultInjectionFileSystem recovery_fs(recovered.path());
    StoreOptions reopen_options = options;
    reopen_options.resolve_in_doubt = answer(resolution);
    auto reopened = Store::open(recovered.file("store"), reopen_options);
    REQUIRE_MESSAGE(reopened.is_ok(), reopened.status().message());
    const std::string rows = both_tables(**reopened);
    CHECK((rows == run.before || rows == run.after));
    run.held.push_back(rows == run.after);
    put(**reopened, kTable, "old", 100, insert_row("later"));  // the store takes writes
  }
  return run;
}

size_t changes(const std::vector<bool>& held) {
  size_t n = 0;
  for (size_t i = 1; i < held.size(); ++i) n += held[i] != held[i - 1];
  return n;
}

}  // namespace

TEST_CASE("truncating commit: power loss at every step leaves the old rows or the new, whole") {
  for (CommitPath path : kPaths) {
    const std::vector<InDoubtDecision> resolutions =
        path == CommitPath::kApplyPrepared || path == CommitPath::kApplySorted
            ? std::vector<InDoubtDecision>{InDoubtDecision::kUnknown}
            : std::vector<InDoubtDecision>{InDoubtDecision::kCommit, InDoubtDecision::kAbort};
    for (InDoubtDecision resolution : resolutions) {
      const std::string name = path_name(path);
      const int resolved = static_cast<int>(resolution);
      CAPTURE(name);
      CAPTURE(resolved);
      const CrashRun run = crash_at_every_step(path, resolution);
      MESSAGE(fmt::format("{}: {} states", path_name(path), run.held.size()));
      CHECK(run.before.starts_with("old:0=old0 "));
      CHECK(!run.held.front());
      CHECK(run.held.back());
      CHECK(changes(run.held) == 1);  // once committed, committed in every later state
    }
  }
}

TEST_CASE("truncating commit: readers in this process and another never see the table empty") {
  // A writer loops TRUNCATE + INSERT of kRows rows on each path while two readers count the
  // table: one through the writer's store, one through a store of its own (another process).
  constexpr int kRows = 50;
  constexpr int kCommitsPerPath = 25;
  TempDir dir(scratch_directory());
  const std::string path = dir.file("store");
  StoreOptions options = test_options();
  options.background_threads = true;
  auto store = Store::open(path, options).value();
  REQUIRE(commit_truncating(*store, CommitPath::kApplyPrepared, kRows, "first").is_ok());
  auto other = StoreInternals::open_as_another_process(path, options).value();

  std::atomic<bool> done{false};
  std::atomic<int> writing{0};  // the path the writer commits on (kPaths' index)
  std::mutex seen_mutex;
  std::vector<std::string> wrong;  // counts other than kRows, by reader
  auto reader = [&](Store& from, const char* name) {
    size_t reads = 0;
    while (!done.load() || reads == 0) {
      const size_t n = table_rows(from);
      ++reads;
      if (n != kRows) {
        std::lock_guard guard(seen_mutex);
        wrong.push_back(
            fmt::format("{} read {} rows during {}", name, n, path_name(kPaths[writing.load()])));
      }
    }
  };
  std::thread same(reader, std::ref(*store), "the writer's store");
  std::thread another(reader, std::ref(*other), "another store");
  Status failed;
  for (size_t p = 0; p < std::size(kPaths); ++p) {
    writing = static_cast<int>(p);
    for (int i = 0; i < kCommitsPerPath && failed.is_ok(); ++i) {
      failed = commit_truncating(*store, kPaths[p], kRows, fmt::format("{}.", i));
    }
  }
  done = true;
  same.join();
  another.join();
  CHECK_MESSAGE(failed.is_ok(), failed.message());
  CHECK(wrong.empty());
  for (const std::string& w : wrong) MESSAGE(w);
  CHECK(table_rows(*store) == kRows);
  CHECK(table_rows(*other) == kRows);
}

TEST_CASE("truncating commit: the truncation and the rows reach a reopened store together") {
  for (CommitPath path : kPaths) {
    const std::string name = path_name(path);
    CAPTURE(name);
    TempDir dir(scratch_directory());
    StoreOptions options = test_options();
    auto store = Store::open(dir.file("store"), options).value();
    write_old_rows(*store);
    REQUIRE(commit_truncating(*store, path, 3, "n").is_ok());
    const std::string want = "new:0=n0 new:1=n1 new:2=n2 | other:1=n ";
    CHECK(both_tables(*store) == want);
    put(*store, kTable, "new", 5, insert_row("after"));  // a later write stays, at reopen too
    store.reset();
    store = Store::open(dir.file("store"), options).value();
    CHECK(both_tables(*store) == "new:0=n0 new:1=n1 new:2=n2 new:5=after | other:1=n ");
  }
}
