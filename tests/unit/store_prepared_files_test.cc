// Two-phase commit of a transaction too large for a commit-log record (Store::prepare_sorted,
// FORMAT.md "Prepared transactions"): the prepare writes its SSTables, synced, and a prepared
// record that lists them; the commit installs them with one manifest change and then records the
// decision; the abort records it and removes them. Runs under the fault-injecting file system:
// a power loss after any call that changes a file is recovered as its own store, and every one
// holds the transaction whole or not at all, keeps the files of a transaction still in doubt and
// no file of a decided one beyond the manifest's.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "tests/unit/batch_entry_source.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;
constexpr TableId kOtherTable = 2;
const std::string kTag = "test host xid 7";
constexpr int kRows = 30;

// Rows 100.. of partition "big" in kTable, and one in kOtherTable: two SSTables.
MutationBuilder transaction_rows() {
  MutationBuilder rows;
  for (int c = 0; c < kRows; ++c) {
    rows.partition(kTable, "big").rows.push_back({ck(100 + c), insert_row(fmt::format("t{}", c))});
  }
  rows.partition(kOtherTable, "other").rows.push_back({ck(1), insert_row("o1")});
  return rows;
}

std::string scratch_directory() {
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

// The .sst files in a store's data directory and its index components (not the temporary ones).
size_t sstables_on_disk(const std::string& store_path) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(store_path + "/data")) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".sst") && !name.starts_with("tmp-")) ++n;
  }
  return n;
}

size_t sstables_in_manifest(Store& store) {
  auto snap = store.snapshot();
  REQUIRE(snap.is_ok());
  return (*snap)->version->files(kTable).size() + (*snap)->version->files(kOtherTable).size();
}

std::string show(const std::vector<ReadRow>& rows) {
  std::string out;
  for (const ReadRow& r : rows)
    out += fmt::format("{}:{}={} ", r.partition_key, r.clustering, r.value);
  return out;
}

// The transaction's rows of kTable, as show() prints them.
std::string transaction_table_rows() {
  std::string out;
  for (int c = 0; c < kRows; ++c) out += fmt::format("big:{}=t{} ", 100 + c, c);
  return out;
}

// What kTable holds with the transaction (`with`) or without it, beside the rows of partition
// "p" (`p_rows`), which reads before partition "big" (token order).
std::string expected_rows(bool with, const std::string& p_rows = "p:1=v1 ") {
  return p_rows + (with ? transaction_table_rows() : "");
}

InDoubtResolver answer(InDoubtDecision decision, std::vector<std::string>* asked) {
  return [=](std::string_view tag) {
    asked->emplace_back(tag);
    return decision;
  };
}

struct FilesFixture {
  FilesFixture() : FilesFixture(dir_path()) {}
  explicit FilesFixture(std::string root) : dir(std::move(root)), fs(dir.path()) {
    options.sync = SyncMode::kFull;
    options.background_threads = false;
    options.busy_timeout = std::chrono::milliseconds(50);
    open();
  }
  static std::string dir_path() { return scratch_directory(); }
  void open() {
    auto opened = Store::open(path, options);
    REQUIRE_MESSAGE(opened.is_ok(), opened.status().message());
    store = *opened;
  }
  std::shared_ptr<Store> another(const StoreOptions& other_options) {
    auto opened = StoreInternals::open_as_another_process(path, other_options);
    REQUIRE_MESSAGE(opened.is_ok(), opened.status().message());
    return *opened;
  }
  std::unique_ptr<PreparedCommit> prepare(std::vector<TableId> truncate = {}) {
    MutationBuilder rows = transaction_rows();
    BatchSource source(rows);
    auto prepared = store->prepare_sorted(
        [](const Snapshot&) { return cassette::Result<bool>(true); }, source, truncate, kTag);
    REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
    REQUIRE(*prepared != nullptr);
    return std::move(prepared).value();
  }
  std::string rows() { return show(read_table(*store, kTable)); }

  TempDir dir;
  FaultInjectionFileSystem fs;
  std::string path = dir.file("store");
  StoreOptions options;
  std::shared_ptr<Store> store;
};

}  // namespace

