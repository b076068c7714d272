// The ANN index's components (engine/cql/ann_graph.h): a graph built in the background after the
// first query that finds its SSTable without one (which scores that SSTable exactly meanwhile),
// saved beside the SSTable, loaded by the next process instead of being built again, replaced
// when damaged or half written, merged into the graph of a compaction's output and gone with its
// SSTable, gone at DROP INDEX (even one dropped while its graph is built), and built for the
// SSTables already written at CREATE INDEX.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/cql/ann_build.h"
#include "engine/cql/ann_index.h"
#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "tests/unit/cql_test_fixture.h"
#include "tests/unit/temp_dir.h"

namespace cassette::test {
namespace {

// A session on a store in a directory of its own, closed and opened again as another process
// would (the graph cache is keyed by the SSTables a store has open).
class AnnStore {
 public:
  explicit AnnStore(const std::string& dir) {
    storage::StoreOptions options;
    options.background_threads = false;
    store_ = storage::Store::open(dir, options).value();
    session_ = cql::Session::open(store_).value();
  }

  void ok(const std::string& statement) {
    auto r = session_->execute(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  }
  std::vector<std::string> rows(const std::string& statement) {
    auto r = session_->execute(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return CqlFixture::lines(r->rows);
  }
  storage::Store& store() { return *store_; }
  cql::Session& session() { return *session_; }
  storage::TableId table_id() {
    return session_->catalog().current().value()->find_table("ks", "items")->table_id;
  }

 private:
  std::shared_ptr<storage::Store> store_;
  std::unique_ptr<cql::Session> session_;
};

std::string random_vector(std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> v(8);
  for (float& x : v) x = uniform(rng);
  return fmt::format("[{:.4f}]", fmt::join(v, ", "));
}

void insert(AnnStore& s, std::mt19937& rng, int from, int to) {
  for (int id = from; id < to; ++id) {
    s.ok(fmt::format("INSERT INTO ks.items (id, v) VALUES ({}, {})", id, random_vector(rng)));
  }
}

// The ANN component files in the store's data directory.
std::vector<std::string> ann_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/data")) {
    std::string name = entry.path().filename().string();
    if (name.find(".sst.ann.") != std::string::npos) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const char* kSetup[] = {
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TABLE ks.items (id int PRIMARY KEY, v vector<float, 8>)",
};
const char* kIndex =
    "CREATE CUSTOM INDEX items_v ON ks.items (v) USING 'StorageAttachedIndex' WITH OPTIONS = "
    "{'similarity_function': 'euclidean'}";
const char* kQuery =
    "SELECT id FROM ks.items ORDER BY v ANN OF [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, "
    "0.7, 0.8] LIMIT 5";
// The same top 5 by a scan of every row (a token restriction: the index does not serve it).
const char* kExactQuery =
    "SELECT id FROM ks.items WHERE token(id) > -9223372036854775807 ORDER BY v ANN OF [0.1, 0.2, "
    "0.3, 0.4, 0.5, 0.6, 0.7, 0.8] LIMIT 5 ALLOW FILTERING";

// The table's SSTable files (the flushes wrote the schema tables' too).
std::vector<std::string> table_sstables(const std::string& dir, storage::TableId table) {
  std::vector<std::string> out;
  const std::string prefix = fmt::format("{:016x}-", table);
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/data")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".sst")) out.push_back(entry.path().string());
  }
  return out;
}

// Runs `fn` in a child process (another process of the store) and waits for it: true when it
// exited 0.
template <typename Fn>
bool in_other_process(Fn&& fn) {
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 1;
    try {
      code = fn() ? 0 : 1;
    } catch (...) {
    }
    ::_exit(code);
  }
  if (child < 0) return false;
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Builds held for the scope (the graphs stay unbuilt), released and waited for at its end.
class HeldBuilds {
 public:
  HeldBuilds() {
    cql::ann_wait_for_builds();
    cql::ann_hold_builds(true);
  }
  ~HeldBuilds() {
    cql::ann_hold_builds(false);
    cql::ann_wait_for_builds();
  }
};

}  // namespace

TEST_CASE(
    "ann component: saved by the first query, loaded by the next process, gone with its "
    "SSTable and at DROP INDEX") {
  TempDir dir;
  std::mt19937 rng(7);
  std::vector<std::string> answer;
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    s.ok(kIndex);
    insert(s, rng, 0, 300);
    REQUIRE(s.store().flush().is_ok());
    CHECK(ann_files(dir.path()).empty());  // not written by the flush
    const auto exact = s.rows(kExactQuery);
    REQUIRE(exact.size() == 5);
    const auto before = cql::ann_index_stats();
    {
      HeldBuilds held;
      // no graph yet: the SSTable is scored exactly, the graph queued
      answer = s.rows(kQuery);
      CHECK(answer == exact);
      CHECK(cql::ann_index_stats().exact_scans == before.exact_scans + 1);
      CHECK(cql::ann_index_stats().builds_pending == 1);
      CHECK(ann_files(dir.path()).empty());
      CHECK(s.rows(kQuery) == exact);  // still exact, not queued twice
      CHECK(cql::ann_index_stats().builds_pending == 1);
    }
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
    // the graph answers the same
    CHECK(s.rows(kQuery) == exact);
    CHECK(cql::ann_index_stats().exact_scans == before.exact_scans + 2);
    const auto files = ann_files(dir.path());
    REQUIRE(files.size() == 2);
    CHECK(files[0].ends_with(".sst.ann.c1.euclidean"));
    CHECK(files[1].ends_with(".sst.ann.c1.euclidean.meta"));
  }
  {
    AnnStore s(dir.path());
    const auto before = cql::ann_index_stats();
    CHECK(s.rows(kQuery) == answer);
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built);
    CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + 1);

