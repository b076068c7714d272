#include "engine/cql/ann_index.h"

#include <fmt/format.h>

// hnswlib's SSE code prefetches the link after a list's last one, a read past the allocation that
// AddressSanitizer reports: a sanitizer build uses its plain loops.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "engine/query/query.h"
#include "engine/types/murmur3.h"
#include "engine/types/value.h"

namespace cassette::cql {

namespace {

// hnswlib's parameters: 16 links a node (32 on the bottom layer), 100 candidates while building,
// at least 128 while searching (more when a query fetches more): recall@10 of 0.99 and more on
// 100k clustered 128-dimension vectors (tests/bench/bench_ann.sh). Uniformly random vectors, which
// have no neighbourhoods to find, need far more (ANN_BENCH_DATA=uniform shows it).
constexpr size_t kLinks = 16;
constexpr size_t kBuildCandidates = 100;
constexpr size_t kSearchCandidates = 128;

void normalize(std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  const float norm = static_cast<float>(std::sqrt(sum));
  if (norm > 0) {
    for (float& x : v) x /= norm;
  }
}

// The graph of one SSTable's vectors in one column. Cosine searches normalized vectors by inner
// product, dot_product raw vectors by inner product, euclidean by (squared) L2 distance: each
// order is the order of the similarity score, which keep_nearest computes exactly afterwards.
class Graph {
 public:
  Graph(Similarity similarity, size_t dimension) : similarity_(similarity) {
    if (similarity == Similarity::kEuclidean) {
      space_ = std::make_unique<hnswlib::L2Space>(dimension);
    } else {
      space_ = std::make_unique<hnswlib::InnerProductSpace>(dimension);
    }
  }

  // Every point at once: hnswlib's index is sized when made.
  void build(std::vector<std::vector<float>> points, std::vector<uint32_t> partition_of,
             std::vector<std::string> partitions) {
    partition_of_ = std::move(partition_of);
    partitions_ = std::move(partitions);
    size_ = points.size();
    if (points.empty()) return;
    index_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(space_.get(), points.size(), kLinks,
                                                               kBuildCandidates);
    index_->setEf(kSearchCandidates);
    for (size_t i = 0; i < points.size(); ++i) {
      if (similarity_ == Similarity::kCosine) normalize(points[i]);
      index_->addPoint(points[i].data(), i);
    }
  }

  size_t size() const { return size_; }

  // The partitions of the `k` nearest points (fewer when the graph has fewer).
  void search(std::vector<float> query, size_t k, std::set<uint32_t>* partitions) const {
    if (index_ == nullptr) return;
    if (similarity_ == Similarity::kCosine) normalize(query);
    auto found = index_->searchKnn(query.data(), std::min(k, size_));
    while (!found.empty()) {
      partitions->insert(partition_of_[found.top().second]);
      found.pop();
    }
  }

  const std::string& partition(uint32_t i) const { return partitions_[i]; }

 private:
  Similarity similarity_;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index_;
  size_t size_ = 0;
  std::vector<uint32_t> partition_of_;  // by point: index into partitions_
  std::vector<std::string> partitions_;
};

// A graph belongs to one SSTable (a TableFile, the same object for as long as the file is live
// in this process), one column and one similarity function. The entry holds the file weakly: once
// the file is gone (compacted away, truncated, dropped), the entry is stale, and pruned.
struct GraphKey {
  const storage::TableFile* file = nullptr;
  storage::ColumnId column = 0;
  Similarity similarity = Similarity::kCosine;
  friend bool operator<(const GraphKey& a, const GraphKey& b) {
    return std::tie(a.file, a.column, a.similarity) < std::tie(b.file, b.column, b.similarity);
  }
};

struct CachedGraph {
  std::weak_ptr<storage::TableFile> file;
  std::shared_ptr<const Graph> graph;
};

struct GraphCache {
  std::mutex mutex;
  std::map<GraphKey, CachedGraph> graphs;
  uint64_t built = 0;

