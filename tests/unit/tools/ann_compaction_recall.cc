// Recall@10 and search time of a compaction's ANN graphs against its inputs' (a local tool, not
// built by CMake; the engine's internal AnnGraph, engine/cql/ann_graph.h, over the engine's
// libraries, which is why it is not in tests/bench, whose files use public headers only):
// POINTS vectors of DIM dimensions (uniform in [-1, 1], or clustered around 100 centres with
// CLUSTERED=1: tests/bench/bench_ann.sh's two distributions) in a first SSTable's graph; a second
// SSTable overwrites 2.5% of them, deletes 2.5% and adds 10% (bench_ann.sh's compaction step),
// with its own graph (DELETED=FRACTION deletes that share instead of 2.5%). Then, for QUERIES
// queries against the exact top-10 of the changed data:
//   per-sst  both inputs' graphs searched, 40 candidates each, as before the compaction
//   merged   the output's graph merged from the first's (AnnGraph::merge, as the compaction does)
//   rebuilt  the output's graph built from its live vectors
// each at the search lists EFS (default "512 768 1024"; `auto`: AnnGraph::search_candidates, the
// list the query layer chooses for each graph), the 40 candidates scored exactly and the best 10
// kept. M and EF_CONSTRUCTION default to the engine's (32, 200). KEEP=DIR saves the graphs there
// and loads them on the next run of the same arguments (a 100k build takes minutes).
//
//   cd build   # a RelWithDebInfo build's libraries, then, on one line:
//   g++ -std=c++20 -O2 -I.. -Iinclude ../tests/unit/tools/ann_compaction_recall.cc -o /tmp/acr
//     -Wl,--start-group libcassette_*.a -Wl,--end-group -lfmt -lzstd -llz4 -lsnappy -lgmp
//     -licui18n -licuuc -licudata -lcrypt -lssl -lcrypto -lpthread
//   KEEP=/tmp/acr100k EFS="512 auto" /tmp/acr 100000 128 100
//   /tmp/acr POINTS [DIM] [QUERIES] [M] [EF_CONSTRUCTION]
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/cql/ann_graph.h"