    // a second SSTable: its graph is built, the first one's comes from the cache
    insert(s, rng, 300, 400);
    REQUIRE(s.store().flush().is_ok());
    const auto exact = s.rows(kExactQuery);
    CHECK(s.rows(kQuery) == exact);
    cql::ann_wait_for_builds();
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
    CHECK(ann_files(dir.path()).size() == 4);

    // compacted into one SSTable: its graph merged from the larger input's in the background
    // (the inputs and their components kept until then), exact meanwhile, no build queued; the
    // two old components gone with their SSTables once it is made
    {
      HeldBuilds held;
      const auto scans = cql::ann_index_stats().exact_scans;
      REQUIRE(s.store().compact(s.table_id()).is_ok());
      CHECK(cql::ann_index_stats().builds_pending == 1);
      CHECK(ann_files(dir.path()).size() == 4);
      CHECK(s.rows(kQuery) == exact);
      CHECK(cql::ann_index_stats().exact_scans == scans + 1);
      CHECK(cql::ann_index_stats().builds_pending == 1);
    }
    CHECK(cql::ann_index_stats().graphs_merged == before.graphs_merged + 1);
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
    CHECK(ann_files(dir.path()).size() == 2);
    CHECK(s.rows(kQuery) == exact);

    s.ok("DROP INDEX ks.items_v");
    CHECK(ann_files(dir.path()).empty());
  }
}

TEST_CASE("ann component: a damaged or missing graph is built again, and the answer is the same") {
  TempDir dir;
  std::mt19937 rng(11);
  std::vector<std::string> answer;
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    s.ok(kIndex);
    insert(s, rng, 0, 200);
    REQUIRE(s.store().flush().is_ok());
    answer = s.rows(kQuery);
    cql::ann_wait_for_builds();
  }
  const auto files = ann_files(dir.path());
  REQUIRE(files.size() == 2);
  const std::string graph = dir.path() + "/data/" + files[0];
  const std::string meta = dir.path() + "/data/" + files[1];

  uint64_t refused = 1;  // reported on stderr
  SUBCASE("a byte of the graph changed") {
    std::fstream f(graph, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(graph) / 2));
    f.put('\x7f');
  }
  SUBCASE("the graph's header changed (refused before hnswlib sizes its buffers by it)") {
    std::fstream f(graph, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);  // max_elements: a buffer too small for the points that follow
    f.put('\x01');
  }
  SUBCASE("the .meta file cut short") {
    std::filesystem::resize_file(meta, std::filesystem::file_size(meta) - 3);
  }
  SUBCASE("the graph file missing") {
    std::filesystem::remove(graph);
  }
  SUBCASE("the .meta file missing") {
    std::filesystem::remove(meta);
    refused = 0;  // no component: nothing to report
  }
  SUBCASE("a build killed between its renames: the graph half written, no .meta") {
    std::filesystem::remove(meta);
    std::filesystem::resize_file(graph, std::filesystem::file_size(graph) / 2);
    refused = 0;
  }
  SUBCASE("a build killed before its renames: its temporary files, never read") {
    std::filesystem::remove(meta);
    std::filesystem::remove(graph);
    const pid_t child = ::fork();  // a process that is gone
    if (child == 0) ::_exit(0);
    REQUIRE(child > 0);
    ::waitpid(child, nullptr, 0);
    for (std::string name : {files[0], files[1]}) {
      std::ofstream(fmt::format("{}/data/tmp-{}-a1.sst.{}", dir.path(), child,
                                name.substr(name.find(".sst.") + 5)))
          << "half";
    }
    refused = 0;
  }

  AnnStore s(dir.path());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/data")) {
    CHECK(entry.path().filename().string().rfind("tmp-", 0) != 0);  // removed at open
  }
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == answer);
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded);
  CHECK(cql::ann_index_stats().components_refused == before.components_refused + refused);
  // and written again, whole
  CHECK(ann_files(dir.path()).size() == 2);
  const auto again = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == answer);
  CHECK(cql::ann_index_stats().graphs_built == again.graphs_built);  // cached
}