  // REQUIRES: mutex held.
  std::shared_ptr<const Graph> find(const GraphKey& key,
                                    const std::shared_ptr<storage::TableFile>& file) {
    auto it = graphs.find(key);
    if (it == graphs.end() || it->second.file.lock() != file) return nullptr;
    return it->second.graph;
  }
  // REQUIRES: mutex held.
  void prune() {
    for (auto it = graphs.begin(); it != graphs.end();) {
      it = it->second.file.expired() ? graphs.erase(it) : std::next(it);
    }
  }
};

GraphCache& cache() {
  static GraphCache* instance = new GraphCache();  // never destroyed: used until exit
  return *instance;
}

// A snapshot that reads only `files` (none: only the memtables, when `memtables`).
std::shared_ptr<const storage::Snapshot> narrowed(const storage::Snapshot& snapshot,
                                                  storage::TableId table, bool memtables,
                                                  std::shared_ptr<storage::TableFile> file) {
  auto narrow = std::make_shared<storage::Snapshot>(snapshot);
  if (!memtables) {
    narrow->memtable.reset();
    narrow->flushing.reset();
    narrow->overlay.reset();
  }
  auto version = std::make_shared<storage::Version>();
  if (file != nullptr) version->tables[table].push_back(std::move(file));
  narrow->version = std::move(version);
  return narrow;
}

// Each live row of `snapshot` that has a vector in `column`: fn(partition key, floats).
template <typename Fn>
Status for_each_vector(const storage::Store& store,
                       std::shared_ptr<const storage::Snapshot> snapshot,
                       std::shared_ptr<const schema::TableDef> table,
                       const schema::ColumnDef& column, Similarity similarity, Fn&& fn) {
  const size_t column_index = static_cast<size_t>(&column - table->columns.data());
  const int32_t dimension = column.type.dimension;
  query::AccessPath path;
  const std::vector<const std::vector<std::string>*> no_prefix;
  CASSETTE_ASSIGN_OR_RETURN(
      path.ranges,  // every row of each partition
      query::clustering_ranges(*table, query::clustering_prefixes(no_prefix), nullptr));
  path.emit_static_only = false;
  CASSETTE_ASSIGN_OR_RETURN(
      std::unique_ptr<query::QueryCursor> cursor,
      query::QueryCursor::open(store, std::move(snapshot), std::move(table), std::move(path)));
  while (cursor->next()) {
    std::optional<std::string_view> value = cursor->value(column_index);
    if (!value) continue;
    auto floats = types::vector_floats(*value, dimension);
    if (!floats.is_ok()) continue;
    // Cassandra's index holds no all-zero vector under cosine (it has no direction)
    if (similarity == Similarity::kCosine && is_zero_vector(*floats)) continue;
    fn(cursor->partition_key(), std::move(*floats));
  }
  return cursor->status();
}

Result<std::shared_ptr<const Graph>> build_graph(const storage::Store& store,
                                                 const storage::Snapshot& snapshot,
                                                 std::shared_ptr<const schema::TableDef> table,
                                                 const schema::ColumnDef& column,
                                                 Similarity similarity,
                                                 std::shared_ptr<storage::TableFile> file) {
  const storage::TableId table_id = table->table_id;
  std::vector<std::vector<float>> points;
  std::vector<uint32_t> partition_of;
  std::vector<std::string> partitions;
  CASSETTE_RETURN_IF_ERROR(for_each_vector(
      store, narrowed(snapshot, table_id, false, std::move(file)), std::move(table), column,
      similarity, [&](const std::string& partition, std::vector<float> floats) {
        if (partitions.empty() || partitions.back() != partition) partitions.push_back(partition);
        partition_of.push_back(static_cast<uint32_t>(partitions.size() - 1));
        points.push_back(std::move(floats));
      }));
  auto graph = std::make_shared<Graph>(similarity, static_cast<size_t>(column.type.dimension));
  try {
    graph->build(std::move(points), std::move(partition_of), std::move(partitions));
  } catch (const std::exception& e) {
    return Status::internal(fmt::format("building the ANN graph of {}: {}", column.name, e.what()));
  }
  return std::shared_ptr<const Graph>(std::move(graph));
}

}  // namespace

Result<AnnCandidates> ann_candidate_partitions(const storage::Store& store,
                                               std::shared_ptr<const storage::Snapshot> snapshot,
                                               std::shared_ptr<const schema::TableDef> table,
                                               const schema::ColumnDef& column,
                                               Similarity similarity, std::span<const float> query,
                                               size_t fetch) {
  const storage::TableId table_id = table->table_id;
  AnnCandidates result;
  result.complete = true;
  std::set<std::string> keys;
  const std::vector<float> q(query.begin(), query.end());

  // The memtables (and a transaction's own writes): scored exactly, the best `fetch` kept.
  {
    std::vector<std::pair<float, std::string>> scored;
    CASSETTE_RETURN_IF_ERROR(
        for_each_vector(store, narrowed(*snapshot, table_id, true, nullptr), table, column,
                        similarity, [&](const std::string& partition, std::vector<float> floats) {
                          scored.emplace_back(similarity_score(similarity, q, floats), partition);
                        }));
    if (scored.size() > fetch) {
      result.complete = false;
      std::partial_sort(scored.begin(), scored.begin() + static_cast<ptrdiff_t>(fetch),
                        scored.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      scored.resize(fetch);
    }
    for (auto& [score, partition] : scored) keys.insert(std::move(partition));
  }

  // Each SSTable: its graph's nearest `fetch`. A TRUNCATE this reader sees hides them all.
  const bool truncated =
      std::binary_search(snapshot->truncated.begin(), snapshot->truncated.end(), table_id);
  const auto& files = truncated ? std::vector<std::shared_ptr<storage::TableFile>>()
                                : snapshot->version->files(table_id);
  for (const auto& file : files) {
    const GraphKey key{file.get(), column.id, similarity};
    std::shared_ptr<const Graph> graph;
    {
      std::lock_guard<std::mutex> lock(cache().mutex);
      graph = cache().find(key, file);
    }
    if (graph == nullptr) {
      CASSETTE_ASSIGN_OR_RETURN(graph,
                                build_graph(store, *snapshot, table, column, similarity, file));
      std::lock_guard<std::mutex> lock(cache().mutex);
      if (auto built = cache().find(key, file)) {
        graph = built;  // another query built it meanwhile
      } else {
        cache().prune();  // the graphs of SSTables gone since
        cache().graphs[key] = {file, graph};
        ++cache().built;
      }
    }
    if (graph->size() > fetch) result.complete = false;
    std::set<uint32_t> partitions;
    try {
      graph->search(q, fetch, &partitions);
    } catch (const std::exception& e) {
      return Status::internal(
          fmt::format("searching the ANN graph of {}: {}", column.name, e.what()));
    }
    for (uint32_t p : partitions) keys.insert(graph->partition(p));
  }

  // Storage order (token, then key bytes), the order a scan reads them in, so that equal
  // scores come out as the exact search gives them.
  std::vector<std::pair<int64_t, std::string>> ordered;
  ordered.reserve(keys.size());
  for (const std::string& k : keys) ordered.emplace_back(types::murmur3_token(k), k);
  std::sort(ordered.begin(), ordered.end());
  result.keys.reserve(ordered.size());
  for (auto& [token, k] : ordered) result.keys.push_back(std::move(k));
  return result;
}

AnnIndexStats ann_index_stats() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().prune();
  return {cache().built, cache().graphs.size()};
}

}  // namespace cassette::cql
