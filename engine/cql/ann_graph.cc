#include "engine/cql/ann_graph.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

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
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "engine/util/file.h"

namespace cassette::cql {

namespace {

// Version 1: every point of the graph is a live vector of the SSTable; version 2 (a merged graph
// with deleted points): the point map marks the deleted ones (AnnGraph::kDeletedPoint).
constexpr char kMetaMagic[] = "CSANNv1\n";  // 8 bytes
constexpr char kMetaMagicV2[] = "CSANNv2\n";
constexpr size_t kMagicSize = 8;
// Graphs of this many points and more are built by several threads (hnswlib's addPoint may run
// concurrently), and merges into a graph of this many points add theirs so too (a point costs
// what it costs in a graph of the whole size); smaller ones by one, so that they come out the
// same every time.
constexpr size_t kParallelBuildPoints = 20000;

// A graph's search list (hnswlib's ef, AnnGraph::search_candidates): at least 512 candidates,
// twice the fetch, and 768 x (live points per link / 3359)^(2/3), M links: 768 for the engine's
// default graph (M 32) of 107.5k uniformly random 128-dimension points (recall@10 0.978 there),
// the hardest case measured. Recall at a fixed list falls as a graph grows and as its links get
// fewer; the list a recall needs grows slower than the points, and the slower the fewer the
// data's dimensions (tests/bench/README.md, "Session 25"; tests/unit/tools/ann_compaction_recall.cc
// on uniformly random vectors, which have no neighbourhoods to follow; 200 queries, 40 fetched).
// Recall@10 0.95 took, single / merged graph:
//   32 dimensions, M 8:   315 / 341 at 100k points, 471 / 475 at 300k, 719 / 737 at 1M
//                         (x1.5 per 3x points: the points^0.35)
//   64 dimensions, M 16:  500 / 529 at 100k, 996 / 1136 at 300k (x2.0-2.15: the points^0.65)
//   128 dimensions, M 32: ~560 at 107.5k (session 24; 0.941-0.948 at 512, 0.978 at 768),
//                         892 / 914 at 200k (x1.6 per 2x: the points^0.7)
// The power 2/3 keeps about this pace (1219 at 215k: 0.977; a square root would fall behind
// past ~500k points): 3.4k candidates at 1M points (M 32) where session 24's points / (4 M) took
// 7.8k. Deleted points (those a merge keeps) do not count: they take no places in hnswlib's list
// (its search goes on until it holds ef live points), and a merged graph with a quarter of its
// points deleted finds what the rebuilt graph of its live points finds at each list (0.942 /
// 0.936 at 256, 0.987 / 0.985 at 512; 85k live of 112.5k, 32 dimensions, M 8): they only cost
// search time. Clustered data finds 1.000 from 128 on: there the wider list is cost only.
constexpr size_t kMinSearchCandidates = 512;
constexpr double kAnchorList = 768;
constexpr double kAnchorPointsPerLink = 107500.0 / 32;
constexpr double kListGrowth = 2.0 / 3;

void normalize(float* v, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(v[i]) * v[i];
  const float norm = static_cast<float>(std::sqrt(sum));
  if (norm > 0) {
    for (size_t i = 0; i < n; ++i) v[i] /= norm;
  }
}

uint32_t similarity_code(Similarity s) {
  switch (s) {
    case Similarity::kCosine:
      return 0;
    case Similarity::kDotProduct:
      return 1;
    case Similarity::kEuclidean:
      return 2;
  }
  return 0;
}

std::string meta_path(const std::string& graph_path) {
  return graph_path + ".meta";
}

// A temporary name of this process in the SSTable's directory (a dead process's are removed when
// a store opens), of the form the store recognizes as temporary.
std::string temp_path(const std::string& final_path, std::string_view name) {
  static std::atomic<uint64_t> counter{0};
  size_t slash = final_path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : final_path.substr(0, slash);
  return file::join(dir, fmt::format("tmp-{}-a{}.sst.{}", ::getpid(), ++counter, name));
}

Status write_synced(const std::string& path, std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd,
                            file::open_file(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
  CASSETTE_RETURN_IF_ERROR(file::write_all(fd.get(), bytes, path));
  return file::fsync_file(fd.get(), path);
}

Status sync_existing(const std::string& path) {
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
  return file::fsync_file(fd.get(), path);
}

Status corrupt(const std::string& path, std::string_view why) {
  return Status::corruption(fmt::format("ANN component {}: {}", path, why));
}

using Hnsw = hnswlib::HierarchicalNSW<float>;

// The CRC and size of the bytes hnswlib's saveIndex writes for `index` (its header, the
// bottom layer, then each point's upper-layer links after their size), computed from the graph
// in memory: a saved graph is not read back to checksum it, and a loaded one not read twice.
std::pair<uint32_t, uint64_t> image_crc(const Hnsw& index) {
  uint32_t crc = 0;
  uint64_t size = 0;
  auto add = [&](const void* data, size_t n) {
    crc = crc32c::extend(crc, static_cast<const char*>(data), n);
    size += n;
  };
  auto pod = [&](const auto& v) { add(&v, sizeof(v)); };
  pod(index.offsetLevel0_);
  pod(index.max_elements_);
  pod(index.cur_element_count);
  pod(index.size_data_per_element_);
  pod(index.label_offset_);
  pod(index.offsetData_);
  pod(index.maxlevel_);
  pod(index.enterpoint_node_);
  pod(index.maxM_);
  pod(index.maxM0_);
  pod(index.M_);
  pod(index.mult_);
  pod(index.ef_construction_);
  add(index.data_level0_memory_, index.cur_element_count * index.size_data_per_element_);
  for (size_t i = 0; i < index.cur_element_count; ++i) {
    const auto levels = static_cast<unsigned int>(std::max(index.element_levels_[i], 0));
    const unsigned int links = levels * static_cast<unsigned int>(index.size_links_per_element_);
    pod(links);
    if (links != 0) add(index.linkLists_[i], links);
  }
  return {crc, size};
}

// hnswlib trusts the header of the file it loads (its sizes decide the buffers it fills): the
// header must be the one a graph of `points` points of these parameters has, before hnswlib
// reads the file. The rest is checked against the .meta file's CRC once loaded (image_crc), before
// the graph is searched: hnswlib's load only bounds-checks the link lists' sizes against the
// file's and copies bytes.
Status check_header(const std::string& path, size_t points, size_t dimension, AnnGraphParams params,
                    uint64_t graph_size) {
  struct Header {  // saveIndex's first fields, in its order, packed
    uint64_t offset_level0, max_elements, count, size_data_per_element, label_offset, offset_data;
    int32_t max_level;
    uint32_t entry_point;
    uint64_t max_m, max_m0, m;
    double mult;
    uint64_t ef_construction;
  } h;
  static_assert(sizeof(Header) == 96);
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file::file_size(fd.get(), path));
  if (size != graph_size || size < sizeof(Header)) return corrupt(path, "size mismatch");
  CASSETTE_RETURN_IF_ERROR(
      file::pread_exact(fd.get(), 0, sizeof(Header), reinterpret_cast<char*>(&h), path));
  const uint64_t links0 = 2 * params.links * sizeof(uint32_t) + sizeof(uint32_t);
  const uint64_t data = dimension * sizeof(float);
  const bool ok = h.offset_level0 == 0 && h.max_elements == points && h.count == points &&
                  h.size_data_per_element == links0 + data + sizeof(hnswlib::labeltype) &&
                  h.label_offset == links0 + data && h.offset_data == links0 && h.max_level >= 0 &&
                  h.max_level < 64 && h.entry_point < points && h.max_m == params.links &&
                  h.max_m0 == 2 * params.links && h.m == params.links &&
                  h.ef_construction == std::max(params.build_candidates, params.links);
  return ok ? Status::ok() : corrupt(path, "not the graph its .meta file describes");
}

// What a .meta file says (after its checksum, magic and build parameters are checked).
struct MetaFile {
  uint64_t graph_size = 0;
  uint32_t graph_crc = 0;
  std::vector<std::string> partitions;
  std::vector<uint32_t> partition_of;  // by label
};

Result<MetaFile> read_meta(const std::string& meta_file, Similarity similarity, size_t dimension,
                           AnnGraphParams params) {
  CASSETTE_ASSIGN_OR_RETURN(std::string meta, file::read_whole_file(meta_file));
  // magic, 4 fixed32, fixed64, 2 fixed32 ... fixed32 count, crc
  if (meta.size() < kMagicSize + 4 * 4 + 8 + 4 + 4 + 4 + 4) return corrupt(meta_file, "truncated");
  const uint32_t stored_crc = coding::decode_fixed32(meta.data() + meta.size() - 4);
  if (crc32c::unmask(stored_crc) !=
      crc32c::value(std::string_view(meta).substr(0, meta.size() - 4)))
    return corrupt(meta_file, "checksum mismatch");
  const bool v2 = meta.compare(0, kMagicSize, kMetaMagicV2, kMagicSize) == 0;
  if (!v2 && meta.compare(0, kMagicSize, kMetaMagic, kMagicSize) != 0)
    return corrupt(meta_file, "not an ANN component of this version");
  size_t at = kMagicSize;
  auto fixed32 = [&] {
    uint32_t v = coding::decode_fixed32(meta.data() + at);
    at += 4;
    return v;
  };
  const size_t end = meta.size() - 4;
  const uint32_t code = fixed32(), dim = fixed32(), links = fixed32(), build = fixed32();
  if (code != similarity_code(similarity) || dim != dimension || links != params.links ||
      build != params.build_candidates) {
    return corrupt(meta_file, "built for another similarity, dimension or parameters");
  }
  MetaFile out;
  out.graph_size = coding::decode_fixed64(meta.data() + at);
  at += 8;
  out.graph_crc = fixed32();
  const uint32_t partitions = fixed32();
  out.partitions.reserve(partitions);
  for (uint32_t i = 0; i < partitions; ++i) {
    if (at + 4 > end) return corrupt(meta_file, "truncated");
    const uint32_t n = fixed32();
    if (at + n > end) return corrupt(meta_file, "truncated");
    out.partitions.emplace_back(meta.data() + at, n);
    at += n;
  }
  if (at + 4 > end) return corrupt(meta_file, "truncated");
  const uint32_t points = fixed32();
  if (end - at != size_t{points} * 4) return corrupt(meta_file, "truncated");
  out.partition_of.reserve(points);
  for (uint32_t i = 0; i < points; ++i) {
    const uint32_t p = fixed32();
    if (p >= partitions && !(v2 && p == AnnGraph::kDeletedPoint)) {
      return corrupt(meta_file, "a point of no partition");
    }
    out.partition_of.push_back(p);
  }
  return out;
}

// Each of hnswlib's points carries one of the labels 0..n-1 (n = the .meta's points), and is
// marked deleted exactly when the .meta says so: the number of live points.
Result<size_t> check_points(const std::string& path, const Hnsw& index,
                            const std::vector<uint32_t>& partition_of) {
  const size_t n = partition_of.size();
  std::vector<bool> seen(n, false);
  size_t live = 0;
  for (size_t i = 0; i < index.cur_element_count; ++i) {
    const size_t label = index.getExternalLabel(static_cast<hnswlib::tableint>(i));
    if (label >= n || seen[label]) return corrupt(path, "labels not those of its .meta file");
    seen[label] = true;
    const bool deleted = index.isMarkedDeleted(static_cast<hnswlib::tableint>(i));
    if (deleted != (partition_of[label] == AnnGraph::kDeletedPoint)) {
      return corrupt(path, "deleted points not those of its .meta file");
    }
    if (!deleted) ++live;
  }
  return live;
}

}  // namespace

AnnGraph::AnnGraph(Similarity similarity, size_t dimension, AnnGraphParams params)
    : similarity_(similarity), dimension_(dimension), params_(params) {
  if (similarity == Similarity::kEuclidean) {
    space_ = std::make_unique<hnswlib::L2Space>(dimension);
  } else {
    space_ = std::make_unique<hnswlib::InnerProductSpace>(dimension);
  }
}

AnnGraph::~AnnGraph() = default;

Status AnnGraph::add_points(std::vector<std::vector<float>>& points, size_t first_label,
                            size_t graph_size, const std::function<bool()>& cancelled) {
  constexpr size_t kCancelCheckPoints = 256;
  std::atomic<bool> stopped{false};
  auto stop_here = [&](size_t i) {
    if (!cancelled || i % kCancelCheckPoints != 0) return stopped.load();
    if (cancelled()) stopped = true;
    return stopped.load();
  };
  try {
    auto add = [&](size_t i) { index_->addPoint(points[i].data(), first_label + i); };
    const size_t threads =
        graph_size < kParallelBuildPoints || points.size() < 2
            ? 1
            : std::clamp<size_t>(std::thread::hardware_concurrency(), size_t{1}, size_t{4});
    if (threads == 1) {
      for (size_t i = 0; i < points.size() && !stop_here(i); ++i) add(i);
    } else {
      // the first point alone (in an empty graph it is the entry point), then the rest from a
      // shared counter
      add(0);
      std::atomic<size_t> next{1};
      std::exception_ptr failure;
      std::mutex failure_mutex;
      std::vector<std::thread> workers;
      for (size_t t = 0; t < threads; ++t) {
        workers.emplace_back([&] {
          try {
            for (size_t i = next++; i < points.size() && !stop_here(i); i = next++) add(i);
          } catch (...) {
            std::lock_guard lock(failure_mutex);
            failure = std::current_exception();
            next = points.size();
          }
        });
      }
      for (std::thread& w : workers) w.join();
      if (failure) std::rethrow_exception(failure);
    }
  } catch (const std::exception& e) {
    return Status::internal(fmt::format("building an ANN graph: {}", e.what()));
  }
  if (stopped) return Status::cancelled("building an ANN graph: cancelled");
  return Status::ok();
}

Result<std::shared_ptr<const AnnGraph>> AnnGraph::build(Similarity similarity, size_t dimension,
                                                        AnnGraphParams params,
                                                        std::vector<std::vector<float>> points,
                                                        std::vector<uint32_t> partition_of,
                                                        std::vector<std::string> partitions,
                                                        const std::function<bool()>& cancelled) {
  std::shared_ptr<AnnGraph> graph(new AnnGraph(similarity, dimension, params));
  graph->partition_of_ = std::move(partition_of);
  graph->partitions_ = std::move(partitions);
  graph->live_ = points.size();
  if (points.empty()) return std::shared_ptr<const AnnGraph>(std::move(graph));
  try {
    graph->index_ = std::make_unique<Hnsw>(graph->space_.get(), points.size(), params.links,
                                           params.build_candidates);
  } catch (const std::exception& e) {
    return Status::internal(fmt::format("building an ANN graph: {}", e.what()));
  }
  if (similarity == Similarity::kCosine) {
    for (auto& p : points) normalize(p.data(), dimension);
  }
  CASSETTE_RETURN_IF_ERROR(graph->add_points(points, 0, points.size(), cancelled));
  return std::shared_ptr<const AnnGraph>(std::move(graph));
}

Result<std::shared_ptr<const AnnGraph>> AnnGraph::merge(
    const std::string& base_sstable, const std::string& name, Similarity similarity,
    size_t dimension, AnnGraphParams params, std::vector<std::vector<float>>& points,
    std::vector<uint32_t>& partition_of, std::vector<std::string>& partitions,
    double max_deleted_share, const std::function<bool()>& cancelled) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<AnnGraph> graph,
                            open(base_sstable, name, similarity, dimension, params));
  if (graph->index_ == nullptr) return std::shared_ptr<const AnnGraph>();  // nothing to keep
  if (cancelled && cancelled()) return Status::cancelled("building an ANN graph: cancelled");
  // The base's live points by partition, with their vectors as the graph holds them (a point's
  // vector normalized the same way is the same bytes when it did not change).
  Hnsw& index = *graph->index_;
  const size_t base = graph->partition_of_.size();
  std::vector<const char*> vector_of(base, nullptr);
  for (size_t i = 0; i < index.cur_element_count; ++i) {
    const auto id = static_cast<hnswlib::tableint>(i);
    vector_of[index.getExternalLabel(id)] = index.getDataByInternalId(id);
  }
  std::unordered_map<std::string_view, std::vector<uint32_t>> labels_of;
  for (uint32_t label = 0; label < base; ++label) {
    const uint32_t p = graph->partition_of_[label];
    if (p != kDeletedPoint) labels_of[graph->partitions_[p]].push_back(label);
  }
  // Each point kept under a base label of the same partition and vector, or added.
  std::vector<uint32_t> merged(base, kDeletedPoint);
  std::vector<size_t> added;  // indexes into points
  std::vector<float> normalized(dimension);
  size_t kept = 0;
  for (size_t j = 0; j < points.size(); ++j) {
    const float* v = points[j].data();
    if (similarity == Similarity::kCosine) {
      std::copy(points[j].begin(), points[j].end(), normalized.begin());
      normalize(normalized.data(), dimension);
      v = normalized.data();
    }
    bool found = false;
    if (auto it = labels_of.find(partitions[partition_of[j]]); it != labels_of.end()) {
      for (uint32_t label : it->second) {
        if (merged[label] == kDeletedPoint &&
            std::memcmp(vector_of[label], v, dimension * sizeof(float)) == 0) {
          merged[label] = partition_of[j];
          found = true;
          ++kept;
          break;
        }
      }
    }
    if (!found) added.push_back(j);
  }
  const size_t total = base + added.size();
  const size_t deleted = base - kept;
  if (static_cast<double>(deleted) > max_deleted_share * static_cast<double>(total)) {
    return std::shared_ptr<const AnnGraph>();
  }
  std::vector<std::vector<float>> new_points;
  new_points.reserve(added.size());
  for (size_t j : added) {
    if (similarity == Similarity::kCosine) normalize(points[j].data(), dimension);
    new_points.push_back(std::move(points[j]));
    merged.push_back(partition_of[j]);
  }
  try {
    for (uint32_t label = 0; label < base; ++label) {
      if (merged[label] == kDeletedPoint && graph->partition_of_[label] != kDeletedPoint) {
        index.markDelete(label);
      }
    }
    if (total > index.max_elements_) index.resizeIndex(total);
  } catch (const std::exception& e) {
    return Status::internal(fmt::format("merging an ANN graph: {}", e.what()));
  }
  CASSETTE_RETURN_IF_ERROR(graph->add_points(new_points, base, total, cancelled));
  graph->partition_of_ = std::move(merged);
  graph->partitions_ = std::move(partitions);
  graph->live_ = total - deleted;
  return std::shared_ptr<const AnnGraph>(std::move(graph));
}