TEST_CASE("ann component: CREATE INDEX on a table with data builds the graphs of its SSTables") {
  TempDir dir;
  std::mt19937 rng(3);
  std::vector<std::string> answer;
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    insert(s, rng, 0, 150);
    REQUIRE(s.store().flush().is_ok());
    insert(s, rng, 150, 300);
    REQUIRE(s.store().flush().is_ok());
    cql::ann_wait_for_builds();
    const auto before = cql::ann_index_stats();
    s.ok(kIndex);  // queues the two graphs
    cql::ann_wait_for_builds();
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 2);
    CHECK(ann_files(dir.path()).size() == 4);
    answer = s.rows(kQuery);
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 2);
  }
  AnnStore s(dir.path());
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == answer);
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + 2);
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built);
}

TEST_CASE("ann component: DROP INDEX while a graph waits or is built leaves no component") {
  TempDir dir;
  std::mt19937 rng(5);
  AnnStore s(dir.path());
  for (const char* statement : kSetup) s.ok(statement);
  s.ok(kIndex);
  insert(s, rng, 0, 200);
  REQUIRE(s.store().flush().is_ok());
  const auto before = cql::ann_index_stats();
  {
    HeldBuilds held;
    REQUIRE(s.rows(kQuery).size() == 5);  // queues the graph
    CHECK(cql::ann_index_stats().builds_pending == 1);
    s.ok("DROP INDEX ks.items_v");
  }
  CHECK(cql::ann_index_stats().builds_pending == 0);
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built);  // abandoned
  CHECK(ann_files(dir.path()).empty());

  // created again: queued by CREATE INDEX, built, and answering
  s.ok(kIndex);
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
  CHECK(ann_files(dir.path()).size() == 2);
  CHECK(s.rows(kQuery) == s.rows(kExactQuery));
}

TEST_CASE("ann component: a graph another process is building is not built here too") {
  TempDir dir;
  std::mt19937 rng(13);
  AnnStore s(dir.path());
  for (const char* statement : kSetup) s.ok(statement);
  s.ok(kIndex);
  insert(s, rng, 0, 100);
  REQUIRE(s.store().flush().is_ok());
  const auto exact = s.rows(kExactQuery);
  std::string sstable;  // the table's (the flush wrote the schema tables' too)
  const std::string prefix = fmt::format("{:016x}-", s.table_id());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/data")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".sst")) sstable = entry.path().string();
  }
  REQUIRE(!sstable.empty());
  cql::ann_wait_for_builds();
  const auto before = cql::ann_index_stats();
  {
    // the lock a builder holds on the SSTable's file (flock: per open file, so it holds
    // against this process's builder too)
    const int fd = ::open(sstable.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    CHECK(s.rows(kQuery) == exact);
    cql::ann_wait_for_builds();
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built);  // left to the holder
    CHECK(ann_files(dir.path()).empty());
    CHECK(s.rows(kQuery) == exact);  // still exact, and queued again
    cql::ann_wait_for_builds();
    CHECK(cql::ann_index_stats().exact_scans == before.exact_scans + 2);
    ::close(fd);
  }
  CHECK(s.rows(kQuery) == exact);
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
  CHECK(ann_files(dir.path()).size() == 2);
  CHECK(s.rows(kQuery) == exact);
  CHECK(cql::ann_index_stats().exact_scans == before.exact_scans + 3);
}

