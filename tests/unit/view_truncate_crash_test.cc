// TRUNCATE of a base table with materialized views, at every power loss: the base table and its
// views lose their data in one manifest change, so a recovered store holds either all of them
// truncated or none, never base rows without their view rows (nor view rows without their base
// rows). The workload puts rows of both in SSTables and in the memtable before the TRUNCATE,
// under the fault-injecting file system, which records what a power loss after each call that
// changes a file would leave; each of those states is recovered as a store of its own.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <mutex>
#include <set>
#include <utility>

#include "engine/cql/session.h"
#include "tests/unit/fault_injection_fs.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;
namespace cql = cassette::cql;

namespace {

constexpr int64_t kStartMicros = 1'700'000'000'000'000;

StoreOptions crash_options(const Clock* clock) {
  StoreOptions options;
  options.sync = SyncMode::kFull;
  options.clock = clock;
  options.background_threads = false;
  return options;
}

std::string scratch_directory() {
  return ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

using Pairs = std::set<std::pair<int, int>>;

// The (k, v) pairs of `query`'s rows: two int columns, k first when `k_first`.
cassette::Result<Pairs> pairs_of(cql::Session& session, const std::string& query, bool k_first) {
  CASSETTE_ASSIGN_OR_RETURN(auto result, session.execute(query));
  Pairs out;
  for (const auto& row : result.rows.rows) {
    auto number = [&](size_t i) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(row[i]->data());
      return static_cast<int>((uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) |
                              (uint32_t{bytes[2]} << 8) | uint32_t{bytes[3]});
    };
    out.emplace(k_first ? number(0) : number(1), k_first ? number(1) : number(0));
  }
  return out;
}

}  // namespace

TEST_CASE("view truncate crash: a base table and its views are truncated together or not") {
  TempDir dir(scratch_directory());
  FaultInjectionFileSystem fs(dir.path());
  ManualClock clock(kStartMicros);
  std::mutex points_mutex;
  std::vector<DurableState> points;

  auto store = Store::open(dir.file("store"), crash_options(&clock)).value();
  auto session = cql::Session::open(store).value();
  for (const char* statement : {"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
                                "'replication_factor': 1}",
                                "CREATE TABLE ks.base (k int PRIMARY KEY, v int)",
                                "CREATE MATERIALIZED VIEW ks.by_v AS SELECT * FROM ks.base "
                                "WHERE k IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k)"}) {
    REQUIRE(session->execute(statement).is_ok());
  }
  // Rows in SSTables of both tables, then rows in the memtable.
  for (int k = 0; k < 40; ++k) {
    if (k == 25) REQUIRE(store->flush().is_ok());
    clock.advance_seconds(1);
    REQUIRE(session->execute(fmt::format("INSERT INTO ks.base (k, v) VALUES ({}, {})", k, k * 7))
                .is_ok());
  }
  fs.set_observer([&](const FaultInjectionFileSystem::Mutation&, const DurableState& state) {
    std::lock_guard guard(points_mutex);
    points.push_back(state);
  });
  clock.advance_seconds(1);
  REQUIRE(session->execute("TRUNCATE ks.base").is_ok());
  fs.set_observer(nullptr);
  session.reset();
  store.reset();
  REQUIRE(points.size() >= 4);

  size_t truncated = 0, kept = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    CAPTURE(i);
    TempDir recovered(scratch_directory());
    REQUIRE(points[i].restore(recovered.path()).is_ok());
    FaultInjectionFileSystem recovery_fs(recovered.path());
    ManualClock read_clock(kStartMicros + 100'000'000);
    auto reopened = Store::open(recovered.file("store"), crash_options(&read_clock));
    REQUIRE_MESSAGE(reopened.is_ok(), reopened.status().message());
    auto reader = cql::Session::open(*reopened);
    REQUIRE_MESSAGE(reader.is_ok(), reader.status().message());
    auto base = pairs_of(**reader, "SELECT k, v FROM ks.base", true);
    auto view = pairs_of(**reader, "SELECT v, k FROM ks.by_v", false);
    REQUIRE(base.is_ok());
    REQUIRE(view.is_ok());
    CHECK(*base == *view);
    CHECK((base->empty() || base->size() == 40));
    (base->empty() ? truncated : kept) += 1;
  }
  MESSAGE(fmt::format("{} crash points: {} kept the rows, {} truncated both", points.size(), kept,
                      truncated));
  CHECK(truncated > 0);
  CHECK(kept > 0);
}
