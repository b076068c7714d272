// Injected I/O failures, one kind of I/O at a time: the commit log's append and sync, a memtable
// flush, a compaction, the manifest's replacement, a catalog change, reads and opens. Each test
// checks the same four things: the caller gets an error naming the file; nothing acknowledged is
// lost (now, after reopening, and after a power loss); the store stays readable; and it writes
// again as soon as the fault clears, without reopening.
#include <doctest/doctest.h>
#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/cql/session.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;
using cassette::StatusCode;

namespace {

constexpr TableId kTable = 1;
constexpr TableId kOtherTable = 2;

// A store under a fault-injecting file system, and the rows it acknowledged.
struct FaultyStore {
  FaultyStore() {
    options.sync = SyncMode::kFull;
    options.background_threads = false;
    open();
  }

  void open() {
    auto opened = Store::open(path, options);
    REQUIRE_MESSAGE(opened.is_ok(), opened.status().message());
    store = *opened;
  }
  void reopen() {
    store.reset();
    open();
  }
  // A power loss now: what closing the store would still sync is lost too.
  void power_loss() {
    DurableState state = fs.durable_state();
    store.reset();
    REQUIRE(fs.simulate_power_loss(state).is_ok());
    open();
  }

  // Writes row c of partition "p" (and, with `other`, of the other table in the same batch).
  Status write(int64_t c, bool other = false) {
    MutationBuilder batch;
    batch.partition(kTable, "p").rows.push_back({ck(c), insert_row("v" + std::to_string(c))});
    if (other) {
      batch.partition(kOtherTable, "q")
          .rows.push_back({ck(c), insert_row("w" + std::to_string(c))});
    }
    Status s = apply_mutations(*store, batch).status();
    if (s.is_ok()) {
      acknowledged.push_back({"p", c, "v" + std::to_string(c)});
      if (other) acknowledged_other.push_back({"q", c, "w" + std::to_string(c)});
    }
    return s;
  }
  // Rows `from` to `to` of partition "p" as one transaction of over 1 MiB: with background
  // threads, the store inserts it into the memtable while the commit log appends it.
  Status write_large(int64_t from, int64_t to) {
    MutationBuilder batch;
    std::vector<ReadRow> rows;
    for (int64_t c = from; c < to; ++c) {
      std::string value = "v" + std::to_string(c) + std::string(8 << 10, 'x');
      batch.partition(kTable, "p").rows.push_back({ck(c), insert_row(value)});
      rows.push_back({"p", c, std::move(value)});
    }
    Status s = apply_mutations(*store, batch).status();
    if (s.is_ok()) acknowledged.insert(acknowledged.end(), rows.begin(), rows.end());
    return s;
  }
  void write_ok(int64_t from, int64_t to, bool other = false) {
    for (int64_t c = from; c < to; ++c) {
      Status s = write(c, other);
      REQUIRE_MESSAGE(s.is_ok(), s.message());
    }
  }

  // Every acknowledged row is there, and nothing else.
  void check_acknowledged() {
    CHECK(show(read_table(*store, kTable)) == show(acknowledged));
    CHECK(show(read_table(*store, kOtherTable)) == show(acknowledged_other));
  }
  static std::string show(const std::vector<ReadRow>& rows) {
    std::string out;
    for (const ReadRow& r : rows) {
      out += fmt::format("{}:{}={} ", r.partition_key, r.clustering, r.value);
    }
    return out;
  }
  // The same after reopening, and after a power loss (kFull: everything acknowledged survives).
  void check_durable() {
    check_acknowledged();
    INFO("reopened");
    reopen();
    check_acknowledged();
    INFO("after a power loss");
    power_loss();
    check_acknowledged();
    CHECK(fs.untracked_files().empty());
  }

  std::vector<std::string> data_files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path + "/data")) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  std::vector<std::string> temp_files() const {
    std::vector<std::string> out;
    for (const std::string& name : data_files()) {
      if (name.starts_with("tmp-")) out.push_back(name);
    }
    return out;
  }
  std::string log_segment(int n = 1) const {
    return path + "/log/" + commit_log_segment_name(static_cast<uint64_t>(n));
  }

  TempDir dir;
  FaultInjectionFileSystem fs{dir.path()};
  std::string path = dir.file("store");
  StoreOptions options;
  std::shared_ptr<Store> store;
  std::vector<ReadRow> acknowledged;
  std::vector<ReadRow> acknowledged_other;
};

}  // namespace