TEST_CASE("ann component: a graph saved after its SSTable was removed is removed too") {
  TempDir dir;
  std::mt19937 rng(9);
  AnnStore s(dir.path());
  for (const char* statement : kSetup) s.ok(statement);
  s.ok(kIndex);
  insert(s, rng, 0, 50);
  REQUIRE(s.store().flush().is_ok());
  REQUIRE(s.rows(kQuery).size() == 5);
  cql::ann_wait_for_builds();
  const auto files = ann_files(dir.path());
  REQUIRE(files.size() == 2);
  const std::string sstable =
      dir.path() + "/data/" + files[0].substr(0, files[0].find(".sst.") + 4);
  auto graph = cql::AnnGraph::load(sstable, "ann.c1.euclidean", cql::Similarity::kEuclidean, 8, {});
  REQUIRE(graph.is_ok());
  // as when another process compacted the SSTable away (and removed its components) while
  // this one built the graph: the SSTable is gone when the graph is saved
  const std::string moved = dir.path() + "/moved.sst";
  std::filesystem::rename(sstable, moved);
  std::filesystem::remove(dir.path() + "/data/" + files[0]);
  std::filesystem::remove(dir.path() + "/data/" + files[1]);
  CHECK((*graph)->save(sstable, "ann.c1.euclidean").code() == StatusCode::kNotFound);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/data")) {
    CHECK(entry.path().filename().string().find(".ann.") == std::string::npos);
  }
  std::filesystem::rename(moved, sstable);
}

TEST_CASE(
    "ann component: ann_build_indexes builds the missing graphs now, for this and later "
    "processes") {
  TempDir dir;
  std::mt19937 rng(17);
  std::vector<std::string> exact;
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    s.ok(kIndex);
    s.ok("CREATE TABLE ks.other (id int PRIMARY KEY, w vector<float, 2>)");
    s.ok("CREATE CUSTOM INDEX other_w ON ks.other (w) USING 'StorageAttachedIndex'");
    s.ok("INSERT INTO ks.other (id, w) VALUES (1, [1, 2])");
    insert(s, rng, 0, 150);
    REQUIRE(s.store().flush().is_ok());
    insert(s, rng, 150, 250);
    REQUIRE(s.store().flush().is_ok());
    exact = s.rows(kExactQuery);
    cql::ann_wait_for_builds();
    const auto before = cql::ann_index_stats();
    // one table: its two SSTables' graphs, built on this thread, none left to the builder
    auto builds = cql::ann_build_indexes(s.session().catalog(), s.table_id());
    REQUIRE(builds.is_ok());
    REQUIRE(builds->size() == 1);
    CHECK((*builds)[0].keyspace == "ks");
    CHECK((*builds)[0].index == "items_v");
    CHECK((*builds)[0].built == 2);
    CHECK((*builds)[0].vectors == 250);
    CHECK((*builds)[0].present == 0);
    CHECK(cql::ann_index_stats().builds_pending == 0);
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 2);
    CHECK(ann_files(dir.path()).size() == 4);
    // queried: from the graphs, exact no more
    CHECK(s.rows(kQuery) == exact);
    CHECK(cql::ann_index_stats().exact_scans == before.exact_scans);
    // again, every table: those two were built already; ks.other's SSTable (the flushes wrote
    // every table's memtable) gets its graph
    builds = cql::ann_build_indexes(s.session().catalog(), std::nullopt);
    REQUIRE(builds.is_ok());
    REQUIRE(builds->size() == 2);
    CHECK((*builds)[0].index == "items_v");
    CHECK((*builds)[0].built == 0);
    CHECK((*builds)[0].present == 2);
    CHECK((*builds)[1].index == "other_w");
    CHECK((*builds)[1].built == 1);
    CHECK((*builds)[1].vectors == 1);
    CHECK((*builds)[1].present == 0);
    // a graph a query queued is waited for, not built twice
    insert(s, rng, 250, 300);
    REQUIRE(s.store().flush().is_ok());
    {
      HeldBuilds held;
      exact = s.rows(kExactQuery);
      CHECK(s.rows(kQuery) == exact);
      CHECK(cql::ann_index_stats().builds_pending == 1);
    }
    builds = cql::ann_build_indexes(s.session().catalog(), s.table_id());
    REQUIRE(builds.is_ok());
    CHECK((*builds)[0].built == 0);
    CHECK((*builds)[0].present == 3);
  }
  // the next process loads them all
  AnnStore s(dir.path());
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == exact);
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + 3);
  CHECK(cql::ann_index_stats().exact_scans == before.exact_scans);
}

