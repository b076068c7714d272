// The ANN index (engine/cql/ann_index.h): an HNSW graph per SSTable and an exact scan of the
// memtable, merged and re-read through the read path. Each answer is checked against the exact
// search, computed here from similarity_*() over every row.
#include "engine/cql/ann_index.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {
namespace {

std::string literal(const std::vector<float>& v) {
  return fmt::format("[{:.4f}]", fmt::join(v, ", "));
}

class AnnFixture : public CqlFixture {
 public:
  explicit AnnFixture(const std::string& similarity = "cosine") {
    ok("CREATE TABLE items (id int PRIMARY KEY, cat text, v vector<float, 8>)");
    ok("CREATE CUSTOM INDEX ON items (v) USING 'StorageAttachedIndex' WITH OPTIONS = "
       "{'similarity_function': '" +
       similarity + "'}");
  }

  std::vector<float> random_vector() {
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> v(8);
    for (float& x : v) x = uniform(rng_);
    return v;
  }

  void insert(int id, const std::vector<float>& v, const std::string& cat = "b") {
    ok(fmt::format("INSERT INTO items (id, cat, v) VALUES ({}, '{}', {})", id, cat, literal(v)));
  }

  // The ids of the k best rows by similarity (ties by id), over every row: the exact answer.
  std::vector<std::string> exact(const std::string& function, const std::vector<float>& q, size_t k,
                                 const std::string& cat = "") {
    auto r = run(fmt::format("SELECT id, {}(v, {}), cat FROM items", function, literal(q)));
    REQUIRE(r.is_ok());
    std::vector<std::pair<float, std::string>> scored;
    for (const std::string& line : lines(r->rows)) {
      auto first = line.find('|'), second = line.rfind('|');
      if (!cat.empty() && line.substr(second + 1) != cat) continue;
      scored.emplace_back(std::stof(line.substr(first + 1, second - first - 1)),
                          line.substr(0, first));
    }
    std::sort(scored.begin(), scored.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> ids;
    for (size_t i = 0; i < std::min(k, scored.size()); ++i) ids.push_back(scored[i].second);
    return ids;
  }

  std::vector<std::string> ann(const std::vector<float>& q, size_t k,
                               const std::string& where = "") {
    return rows(fmt::format("SELECT id FROM items {} ORDER BY v ANN OF {} LIMIT {}{}", where,
                            literal(q), k, where.empty() ? "" : " ALLOW FILTERING"));
  }

  std::mt19937 rng_{42};
};

size_t overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> x(a.begin(), a.end());
  size_t n = 0;
  for (const std::string& s : b) n += x.count(s);
  return n;
}

}  // namespace

TEST_CASE("ann index: recall@10 over SSTables and the memtable against the exact search") {
  AnnFixture f;
  // 3 SSTables of 1500 vectors and 500 in the memtable
  int id = 0;
  for (int file = 0; file < 3; ++file) {
    for (int i = 0; i < 1500; ++i) f.insert(id++, f.random_vector());
    REQUIRE(f.store().flush().is_ok());
  }
  for (int i = 0; i < 500; ++i) f.insert(id++, f.random_vector());
  cql::ann_wait_for_builds();  // earlier tests' builds
  const uint64_t built_before = cql::ann_index_stats().graphs_built;
  (void)f.ann(f.random_vector(), 10);  // scores the SSTables exactly and queues their graphs
  cql::ann_wait_for_builds();
  size_t hits = 0;
  const int queries = 30;
  for (int n = 0; n < queries; ++n) {
    const std::vector<float> q = f.random_vector();
    const auto got = f.ann(q, 10);
    REQUIRE(got.size() == 10);
    hits += overlap(f.exact("similarity_cosine", q, 10), got);
  }
  // the graphs were built once, after the first query, and searched by every other query
  CHECK(cql::ann_index_stats().graphs_built == built_before + 3);
  const double recall = static_cast<double>(hits) / (10.0 * queries);
  INFO("recall@10 = " << recall);
  CHECK(recall >= 0.95);
}

