// Two-phase commit in the store (Store::prepare_commit, FORMAT.md "Prepared transactions"): a
// prepared transaction is durable and invisible until it commits; one whose writer died between
// the two phases is decided by the host's resolver, and a host that cannot decide it reads
// without it and refuses to write. Runs under the fault-injecting file system, so a power loss
// at any point is what the disk would hold.
#include <doctest/doctest.h>

#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;
const std::string kTag = "test host xid 42";

// A transaction writing row c of partition "p" (value "v<c>").
Store::PrepareWrite write_row(int64_t c) {
  auto rows = std::make_shared<MutationBuilder>();
  rows->partition(kTable, "p").rows.push_back({ck(c), insert_row("v" + std::to_string(c))});
  return [rows](const Snapshot&, EncodedBatch& batch) -> cassette::Result<bool> {
    CASSETTE_RETURN_IF_ERROR(rows->encode_to(&batch));
    return true;
  };
}

struct PreparedFixture {
  PreparedFixture() {
    options.sync = SyncMode::kFull;
    options.background_threads = false;
    options.busy_timeout = std::chrono::milliseconds(50);
    open();
  }
  void open() {
    auto opened = Store::open(path, options);
    REQUIRE_MESSAGE(opened.is_ok(), opened.status().message());
    store = *opened;
  }
  // The store another process would have open on the same directory.
  std::shared_ptr<Store> another(const StoreOptions& other_options) {
    auto opened = StoreInternals::open_as_another_process(path, other_options);
    REQUIRE_MESSAGE(opened.is_ok(), opened.status().message());
    return *opened;
  }
  // Prepares row c of partition "p" (and a TRUNCATE of the table first, with `truncate`).
  std::unique_ptr<PreparedCommit> prepare(int64_t c, bool truncate = false) {
    std::vector<TableId> tables;
    if (truncate) tables.push_back(kTable);
    auto prepared = store->prepare_commit(write_row(c), tables, kTag);
    REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
    REQUIRE(*prepared != nullptr);
    return std::move(prepared).value();
  }
  // What the disk holds while `prepared` is pending, restored as after a power loss: the
  // writer died between the prepared record and its decision.
  void power_loss_while_prepared(std::unique_ptr<PreparedCommit> prepared) {
    DurableState state = fs.durable_state();
    prepared.reset();  // (its abort record is not in `state`)
    store.reset();
    REQUIRE(fs.simulate_power_loss(state).is_ok());
  }
  std::string rows() { return show(read_table(*store, kTable)); }
  static std::string show(const std::vector<ReadRow>& rows) {
    std::string out;
    for (const ReadRow& r : rows)
      out += fmt::format("{}:{}={} ", r.partition_key, r.clustering, r.value);
    return out;
  }

  TempDir dir;
  FaultInjectionFileSystem fs{dir.path()};
  std::string path = dir.file("store");
  StoreOptions options;
  std::shared_ptr<Store> store;
};

InDoubtResolver answer(InDoubtDecision decision, std::vector<std::string>* asked) {
  return [=](std::string_view tag) {
    asked->emplace_back(tag);
    return decision;
  };
}

}  // namespace

TEST_CASE("prepared: invisible to every reader until it commits, and the store stays locked") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  std::shared_ptr<Store> other = f.another(f.options);
  auto prepared = f.prepare(2);
  CHECK(f.rows() == "p:1=v1 ");
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 ");
  MutationBuilder row;
  row.partition(kTable, "p").rows.push_back({ck(3), insert_row("v3")});
  Status busy = apply_mutations(*other, row).status();
  CHECK(busy.code() == cassette::StatusCode::kBusy);

  REQUIRE(prepared->commit().is_ok());
  CHECK(f.rows() == "p:1=v1 p:2=v2 ");
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 p:2=v2 ");
  CHECK(prepared->commit().code() == cassette::StatusCode::kInvalidArgument);
  REQUIRE(apply_mutations(*other, row).is_ok());
  CHECK(f.rows() == "p:1=v1 p:2=v2 p:3=v3 ");
}

TEST_CASE("prepared: abort, or dropping it unfinished, writes nothing and unlocks") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.prepare(2)->abort().is_ok());
  f.prepare(3).reset();
  CHECK(f.rows() == "p:1=v1 ");
  put(*f.store, kTable, "p", 4, insert_row("v4"));
  f.store.reset();
  f.open();
  CHECK(f.rows() == "p:1=v1 p:4=v4 ");
  CHECK(PreparedFixture::show(read_table(*f.another(f.options), kTable)) == "p:1=v1 p:4=v4 ");
}