void AnnGraph::scan(const float* query, size_t k,
                    std::vector<std::pair<float, size_t>>* nearest) const {
  nearest->clear();
  for (size_t i = 0; i < index_->cur_element_count; ++i) {
    const auto id = static_cast<hnswlib::tableint>(i);
    if (index_->isMarkedDeleted(id)) continue;
    const float d =
        index_->fstdistfunc_(query, index_->getDataByInternalId(id), index_->dist_func_param_);
    nearest->emplace_back(d, index_->getExternalLabel(id));
  }
  const size_t n = std::min(k, nearest->size());
  std::partial_sort(nearest->begin(), nearest->begin() + static_cast<ptrdiff_t>(n), nearest->end());
  nearest->resize(n);
}

size_t AnnGraph::search_candidates(size_t fetch) const {
  const double points_per_link =
      static_cast<double>(size()) / static_cast<double>(std::max<size_t>(params_.links, 1));
  const auto grown = static_cast<size_t>(
      kAnchorList * std::pow(points_per_link / kAnchorPointsPerLink, kListGrowth));
  return std::max({kMinSearchCandidates, 2 * fetch, grown});
}

void AnnGraph::search(std::vector<float> query, size_t k, size_t ef,
                      std::vector<uint32_t>* out) const {
  if (index_ == nullptr || k == 0 || live_ == 0) return;
  if (similarity_ == Similarity::kCosine) normalize(query.data(), query.size());
  // hnswlib searches with max(ef, k) candidates and returns the best k of them; its ef is one
  // member of the index, so the search list is asked for as k (thread-safe) and the best k kept.
  // With deleted points hnswlib goes on until it holds that many live ones or has walked every
  // point it can reach: fewer come back only when deleted points cut some off.
  const size_t want = std::min(k, live_);
  const size_t all = points();
  size_t list = std::min(std::max(ef, k), live_);
  std::vector<std::pair<float, size_t>> nearest;  // (distance, label), nearest first
  for (;;) {
    auto found = index_->searchKnn(query.data(), list);
    if (found.size() >= want || list >= all) {
      nearest.resize(found.size());
      for (size_t i = found.size(); i-- > 0; found.pop()) nearest[i] = found.top();
      break;
    }
    list = std::min(all, 2 * list);
  }
  if (nearest.size() < want) scan(query.data(), want, &nearest);
  if (nearest.size() > k) nearest.resize(k);
  for (const auto& [distance, label] : nearest) out->push_back(partition_of_[label]);
}

