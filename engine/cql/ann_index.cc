#include "engine/cql/ann_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "engine/query/query.h"
#include "engine/schema/index_components.h"
#include "engine/storage/manifest.h"
#include "engine/types/murmur3.h"
#include "engine/types/value.h"
#include "engine/util/file.h"

namespace cassette::cql {

namespace {

// The search list of a graph (hnswlib's ef): at least 512 candidates, and twice the fetch. Over
// 100k uniformly random 128-dimension vectors (no neighbourhoods to follow: the hard case) in
// two SSTables, graphs of M 32 / ef_construction 200, 40 fetched from each: recall@10 0.43 at
// ef 40, 0.78 at 128, 0.93 at 256, 0.97 at 384, 0.99 at 512 (tests/bench/README.md, "Vector
// search"). Clustered data reaches 1.00 from ef 128. A graph's recall does not
// depend on how many SSTables are searched (each is searched for its own nearest; a smaller graph
// is found more easily), so the count does not scale it.
constexpr size_t kMinSearchCandidates = 512;

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

constexpr int kMaxLinks = 512, kMaxBuildCandidates = 3200;  // Cassandra's IndexWriterConfig

// A graph belongs to one SSTable (a TableFile, the same object for as long as the file is live
// in this process), one column, one similarity function and one set of build parameters. The entry
// holds the file weakly: once the file is gone (compacted away, truncated, dropped), the entry is
// stale, and pruned.
struct GraphKey {
  const storage::TableFile* file = nullptr;
  storage::ColumnId column = 0;
  Similarity similarity = Similarity::kCosine;
  size_t links = 0, build_candidates = 0;
  friend bool operator<(const GraphKey& a, const GraphKey& b) {
    return std::tie(a.file, a.column, a.similarity, a.links, a.build_candidates) <
           std::tie(b.file, b.column, b.similarity, b.links, b.build_candidates);
  }
};

struct CachedGraph {
  std::weak_ptr<storage::TableFile> file;
  std::shared_ptr<const AnnGraph> graph;
};

struct GraphCache {
  std::mutex mutex;
  std::map<GraphKey, CachedGraph> graphs;
  // One load or build of a graph at a time: the queries that need it meanwhile wait for it
  // rather than build it too (a build takes seconds to minutes of a core).
  std::map<GraphKey, std::shared_ptr<std::mutex>> turns;
  uint64_t built = 0;
  uint64_t loaded = 0;
  uint64_t refused = 0;