TEST_CASE("prepared: a TRUNCATE happens only when the transaction commits") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.prepare(2, /*truncate=*/true)->abort().is_ok());
  CHECK(f.rows() == "p:1=v1 ");
  REQUIRE(f.prepare(3, /*truncate=*/true)->commit().is_ok());
  CHECK(f.rows() == "p:3=v3 ");
  f.store.reset();
  f.open();
  CHECK(f.rows() == "p:3=v3 ");
}

TEST_CASE("apply_prepared: a failed check truncates nothing") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  auto applied = f.store->apply_prepared(
      [](const Snapshot&, EncodedBatch&) -> cassette::Result<bool> {
        return Status::busy("could not serialize access");
      },
      {kTable});
  CHECK(applied.status().code() == cassette::StatusCode::kBusy);
  CHECK(f.rows() == "p:1=v1 ");
}

TEST_CASE("in doubt: a power loss between prepare and commit, decided by the resolver") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  f.power_loss_while_prepared(f.prepare(2));
  std::vector<std::string> asked;

  SUBCASE("commit") {
    f.options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
    f.open();  // an idle store decides at open
    CHECK(asked == std::vector<std::string>{kTag});
    CHECK(f.rows() == "p:1=v1 p:2=v2 ");
    f.store.reset();
    f.open();
    CHECK(f.rows() == "p:1=v1 p:2=v2 ");
    CHECK(asked.size() == 1);  // decided for good
  }
  SUBCASE("abort") {
    f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
    f.open();
    CHECK(f.rows() == "p:1=v1 ");
    put(*f.store, kTable, "p", 3, insert_row("v3"));
    f.store.reset();
    f.open();
    CHECK(f.rows() == "p:1=v1 p:3=v3 ");
    CHECK(asked.size() == 1);
  }
  SUBCASE("a host that cannot decide reads without it and writes nothing") {
    f.open();  // no resolver
    CHECK(f.rows() == "p:1=v1 ");
    MutationBuilder row;
    row.partition(kTable, "p").rows.push_back({ck(3), insert_row("v3")});
    Status refused = apply_mutations(*f.store, row).status();
    CHECK(refused.message() ==
          fmt::format("store {} holds a transaction prepared by test host xid 42 whose writer "
                      "stopped before committing or aborting it, and this host cannot decide it: "
                      "nothing can be written until the host that prepared it writes to the "
                      "store",
                      f.store->path()));
    CHECK(f.store->flush().message() == refused.message());
    CHECK(f.rows() == "p:1=v1 ");
    // The host that can decide it opens the store beside this one and writes.
    StoreOptions deciding = f.options;
    deciding.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
    std::shared_ptr<Store> other = f.another(deciding);
    CHECK(asked.size() == 1);
    CHECK(f.rows() == "p:1=v1 p:2=v2 ");
    REQUIRE(apply_mutations(*f.store, row).is_ok());
    CHECK(f.rows() == "p:1=v1 p:2=v2 p:3=v3 ");
  }
}

TEST_CASE("in doubt: the operator lists it and decides it (cassette resolve)") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  f.power_loss_while_prepared(f.prepare(2));
  f.open();  // no resolver: it stays in doubt
  auto listed = f.store->in_doubt_transactions();
  REQUIRE_MESSAGE(listed.is_ok(), listed.status().message());
  CHECK(*listed == std::vector<std::string>{kTag});
  Status unknown = f.store->decide_in_doubt("test host xid 7", true);
  CHECK(unknown.is_not_found());
  CHECK(unknown.message() == fmt::format("store {} holds no transaction in doubt prepared by "
                                         "test host xid 7",
                                         f.store->path()));
  CHECK(f.rows() == "p:1=v1 ");
  MutationBuilder row;
  row.partition(kTable, "p").rows.push_back({ck(3), insert_row("v3")});

  SUBCASE("commit") {
    REQUIRE(f.store->decide_in_doubt(kTag, true).is_ok());
    CHECK(f.rows() == "p:1=v1 p:2=v2 ");
  }
  SUBCASE("abort") {
    REQUIRE(f.store->decide_in_doubt(kTag, false).is_ok());
    CHECK(f.rows() == "p:1=v1 ");
  }
  // Decided for good: nothing is left in doubt, writes go through, and a reopen agrees.
  CHECK(f.store->in_doubt_transactions()->empty());
  CHECK(f.store->decide_in_doubt(kTag, true).is_not_found());
  REQUIRE(apply_mutations(*f.store, row).is_ok());
  const std::string decided = f.rows();
  f.store.reset();
  f.open();
  CHECK(f.rows() == decided);
  CHECK(f.store->in_doubt_transactions()->empty());
}