Status AnnGraph::save(const std::string& sstable_path, const std::string& name) const {
  const std::string graph_path = sstable_path + "." + name;
  const std::string graph_temp = temp_path(graph_path, name);
  const std::string meta_temp = temp_path(graph_path, name + ".meta");
  auto cleanup = [&](Status s) {
    (void)file::remove_file(graph_temp);
    (void)file::remove_file(meta_temp);
    return s;
  };
  std::pair<uint32_t, uint64_t> image{crc32c::value(""), 0};
  if (index_ != nullptr) {
    try {
      index_->saveIndex(graph_temp);
    } catch (const std::exception& e) {
      return cleanup(Status::internal(fmt::format("saving an ANN graph: {}", e.what())));
    }
    image = image_crc(*index_);
    // saveIndex reports no write error: a short file (a full disk) shows in its size
    Result<uint64_t> written = file::file_size(graph_temp);
    if (!written.is_ok()) return cleanup(written.status());
    if (*written != image.second) {
      return cleanup(Status::io_error(
          fmt::format("saving an ANN graph: {} bytes of {} written", *written, image.second)));
    }
  } else if (Status s = write_synced(graph_temp, ""); !s.is_ok()) {
    return cleanup(s);
  }
  // version 1 unless points are deleted, so that a graph without any stays readable by the
  // versions before 2
  std::string meta(live_ == points() ? kMetaMagic : kMetaMagicV2, kMagicSize);
  coding::put_fixed32(&meta, similarity_code(similarity_));
  coding::put_fixed32(&meta, static_cast<uint32_t>(dimension_));
  coding::put_fixed32(&meta, static_cast<uint32_t>(params_.links));
  coding::put_fixed32(&meta, static_cast<uint32_t>(params_.build_candidates));
  coding::put_fixed64(&meta, image.second);
  coding::put_fixed32(&meta, crc32c::mask(image.first));
  coding::put_fixed32(&meta, static_cast<uint32_t>(partitions_.size()));
  for (const std::string& p : partitions_) {
    coding::put_fixed32(&meta, static_cast<uint32_t>(p.size()));
    meta += p;
  }
  coding::put_fixed32(&meta, static_cast<uint32_t>(partition_of_.size()));
  for (uint32_t p : partition_of_) coding::put_fixed32(&meta, p);
  coding::put_fixed32(&meta, crc32c::mask(crc32c::value(meta)));

  Status s = sync_existing(graph_temp);
  if (s.is_ok()) s = write_synced(meta_temp, meta);
  // graph first: a .meta file always has its graph in place
  if (s.is_ok()) s = file::rename_file(graph_temp, graph_path);
  if (s.is_ok()) s = file::rename_file(meta_temp, meta_path(graph_path));
  if (!s.is_ok()) return cleanup(s);
  // An SSTable is unlinked before its components are (TableFile::~TableFile): when it is still
  // here, whoever removes it later removes these too; when it is gone, nobody will.
  if (!file::exists(sstable_path)) {
    (void)file::remove_file(meta_path(graph_path));
    (void)file::remove_file(graph_path);
    return Status::not_found(
        fmt::format("{}: removed while its ANN graph was saved", sstable_path));
  }
  size_t slash = graph_path.rfind('/');
  return file::sync_directory(slash == std::string::npos ? "." : graph_path.substr(0, slash));
}

