// What an HNSW graph's build costs and what it finds, for each build setting (a local tool, not
// built by CMake): uniformly random DIM-dimension unit vectors (the hard case of
// tests/bench/bench_ann.sh: no neighbourhoods to follow), cosine (inner product on normalized
// vectors, as engine/cql/ann_graph.cc searches), hnswlib as Debian packages it. For each setting
// "M/ef_construction/threads": the build's seconds (and per 10k vectors), the time in addPoint's
// distance computations per point, and recall@10 / queries per second at search lists 512 and
// 256 against an exact top-10, as the ANN query finds it (engine/cql/ann_index.cc: the graph's
// 40 nearest at a search list of max(512, 2 x 40), scored exactly, the best 10 kept: a true
// top-10 vector is found when it is among the 40).
//
//   g++ -O2 -std=c++20 -pthread tests/bench/ann_build_settings.cc -o /tmp/abs
//   /tmp/abs ROWS [QUERIES] [DIM] [M/efc/threads ...]
//   /tmp/abs 20000 200 128 32/200/1 32/200/2 16/100/2 16/200/2 24/100/2
#include <hnswlib/hnswlib.h>

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

std::atomic<uint64_t> g_distances{0};
thread_local uint64_t t_distances = 0;  // summed into g_distances when a builder ends
hnswlib::DISTFUNC<float> g_inner;

float counted_ip(const void* a, const void* b, const void* param) {
  ++t_distances;
  return g_inner(a, b, param);
}

class CountingSpace : public hnswlib::InnerProductSpace {
 public:
  explicit CountingSpace(size_t dim) : hnswlib::InnerProductSpace(dim) {
    g_inner = hnswlib::InnerProductSpace::get_dist_func();
  }
  hnswlib::DISTFUNC<float> get_dist_func() override { return counted_ip; }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 20000;
  const size_t queries = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200;
  const size_t dim = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 128;
  std::vector<std::string> settings;
  for (int i = 4; i < argc; ++i) settings.emplace_back(argv[i]);
  if (settings.empty()) settings = {"32/200/1", "32/200/2", "16/100/2", "16/200/2", "24/100/2"};

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> coord(-1, 1);
  auto unit = [&] {
    std::vector<float> v(dim);
    double sum = 0;
    for (float& x : v) {
      x = coord(rng);
      sum += double{x} * x;
    }
    for (float& x : v) x = static_cast<float>(x / std::sqrt(sum));
    return v;
  };
  std::vector<std::vector<float>> points(rows), qs(queries);
  for (auto& p : points) p = unit();
  for (auto& q : qs) q = unit();
  // exact top-10 of each query
  std::vector<std::vector<size_t>> truth(queries);
  for (size_t q = 0; q < queries; ++q) {
    std::vector<std::pair<float, size_t>> scored(rows);
    for (size_t i = 0; i < rows; ++i) {
      float s = 0;
      for (size_t d = 0; d < dim; ++d) s += qs[q][d] * points[i][d];
      scored[i] = {-s, i};
    }
    std::partial_sort(scored.begin(), scored.begin() + 10, scored.end());
    for (size_t i = 0; i < 10; ++i) truth[q].push_back(scored[i].second);
  }
  std::printf("rows %zu, dim %zu, queries %zu\n", rows, dim, queries);
  std::printf("%-12s %9s %11s %13s %10s %9s %10s %9s\n", "M/efc/thr", "build s", "s per 10k",
              "dist per pt", "recall ef512", "qps", "recall ef256", "qps");
  for (const std::string& setting : settings) {
    size_t m = 32, efc = 200, threads = 1;
    std::sscanf(setting.c_str(), "%zu/%zu/%zu", &m, &efc, &threads);
    CountingSpace space(dim);
    hnswlib::HierarchicalNSW<float> index(&space, rows, m, efc);
    g_distances = 0;
    auto start = std::chrono::steady_clock::now();
    index.addPoint(points[0].data(), 0);
    t_distances = 0;
    std::atomic<size_t> next{1};
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        t_distances = 0;
        for (size_t i = next++; i < rows; i = next++) index.addPoint(points[i].data(), i);
        g_distances += t_distances;
      });
    }
    for (auto& w : workers) w.join();
    const double build = seconds_since(start);
    const double per_point = static_cast<double>(g_distances.load()) / static_cast<double>(rows);
    double recall[2] = {0, 0}, qps[2] = {0, 0};
    const size_t efs[2] = {512, 256};
    for (int e = 0; e < 2; ++e) {
      size_t found = 0;
      auto t = std::chrono::steady_clock::now();
      for (size_t q = 0; q < queries; ++q) {
        auto result = index.searchKnn(qs[q].data(), efs[e]);
        while (result.size() > 40) result.pop();
        while (!result.empty()) {
          found += std::count(truth[q].begin(), truth[q].end(), result.top().second);
          result.pop();
        }
      }
      qps[e] = static_cast<double>(queries) / seconds_since(t);
      recall[e] = static_cast<double>(found) / static_cast<double>(10 * queries);
    }
    std::printf("%-12s %9.1f %11.2f %13.0f %10.3f %9.0f %10.3f %9.0f\n", setting.c_str(), build,
                build * 10000 / static_cast<double>(rows), per_point, recall[0], qps[0], recall[1],
                qps[1]);
    std::fflush(stdout);
  }
  return 0;
}