TEST_CASE("in doubt: a writer decides it before writing, under the lock") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  std::vector<std::string> asked;
  StoreOptions other_options = f.options;
  other_options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
  auto prepared = f.prepare(2);
  {
    // Opened while its writer lives (and holds the lock): not in doubt, nothing is asked.
    std::shared_ptr<Store> other = f.another(other_options);
    CHECK(asked.empty());
    CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 ");
  }
  f.power_loss_while_prepared(std::move(prepared));
  // Opened while some other process holds the lock: it cannot decide at open...
  auto lock = StoreLock::open(f.path);
  REQUIRE(lock.is_ok());
  REQUIRE(lock->lock(std::chrono::milliseconds(0)).is_ok());
  std::shared_ptr<Store> other = f.another(other_options);
  CHECK(asked.empty());
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 ");
  lock->unlock();
  // ...and its next write decides it first, under the lock.
  put(*other, kTable, "p", 3, insert_row("v3"));
  CHECK(asked == std::vector<std::string>{kTag});
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 p:2=v2 p:3=v3 ");
}

TEST_CASE("in doubt: a prepared record torn by a power loss is no transaction") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  const std::string segment = "store/log/" + commit_log_segment_name(1);
  auto before = f.fs.durable_state().contents(segment);
  REQUIRE(before);
  const size_t committed = before->size();
  auto prepared = f.prepare(2);
  DurableState state = f.fs.durable_state();
  std::string bytes(*state.contents(segment));
  REQUIRE(bytes.size() > committed + 10);
  REQUIRE(state.set_contents(segment, bytes.substr(0, bytes.size() - 5)));
  prepared.reset();
  f.store.reset();
  REQUIRE(f.fs.simulate_power_loss(state).is_ok());
  f.open();  // no resolver: nothing is in doubt
  CHECK(f.rows() == "p:1=v1 ");
  put(*f.store, kTable, "p", 3, insert_row("v3"));
  CHECK(f.rows() == "p:1=v1 p:3=v3 ");
}

TEST_CASE("in doubt: a commit record that fails to be written is decided by the next write") {
  PreparedFixture f;
  std::vector<std::string> asked;
  f.options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
  f.store.reset();
  f.open();
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  auto prepared = f.prepare(2);
  f.fs.inject({.op = FileOp::kWrite, .pattern = "*/log/*", .error = ENOSPC, .times = 1});
  Status failed = prepared->commit();
  CHECK(failed.code() == cassette::StatusCode::kIOError);
  CHECK(f.rows() == "p:1=v1 ");
  f.fs.clear_faults();
  put(*f.store, kTable, "p", 3, insert_row("v3"));
  CHECK(asked == std::vector<std::string>{kTag});
  CHECK(f.rows() == "p:1=v1 p:2=v2 p:3=v3 ");
  DurableState state = f.fs.durable_state();
  f.store.reset();
  REQUIRE(f.fs.simulate_power_loss(state).is_ok());
  f.open();
  CHECK(f.rows() == "p:1=v1 p:2=v2 p:3=v3 ");
}

TEST_CASE("prepared: the commit record is synced, also for a host that could decide it again") {
  // A flush elsewhere may put the manifest's `covered` past the prepared record and sync the log
  // only that far (FORMAT.md): an unsynced commit record lost in a power loss would then take
  // the transaction with it.
  PreparedFixture f;
  std::vector<std::string> asked;
  f.options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
  f.store.reset();
  f.open();
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  const uint64_t syncs = f.fs.calls(FileOp::kSync);
  REQUIRE(f.prepare(2)->commit().is_ok());
  CHECK(f.fs.calls(FileOp::kSync) == syncs + 2);  // the prepared record's and the commit's
  DurableState state = f.fs.durable_state();
  f.store.reset();
  REQUIRE(f.fs.simulate_power_loss(state).is_ok());
  f.open();
  CHECK(asked.empty());  // nothing was left in doubt
  CHECK(f.rows() == "p:1=v1 p:2=v2 ");
}

TEST_CASE("prepared: a memtable another process swapped between the two records") {
  // Another process that read the prepared record may swap its memtable (no store lock needed)
  // before the decision and flush it after, so its manifest's `covered` lies between the
  // prepared record and the commit record: a reader replaying from there must still get the
  // transaction.
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  auto prepared = f.prepare(2);
  std::shared_ptr<Store> other = f.another(f.options);  // replays the prepared record
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 ");
  CHECK(other->flush().code() == cassette::StatusCode::kBusy);  // swapped, then found locked
  REQUIRE(prepared->commit().is_ok());
  // Its next write flushes the swapped memtable first (inline work): `covered` is where it was
  // swapped, between the prepared record and the commit record.
  put(*other, kTable, "p", 3, insert_row("v3"));
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 p:2=v2 p:3=v3 ");
  std::shared_ptr<Store> third = f.another(f.options);
  CHECK(PreparedFixture::show(read_table(*third, kTable)) == "p:1=v1 p:2=v2 p:3=v3 ");
}

