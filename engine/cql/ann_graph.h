// One SSTable's HNSW graph over one vector column (hnswlib), and its index component: the two
// files written beside the SSTable so that the next process loads the graph instead of building
// it again (FORMAT.md, "ANN components"):
//
//   <sstable>.ann.c<column id>.<similarity>        the graph, as hnswlib saves it
//   <sstable>.ann.c<column id>.<similarity>.meta   what the graph's points are: the SSTable's
//                                                  partition keys, the point -> partition map,
//                                                  the build parameters, the graph file's size
//                                                  and CRC, and a CRC of its own
//
// A graph is built from an SSTable's vectors, or merged from the graph of another SSTable (an
// input of the compaction that wrote this one): that graph's points still in this SSTable are
// kept, the others marked deleted (hnswlib's markDelete: never returned, still walked through),
// and this SSTable's other vectors added. A merged graph with deleted points is saved as
// version 2 of the component (its point map marks them); one without, as version 1.
//
// The .meta file is renamed in last, so a reader that finds it finds a whole graph; load()
// checks the .meta's checksum and the graph's size and header before hnswlib reads the graph
// file (once), and the graph's checksum over what it loaded before anyone searches it (a damaged
// file is refused, never searched).
//
//   auto graph = AnnGraph::build(Similarity::kCosine, 128, params, std::move(points), ...);
//   (void)(*graph)->save(sstable_path, "ann.c3.cosine");
//   auto again = AnnGraph::load(sstable_path, "ann.c3.cosine", Similarity::kCosine, 128, params);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/cql/vector_similarity.h"
#include "engine/util/status.h"

namespace hnswlib {
template <typename T>
class HierarchicalNSW;
template <typename T>
class SpaceInterface;
}  // namespace hnswlib

namespace cassette::cql {

// hnswlib's build parameters: `links` is M (links per node on the upper layers, twice as many on
// the bottom one: Cassandra's maximum_node_connections), `build_candidates` ef_construction
// (Cassandra's construction_beam_width). The defaults are twice Cassandra's (16, 100): on
// uniformly random 30k 128-dimension vectors, M 16 / ef_construction 100 finds 0.81 of the
// top-10 at ef 256 and 0.94 at 512, M 32 / 200 0.96 and 0.99 (at twice the build time).
struct AnnGraphParams {
  size_t links = 32;
  size_t build_candidates = 200;
  friend bool operator==(const AnnGraphParams&, const AnnGraphParams&) = default;
};

class AnnGraph {
 public:
  ~AnnGraph();

  // The graph of `points` (point i belongs to partitions[partition_of[i]]). Cosine graphs hold
  // normalized vectors and are searched by inner product, dot_product by inner product,
  // euclidean by L2: each order is the order of the similarity score. `cancelled`, when given,
  // is asked every few hundred points: once it says true the build stops (Cancelled).
  static Result<std::shared_ptr<const AnnGraph>> build(Similarity similarity, size_t dimension,
                                                       AnnGraphParams params,
                                                       std::vector<std::vector<float>> points,
                                                       std::vector<uint32_t> partition_of,
                                                       std::vector<std::string> partitions,
                                                       const std::function<bool()>& cancelled = {});

  // The graph of `points` made from the graph `base` (the component `name` of the SSTable at
  // `base_sstable`, built with these similarity, dimension and parameters, as load() checks):
  // its points whose partition and vector are among `points` are kept, its others marked
  // deleted, and the rest of `points` added (consumed: the three vectors are left moved from).
  // nullptr, and the vectors untouched, when the graph would hold more than `max_deleted_share`
  // of deleted points or `base` is empty: the caller builds the graph instead. NotFound or
  // Corruption (vectors untouched) when `base` cannot be loaded; `cancelled` as for build().
  static Result<std::shared_ptr<const AnnGraph>> merge(
      const std::string& base_sstable, const std::string& name, Similarity similarity,
      size_t dimension, AnnGraphParams params, std::vector<std::vector<float>>& points,
      std::vector<uint32_t>& partition_of, std::vector<std::string>& partitions,
      double max_deleted_share, const std::function<bool()>& cancelled = {});

  // Writes the component `name` of the SSTable at `sstable_path` (temporary files of this
  // process, fsynced, renamed in graph first and .meta last). When the SSTable is gone once they
  // are in place (another process compacted it away meanwhile, and removed its components before
  // these arrived), they are removed again and the answer is NotFound.
  Status save(const std::string& sstable_path, const std::string& name) const;

  // The component `name` of the SSTable at `sstable_path`: NotFound when it has none;
  // Corruption when a file is damaged or truncated, or was built for another similarity,
  // dimension or parameters (the caller builds the graph again).
  static Result<std::shared_ptr<const AnnGraph>> load(const std::string& sstable_path,
                                                      const std::string& name,
                                                      Similarity similarity, size_t dimension,
                                                      AnnGraphParams params);

  // The points that can be found (deleted ones are not), and every point the graph holds.
  size_t size() const { return live_; }
  size_t points() const { return partition_of_.size(); }

  // The search list to find `fetch` points with (search()'s `ef`): at least 512 candidates and
  // twice the fetch, wider with the graph's live points per link (M) to the power 2/3, which it
  // needs to find as many of the true nearest as the graph grows.
  size_t search_candidates(size_t fetch) const;

  // The partitions of the `k` nearest points found with a search list of `ef` candidates
  // (hnswlib's ef_search; at least k). Deleted points are never among them, and as many as
  // min(k, size()) come back: when hnswlib finds fewer (deleted points cut off a part of the
  // graph), the list is widened, and at the whole graph's size its points are scored one by one.
  // Safe to call from several threads at once.
  void search(std::vector<float> query, size_t k, size_t ef, std::vector<uint32_t>* out) const;

  const std::string& partition(uint32_t i) const { return partitions_[i]; }

  // In the point map of a graph with deleted points (component version 2): the point is deleted.
  static constexpr uint32_t kDeletedPoint = 0xffffffff;

 private:
  AnnGraph(Similarity similarity, size_t dimension, AnnGraphParams params);
  // The component `name` of the SSTable at `sstable_path`, checked as load() says.
  static Result<std::shared_ptr<AnnGraph>> open(const std::string& sstable_path,
                                                const std::string& name, Similarity similarity,
                                                size_t dimension, AnnGraphParams params);
  // Adds points[i] under label first_label + i (normalized already under cosine), from several
  // threads when the graph will hold `graph_size` points or more (kParallelBuildPoints).
  // REQUIRES: room for them in index_.
  Status add_points(std::vector<std::vector<float>>& points, size_t first_label, size_t graph_size,
                    const std::function<bool()>& cancelled);
  // The labels of the `k` nearest live points by scoring each (the search's last resort).
  void scan(const float* query, size_t k, std::vector<std::pair<float, size_t>>* nearest) const;

  Similarity similarity_;
  size_t dimension_;
  AnnGraphParams params_;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index_;
  std::vector<uint32_t> partition_of_;  // by label: index into partitions_, or kDeletedPoint
  std::vector<std::string> partitions_;
  size_t live_ = 0;  // labels not deleted
};

}  // namespace cassette::cql