  // REQUIRES: mutex held.
  std::shared_ptr<const AnnGraph> find(const GraphKey& key,
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

Result<std::shared_ptr<const AnnGraph>> build_graph(const storage::Store& store,
                                                    const storage::Snapshot& snapshot,
                                                    std::shared_ptr<const schema::TableDef> table,
                                                    const schema::ColumnDef& column,
                                                    const AnnIndexDef& index,
                                                    std::shared_ptr<storage::TableFile> file) {
  const storage::TableId table_id = table->table_id;
  std::vector<std::vector<float>> points;
  std::vector<uint32_t> partition_of;
  std::vector<std::string> partitions;
  CASSETTE_RETURN_IF_ERROR(for_each_vector(
      store, narrowed(snapshot, table_id, false, std::move(file)), std::move(table), column,
      index.similarity, [&](const std::string& partition, std::vector<float> floats) {
        if (partitions.empty() || partitions.back() != partition) partitions.push_back(partition);
        partition_of.push_back(static_cast<uint32_t>(partitions.size() - 1));
        points.push_back(std::move(floats));
      }));
  return AnnGraph::build(index.similarity, static_cast<size_t>(column.type.dimension), index.params,
                         std::move(points), std::move(partition_of), std::move(partitions));
}

// The graph of `file`: the cached one, else its component on disk, else built from the SSTable
// (and saved as its component). A component that cannot be used is reported and replaced.
Result<std::shared_ptr<const AnnGraph>> graph_of(
    const storage::Store& store, const storage::Snapshot& snapshot,
    const std::shared_ptr<const schema::TableDef>& table, const schema::ColumnDef& column,
    const AnnIndexDef& index, const std::shared_ptr<storage::TableFile>& file) {
  const GraphKey key{file.get(), column.id, index.similarity, index.params.links,
                     index.params.build_candidates};
  std::shared_ptr<std::mutex> turn;
  {
    std::lock_guard<std::mutex> lock(cache().mutex);
    if (auto graph = cache().find(key, file)) return graph;
    std::shared_ptr<std::mutex>& slot = cache().turns[key];
    if (slot == nullptr) slot = std::make_shared<std::mutex>();
    turn = slot;
  }
  std::lock_guard<std::mutex> my_turn(*turn);
  {
    std::lock_guard<std::mutex> lock(cache().mutex);
    if (auto graph = cache().find(key, file)) return graph;  // the query before this one got it
  }
  // data/<table>-<file id>.sst (manifest.h)
  const std::string sstable =
      file::join(file::join(store.path(), "data"),
                 storage::sstable_file_name(file->meta.table, file->meta.file_id));
  const size_t dimension = static_cast<size_t>(column.type.dimension);
  bool loaded = false;
  std::shared_ptr<const AnnGraph> graph;
  Result<std::shared_ptr<const AnnGraph>> on_disk =
      AnnGraph::load(sstable, index.component, index.similarity, dimension, index.params);
  if (on_disk.is_ok()) {
    graph = std::move(*on_disk);
    loaded = true;
  } else {
    if (on_disk.status().code() != StatusCode::kNotFound) {
      std::fprintf(stderr, "cassette: %s; building the graph again\n",
                   on_disk.status().message().c_str());
      std::lock_guard<std::mutex> lock(cache().mutex);
      ++cache().refused;
    }
    CASSETTE_ASSIGN_OR_RETURN(graph, build_graph(store, snapshot, table, column, index, file));
    // A graph that cannot be saved (a read-only store, a full disk) still answers this process.
    if (Status s = graph->save(sstable, index.component); !s.is_ok()) {
      std::fprintf(stderr, "cassette: saving the ANN graph of %s: %s\n", sstable.c_str(),
                   s.message().c_str());
    }
  }
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().prune();  // the graphs of SSTables gone since
  cache().graphs[key] = {file, graph};
  cache().turns.erase(key);  // whoever waits holds it; later queries find the graph
  ++(loaded ? cache().loaded : cache().built);
  return graph;
}

}  // namespace

Result<AnnIndexDef> ann_index_of(const schema::TableDef& table, const schema::IndexDef& index) {
  AnnIndexDef def;
  std::optional<std::string> component = schema::ann_component(table, index);
  if (!component) {
    return Status::invalid_argument(fmt::format("Index {} is no vector index", index.name));
  }
  def.component = std::move(*component);
  auto option = [&](const char* name) -> const std::string* {
    auto it = index.options.find(name);
    return it == index.options.end() ? nullptr : &it->second;
  };
  if (const std::string* value = option("similarity_function")) {
    std::optional<Similarity> similarity = similarity_by_option(*value);
    if (!similarity) {
      return Status::invalid_argument(fmt::format(
          "Similarity function {} was not recognized for index {}. Valid values are: EUCLIDEAN, "
          "DOT_PRODUCT, COSINE",
          upper(*value), index.name));
    }
    def.similarity = *similarity;
  }
  auto integer = [&](const char* name, const char* what, int max, size_t* out) -> Status {
    const std::string* value = option(name);
    if (value == nullptr) return Status::ok();
    int n = 0;
    auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
    if (ec != std::errc() || end != value->data() + value->size()) {
      return Status::invalid_argument(
          fmt::format("{} {} is not a valid integer for index {}", what, *value, index.name));
    }
    if (n <= 0 || n > max) {
      return Status::invalid_argument(
          fmt::format("{} for index {} cannot be <= 0 or > {}, was {}", what, index.name, max, n));
    }
    *out = static_cast<size_t>(n);
    return Status::ok();
  };
  CASSETTE_RETURN_IF_ERROR(integer("maximum_node_connections", "Maximum number of connections",
                                   kMaxLinks, &def.params.links));
  CASSETTE_RETURN_IF_ERROR(integer("construction_beam_width", "Construction beam width",
                                   kMaxBuildCandidates, &def.params.build_candidates));
  return def;
}

size_t ann_search_candidates(size_t fetch) {
  return std::max(kMinSearchCandidates, 2 * fetch);
}

Status ann_build_components(const storage::Store& store,
                            std::shared_ptr<const storage::Snapshot> snapshot,
                            std::shared_ptr<const schema::TableDef> table,
                            const schema::ColumnDef& column, const AnnIndexDef& index) {
  for (const auto& file : snapshot->version->files(table->table_id)) {
    CASSETTE_RETURN_IF_ERROR(graph_of(store, *snapshot, table, column, index, file).status());
  }
  return Status::ok();
}

Result<AnnCandidates> ann_candidate_partitions(const storage::Store& store,
                                               std::shared_ptr<const storage::Snapshot> snapshot,
                                               std::shared_ptr<const schema::TableDef> table,
                                               const schema::ColumnDef& column,
                                               const AnnIndexDef& index,
                                               std::span<const float> query, size_t fetch) {
  const storage::TableId table_id = table->table_id;
  const Similarity similarity = index.similarity;
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
  const size_t ef = ann_search_candidates(fetch);
  for (const auto& file : files) {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const AnnGraph> graph,
                              graph_of(store, *snapshot, table, column, index, file));
    if (graph->size() > fetch) result.complete = false;
    std::vector<uint32_t> partitions;
    try {
      graph->search(q, fetch, ef, &partitions);
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
  return {cache().built, cache().loaded, cache().refused, cache().graphs.size()};
}

}  // namespace cassette::cql