TEST_CASE("power loss: a new store keeps its first acknowledged write") {
  FaultyStore s;  // created under the fault-injecting file system, so nothing of it is synced
  s.write_ok(0, 1);
  s.power_loss();
  s.check_acknowledged();
}

TEST_CASE("power loss: after a TRUNCATE under sync=off the store opens with what was flushed") {
  FaultyStore s;
  s.options.sync = SyncMode::kOff;
  s.reopen();
  s.write_ok(0, 10, true);
  REQUIRE(s.store->truncate(kOtherTable).is_ok());  // flushes every other table's rows
  s.acknowledged_other.clear();
  s.power_loss();
  s.check_acknowledged();
}

TEST_CASE("faults: a failed commit-log append fails that write only, naming the segment") {
  struct Case {
    const char* name;
    Fault fault;
    std::string error;
  };
  const Case cases[] = {
      {"ENOSPC on the record header",
       {.op = FileOp::kWrite, .pattern = "*/log/*", .error = ENOSPC, .times = 1},
       "No space left on device"},
      {"EIO on the payload",
       {.op = FileOp::kWrite, .pattern = "*/log/*", .error = EIO, .skip = 1, .times = 1},
       "Input/output error"},
      {"a short write, then ENOSPC",
       {.op = FileOp::kWrite,
        .pattern = "*/log/*",
        .error = ENOSPC,
        .skip = 1,
        .times = 1,
        .short_write = true},
       "No space left on device"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      FaultyStore s;
      s.write_ok(0, 3);
      s.fs.inject(c.fault);
      Status failed = s.write(3);
      CHECK(failed.code() == StatusCode::kIOError);
      CHECK(failed.message() == "cannot write " + s.log_segment() + ": " + c.error);
      s.check_acknowledged();
      s.write_ok(4, 6);  // the fault is spent: the same store writes again
      s.check_durable();
    }
  }
}

TEST_CASE("faults: a large transaction whose log append fails leaves no row in the memtable") {
  FaultyStore s;
  s.options.background_threads = true;  // the memtable insert overlaps the log append
  s.reopen();
  s.write_ok(0, 3);
  int next_row = 0;
  // Each failure takes its segment out of use: the next one fails in the next segment.
  const std::pair<Fault, std::string> faults[] = {
      {{.op = FileOp::kWrite, .pattern = "*/log/*", .error = ENOSPC, .times = 1},
       "cannot write " + s.log_segment(1) + ": No space left on device"},
      {{.op = FileOp::kWrite,
        .pattern = "*/log/*",
        .error = ENOSPC,
        .skip = 1,
        .times = 1,
        .short_write = true},
       "cannot write " + s.log_segment(2) + ": No space left on device"},
      {{.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1},
       "cannot sync " + s.log_segment(3) + ": Input/output error"},
  };
  for (const auto& fault_and_message : faults) {
    // (named, not a structured binding: clang 14 cannot capture one in doctest's CAPTURE)
    const Fault& fault = fault_and_message.first;
    const std::string& message = fault_and_message.second;
    CAPTURE(message);
    s.fs.inject(fault);
    CHECK(s.write_large(100, 250).message() == message);
    s.fs.clear_faults();
    // A later transaction publishes a higher sequence number: had the failed one's rows stayed
    // in the memtable, they would show now.
    s.write_ok(3 + next_row, 4 + next_row);
    ++next_row;
    s.check_acknowledged();
  }
  REQUIRE(s.write_large(300, 450).is_ok());
  s.write_ok(450, 452);
  s.check_durable();
}

TEST_CASE("faults: a failed commit-log sync fails the write, which never reappears") {
  FaultyStore s;
  s.write_ok(0, 2);
  s.fs.inject({.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1});
  Status failed = s.write(2);
  CHECK(failed.message() == "cannot sync " + s.log_segment() + ": Input/output error");
  s.check_acknowledged();
  s.write_ok(3, 5);
  s.check_durable();
}