TEST_CASE("ann component: DROP INDEX in another process while a graph is built saves nothing") {
  TempDir dir;
  std::mt19937 rng(19);
  AnnStore s(dir.path());
  for (const char* statement : kSetup) s.ok(statement);
  s.ok(kIndex);
  insert(s, rng, 0, 200);
  REQUIRE(s.store().flush().is_ok());
  const auto before = cql::ann_index_stats();
  {
    HeldBuilds held;
    REQUIRE(s.rows(kQuery).size() == 5);  // queues the graph
    CHECK(cql::ann_index_stats().builds_pending == 1);
    // another process drops the index: nothing of this process hears of it but the catalog
    CHECK(in_other_process([&] {
      AnnStore other(dir.path());
      return other.session().execute("DROP INDEX ks.items_v").is_ok();
    }));
  }
  // the builder asked the latest schema before saving
  CHECK(cql::ann_index_stats().builds_pending == 0);
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built);
  CHECK(ann_files(dir.path()).empty());

  // created again elsewhere: this process's build command builds it, dropped again elsewhere:
  // it builds nothing of the dropped index
  CHECK(in_other_process([&] {
    AnnStore other(dir.path());
    return other.session().execute(kIndex).is_ok();
  }));
  auto builds = cql::ann_build_indexes(s.session().catalog(), s.table_id());
  REQUIRE(builds.is_ok());
  REQUIRE(builds->size() == 1);
  CHECK((*builds)[0].built == 1);
  CHECK(ann_files(dir.path()).size() == 2);
  CHECK(in_other_process([&] {
    AnnStore other(dir.path());
    return other.session().execute("DROP INDEX ks.items_v").is_ok();
  }));
  CHECK(ann_files(dir.path()).empty());  // the other process removed the components
  builds = cql::ann_build_indexes(s.session().catalog(), s.table_id());
  REQUIRE(builds.is_ok());
  CHECK(builds->empty());
  CHECK(ann_files(dir.path()).empty());
}

TEST_CASE("ann component: a build killed half way leaves nothing that is trusted") {
  TempDir dir;
  std::mt19937 rng(23);
  storage::TableId table = 0;
  std::vector<std::string> exact;
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    s.ok(kIndex);
    insert(s, rng, 0, 6000);
    REQUIRE(s.store().flush().is_ok());
    exact = s.rows(kExactQuery);
    table = s.table_id();
    cql::ann_wait_for_builds();
  }
  const std::vector<std::string> sstables = table_sstables(dir.path(), table);
  REQUIRE(sstables.size() == 1);
  const pid_t child = ::fork();
  if (child == 0) {
    AnnStore other(dir.path());
    (void)cql::ann_build_indexes(other.session().catalog(), std::nullopt);
    ::_exit(0);
  }
  REQUIRE(child > 0);
  // killed once it holds the SSTable's lock (it builds)
  const int fd = ::open(sstables[0].c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  bool killed = false;
  for (int i = 0; i < 60000 && !killed; ++i) {
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::kill(child, SIGKILL);
      killed = true;
    } else {
      ::flock(fd, LOCK_UN);
      int status = 0;
      if (::waitpid(child, &status, WNOHANG) == child) break;  // done before it was seen
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ::close(fd);
  if (killed) ::waitpid(child, nullptr, 0);
  CHECK(killed);
  // at most a whole component (a kill after the .meta's rename), never a part of one read
  const auto files = ann_files(dir.path());
  const bool whole = files.size() == 2 && files[1].ends_with(".meta");
  AnnStore s(dir.path());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/data")) {
    CHECK(entry.path().filename().string().rfind("tmp-", 0) != 0);  // removed at open
  }
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == exact);
  CHECK(cql::ann_index_stats().components_refused == before.components_refused);
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + (whole ? 1 : 0));
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + (whole ? 0 : 1));
  CHECK(ann_files(dir.path()).size() == 2);
  CHECK(s.rows(kQuery) == exact);
}