namespace {

using cassette::cql::AnnGraph;
using cassette::cql::AnnGraphParams;
using cassette::cql::Similarity;
using Vec = std::vector<float>;
using Graph = std::shared_ptr<const AnnGraph>;

double cosine(const Vec& a, const Vec& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  return dot / std::sqrt(na * nb);
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s POINTS [DIM] [QUERIES] [M] [EF_CONSTRUCTION]\n", argv[0]);
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows in a redirected output
  const size_t n = std::strtoul(argv[1], nullptr, 10);
  const size_t dim = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 128;
  const size_t queries = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 100;
  AnnGraphParams params;
  if (argc > 4) params.links = std::strtoul(argv[4], nullptr, 10);
  if (argc > 5) params.build_candidates = std::strtoul(argv[5], nullptr, 10);
  std::vector<size_t> efs;  // 0: auto
  for (const char* s = std::getenv("EFS") ? std::getenv("EFS") : "512 768 1024"; *s;) {
    while (*s == ' ') ++s;
    if (*s == '\0') break;
    if (std::string_view(s).substr(0, 4) == "auto") {
      efs.push_back(0);
      s += 4;
    } else {
      char* end = nullptr;
      efs.push_back(std::strtoul(s, &end, 10));
      s = end;
    }
  }
  const bool clustered = std::getenv("CLUSTERED") != nullptr;
  const char* keep = std::getenv("KEEP");

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::normal_distribution<float> gauss(0, 0.3f);
  std::vector<Vec> centres(100, Vec(dim));
  for (Vec& c : centres) {
    for (float& x : c) x = uniform(rng);
  }
  auto vec = [&] {
    Vec v(dim);
    if (!clustered) {
      for (float& x : v) x = uniform(rng);
      return v;
    }
    const Vec& c = centres[rng() % centres.size()];
    for (size_t i = 0; i < dim; ++i) v[i] = c[i] + gauss(rng);
    return v;
  };
  std::vector<Vec> data(n);
  for (Vec& v : data) v = vec();
  std::vector<Vec> qs(queries);
  for (Vec& q : qs) q = vec();
  // the second SSTable: n/40 overwritten, n/40 deleted, n/10 added
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<Vec> current = data;
  std::vector<bool> live(n + n / 10, true);
  std::vector<size_t> second;
  for (size_t j = 0; j < n / 40; ++j) {
    current[order[j]] = vec();
    second.push_back(order[j]);
  }
  // DELETED=FRACTION deletes that share of the first's points instead of 2.5%
  const double deleted_share =
      std::getenv("DELETED") ? std::strtod(std::getenv("DELETED"), nullptr) : 0.025;
  const size_t deleted_end =
      std::min(n, n / 40 + static_cast<size_t>(deleted_share * static_cast<double>(n)));
  for (size_t j = n / 40; j < deleted_end; ++j) live[order[j]] = false;
  for (size_t i = n; i < n + n / 10; ++i) {
    current.push_back(vec());
    second.push_back(i);
  }
  std::vector<size_t> first(n), output;
  for (size_t i = 0; i < n; ++i) first[i] = i;
  for (size_t i = 0; i < current.size(); ++i) {
    if (live[i]) output.push_back(i);
  }
  // the exact top 10 of `ids` among `from` for each query
  auto exact = [&](const std::vector<size_t>& ids, const std::vector<Vec>& from) {
    std::vector<std::vector<size_t>> top(queries);
    for (size_t q = 0; q < queries; ++q) {
      std::vector<std::pair<double, size_t>> scored;
      for (size_t i : ids) scored.emplace_back(-cosine(qs[q], from[i]), i);
      std::partial_sort(scored.begin(), scored.begin() + 10, scored.end());
      for (size_t k = 0; k < 10; ++k) top[q].push_back(scored[k].second);
    }
    return top;
  };
  const std::vector<std::vector<size_t>> truth = exact(output, current);

  const std::string dir = keep ? keep : fmt::format("/tmp/ann_compaction_recall.{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto path = [&](const char* name) { return dir + "/" + name; };
  auto points = [&](const std::vector<size_t>& ids, const std::vector<Vec>& from,
                    std::vector<Vec>* vectors, std::vector<uint32_t>* partition_of,
                    std::vector<std::string>* partitions) {
    for (size_t i : ids) {
      vectors->push_back(from[i]);
      partition_of->push_back(static_cast<uint32_t>(partitions->size()));
      partitions->push_back(std::to_string(i));
    }
  };
  auto load = [&](const char* name) -> Graph {
    if (!keep) return nullptr;
    auto graph = AnnGraph::load(path(name), "g", Similarity::kCosine, dim, params);
    return graph.is_ok() ? *graph : nullptr;
  };
  auto save = [&](const char* name, const Graph& graph) {
    std::ofstream(path(name)) << "sstable";
    (void)graph->save(path(name), "g");
  };
  auto build = [&](const char* name, const std::vector<size_t>& ids,
                   const std::vector<Vec>& from) -> Graph {
    if (Graph graph = load(name)) return graph;
    std::vector<Vec> vectors;
    std::vector<uint32_t> partition_of;
    std::vector<std::string> partitions;
    points(ids, from, &vectors, &partition_of, &partitions);
    const double t0 = now();
    auto graph = AnnGraph::build(Similarity::kCosine, dim, params, std::move(vectors),
                                 std::move(partition_of), std::move(partitions));
    if (!graph.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", name, graph.status().message().c_str());
      std::exit(1);
    }
    std::printf("# %s: %zu points built in %.1f s\n", name, ids.size(), now() - t0);
    save(name, *graph);
    return *graph;
  };
  const Graph a = build("first.sst", first, data);
  const Graph b = build("second.sst", second, current);
  Graph merged = load("merged.sst");
  if (merged == nullptr) {
    std::vector<Vec> vectors;
    std::vector<uint32_t> partition_of;
    std::vector<std::string> partitions;
    points(output, current, &vectors, &partition_of, &partitions);
    const double t0 = now();
    auto graph = AnnGraph::merge(path("first.sst"), "g", Similarity::kCosine, dim, params, vectors,
                                 partition_of, partitions, 0.3);
    if (!graph.is_ok() || *graph == nullptr) {
      std::fprintf(stderr, "merge: %s\n",
                   graph.is_ok() ? "past the deleted share" : graph.status().message().c_str());
      return 1;
    }
    merged = *graph;
    std::printf("# merged: %zu live of %zu points in %.1f s\n", merged->size(), merged->points(),
                now() - t0);
    save("merged.sst", merged);
  }
  // REBUILT=0 skips the rebuilt graph (the longest build; `single` measures one built graph too)
  const bool with_rebuilt =
      std::getenv("REBUILT") == nullptr || std::string(std::getenv("REBUILT")) != "0";
  const Graph rebuilt = with_rebuilt ? build("rebuilt.sst", output, current) : nullptr;
  // the first SSTable's graph alone, against the exact top 10 of its own points
  const std::vector<std::vector<size_t>> first_truth = exact(first, data);

  constexpr size_t kFetch = 40;  // what a LIMIT 10 query fetches from each graph
  auto run = [&](const char* name, const std::vector<Graph>& graphs, size_t ef_option,
                 const std::vector<std::vector<size_t>>& expected, const std::vector<Vec>& vectors,
                 bool all_live) {
    size_t hits = 0;
    double seconds = 0;
    std::string lists;
    for (const Graph& g : graphs) {
      const size_t ef = ef_option != 0 ? ef_option : g->search_candidates(kFetch);
      lists += (lists.empty() ? "" : "+") + std::to_string(ef);
    }
    for (size_t q = 0; q < queries; ++q) {
      std::set<size_t> candidates;
      const double t0 = now();
      for (const Graph& g : graphs) {
        const size_t ef = ef_option != 0 ? ef_option : g->search_candidates(kFetch);
        std::vector<uint32_t> found;
        g->search(qs[q], kFetch, ef, &found);
        for (uint32_t p : found) candidates.insert(std::stoul(g->partition(p)));
      }
      seconds += now() - t0;
      std::vector<std::pair<double, size_t>> scored;
      for (size_t i : candidates) {
        if (all_live || live[i]) scored.emplace_back(-cosine(qs[q], vectors[i]), i);
      }
      std::sort(scored.begin(), scored.end());
      for (size_t k = 0; k < std::min<size_t>(10, scored.size()); ++k) {
        hits += static_cast<size_t>(
            std::count(expected[q].begin(), expected[q].end(), scored[k].second));
      }
    }
    std::printf("%-8s ef %-10s recall@10 %.3f  %.2f ms/query\n", name, lists.c_str(),
                static_cast<double>(hits) / (10.0 * static_cast<double>(queries)),
                1000 * seconds / static_cast<double>(queries));
  };
  for (size_t ef : efs) {
    run("single", {a}, ef, first_truth, data, true);
    run("per-sst", {a, b}, ef, truth, current, false);
    run("merged", {merged}, ef, truth, current, false);
    if (rebuilt) run("rebuilt", {rebuilt}, ef, truth, current, false);
  }
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}
