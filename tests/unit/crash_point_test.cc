// Power loss at every point of a workload (LevelDB's fault_injection_test, taken further): a
// workload of mixed CQL transactions runs once under the fault-injecting file system, which
// records, after every call that changes a file, what a power loss at that moment would leave.
// Each of those states is then recovered as a store of its own, and must hold exactly the
// state after some prefix of the transactions (nothing torn, nothing out of order), no shorter
// than the sync mode promises:
//
//   full          every acknowledged transaction, and at most the one in flight beyond them.
//   normal, off   every transaction acknowledged before the last flush, TRUNCATE or DROP TABLE
//                 that completed (each installs a manifest over synced files), and at most the
//                 one in flight beyond the acknowledged ones. (normal's group commit usually
//                 keeps all but the last few milliseconds, but promises no more.)
//
// After each write to a commit-log segment a second state is checked too: the same power loss,
// but with half of the segment's unsynced bytes written back (a torn record at its end), which
// recovery must drop as a torn tail, never read or refuse.
//
// Every recovered store must also take a write. The workload: schema changes (CREATE, ALTER,
// TRUNCATE, DROP), multi-table batches, deletes of rows and partitions, counter batches, TTL,
// with flushes and compactions in between; a manual clock moves one second per step.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "engine/cql/session.h"
#include "engine/types/value.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;
using cassette::Result;
namespace cql = cassette::cql;

namespace {

constexpr int kDataTransactions = 120;
constexpr int64_t kStartMicros = 1'700'000'000'000'000;
constexpr int64_t kTtlSeconds = 15;

struct Step {
  enum Kind { kStatement, kFlush, kCompact } kind;
  std::string cql;
};

std::string batch(const std::vector<std::string>& statements, bool counter = false) {
  std::string out = counter ? "BEGIN COUNTER BATCH " : "BEGIN BATCH ";
  for (const std::string& s : statements) out += s + "; ";
  return out + "APPLY BATCH";
}

// The data transaction number j.
std::string data_transaction(int j) {
  const std::string meta = fmt::format("UPDATE ks.meta SET last = {} WHERE k = 0", j);
  const bool has_w = j > 30;  // ALTER TABLE ks.events ADD w comes first
  switch (j % 8) {
    case 3:
      return batch({fmt::format("UPDATE ks.totals SET hits = hits + {} WHERE p = {}", j, j % 3),
                    "UPDATE ks.totals SET hits = hits + 1 WHERE p = 99"},
                   true);
    case 5:
      return batch({j % 40 == 5 ? "DELETE FROM ks.events WHERE p = 4"
                                : fmt::format("DELETE FROM ks.events WHERE p = {} AND c = {}",
                                              (j - 5) % 5, j - 5),
                    meta});
    case 6:
      return batch({fmt::format("INSERT INTO ks.events (p, c, v) VALUES ({}, {}, 'ttl {}') "
                                "USING TTL {}",
                                j % 5, 2000 + j, j, kTtlSeconds),
                    fmt::format("UPDATE ks.meta USING TTL {} SET note = 'ttl {}' WHERE k = 1",
                                kTtlSeconds, j),
                    meta});
    case 7:
      if (j > 50 && j < 85) {
        return batch(
            {fmt::format("INSERT INTO ks.late (k, v) VALUES ({}, 'late {}')", j, j), meta});
      }
      return fmt::format("INSERT INTO ks.meta (k, last, note) VALUES (2, {}, 'single')", j);
    default:
      return batch({has_w ? fmt::format("INSERT INTO ks.events (p, c, v, w) VALUES ({}, {}, "
                                        "'e {}', 'w {}')",
                                        j % 5, j, j, j)
                          : fmt::format("INSERT INTO ks.events (p, c, v) VALUES ({}, {}, 'e {}')",
                                        j % 5, j, j),
                    fmt::format("INSERT INTO ks.events (p, c, v) VALUES ({}, {}, 'f {}')",
                                (j + 2) % 5, 1000 + j, j),
                    meta, fmt::format("UPDATE ks.meta SET note = 'batch {}' WHERE k = 3", j)});
  }
}

std::vector<Step> workload() {
  std::vector<Step> steps = {
      {Step::kStatement,
       "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
       "'replication_factor': 1}"},
      {Step::kStatement,
       "CREATE TABLE ks.events (p int, c int, v text, PRIMARY KEY (p, c)) "
       "WITH gc_grace_seconds = 0"},
      {Step::kStatement, "CREATE TABLE ks.totals (p int PRIMARY KEY, hits counter)"},
      {Step::kStatement, "CREATE TABLE ks.meta (k int PRIMARY KEY, last int, note text)"},
  };
  for (int j = 1; j <= kDataTransactions; ++j) {
    if (j == 30) steps.push_back({Step::kStatement, "ALTER TABLE ks.events ADD w text"});
    if (j == 50) {
      steps.push_back({Step::kStatement, "CREATE TABLE ks.late (k int PRIMARY KEY, v text)"});
    }
    if (j == 85) steps.push_back({Step::kStatement, "TRUNCATE ks.late"});
    if (j == 100) steps.push_back({Step::kStatement, "DROP TABLE ks.late"});
    steps.push_back({Step::kStatement, data_transaction(j)});
    if (j % 12 == 0) steps.push_back({Step::kFlush, ""});
    if (j % 35 == 0) steps.push_back({Step::kCompact, "events"});
  }
  return steps;
}

// The schema and every row of keyspace ks, as text: equal dumps, equal contents.
Result<std::string> dump(cql::Session& session) {
  std::string out;
  CASSETTE_ASSIGN_OR_RETURN(auto schema, session.catalog().current());
  const cassette::schema::KeyspaceDef* keyspace = schema->find_keyspace("ks");
  if (keyspace == nullptr) return out;
  auto describe = session.execute("DESCRIBE KEYSPACE ks");
  CASSETTE_RETURN_IF_ERROR(describe.status());
  for (const auto& row : describe->rows.rows) out += row.back().value_or("") + "\n";
  for (const auto& [name, table] : keyspace->tables) {
    auto rows = session.execute("SELECT * FROM ks." + name);
    CASSETTE_RETURN_IF_ERROR(rows.status());
    out += "-- " + name + "\n";
    for (const auto& row : rows->rows.rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) out += "|";
        out += row[i] ? cassette::types::format_value(rows->rows.columns[i].type, *row[i],
                                                      cassette::types::ValueStyle::kCqlsh)
                      : "null";
      }
      out += "\n";
    }
  }
  return out;
}