// Two SSTables with their graphs: rows 0..299, then `overwritten` of them overwritten (ids 0, 2,
// ...), `deleted` deleted (ids 1, 3, ...) and 60 new ones; the exact answer after both.
std::vector<std::string> two_inputs_with_graphs(AnnStore& s, std::mt19937& rng, int overwritten,
                                                int deleted) {
  for (const char* statement : kSetup) s.ok(statement);
  s.ok(kIndex);
  insert(s, rng, 0, 300);
  REQUIRE(s.store().flush().is_ok());
  for (int i = 0; i < overwritten; ++i) {
    s.ok(fmt::format("UPDATE ks.items SET v = {} WHERE id = {}", random_vector(rng), 2 * i));
  }
  for (int i = 0; i < deleted; ++i) {
    s.ok(fmt::format("DELETE FROM ks.items WHERE id = {}", 2 * i + 1));
  }
  insert(s, rng, 300, 360);
  REQUIRE(s.store().flush().is_ok());
  REQUIRE(cql::ann_build_indexes(s.session().catalog(), s.table_id()).is_ok());
  REQUIRE(ann_files(s.store().path()).size() == 4);
  return s.rows(kExactQuery);
}

std::string meta_magic(const std::string& dir) {
  for (const std::string& name : ann_files(dir)) {
    if (!name.ends_with(".meta")) continue;
    std::ifstream in(dir + "/data/" + name, std::ios::binary);
    std::string magic(8, '\0');
    in.read(magic.data(), 8);
    return magic;
  }
  return "";
}

TEST_CASE("ann component: compaction merges the graph, deletes and overwrites across inputs") {
  TempDir dir;
  std::mt19937 rng(47);
  std::vector<std::string> exact;
  {
    AnnStore s(dir.path());
    exact = two_inputs_with_graphs(s, rng, 20, 20);
    const auto before = cql::ann_index_stats();
    REQUIRE(s.store().compact(s.table_id()).is_ok());
    // BUILD INDEXES waits for the merge, builds nothing
    auto builds = cql::ann_build_indexes(s.session().catalog(), s.table_id());
    REQUIRE(builds.is_ok());
    REQUIRE(builds->size() == 1);
    CHECK((*builds)[0].built == 0);
    CHECK((*builds)[0].present == 1);
    CHECK(cql::ann_index_stats().graphs_merged == before.graphs_merged + 1);
    CHECK(cql::ann_index_stats().graphs_built == before.graphs_built);
    REQUIRE(ann_files(dir.path()).size() == 2);
    // 40 of the larger input's 300 points are gone (20 deleted rows, 20 overwritten): version 2
    CHECK(meta_magic(dir.path()) == "CSANNv2\n");
    CHECK(s.rows(kQuery) == exact);
    CHECK(cql::ann_index_stats().exact_scans == before.exact_scans);
    // every live row is found, no deleted one: a LIMIT past the table's size
    auto all = s.rows(
        "SELECT id FROM ks.items ORDER BY v ANN OF [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] "
        "LIMIT 1000");
    CHECK(all.size() == 340);
  }
  // the next process loads the merged graph
  AnnStore s(dir.path());
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == exact);
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + 1);
  CHECK(cql::ann_index_stats().components_refused == before.components_refused);
  CHECK(cql::ann_index_stats().exact_scans == before.exact_scans);
}

TEST_CASE("ann component: past 30% of deleted points compaction builds the graph instead") {
  TempDir dir;
  std::mt19937 rng(53);
  AnnStore s(dir.path());
  // 120 overwritten and 40 deleted of 300: 160 of 480 points would be deleted
  const auto exact = two_inputs_with_graphs(s, rng, 120, 40);
  const auto before = cql::ann_index_stats();
  REQUIRE(s.store().compact(s.table_id()).is_ok());
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_merged == before.graphs_merged);
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + 1);
  REQUIRE(ann_files(dir.path()).size() == 2);
  CHECK(meta_magic(dir.path()) == "CSANNv1\n");
  CHECK(s.rows(kQuery) == exact);
}