Result<std::shared_ptr<AnnGraph>> AnnGraph::open(const std::string& sstable_path,
                                                 const std::string& name, Similarity similarity,
                                                 size_t dimension, AnnGraphParams params) {
  const std::string graph_path = sstable_path + "." + name;
  const std::string meta_file = meta_path(graph_path);
  if (!file::exists(meta_file))
    return Status::not_found(fmt::format("{}: no such file", meta_file));
  CASSETTE_ASSIGN_OR_RETURN(MetaFile meta, read_meta(meta_file, similarity, dimension, params));
  std::shared_ptr<AnnGraph> graph(new AnnGraph(similarity, dimension, params));
  graph->partitions_ = std::move(meta.partitions);
  graph->partition_of_ = std::move(meta.partition_of);
  const size_t points = graph->partition_of_.size();
  if (points == 0) {
    Result<uint64_t> size = file::file_size(graph_path);
    if (!size.is_ok()) return corrupt(graph_path, size.status().message());
    if (*size != 0 || meta.graph_size != 0) return corrupt(graph_path, "size mismatch");
    return graph;
  }
  // read once, by hnswlib, after its header is checked; the whole checked in memory
  if (Status s = check_header(graph_path, points, dimension, params, meta.graph_size); !s.is_ok()) {
    return s.code() == StatusCode::kCorruption ? s : corrupt(graph_path, s.message());
  }
  try {
    graph->index_ = std::make_unique<Hnsw>(graph->space_.get(), graph_path);
  } catch (const std::exception& e) {
    return corrupt(graph_path, e.what());
  }
  const auto [crc, size] = image_crc(*graph->index_);
  if (size != meta.graph_size || crc32c::mask(crc) != meta.graph_crc) {
    return corrupt(graph_path, "size or checksum mismatch");
  }
  CASSETTE_ASSIGN_OR_RETURN(graph->live_,
                            check_points(graph_path, *graph->index_, graph->partition_of_));
  return graph;
}

Result<std::shared_ptr<const AnnGraph>> AnnGraph::load(const std::string& sstable_path,
                                                       const std::string& name,
                                                       Similarity similarity, size_t dimension,
                                                       AnnGraphParams params) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<AnnGraph> graph,
                            open(sstable_path, name, similarity, dimension, params));
  return std::shared_ptr<const AnnGraph>(std::move(graph));
}

}  // namespace cassette::cql