TEST_CASE("faults: a full disk fails every write until space returns; reads go on") {
  FaultyStore s;
  s.write_ok(0, 3);
  s.fs.inject({.op = FileOp::kWrite, .pattern = "*/log/*", .error = ENOSPC});
  // The first failure takes segment 1 out of use (its memtable goes to an SSTable); the next
  // writes fail to begin segment 2.
  for (int c = 3; c < 6; ++c) {
    CHECK(s.write(c).message() ==
          "cannot write " + s.log_segment(c == 3 ? 1 : 2) + ": No space left on device");
    s.check_acknowledged();
  }
  s.fs.clear_faults();
  s.write_ok(6, 8);
  s.check_durable();
}

TEST_CASE("faults: a commit-log segment that cannot be created fails the write that rolls") {
  FaultyStore s;
  s.options.commit_log_segment_bytes = 200;  // a new segment every few records
  s.reopen();
  s.fs.inject({.op = FileOp::kOpen, .pattern = "*/log/*", .error = EMFILE, .times = 1});
  Status failed;
  int64_t c = 0;
  while (failed.is_ok() && c < 100) failed = s.write(c++);
  REQUIRE_FALSE(failed.is_ok());
  CHECK(failed.message().starts_with("cannot open " + s.path + "/log/"));
  CHECK(failed.message().ends_with(".log: Too many open files"));
  s.write_ok(c, c + 10);
  s.check_durable();
}

TEST_CASE("faults: ENOSPC in the middle of a flush leaves no SSTable behind, and a retry works") {
  struct Case {
    const char* name;
    Fault fault;
  };
  // The flush writes one SSTable per table: fail the first, or the second after the first was
  // written whole, or half of a write.
  const Case cases[] = {
      {"the first SSTable",
       {.op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC, .times = 1}},
      {"the second SSTable",
       {.op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC, .skip = 1, .times = 1}},
      {"a short write",
       {.op = FileOp::kWrite,
        .pattern = "*/data/tmp-*",
        .error = ENOSPC,
        .skip = 1,
        .times = 1,
        .short_write = true}},
      {"the SSTable's sync",
       {.op = FileOp::kSync, .pattern = "*/data/tmp-*", .error = EIO, .times = 1}},
      {"the rename into place",
       {.op = FileOp::kRename, .pattern = "*/data/tmp-*", .error = EIO, .skip = 1, .times = 1}},
      {"the data directory's sync",
       {.op = FileOp::kSyncDirectory, .pattern = "*/data", .error = EIO, .times = 1}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      FaultyStore s;
      s.write_ok(0, 50, true);
      std::vector<std::string> before = s.data_files();
      s.fs.inject(c.fault);
      Status failed = s.store->flush();
      REQUIRE_FALSE(failed.is_ok());
      CHECK(failed.message().find(s.path + "/data") != std::string::npos);
      CHECK(s.temp_files().empty());
      CHECK(s.data_files() == before);  // nothing half-made is left, nothing new is used
      s.check_acknowledged();
      s.write_ok(50, 60, true);
      REQUIRE(s.store->flush().is_ok());
      CHECK(s.store->stats().sstable_count == 4);  // the failed flush's memtable, then the new one
      s.check_durable();
    }
  }
}

TEST_CASE("faults: ENOSPC in the middle of a compaction keeps the inputs, and a retry works") {
  FaultyStore s;
  s.options.compaction_min_threshold = 1'000'000;  // the four SSTables wait for compact()
  s.reopen();
  for (int round = 0; round < 4; ++round) {
    s.write_ok(round * 20, round * 20 + 20);
    REQUIRE(s.store->flush().is_ok());
  }
  REQUIRE(s.store->stats().sstable_count == 4);
  std::vector<std::string> inputs = s.data_files();
  for (Fault fault :
       {Fault{
            .op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC, .short_write = true},
        Fault{.op = FileOp::kSync, .pattern = "*/data/tmp-*", .error = EIO},
        Fault{.op = FileOp::kRename, .pattern = "*/data/tmp-*", .error = EIO},
        Fault{.op = FileOp::kWrite, .pattern = "*/MANIFEST*", .error = ENOSPC}}) {
    CAPTURE(cassette::file::file_op_name(fault.op));
    s.fs.inject(fault);
    Status failed = s.store->compact(kTable);
    REQUIRE_FALSE(failed.is_ok());
    CHECK(failed.message().find(s.path) != std::string::npos);
    CHECK(s.data_files() == inputs);
    CHECK(s.store->stats().sstable_count == 4);
    s.check_acknowledged();
    s.fs.clear_faults();
  }
  REQUIRE(s.store->compact(kTable).is_ok());
  CHECK(s.store->stats().sstable_count == 1);
  CHECK(s.temp_files().empty());
  s.write_ok(80, 90);
  s.check_durable();
}