TEST_CASE("prepared: a prepared record that begins a new segment is decided where it starts") {
  // The append of a prepared record rolls the log first when the segment is full: its decision
  // must name where it starts in the new segment, or a reopen finds it undecided and asks the
  // host again (and a commit would apply it twice, an abort would become a commit).
  PreparedFixture f;
  std::vector<std::string> asked;
  f.options.commit_log_segment_bytes = 64;  // every record begins a segment of its own
  f.options.max_mutation_bytes = 1 << 20;
  f.options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
  f.store.reset();
  f.open();
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  REQUIRE(f.prepare(2)->commit().is_ok());
  REQUIRE(f.prepare(3)->abort().is_ok());
  f.store.reset();
  f.open();
  CHECK(asked.empty());
  CHECK(f.rows() == "p:1=v1 p:2=v2 ");
}

// A truncating commit's manifest change covers the whole commit log (truncate_tables_locked), so
// it must never run while a transaction of the store is prepared and undecided: the prepared
// record would be covered, and a reopen would never find it to decide. A live preparer holds the
// write locks; one that died is decided first (by the resolver) or the truncation is refused.
namespace {

// TRUNCATE of the table and row c, in one transaction (as a SQL host's BEGIN; TRUNCATE; INSERT).
cassette::Result<std::optional<int64_t>> truncate_and_put(Store& store, int64_t c) {
  return store.apply_prepared(write_row(c), {kTable});
}

}  // namespace

TEST_CASE("prepared: a truncating commit waits for a live prepared transaction") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  std::shared_ptr<Store> other = f.another(f.options);
  auto prepared = f.prepare(2);
  CHECK(truncate_and_put(*other, 3).status().code() == cassette::StatusCode::kBusy);
  CHECK(other->truncate(kTable).code() == cassette::StatusCode::kBusy);
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 ");
  REQUIRE(prepared->commit().is_ok());
  CHECK(PreparedFixture::show(read_table(*other, kTable)) == "p:1=v1 p:2=v2 ");
  REQUIRE(truncate_and_put(*other, 3).is_ok());
  CHECK(f.rows() == "p:3=v3 ");
  f.store.reset();
  f.open();
  CHECK(f.rows() == "p:3=v3 ");
}

TEST_CASE("in doubt: a truncating commit decides it first, or truncates nothing") {
  PreparedFixture f;
  put(*f.store, kTable, "p", 1, insert_row("v1"));
  f.power_loss_while_prepared(f.prepare(2));
  std::vector<std::string> asked;

  SUBCASE("a host that cannot decide it refuses the truncation and keeps the record") {
    f.open();  // no resolver
    Status refused = truncate_and_put(*f.store, 3).status();
    CHECK(refused.message() ==
          fmt::format("store {} holds a transaction prepared by test host xid 42 whose writer "
                      "stopped before committing or aborting it, and this host cannot decide it: "
                      "nothing can be written until the host that prepared it writes to the "
                      "store",
                      f.store->path()));
    CHECK(f.store->truncate(kTable).message() == refused.message());
    CHECK(f.rows() == "p:1=v1 ");
    // Still in doubt on disk: the host that prepared it decides it at its next open.
    f.store.reset();
    f.options.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
    f.open();
    CHECK(asked == std::vector<std::string>{kTag});
    CHECK(f.rows() == "p:1=v1 p:2=v2 ");
  }
  SUBCASE("decided as a commit, then truncated with the rest") {
    f.open();  // no resolver at open: still in doubt when the truncating commit comes
    StoreOptions deciding = f.options;
    deciding.resolve_in_doubt = answer(InDoubtDecision::kCommit, &asked);
    auto lock = StoreLock::open(f.path);
    REQUIRE(lock.is_ok());
    REQUIRE(lock->lock(std::chrono::milliseconds(0)).is_ok());
    std::shared_ptr<Store> other = f.another(deciding);  // locked: cannot decide at open
    lock->unlock();
    CHECK(asked.empty());
    REQUIRE(truncate_and_put(*other, 3).is_ok());
    CHECK(asked == std::vector<std::string>{kTag});
    CHECK(f.rows() == "p:3=v3 ");
    CHECK(f.store->in_doubt_transactions()->empty());
  }
  SUBCASE("decided as an abort, then truncated") {
    f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
    f.open();
    REQUIRE(truncate_and_put(*f.store, 3).is_ok());
    CHECK(f.rows() == "p:3=v3 ");
  }
  // Whatever was decided is decided for good: a reopen asks nothing and reads the same rows.
  const std::string decided = f.rows();
  const size_t asked_before = asked.size();
  f.store.reset();
  f.options.resolve_in_doubt = answer(InDoubtDecision::kAbort, &asked);
  f.open();
  CHECK(asked.size() == asked_before);
  CHECK(f.rows() == decided);
}
