// Whether compaction should merge its inputs' HNSW graphs rather than build the output's graph
// from scratch (a local tool, not built by CMake): two inputs of a compaction, the larger holding
// LARGE vectors and the smaller SMALL, a fraction DROPPED of the larger's rows overwritten or
// deleted by the smaller (those points leave the output). "rebuild" builds the output's graph from
// its live vectors, as the builder thread does today (engine/cql/ann_index.cc); "merge" loads the
// larger input's saved graph, grows it (resizeIndex), marks the dropped points deleted
// (markDelete) and adds the smaller input's vectors (addPoint), as a merge at compaction would.
// For each: build seconds (the merge's load included) and recall@10 against an exact top-10 as
// the ANN query finds it (the graph's 40 nearest at a search list of 512, scored exactly, the best
// 10 kept). Cosine on normalized vectors (inner product), hnswlib as Debian packages it (0.6),
// M 32 / ef_construction 200 (the engine's), THREADS builder threads, uniform or clustered data
// (tests/bench/bench_ann.sh's two distributions).
//
//   g++ -O2 -std=c++20 -pthread tests/bench/ann_merge.cc -o /tmp/ann_merge
//   /tmp/ann_merge uniform|clustered LARGE SMALL [DROPPED] [THREADS] [QUERIES] [DIM]
//   /tmp/ann_merge uniform 20000 20000 0.05 2
#include <hnswlib/hnswlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void normalize(std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += double(x) * x;
  const float n = float(std::sqrt(s));
  for (float& x : v) x /= n;
}

// addPoint(vectors[i], labels[i]) for each i, from `threads` threads (the first point alone when
// the graph is empty: it becomes the entry point).
void add_all(hnswlib::HierarchicalNSW<float>& g, const std::vector<std::vector<float>>& vectors,
             const std::vector<size_t>& labels, size_t threads) {
  size_t first = 0;
  if (g.cur_element_count == 0 && !labels.empty()) {
    g.addPoint(vectors[labels[0]].data(), labels[0]);
    first = 1;
  }
  std::atomic<size_t> next{first};
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < labels.size(); i = next++) {
        g.addPoint(vectors[labels[i]].data(), labels[i]);
      }
    });
  }
  for (auto& w : workers) w.join();
}

double recall(hnswlib::HierarchicalNSW<float>& g, const std::vector<std::vector<float>>& vectors,
              const std::vector<size_t>& live, const std::vector<std::vector<float>>& queries) {
  size_t found = 0;
  for (const auto& q : queries) {
    std::vector<std::pair<float, size_t>> exact;
    for (size_t i : live) {
      float d = 0;
      for (size_t j = 0; j < q.size(); ++j) d += q[j] * vectors[i][j];
      exact.emplace_back(-d, i);
    }
    std::partial_sort(exact.begin(), exact.begin() + 10, exact.end());
    auto result = g.searchKnn(q.data(), 512);
    std::vector<size_t> labels;
    while (!result.empty()) {
      labels.push_back(result.top().second);
      result.pop();
    }
    // the nearest 40 of the search list, as the query fetches them
    std::reverse(labels.begin(), labels.end());
    if (labels.size() > 40) labels.resize(40);
    for (size_t n = 0; n < 10; ++n) {
      if (std::find(labels.begin(), labels.end(), exact[n].second) != labels.end()) ++found;
    }
  }
  return double(found) / double(10 * queries.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s uniform|clustered LARGE SMALL [DROPPED] [THREADS] [QUERIES] [DIM]\n",
                 argv[0]);
    return 2;
  }
  const bool uniform = std::string(argv[1]) == "uniform";
  const size_t large = std::stoul(argv[2]), small = std::stoul(argv[3]);
  const double dropped = argc > 4 ? std::stod(argv[4]) : 0.05;
  const size_t threads = argc > 5 ? std::stoul(argv[5]) : 2;
  const size_t nq = argc > 6 ? std::stoul(argv[6]) : 100;
  const size_t dim = argc > 7 ? std::stoul(argv[7]) : 128;
  constexpr size_t M = 32, efc = 200;

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1, 1);
  std::normal_distribution<float> noise(0, 0.3f);
  std::vector<std::vector<float>> centres(100, std::vector<float>(dim));
  for (auto& c : centres)
    for (float& x : c) x = u(rng);
  auto vec = [&] {
    std::vector<float> v(dim);
    const auto& c = centres[rng() % centres.size()];
    for (size_t j = 0; j < dim; ++j) v[j] = uniform ? u(rng) : c[j] + noise(rng);
    normalize(v);
    return v;
  };
  std::vector<std::vector<float>> vectors(large + small);
  for (auto& v : vectors) v = vec();
  std::vector<std::vector<float>> queries(nq);
  for (auto& q : queries) q = vec();
  // labels 0..large-1: the larger input; large..: the smaller one; a `dropped` share of the
  // larger's points are gone from the output (overwritten or deleted by the smaller input)
  std::vector<bool> gone(large, false);
  for (size_t i = 0; i < large; ++i)
    gone[i] = std::uniform_real_distribution<double>(0, 1)(rng) < dropped;
  std::vector<size_t> large_labels, small_labels, live;
  for (size_t i = 0; i < large; ++i) {
    large_labels.push_back(i);
    if (!gone[i]) live.push_back(i);
  }
  for (size_t i = large; i < large + small; ++i) {
    small_labels.push_back(i);
    live.push_back(i);
  }

  hnswlib::InnerProductSpace space(dim);
  // the larger input's graph, as its component holds it
  const std::string saved = "/tmp/ann_merge_" + std::to_string(::getpid()) + ".hnsw";
  {
    hnswlib::HierarchicalNSW<float> input(&space, large, M, efc);
    add_all(input, vectors, large_labels, threads);
    input.saveIndex(saved);
  }

  auto t0 = Clock::now();
  hnswlib::HierarchicalNSW<float> rebuilt(&space, live.size(), M, efc);
  add_all(rebuilt, vectors, live, threads);
  const double rebuild_s = seconds_since(t0);
  const double rebuild_recall = recall(rebuilt, vectors, live, queries);

  t0 = Clock::now();
  hnswlib::HierarchicalNSW<float> merged(&space, saved, false, large + small);
  for (size_t i = 0; i < large; ++i) {
    if (gone[i]) merged.markDelete(i);
  }
  add_all(merged, vectors, small_labels, threads);
  const double merge_s = seconds_since(t0);
  const double merge_recall = recall(merged, vectors, live, queries);
  std::remove(saved.c_str());

  std::printf(
      "%s large %zu small %zu dropped %.2f threads %zu: rebuild %.1f s recall %.3f | merge %.1f s "
      "recall %.3f (%.0f%% of the rebuild's time)\n",
      argv[1], large, small, dropped, threads, rebuild_s, rebuild_recall, merge_s, merge_recall,
      100 * merge_s / rebuild_s);
  return 0;
}