TEST_CASE("faults: a manifest that cannot be replaced fails the flush and loses nothing") {
  struct Case {
    const char* name;
    Fault fault;
    std::string message;  // {} is the store's path
  };
  const Case cases[] = {
      {"its write",
       {.op = FileOp::kWrite, .pattern = "*/MANIFEST.tmp", .error = ENOSPC, .times = 1},
       "cannot write {}/MANIFEST.tmp: No space left on device"},
      {"its sync",
       {.op = FileOp::kSync, .pattern = "*/MANIFEST.tmp", .error = EIO, .times = 1},
       "cannot sync {}/MANIFEST.tmp: Input/output error"},
      {"its rename",
       {.op = FileOp::kRename, .pattern = "*/MANIFEST", .error = EIO, .times = 1},
       "cannot rename {0}/MANIFEST.tmp to {0}/MANIFEST: Input/output error"},
      {"the directory's sync after the rename",
       {.op = FileOp::kSyncDirectory, .pattern = "store", .error = EIO, .times = 1},
       "cannot sync directory {}: Input/output error"},
  };
  for (const Case& c : cases) {
    SUBCASE(c.name) {
      FaultyStore s;
      s.write_ok(0, 10);
      REQUIRE(s.store->flush().is_ok());  // a manifest exists: this replaces it
      s.write_ok(10, 20);
      s.fs.inject(c.fault);
      Status failed = s.store->flush();
      REQUIRE_FALSE(failed.is_ok());
      CHECK(failed.message() == fmt::format(fmt::runtime(c.message), s.path));
      CHECK(s.temp_files().empty());
      s.check_acknowledged();
      s.write_ok(20, 30);
      Status retried = s.store->flush();
      REQUIRE_MESSAGE(retried.is_ok(), retried.message());
      s.check_durable();
    }
  }
}

TEST_CASE("faults: a TRUNCATE that cannot write its manifest keeps the table's rows") {
  FaultyStore s;
  s.write_ok(0, 10, true);
  REQUIRE(s.store->flush().is_ok());
  s.write_ok(10, 20, true);
  s.fs.inject({.op = FileOp::kRename, .pattern = "*/MANIFEST", .error = EIO, .times = 1});
  Status failed = s.store->truncate(kOtherTable);
  CHECK(failed.message() ==
        fmt::format("cannot rename {0}/MANIFEST.tmp to {0}/MANIFEST: Input/output error", s.path));
  s.check_acknowledged();
  REQUIRE(s.store->truncate(kOtherTable).is_ok());
  s.acknowledged_other.clear();
  s.write_ok(20, 25);
  s.check_durable();
}

TEST_CASE("faults: a failed read is an error naming the SSTable, never wrong rows") {
  FaultyStore s;
  s.write_ok(0, 30);
  REQUIRE(s.store->flush().is_ok());
  s.reopen();  // no block cached
  s.fs.inject({.op = FileOp::kRead, .pattern = "*/data/*.sst", .error = EIO, .times = 1});
  auto snapshot = s.store->snapshot().value();
  auto cursor = s.store->read(*snapshot, kTable, Store::range_spec({}));
  while (cursor->next()) {
  }
  CHECK(cursor->status().code() == StatusCode::kIOError);
  CHECK(cursor->status().message().starts_with("cannot read " + s.path + "/data/"));
  s.check_acknowledged();  // the fault is spent
  s.write_ok(30, 35);
  s.check_durable();
}