TEST_CASE("prepared files: invisible until the commit installs them, at the prepare's timestamp") {
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  std::shared_ptr<Store> other = f.another(f.options);
  const size_t before = sstables_on_disk(f.path);
  auto prepared = f.prepare();
  // Two SSTables written and listed, in no manifest: nobody reads them, writers wait.
  CHECK(sstables_on_disk(f.path) == before + 2);
  CHECK(sstables_in_manifest(*f.store) == 0);
  CHECK(f.rows() == expected_rows(false));
  CHECK(show(read_table(*other, kTable)) == expected_rows(false));
  MutationBuilder row;
  row.partition(kTable, "p").rows.push_back({ck(3), insert_row("v3")});
  CHECK(apply_mutations(*other, row).status().code() == cassette::StatusCode::kBusy);

  const int64_t timestamp = prepared->timestamp();
  REQUIRE(prepared->commit().is_ok());
  CHECK(sstables_in_manifest(*f.store) == 2);
  CHECK(f.rows() == expected_rows(true));
  CHECK(show(read_table(*other, kTable)) == expected_rows(true));
  CHECK(show(read_table(*other, kOtherTable)) == "other:1=o1 ");
  // Stamped at prepare with the transaction's one timestamp, which later writes come after.
  auto snap = f.store->snapshot();
  REQUIRE(snap.is_ok());
  auto cursor = f.store->read(**snap, kTable, Store::partition_spec("big"));
  REQUIRE(cursor->next());
  CHECK(cursor->row().liveness.timestamp == timestamp);
  CHECK(put(*other, kTable, "p", 3, insert_row("v3")) > timestamp);
  CHECK(prepared->commit().code() == cassette::StatusCode::kInvalidArgument);

  // Recovered as committed, nothing in doubt, no file beyond the manifest's.
  other.reset();
  f.store.reset();
  std::vector<std::string> asked;
  f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
  f.open();
  CHECK(asked.empty());
  CHECK(f.rows() == expected_rows(true, "p:1=v1 p:3=v3 "));
  CHECK(sstables_on_disk(f.path) == sstables_in_manifest(*f.store));
}

TEST_CASE("prepared files: an abort, or dropping it unfinished, removes them and writes nothing") {
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.store->flush().is_ok());
  const size_t before = sstables_on_disk(f.path);
  SUBCASE("abort") {
    REQUIRE(f.prepare()->abort().is_ok());
  }
  SUBCASE("dropped") {
    f.prepare().reset();
  }
  CHECK(sstables_on_disk(f.path) == before);
  CHECK(f.rows() == expected_rows(false));
  put(*f.store, kTable, "p", 4, insert_row("v4"));
  f.store.reset();
  f.open();
  CHECK(f.rows() == "p:1=v1 p:4=v4 ");
}

TEST_CASE("prepared files: a TRUNCATE happens only when the transaction commits") {
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.prepare({kTable})->abort().is_ok());
  CHECK(f.rows() == expected_rows(false));
  REQUIRE(f.prepare({kTable})->commit().is_ok());
  CHECK(f.rows() == transaction_table_rows());
  f.store.reset();
  f.open();
  CHECK(f.rows() == transaction_table_rows());
}

TEST_CASE("prepared files: a conflict found at prepare writes no file") {
  FilesFixture f;
  const size_t before = sstables_on_disk(f.path);
  MutationBuilder rows = transaction_rows();
  BatchSource source(rows);
  auto refused = f.store->prepare_sorted(
      [](const Snapshot&) -> cassette::Result<bool> {
        return Status::serialization_failure("could not serialize access");
      },
      source, {}, kTag);
  CHECK(refused.status().is_serialization_failure());
  CHECK(sstables_on_disk(f.path) == before);
  put(*f.store, kTable, "p", 1, insert_row("v1"));  // unlocked
  CHECK(f.rows() == expected_rows(false));
}