// The workload's store commits transactions of at least this many bytes as SSTables (0: never;
// check_every_crash_point sets it).
uint64_t sstable_commit_bytes = 0;

StoreOptions options_for(SyncMode mode, const Clock* clock) {
  StoreOptions options;
  options.sync = mode;
  options.clock = clock;
  options.background_threads = false;
  options.commit_log_segment_bytes = 16 << 10;  // a new segment every 50 transactions or so
  return options;
}

// What a power loss after one call would leave, and what the workload had been told by then.
struct CrashPoint {
  FaultInjectionFileSystem::Mutation mutation;
  DurableState state;
  int acknowledged;  // transactions whose statement had returned
  int floor;         // transactions the sync mode promises a power loss keeps
  bool in_flight;    // a statement was running
  bool torn;         // the last write reached the disk in part
};

struct RecordedRun {
  std::vector<std::string> dumps;  // dumps[j]: the contents after j transactions
  std::vector<CrashPoint> points;
};

// Dumps the store as of the reading time, leaving the clock where it was.
std::string dump_at(cql::Session& session, ManualClock& clock, int64_t read_micros) {
  int64_t now = clock.now_micros();
  clock.set_micros(read_micros);
  auto d = dump(session);
  clock.set_micros(now);
  REQUIRE_MESSAGE(d.is_ok(), d.status().message());
  return *d;
}

// Where the workload and the recovered crash points go: a memory-backed file system when there
// is one, since several hundred stores are written, opened and removed there.
std::string memory_backed_directory() {
  static const std::string dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return dir;
}