TEST_CASE("ann component: a merge killed half way leaves nothing that is trusted") {
  TempDir dir;
  std::mt19937 rng(59);
  storage::TableId table = 0;
  std::vector<std::string> exact;
  std::vector<std::string> inputs;
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    s.ok(kIndex);
    insert(s, rng, 0, 6000);
    REQUIRE(s.store().flush().is_ok());
    insert(s, rng, 5000, 9000);
    REQUIRE(s.store().flush().is_ok());
    REQUIRE(cql::ann_build_indexes(s.session().catalog(), std::nullopt).is_ok());
    exact = s.rows(kExactQuery);
    table = s.table_id();
    inputs = table_sstables(dir.path(), table);
  }
  REQUIRE(inputs.size() == 2);
  const pid_t child = ::fork();
  if (child == 0) {
    AnnStore other(dir.path());
    (void)other.store().compact(table);
    cql::ann_wait_for_builds();
    ::_exit(0);
  }
  REQUIRE(child > 0);
  // killed once it holds the output's lock (it merges)
  bool killed = false;
  for (int i = 0; i < 60000 && !killed; ++i) {
    for (const std::string& sstable : table_sstables(dir.path(), table)) {
      if (std::find(inputs.begin(), inputs.end(), sstable) != inputs.end()) continue;
      const int fd = ::open(sstable.c_str(), O_RDONLY);
      if (fd < 0) continue;
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::kill(child, SIGKILL);
        killed = true;
      }
      ::close(fd);
    }
    int status = 0;
    if (!killed && ::waitpid(child, &status, WNOHANG) == child) break;  // done before seen
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (killed) ::waitpid(child, nullptr, 0);
  CHECK(killed);
  // at most a whole component (a kill after the .meta's rename), never a part of one read
  AnnStore s(dir.path());
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/data")) {
    CHECK(entry.path().filename().string().rfind("tmp-", 0) != 0);  // removed at open
  }
  const auto files = ann_files(dir.path());
  const bool whole = files.size() == 2 && files[1].ends_with(".meta");
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == exact);
  CHECK(cql::ann_index_stats().components_refused == before.components_refused);
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + (whole ? 1 : 0));
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_built == before.graphs_built + (whole ? 0 : 1));
  CHECK(ann_files(dir.path()).size() == 2);
  CHECK(s.rows(kQuery) == exact);
}

TEST_CASE("ann component: components of no index of the schema are removed when a store opens") {
  TempDir dir;
  std::mt19937 rng(29);
  {
    AnnStore s(dir.path());
    for (const char* statement : kSetup) s.ok(statement);
    s.ok(kIndex);
    insert(s, rng, 0, 100);
    REQUIRE(s.store().flush().is_ok());
    REQUIRE(cql::ann_build_indexes(s.session().catalog(), std::nullopt).is_ok());
  }
  const auto files = ann_files(dir.path());
  REQUIRE(files.size() == 2);
  const std::string data = dir.path() + "/data/";
  const std::string sstable = files[0].substr(0, files[0].find(".sst.") + 4);
  // as a build that had not heard of a DROP INDEX elsewhere leaves them: the graph of an index
  // with another similarity, an SAI component of a dropped index; and a file of some other kind
  std::filesystem::copy_file(data + files[0], data + sstable + ".ann.c1.cosine");
  std::filesystem::copy_file(data + files[1], data + sstable + ".ann.c1.cosine.meta");
  std::ofstream(data + sstable + ".sai2.c1v") << "x";
  std::ofstream(data + sstable + ".other.kind") << "x";
  AnnStore s(dir.path());
  CHECK(!std::filesystem::exists(data + sstable + ".ann.c1.cosine"));
  CHECK(!std::filesystem::exists(data + sstable + ".ann.c1.cosine.meta"));
  CHECK(!std::filesystem::exists(data + sstable + ".sai2.c1v"));
  CHECK(std::filesystem::exists(data + sstable + ".other.kind"));
  CHECK(ann_files(dir.path()) == files);  // the index's own stay
  const auto before = cql::ann_index_stats();
  CHECK(s.rows(kQuery) == s.rows(kExactQuery));
  CHECK(cql::ann_index_stats().graphs_loaded == before.graphs_loaded + 1);
}

}  // namespace cassette::test