TEST_CASE("prepared files: in doubt after a power loss, kept until the resolver decides") {
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  auto prepared = f.prepare();
  DurableState state = f.fs.durable_state();
  prepared.reset();  // its abort is not in `state`
  f.store.reset();
  REQUIRE(f.fs.simulate_power_loss(state).is_ok());
  std::vector<std::string> asked;

  SUBCASE("commit") {
    f.options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
    f.open();
    CHECK(asked == std::vector<std::string>{kTag});
    CHECK(f.rows() == expected_rows(true));
  }
  SUBCASE("abort") {
    f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
    f.open();
    CHECK(asked == std::vector<std::string>{kTag});
    CHECK(f.rows() == expected_rows(false));
  }
  SUBCASE("a host that cannot decide keeps its files; the operator commits it") {
    f.open();  // no resolver: in doubt, its files are no orphans
    CHECK(f.rows() == expected_rows(false));
    CHECK(sstables_on_disk(f.path) == 2);
    f.store.reset();
    f.open();
    CHECK(sstables_on_disk(f.path) == 2);
    CHECK(*f.store->in_doubt_transactions() == std::vector<std::string>{kTag});
    REQUIRE(f.store->decide_in_doubt(kTag, true).is_ok());
    CHECK(f.rows() == expected_rows(true));
  }
  // Decided for good.
  CHECK(sstables_on_disk(f.path) == sstables_in_manifest(*f.store));
  const std::string decided = f.rows();
  f.store.reset();
  f.options.resolve_in_doubt = answer(InDoubtDecision::kUnknown, &asked);
  f.open();
  CHECK(f.rows() == decided);
  CHECK(f.store->in_doubt_transactions()->empty());
  put(*f.store, kTable, "p", 5, insert_row("v5"));
}

// Power loss after every call that changes a file, through a prepare and its decision (commit or
// abort): each state is recovered by an opener whose host says `resolution`. Every one must hold
// the transaction whole or not at all, keep no file beyond the manifest's once decided (at open:
// the store is idle) and take the next write. Returns, state by state, whether it held the
// transaction.
std::vector<bool> crash_at_every_step(bool commit, InDoubtDecision resolution) {
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.store->flush().is_ok());
  std::mutex points_mutex;
  std::vector<DurableState> points;
  f.fs.set_observer([&](const FaultInjectionFileSystem::Mutation&, const DurableState& state) {
    std::lock_guard guard(points_mutex);
    points.push_back(state);
  });
  auto prepared = f.prepare();
  REQUIRE((commit ? prepared->commit() : prepared->abort()).is_ok());
  f.fs.set_observer(nullptr);
  prepared.reset();
  f.store.reset();
  REQUIRE(points.size() >= 6);

  std::vector<bool> held;
  for (size_t i = 0; i < points.size(); ++i) {
    CAPTURE(i);
    TempDir recovered(scratch_directory());
    REQUIRE(points[i].restore(recovered.path()).is_ok());
    FaultInjectionFileSystem recovery_fs(recovered.path());
    StoreOptions options = f.options;
    std::vector<std::string> asked;
    options.resolve_in_doubt = answer(resolution, &asked);
    auto reopened = Store::open(recovered.file("store"), options);
    REQUIRE_MESSAGE(reopened.is_ok(), reopened.status().message());
    const std::string rows = show(read_table(**reopened, kTable));
    CHECK((rows == expected_rows(true) || rows == expected_rows(false)));
    held.push_back(rows == expected_rows(true));
    CHECK(asked.size() <= 1);
    CHECK(sstables_on_disk(recovered.file("store")) == sstables_in_manifest(**reopened));
    put(**reopened, kTable, "p", 9, insert_row("v9"));
    CHECK(show(read_table(**reopened, kTable)) == expected_rows(held.back(), "p:1=v1 p:9=v9 "));
  }
  return held;
}

// How many times `held` changes from one state to the next, and its first true (or size()).
size_t changes(const std::vector<bool>& held) {
  size_t n = 0;
  for (size_t i = 1; i < held.size(); ++i) n += held[i] != held[i - 1];
  return n;
}
size_t first_held(const std::vector<bool>& held) {
  return static_cast<size_t>(std::find(held.begin(), held.end(), true) - held.begin());
}

TEST_CASE("prepared files: power loss at every step of a prepare and its commit") {
  // The host says commit: every state from the durable prepared record on holds it. It says
  // abort: only those from the manifest install on (the commit point passed: no host is asked).
  const std::vector<bool> resolved_commit = crash_at_every_step(true, InDoubtDecision::kCommit);
  const std::vector<bool> resolved_abort = crash_at_every_step(true, InDoubtDecision::kAbort);
  MESSAGE(fmt::format("{} states; held from state {} (host says commit), {} (host says abort)",
                      resolved_commit.size(), first_held(resolved_commit),
                      first_held(resolved_abort)));
  CHECK(!resolved_commit.front());
  CHECK(resolved_commit.back());
  CHECK(changes(resolved_commit) == 1);
  CHECK(!resolved_abort.front());
  CHECK(resolved_abort.back());
  CHECK(changes(resolved_abort) == 1);
  CHECK(first_held(resolved_commit) < first_held(resolved_abort));
}