TEST_CASE("ann index: deleted and overwritten vectors, in the memtable and after compaction") {
  AnnFixture f("euclidean");
  // 200 vectors far from the origin, and 3 near it
  for (int i = 0; i < 200; ++i) {
    std::vector<float> v = f.random_vector();
    for (float& x : v) x = x * 0.1f + 5;
    f.insert(i, v);
  }
  f.insert(1000, {0, 0, 0, 0, 0, 0, 0, 0.1f});
  f.insert(1001, {0, 0, 0, 0, 0, 0, 0.2f, 0});
  f.insert(1002, {0, 0, 0, 0, 0, 0.3f, 0, 0});
  REQUIRE(f.store().flush().is_ok());
  const std::vector<float> origin(8, 0.0f);
  CHECK(f.ann(origin, 3) == std::vector<std::string>{"1000", "1001", "1002"});

  // in the memtable: 1000 deleted, 1001 moved far away, 1003 new and nearest
  f.ok("DELETE FROM items WHERE id = 1000");
  f.insert(1001, {9, 9, 9, 9, 9, 9, 9, 9});
  f.insert(1003, {0.05f, 0, 0, 0, 0, 0, 0, 0});
  const auto got = f.ann(origin, 3);
  CHECK(got == f.exact("similarity_euclidean", origin, 3));
  CHECK(got[0] == "1003");
  CHECK(got[1] == "1002");
  CHECK(std::find(got.begin(), got.end(), "1000") == got.end());
  CHECK(std::find(got.begin(), got.end(), "1001") == got.end());

  // flushed: the deletion and the overwrite in a second SSTable, the old vectors in the first
  REQUIRE(f.store().flush().is_ok());
  CHECK(f.ann(origin, 3) == got);

  // compacted into one SSTable: its graph is built again and the old ones dropped
  auto table = f.session().catalog().current().value()->find_table("ks", "items");
  cql::ann_wait_for_builds();
  const uint64_t built = cql::ann_index_stats().graphs_built;
  REQUIRE(f.store().compact(table->table_id).is_ok());
  CHECK(f.ann(origin, 3) == got);  // scored exactly: its graph is built meanwhile
  cql::ann_wait_for_builds();
  CHECK(cql::ann_index_stats().graphs_built == built + 1);
  CHECK(f.ann(origin, 3) == got);
  CHECK(cql::ann_index_stats().graphs_built == built + 1);  // cached
}

TEST_CASE("ann index: filtering on another column fetches more candidates until LIMIT is met") {
  AnnFixture f("dot_product");
  // Cassandra 5.0 refuses an ANN query restricting an unindexed column
  f.ok("CREATE INDEX ON items (cat) USING 'sai'");
  // 2000 rows, 1 in 100 of category 'a': the first fetch of each graph holds few of them
  for (int i = 0; i < 2000; ++i) f.insert(i, f.random_vector(), i % 100 == 7 ? "a" : "b");
  REQUIRE(f.store().flush().is_ok());
  for (int n = 0; n < 5; ++n) {
    const std::vector<float> q = f.random_vector();
    const auto got = f.ann(q, 10, "WHERE cat = 'a'");
    REQUIRE(got.size() == 10);
    CHECK(overlap(f.exact("similarity_dot_product", q, 10, "a"), got) >= 9);
  }
}

TEST_CASE("ann index: a table smaller than the fetch is searched exactly") {
  AnnFixture f;
  for (int i = 0; i < 30; ++i) f.insert(i, f.random_vector());
  REQUIRE(f.store().flush().is_ok());
  for (int i = 30; i < 40; ++i) f.insert(i, f.random_vector());
  for (int n = 0; n < 10; ++n) {
    const std::vector<float> q = f.random_vector();
    CHECK(f.ann(q, 5) == f.exact("similarity_cosine", q, 5));
  }
  // a TRUNCATE leaves nothing to find
  f.ok("TRUNCATE items");
  CHECK(f.ann(f.random_vector(), 5).empty());
}

TEST_CASE("ann index: optimize_for 'recall' searches each graph with twice the list") {
  CqlFixture f;
  f.ok(
      "CREATE TABLE three (id int PRIMARY KEY, a vector<float, 4>, b vector<float, 4>, "
      "c vector<float, 4>)");
  f.ok("CREATE INDEX a_idx ON three (a) USING 'sai'");
  f.ok("CREATE INDEX b_idx ON three (b) USING 'sai' WITH OPTIONS = {'optimize_for': 'latency'}");
  f.ok("CREATE INDEX c_idx ON three (c) USING 'sai' WITH OPTIONS = {'optimize_for': 'Recall'}");
  auto schema = f.session().catalog().current();
  REQUIRE(schema.is_ok());
  std::shared_ptr<const schema::TableDef> table = (*schema)->find_table("ks", "three");
  REQUIRE(table != nullptr);
  const auto& indexes = (*schema)->keyspaces.at("ks")->indexes;
  auto def = [&](const std::string& name) {
    auto ann = cql::ann_index_of(*table, *indexes.at(name));
    REQUIRE(ann.is_ok());
    return *ann;
  };
  std::vector<std::vector<float>> points;
  std::vector<uint32_t> partition_of;
  std::vector<std::string> partitions;
  for (uint32_t i = 0; i < 100; ++i) {
    points.push_back({1.0F * static_cast<float>(i), 1, 2, 3});
    partition_of.push_back(i);
    partitions.push_back(std::to_string(i));
  }
  auto graph = cql::AnnGraph::build(cql::Similarity::kCosine, 4, {}, std::move(points),
                                    std::move(partition_of), std::move(partitions));
  REQUIRE(graph.is_ok());
  const cql::AnnGraph& g = **graph;
  CHECK(g.search_candidates(40) == 512);
  CHECK(g.search_candidates(1000) == 2000);
  for (const char* latency : {"a_idx", "b_idx"}) {
    CHECK_FALSE(def(latency).optimize_for_recall);
    CHECK(cql::ann_search_list(g, 40, def(latency)) == 512);
    CHECK(cql::ann_search_list(g, 1000, def(latency)) == 2000);
  }
  CHECK(def("c_idx").optimize_for_recall);
  CHECK(cql::ann_search_list(g, 40, def("c_idx")) == 1024);
  CHECK(cql::ann_search_list(g, 1000, def("c_idx")) == 4000);
}

}  // namespace cassette::test