// After a write to a commit-log segment, the state of a power loss that wrote back half of
// what the segment holds beyond its synced contents: a torn record at its end (nullopt when
// nothing, or a single byte, is unsynced, or the segment's name would not survive anyway).
std::optional<DurableState> torn_log_write(const std::string& root,
                                           const FaultInjectionFileSystem::Mutation& m,
                                           const DurableState& state) {
  if (m.op != FileOp::kWrite) return std::nullopt;
  const std::string rel = m.path.substr(root.size() + 1);  // a file under the root: not the root
  if (!rel.starts_with("store/log/")) return std::nullopt;
  std::optional<std::string_view> synced = state.contents(rel);
  if (!synced) return std::nullopt;
  // Read directly, not through the file system that is calling us.
  std::ifstream in(m.path, std::ios::binary);
  std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (now.size() < synced->size() + 2 || !now.starts_with(*synced)) return std::nullopt;
  DurableState torn = state;
  now.resize(synced->size() + (now.size() - synced->size()) / 2);
  if (!torn.set_contents(rel, std::move(now))) return std::nullopt;
  return torn;
}

RecordedRun run_workload(SyncMode mode, const std::vector<Step>& steps, int64_t read_micros) {
  RecordedRun run;
  TempDir dir(memory_backed_directory());
  FaultInjectionFileSystem fs(dir.path());
  ManualClock clock(kStartMicros);
  std::atomic<int> acknowledged{0}, floor{0};
  std::atomic<bool> in_flight{false};
  std::mutex points_mutex;
  fs.set_observer([&](const FaultInjectionFileSystem::Mutation& m, const DurableState& state) {
    std::lock_guard guard(points_mutex);
    run.points.push_back({m, state, acknowledged.load(), floor.load(), in_flight.load(), false});
    if (std::optional<DurableState> torn = torn_log_write(fs.root(), m, state)) {
      run.points.push_back(
          {m, std::move(*torn), acknowledged.load(), floor.load(), in_flight.load(), true});
    }
  });

  auto store = Store::open(dir.file("store"), options_for(mode, &clock)).value();
  StoreInternals::set_sstable_commit_bytes(*store, sstable_commit_bytes);
  auto session = cql::Session::open(store).value();
  run.dumps.push_back(dump_at(*session, clock, read_micros));
  for (const Step& step : steps) {
    clock.advance_seconds(1);
    if (step.kind == Step::kStatement) {
      in_flight = true;
      auto r = session->execute(step.cql);
      REQUIRE_MESSAGE(r.is_ok(), (step.cql + ": " + r.status().message()));
      ++acknowledged;
      in_flight = false;
      run.dumps.push_back(dump_at(*session, clock, read_micros));
    } else if (step.kind == Step::kFlush) {
      REQUIRE(store->flush().is_ok());
    } else {
      auto schema = session->catalog().current().value();
      auto table = schema->find_table("ks", step.cql);
      REQUIRE(table != nullptr);
      REQUIRE(store->compact(table->table_id).is_ok());
    }
    // A flush (asked for, or TRUNCATE's and DROP TABLE's) made every acknowledged transaction
    // durable in any sync mode.
    if (step.kind == Step::kFlush || step.cql.starts_with("TRUNCATE") ||
        step.cql.starts_with("DROP")) {
      floor = acknowledged.load();
    }
  }
  fs.set_observer(nullptr);
  session.reset();
  store.reset();
  CHECK(fs.untracked_files().empty());
  return run;
}