TEST_CASE("faults: a store that cannot open a file says which, and opens once it can") {
  FaultyStore s;
  s.write_ok(0, 10);
  REQUIRE(s.store->flush().is_ok());
  s.write_ok(10, 15);
  s.store.reset();
  struct Case {
    Fault fault;
    std::string message;
  };
  const std::string sstable = s.path + "/data/" + s.data_files().front();
  const Case cases[] = {
      {{.op = FileOp::kOpen, .pattern = "*.sst", .error = EMFILE},
       "cannot open " + sstable + ": Too many open files"},
      {{.op = FileOp::kRead, .pattern = "*/MANIFEST", .error = EIO},
       "cannot read " + s.path + "/MANIFEST: Input/output error"},
      {{.op = FileOp::kRead, .pattern = "*/log/*", .error = EIO},
       "cannot read " + s.log_segment(2) + ": Input/output error"},
      {{.op = FileOp::kOpen, .pattern = "*/SHARED", .error = EACCES},
       "cannot open " + s.path + "/SHARED: Permission denied"},
      {{.op = FileOp::kCreateDirectory, .pattern = "*/log", .error = EACCES},
       "cannot create directory " + s.path + "/log: Permission denied"},
  };
  for (const Case& c : cases) {
    s.fs.inject(c.fault);
    auto failed = Store::open(s.path, s.options);
    REQUIRE_FALSE(failed.is_ok());
    CHECK(failed.status().message() == c.message);
    s.fs.clear_faults();
  }
  s.open();
  s.write_ok(15, 20);
  s.check_durable();
}

TEST_CASE("faults: a catalog change that cannot be logged changes nothing, and a retry works") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  StoreOptions options;
  options.background_threads = false;
  std::string path = dir.file("store");
  auto store = Store::open(path, options).value();
  auto session = cassette::cql::Session::open(store).value();
  auto run = [&](std::string_view cql) { return session->execute(cql).status(); };
  // The schema as DESCRIBE prints it, and the rows of ks.t.
  auto contents = [&] {
    std::string out;
    auto describe = session->execute("DESCRIBE KEYSPACE ks");
    REQUIRE_MESSAGE(describe.is_ok(), describe.status().message());
    for (const auto& row : describe->rows.rows) out += row.back().value_or("") + "\n";
    auto rows = session->execute("SELECT k, v FROM ks.t");
    if (rows.is_ok()) out += fmt::format("{} rows", rows->rows.rows.size());
    return out;
  };
  REQUIRE(run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
              "'replication_factor': 1}")
              .is_ok());
  REQUIRE(run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)").is_ok());
  REQUIRE(run("INSERT INTO ks.t (k, v) VALUES (1, 'one')").is_ok());
  // Each failure takes its log segment out of use: the next change fails in the next segment.
  uint64_t segment_number = 1;

  // Each change, with the statement that undoes it.
  const std::pair<const char*, const char*> changes[] = {
      {"CREATE TABLE ks.u (k int PRIMARY KEY, v text)", "DROP TABLE ks.u"},
      {"ALTER TABLE ks.t ADD w text", "ALTER TABLE ks.t DROP w"},
      {"CREATE INDEX t_v ON ks.t (v)", "DROP INDEX ks.t_v"},
      {"CREATE TYPE ks.pair (a int, b int)", "DROP TYPE ks.pair"},
      {"DROP TABLE ks.t", nullptr},
  };
  for (const auto& change_and_undo : changes) {
    const char* change = change_and_undo.first;  // not a structured binding: see above
    const char* undo = change_and_undo.second;
    CAPTURE(change);
    const std::string before = contents();
    fs.inject({.op = FileOp::kWrite, .pattern = "*/log/*", .error = ENOSPC, .times = 1});
    Status failed = run(change);
    const std::string segment = path + "/log/" + commit_log_segment_name(segment_number++);
    CHECK(failed.message() == "cannot write " + segment + ": No space left on device");
    CHECK(contents() == before);
    REQUIRE_MESSAGE(run(change).is_ok(), change);
    CHECK(contents() != before);
    if (undo != nullptr) REQUIRE_MESSAGE(run(undo).is_ok(), undo);
  }
  CHECK(run("SELECT * FROM ks.t").message() == "table t does not exist");
  session.reset();
  store.reset();
  REQUIRE(fs.simulate_power_loss().is_ok());
  store = Store::open(path, options).value();
  session = cassette::cql::Session::open(store).value();
  CHECK(run("SELECT * FROM ks.t").message() == "table t does not exist");
  REQUIRE(run("CREATE TABLE ks.t (k int PRIMARY KEY, v text)").is_ok());
  CHECK(contents().ends_with("0 rows"));  // a new table: the dropped one's rows are gone
}