TEST_CASE("prepared files: power loss at every step of a prepare and its abort") {
  // Held only while the prepared record is durable and the abort record is not, if the host
  // says commit then (an operator's `cassette resolve commit`); never if it says abort.
  const std::vector<bool> resolved_commit = crash_at_every_step(false, InDoubtDecision::kCommit);
  const std::vector<bool> resolved_abort = crash_at_every_step(false, InDoubtDecision::kAbort);
  CHECK(!resolved_commit.front());
  CHECK(!resolved_commit.back());
  CHECK(changes(resolved_commit) == 2);
  CHECK(changes(resolved_abort) == 0);
  CHECK(!resolved_abort.front());
}

TEST_CASE("prepared files: installed but undecided is committed, whatever the host says") {
  // The writer died after the manifest install and before its decision record: the commit
  // point passed. A host that cannot decide is not asked, writes are not refused, and an operator
  // cannot abort it.
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.store->flush().is_ok());  // kTable has an SSTable besides the transaction's
  std::optional<DurableState> installed;
  bool renamed = false;
  auto prepared = f.prepare();
  // The state once the new manifest's name is synced into the directory, before anything else.
  f.fs.set_observer([&](const FaultInjectionFileSystem::Mutation& m, const DurableState& state) {
    if (m.op == FileOp::kRename && m.path.ends_with("MANIFEST.tmp")) renamed = true;
    if (renamed && !installed && m.op == FileOp::kSyncDirectory) installed = state;
  });
  REQUIRE(prepared->commit().is_ok());
  f.fs.set_observer(nullptr);
  prepared.reset();
  f.store.reset();
  REQUIRE(installed);
  REQUIRE(f.fs.simulate_power_loss(*installed).is_ok());
  std::vector<std::string> asked;
  SUBCASE("an opener") {
    f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
    f.open();
  }
  SUBCASE("a reader opened beside a lock holder, then its write") {
    auto lock = StoreLock::open(f.path);
    REQUIRE(lock.is_ok());
    REQUIRE(lock->lock(std::chrono::milliseconds(0)).is_ok());
    f.open();  // cannot decide at open: the lock is held
    CHECK(f.rows() == expected_rows(true));
    lock->unlock();
    CHECK(*f.store->in_doubt_transactions() == std::vector<std::string>{});
  }
  SUBCASE("a reader opened beside a lock holder, then its compaction") {
    // The compaction would merge the transaction's files away: it records the commit first, so
    // no later opener finds the transaction undecided with its files gone and asks a host.
    auto lock = StoreLock::open(f.path);
    REQUIRE(lock.is_ok());
    REQUIRE(lock->lock(std::chrono::milliseconds(0)).is_ok());
    f.open();
    lock->unlock();
    REQUIRE(f.store->compact(kTable).is_ok());
    CHECK(sstables_in_manifest(*f.store) == 2);  // kTable's two merged, kOtherTable's
    f.store.reset();
    f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
    f.open();
  }
  CHECK(asked.empty());
  CHECK(f.rows() == expected_rows(true));
  put(*f.store, kTable, "p", 2, insert_row("v2"));
  CHECK(f.rows() == expected_rows(true, "p:1=v1 p:2=v2 "));
  CHECK(f.store->decide_in_doubt(kTag, false).is_not_found());
  f.store.reset();
  f.open();
  CHECK(f.rows() == expected_rows(true, "p:1=v1 p:2=v2 "));
}

TEST_CASE("prepared files: a commit whose decision record fails is recorded by the next write") {
  FilesFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  auto prepared = f.prepare();
  f.fs.inject({.op = FileOp::kWrite, .pattern = "*/log/*", .error = ENOSPC, .times = 1});
  Status failed = prepared->commit();
  CHECK(failed.code() == cassette::StatusCode::kIOError);
  f.fs.clear_faults();
  // The manifest holds the files: committed, readers see it.
  CHECK(f.rows() == expected_rows(true));
  put(*f.store, kTable, "p", 3, insert_row("v3"));
  CHECK(f.rows() == expected_rows(true, "p:1=v1 p:3=v3 "));
  DurableState state = f.fs.durable_state();
  f.store.reset();
  REQUIRE(f.fs.simulate_power_loss(state).is_ok());
  f.open();  // no resolver: nothing left in doubt
  CHECK(f.store->in_doubt_transactions()->empty());
  CHECK(f.rows() == expected_rows(true, "p:1=v1 p:3=v3 "));
}