// Recovers one crash point's files as a store and checks them. Returns a problem, or "".
std::string check_crash_point(const CrashPoint& point, SyncMode mode,
                              const std::map<std::string, std::vector<int>>& dump_index,
                              int64_t read_micros) {
  TempDir dir(memory_backed_directory());
  if (Status s = point.state.restore(dir.path()); !s.is_ok()) return s.message();
  FaultInjectionFileSystem fs(dir.path());  // recovery's syncs cost nothing
  ManualClock clock(read_micros);
  auto store = Store::open(dir.file("store"), options_for(mode, &clock));
  if (!store.is_ok()) return "the store does not open: " + store.status().message();
  auto session = cql::Session::open(*store);
  if (!session.is_ok()) return "the catalog does not load: " + session.status().message();
  auto contents = dump(**session);
  if (!contents.is_ok()) return "the store cannot be read: " + contents.status().message();
  auto found = dump_index.find(*contents);
  if (found == dump_index.end()) return "not the state after any prefix:\n" + *contents;
  int most = point.acknowledged + (point.in_flight ? 1 : 0);
  int least = mode == SyncMode::kFull ? point.acknowledged : point.floor;
  bool in_range = false;
  for (int j : found->second) in_range = in_range || (j >= least && j <= most);
  if (!in_range) {
    return fmt::format("holds the first {} transactions; {} to {} allowed", found->second.front(),
                       least, most);
  }
  for (const char* statement :
       {"CREATE KEYSPACE after WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}",
        "CREATE TABLE after.t (k int PRIMARY KEY, v int)",
        "INSERT INTO after.t (k, v) VALUES (1, 2)"}) {
    auto written = (*session)->execute(statement);
    if (!written.is_ok()) return "cannot write after recovery: " + written.status().message();
  }
  auto read = (*session)->execute("SELECT v FROM after.t WHERE k = 1");
  if (!read.is_ok() || read->rows.rows.size() != 1) return "cannot read a write after recovery";
  return "";
}

// `commit_as_sstables`: every transaction above a few hundred bytes (the multi-table batches)
// commits as SSTables and a MANIFEST change, the others as commit-log records.
void check_every_crash_point(SyncMode mode, const char* name, bool commit_as_sstables = false) {
  sstable_commit_bytes = commit_as_sstables ? 300 : 0;
  const std::vector<Step> steps = workload();
  const int64_t read_micros = kStartMicros + static_cast<int64_t>(steps.size() + 3) * 1'000'000;
  RecordedRun run = run_workload(mode, steps, read_micros);
  std::map<std::string, std::vector<int>> dump_index;
  for (int j = 0; j < static_cast<int>(run.dumps.size()); ++j) {
    dump_index[run.dumps[j]].push_back(j);
  }

  uint64_t writes = 0, torn = 0;
  for (const CrashPoint& point : run.points) {
    writes += point.mutation.op == FileOp::kWrite && !point.torn;
    torn += point.torn;
  }
  int failures = 0;
  for (const CrashPoint& point : run.points) {
    std::string problem = check_crash_point(point, mode, dump_index, read_micros);
    if (problem.empty()) continue;
    std::string files;
    for (const std::string& f : point.state.describe()) files += "\n  " + f;
    FAIL_CHECK(fmt::format(
        "{}: power loss after call {} ({} {}{}), {} transactions acknowledged: "
        "{}\nfiles left:{}",
        name, point.mutation.number, cassette::file::file_op_name(point.mutation.op),
        point.mutation.path, point.torn ? ", torn" : "", point.acknowledged, problem, files));
    if (++failures == 3) break;
  }
  MESSAGE(
      fmt::format("{}: {} crash points checked ({} after a write call, {} with a torn log "
                  "write), {} transactions",
                  name, run.points.size(), writes, torn, run.dumps.size() - 1));
  CHECK(writes >= 200);
}

}  // namespace

TEST_CASE("crash points: sync=full keeps every acknowledged transaction at every power loss") {
  check_every_crash_point(SyncMode::kFull, "full");
}

TEST_CASE("crash points: sync=normal keeps a prefix, at least up to the last flush") {
  check_every_crash_point(SyncMode::kNormal, "normal");
}

TEST_CASE("crash points: sync=off keeps a prefix, at least up to the last flush") {
  check_every_crash_point(SyncMode::kOff, "off");
}

TEST_CASE("crash points: large transactions committed as SSTables keep the prefix, sync=full") {
  check_every_crash_point(SyncMode::kFull, "full, SSTable commits", true);
}

TEST_CASE("crash points: large transactions committed as SSTables keep the prefix, sync=off") {
  check_every_crash_point(SyncMode::kOff, "off, SSTable commits", true);
}