// fsyncgate: after a failed sync Linux may have dropped the log's unsynced pages for good (the
// fault-injecting file system does the same), so a record appended behind them would leave a
// hole that recovery reads as corruption, and the records in the hole would be lost although
// later ones survive. The store stops writing that segment: what its memtables hold goes to
// SSTables and the next record starts a new segment.
TEST_CASE("faults: after a failed group-commit sync the log goes on in a new segment") {
  FaultyStore s;
  s.options.sync = SyncMode::kNormal;
  s.reopen();
  s.write_ok(0, 2);
  s.fs.inject({.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1});
  // The group-commit thread's next sync fails, whenever the scheduler runs it: the writes before
  // it are acknowledged, and the first write after it reports the failure and is not. Writes go
  // on one at a time (waiting a little between them) until one reports it.
  Status failed;
  int64_t next = 2;
  for (int wait = 0; wait < 10'000 && failed.is_ok(); ++wait, ++next) {
    failed = s.write(next);
    if (failed.is_ok()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE(s.fs.injected() == 1);
  CHECK(failed.message() == "cannot sync " + s.log_segment() + ": Input/output error");
  s.check_acknowledged();
  s.write_ok(next, next + 3);
  s.check_acknowledged();
  // Closed (which syncs what the group commit has not yet), then the power goes: every
  // acknowledged write is there, and the one that failed is not.
  s.store.reset();
  REQUIRE(s.fs.simulate_power_loss().is_ok());
  s.open();
  s.check_acknowledged();
  s.write_ok(next + 3, next + 5);
  s.check_durable();
}

TEST_CASE("faults: with sync=full, writes after a failed log sync survive a power loss") {
  FaultyStore s;
  s.write_ok(0, 3);
  s.fs.inject({.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1});
  CHECK(s.write(3).message() == "cannot sync " + s.log_segment() + ": Input/output error");
  s.write_ok(4, 7);
  INFO("after a power loss");
  s.power_loss();
  s.check_acknowledged();
  s.write_ok(7, 9);
  s.check_durable();
}

// Stores without a background thread (SQLite, PostgreSQL, the shell) flush and compact in the
// call that needs it: its error is that call's, naming the file, and the store goes on once the
// fault clears.
TEST_CASE("faults: an inline compaction's error is returned by the flush that ran it") {
  FaultyStore s;  // background_threads off; compactions from 4 SSTables
  for (int round = 0; round < 3; ++round) {
    s.write_ok(round * 10, round * 10 + 10);
    REQUIRE(s.store->flush().is_ok());
  }
  REQUIRE(s.store->stats().sstable_count == 3);
  s.write_ok(30, 40);
  // The flush's own SSTable is written; the compaction that follows it fails.
  s.fs.inject({.op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC, .skip = 1});
  Status failed = s.store->flush();
  CHECK(failed.message().starts_with("cannot write " + s.path + "/data/tmp-"));
  CHECK(failed.message().ends_with(".sst: No space left on device"));
  CHECK(s.store->stats().sstable_count == 4);
  CHECK(s.temp_files().empty());
  s.check_acknowledged();
  s.fs.clear_faults();
  s.write_ok(40, 50);  // a failed compaction is not retried by every write...
  CHECK(s.store->stats().sstable_count == 4);
  REQUIRE(s.store->flush().is_ok());  // ...but after the next flush
  CHECK(s.store->stats().sstable_count == 1);
  s.check_durable();
}

// A compaction that a write runs inline and that fails leaves the store as it was, only less
// compact: the write succeeds (a compaction that can never succeed must not stop every write).
TEST_CASE("faults: an inline compaction's error does not fail the write that ran it") {
  FaultyStore s;
  for (int round = 0; round < 3; ++round) {
    s.write_ok(round * 10, round * 10 + 10);
    REQUIRE(s.store->flush().is_ok());
  }
  s.options.memtable_budget_bytes = 256 << 10;  // a flush every thousand rows or so
  s.reopen();
  REQUIRE(s.store->stats().sstable_count == 3);
  // Each flush's own SSTable is written; the compaction a write runs after it fails.
  s.fs.inject({.op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC, .skip = 1});
  int64_t c = 100;
  while (s.store->stats().sstable_count < 4 && c < 10'000) {
    Status written = s.write(c++);
    REQUIRE_MESSAGE(written.is_ok(), written.message());
  }
  REQUIRE(s.store->stats().sstable_count == 4);
  s.write_ok(c, c + 5);  // and the next writes do not run it again
  CHECK(s.store->stats().sstable_count == 4);
  CHECK(s.temp_files().empty());
  s.check_acknowledged();
  s.fs.clear_faults();
  REQUIRE(s.store->flush().is_ok());
  CHECK(s.store->stats().sstable_count == 1);
  s.check_durable();
}

TEST_CASE("faults: an inline flush's error is returned by the write that ran it, unwritten") {
  FaultyStore s;
  s.options.memtable_budget_bytes = 64 << 10;  // a flush every few dozen rows
  s.reopen();
  s.fs.inject({.op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC});
  auto full_disk = [&](const Status& status) {
    return status.message().starts_with("cannot write " + s.path + "/data/tmp-") &&
           status.message().ends_with(".sst: No space left on device");
  };
  Status failed;
  int64_t c = 0;
  while (failed.is_ok() && c < 10'000) failed = s.write(c++);
  REQUIRE_FALSE(failed.is_ok());
  CHECK_MESSAGE(full_disk(failed), failed.message());
  CHECK(s.temp_files().empty());
  s.check_acknowledged();        // the failed write is not there
  CHECK(full_disk(s.write(c)));  // nor is the next, while the disk is full
  s.check_acknowledged();
  s.fs.clear_faults();
  s.write_ok(c + 1, c + 2);  // flushes first
  CHECK(s.store->stats().sstable_count == 1);
  s.write_ok(c + 2, c + 200);
  s.check_durable();
}

TEST_CASE(
    "faults: an inline flush's log sync, a step of its own, fails that write; then the flush") {
  FaultyStore s;
  s.options.sync = SyncMode::kOff;  // nothing but the flush syncs the log
  s.options.memtable_budget_bytes = 1 << 20;
  s.reopen();
  // The steps write the flush's file, then sync the log through its end (this step fails),
  // and only then install it.
  s.fs.inject({.op = FileOp::kSync, .pattern = "*/log/*", .error = EIO, .times = 1});
  Status failed;
  int64_t c = 0;
  while (failed.is_ok() && c < 100'000) failed = s.write(c++);
  REQUIRE_FALSE(failed.is_ok());
  CHECK(failed.message() == fmt::format("cannot sync {}: Input/output error", s.log_segment(1)));
  CHECK(s.store->stats().flushes == 0);
  CHECK(s.temp_files().empty());  // the flush's file went with it
  s.check_acknowledged();
  const size_t before_failure = s.acknowledged.size();
  // The next write takes the segment out of use (a later sync of it could report success for
  // what the failed one lost): every memtable goes to SSTables first, past that segment.
  s.write_ok(c, c + 1), ++c;
  CHECK(s.store->stats().flushes == 1);
  s.check_acknowledged();
  s.reopen();
  s.check_acknowledged();
  // A power loss (sync off: the writes after the flush may go) keeps every row written before
  // the failure, and the store opens: the segment whose sync failed is not replayed.
  s.power_loss();
  std::vector<ReadRow> rows = read_table(*s.store, kTable);
  CHECK(rows.size() >= before_failure);
  REQUIRE(rows.size() <= s.acknowledged.size());
  CHECK(FaultyStore::show(rows) ==
        FaultyStore::show({s.acknowledged.begin(), s.acknowledged.begin() + rows.size()}));
}
