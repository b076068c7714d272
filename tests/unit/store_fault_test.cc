// Injected I/O failures, one kind of I/O at a time: the commit log's append and sync, a memtable
// flush, a compaction, the manifest's replacement, a catalog change, reads and opens. Each test
// checks the same four things: the caller gets an error naming the file; nothing acknowledged is
// lost (now, after reopening, and after a power loss); the store stays readable; and it writes
// again as soon as the fault clears, without reopening.
#include <doctest/doctest.h>
#include <fcntl.h>

#include <filesystem>

#include "engine/cql/session.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;
using cassette::StatusCode;

namespace {

constexpr TableId kTable = 1;
constexpr TableId kOtherTable = 2;

// A store under a fault-injecting file system, and the rows it acknowledged.
class FaultyStore {
 public:
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
    WriteBatch batch;
    batch.partition(kTable, "p").rows.push_back({ck(c), insert_row("v" + std::to_string(c))});
    if (other) {
      batch.partition(kOtherTable, "q")
          .rows.push_back({ck(c), insert_row("w" + std::to_string(c))});
    }
    Status s = store->apply(batch).status();
    if (s.is_ok()) {
      acknowledged.push_back({"p", c, "v" + std::to_string(c)});
      if (other) acknowledged_other.push_back({"q", c, "w" + std::to_string(c)});
    }
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
    for (const ReadRow& r : rows)
      out += fmt::format("{}:{}={} ", r.partition_key, r.clustering, r.value);
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
