#include "engine/cql/ann_index.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <utility>
#include <variant>

#include "engine/cql/session.h"
#include "engine/query/query.h"
#include "engine/schema/catalog.h"
#include "engine/schema/index_components.h"
#include "engine/storage/compaction_listener.h"
#include "engine/storage/index_component_removals.h"
#include "engine/storage/manifest.h"
#include "engine/types/murmur3.h"
#include "engine/types/value.h"
#include "engine/util/file.h"

namespace cassette::cql {

namespace {

// A compaction's output gets the graph of its largest input that has one, its points that
// changed marked deleted and its new points added (AnnGraph::merge), unless that graph would
// then hold more than this share of deleted points: then it is built from its vectors. Deleted
// points cost a search time (it walks through them) and memory, and each merge inherits the
// ones before; a merge costs 27-74% of a build (tests/bench/README.md, "Vector search").
constexpr double kMaxDeletedShare = 0.3;

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

// The vectors of one SSTable, collected for its graph: point i belongs to
// partitions[partition_of[i]].
struct Points {
  std::vector<std::vector<float>> vectors;
  std::vector<uint32_t> partition_of;
  std::vector<std::string> partitions;

  void add(const std::string& partition, std::vector<float> floats) {
    if (partitions.empty() || partitions.back() != partition) partitions.push_back(partition);
    partition_of.push_back(static_cast<uint32_t>(partitions.size() - 1));
    vectors.push_back(std::move(floats));
  }
};

// A graph to build on the builder thread from the points a query (or CREATE INDEX) collected.
struct BuildJob {
  GraphKey key;
  std::weak_ptr<storage::TableFile> file;
  std::string sstable;  // its path
  AnnIndexDef index;
  size_t dimension = 0;
  Points points;
  uint64_t removals = 0;  // storage::index_component_removals() when the points were collected
  // The store and table, to ask the latest schema whether the index still exists (another
  // process may drop it): none, no such check.
  std::weak_ptr<storage::Store> store;
  storage::TableId table = 0;
  // When the schema was last asked (steady clock, milliseconds): 0, never.
  std::shared_ptr<std::atomic<int64_t>> schema_checked = std::make_shared<std::atomic<int64_t>>(0);
  // Set when the graph is to be merged from the graph of this SSTable (an input of the
  // compaction that wrote `file`, held so that its component stays on disk until then).
  std::shared_ptr<storage::TableFile> merge_base;
  std::string merge_base_path;
};

// The graphs of a compaction's output, to be merged from its inputs' (the compaction listener
// queues it; the builder thread reads the output's vectors and runs one BuildJob per index).
struct MergeJob {
  std::weak_ptr<schema::Catalog> catalog;
  storage::TableId table = 0;
  std::vector<std::shared_ptr<storage::TableFile>> inputs;  // held: their components stay
  // Not held: a merge is abandoned when its output goes (compacted, truncated, dropped).
  std::weak_ptr<storage::TableFile> output;
  const storage::TableFile* output_key = nullptr;  // in GraphCache::merging
  std::vector<std::string> components;             // the ANN components some input has
};

struct GraphCache {
  std::mutex mutex;
  std::condition_variable idle;  // notified whenever a build ends
  std::map<GraphKey, CachedGraph> graphs;
  // One load of a graph at a time: the queries that need it meanwhile wait for it rather than
  // load it too.
  std::map<GraphKey, std::shared_ptr<std::mutex>> turns;
  // The graphs queued for, or being built by, the builder thread (one thread per process, started
  // by the first build), and the queue.
  std::set<GraphKey> building;
  // The graphs of compaction outputs whose merge is queued or running (by SSTable and component):
  // queries score those SSTables exactly and queue no build meanwhile.
  std::set<std::pair<const storage::TableFile*, std::string>> merging;
  std::deque<std::variant<BuildJob, MergeJob>> queue;
  // The catalog of each store (by path) whose compactions are followed (ann_follow_compactions).
  std::map<std::string, std::weak_ptr<schema::Catalog>> catalogs;
  std::condition_variable work;
  pid_t builder_process = 0;  // the process that started the builder thread
  bool held = false;          // ann_hold_builds()
  uint64_t built = 0;
  uint64_t merged = 0;
  uint64_t loaded = 0;
  uint64_t refused = 0;
  uint64_t exact = 0;

  // REQUIRES: mutex held.
  std::shared_ptr<const AnnGraph> find(const GraphKey& key,
                                       const std::shared_ptr<storage::TableFile>& file) {
    auto it = graphs.find(key);
    if (it == graphs.end() || it->second.file.lock() != file)
      return std::shared_ptr<const AnnGraph>();
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
    narrow->spilled.reset();  // a transaction's spilled writes are read with the memtables
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

// data/<table>-<file id>.sst (manifest.h) of the store at `store_path`
std::string sstable_path(const std::string& store_path, const storage::TableFile& file) {
  return file::join(file::join(store_path, "data"),
                    storage::sstable_file_name(file.meta.table, file.meta.file_id));
}
std::string sstable_path(const storage::Store& store, const storage::TableFile& file) {
  return sstable_path(store.path(), file);
}

GraphKey graph_key(const storage::TableFile& file, const schema::ColumnDef& column,
                   const AnnIndexDef& index) {
  return {&file, column.id, index.similarity, index.params.links, index.params.build_candidates};
}

enum class BuildOutcome { kBuilt, kMerged, kLoaded, kCancelled, kBusy };

// REQUIRES: cache().mutex held.
void remember(const GraphKey& key, const std::shared_ptr<storage::TableFile>& file,
              std::shared_ptr<const AnnGraph> graph, BuildOutcome how) {
  cache().prune();  // the graphs of SSTables gone since
  cache().graphs[key] = {file, std::move(graph)};
  ++(how == BuildOutcome::kLoaded   ? cache().loaded
     : how == BuildOutcome::kMerged ? cache().merged
                                    : cache().built);
}

// Whether `schema` still has an index on `table` whose ANN component is `component`.
bool has_ann_component(const schema::Schema& schema, storage::TableId table,
                       const std::string& component) {
  std::shared_ptr<const schema::TableDef> def = schema.find_table_by_id(table);
  if (def == nullptr) return false;
  for (const auto& index : schema.indexes_on(*def)) {
    if (schema::ann_component(*def, *index) == component) return true;
  }
  return false;
}

// Whether the index of `job` is gone from the latest schema: dropped by another process (a DROP
// INDEX of this process shows in index_component_removals() at once, and reloading the schema
// here removes the components of an index dropped elsewhere, as every reload does). Reloading
// reads the store, so a running build asks at most every kSchemaCheckMillis; `now` asks at once
// (before and after the save).
constexpr int64_t kSchemaCheckMillis = 2000;

bool index_dropped(const BuildJob& job, bool now) {
  std::shared_ptr<storage::Store> store = job.store.lock();
  if (store == nullptr) return false;
  const int64_t t = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
  int64_t last = job.schema_checked->load();
  if (!now && t - last < kSchemaCheckMillis) return false;
  // the build's threads ask at once: one of them reloads
  if (!job.schema_checked->compare_exchange_strong(last, t) && !now) return false;
  Result<std::shared_ptr<schema::Catalog>> catalog = catalog_for(store);
  if (!catalog.is_ok()) return false;
  Result<std::shared_ptr<const schema::Schema>> schema = (*catalog)->current();
  return schema.is_ok() && !has_ann_component(**schema, job.table, job.index.component);
}

// Builds one job's graph and saves it beside its SSTable, unless the SSTable went away or its
// index was dropped (here: an index component removed; elsewhere: the latest schema lacks it)
// meanwhile. At most one build of a graph runs across processes: the builder holds an exclusive
// lock (flock) on the SSTable's file, and a process that finds it held leaves the graph to the
// one that holds it (kBusy: its queries score that SSTable exactly until the component appears
// on disk), or, when `wait_for_lock`, waits for it and loads what it saved. A builder killed half
// way leaves only temporary files of a dead process (removed when a store opens; never read) or,
// between the two renames, a graph file without its .meta (ignored, replaced by the next build):
// a graph is trusted only once its .meta is in place, and a build is never resumed.
Result<BuildOutcome> run(BuildJob& job, bool wait_for_lock) {
  auto cancelled = [&job] {
    return job.file.expired() || storage::index_component_removals() != job.removals ||
           index_dropped(job, false);
  };
  auto dropped_now = [&job] {
    return job.file.expired() || storage::index_component_removals() != job.removals ||
           index_dropped(job, true);
  };
  if (dropped_now()) return BuildOutcome::kCancelled;
  Result<file::UniqueFd> lock = file::open_file(job.sstable, O_RDONLY);
  if (lock.is_ok() && ::flock(lock->get(), wait_for_lock ? LOCK_EX : LOCK_EX | LOCK_NB) != 0) {
    return BuildOutcome::kBusy;  // built elsewhere
  }
  Result<std::shared_ptr<const AnnGraph>> graph =
      AnnGraph::load(job.sstable, job.index.component, job.index.similarity, job.dimension,
                     job.index.params);  // saved by another process since the points were read
  BuildOutcome how = graph.is_ok() ? BuildOutcome::kLoaded : BuildOutcome::kBuilt;
  if (how != BuildOutcome::kLoaded && job.merge_base != nullptr) {
    graph = AnnGraph::merge(job.merge_base_path, job.index.component, job.index.similarity,
                            job.dimension, job.index.params, job.points.vectors,
                            job.points.partition_of, job.points.partitions, kMaxDeletedShare,
                            cancelled);
    if (graph.is_ok() && *graph != nullptr) {
      how = BuildOutcome::kMerged;
    } else if (!graph.is_ok()) {
      if (graph.status().code() == StatusCode::kCancelled) return BuildOutcome::kCancelled;
      if (graph.status().code() != StatusCode::kNotFound)
        std::fprintf(stderr, "cassette: merging the ANN graph of %s: %s; building it\n",
                     job.sstable.c_str(), graph.status().message().c_str());
    }
    job.merge_base.reset();  // the input may go now
  }
  if (how == BuildOutcome::kBuilt) {
    graph = AnnGraph::build(job.index.similarity, job.dimension, job.index.params,
                            std::move(job.points.vectors), std::move(job.points.partition_of),
                            std::move(job.points.partitions), cancelled);
  }
  if (how != BuildOutcome::kLoaded) {
    if (!graph.is_ok()) {
      if (graph.status().code() == StatusCode::kCancelled) return BuildOutcome::kCancelled;
      return graph.status();
    }
    if (dropped_now()) return BuildOutcome::kCancelled;
    // A graph that cannot be saved (a read-only store, a full disk) still answers this process.
    Status s = (*graph)->save(job.sstable, job.index.component);
    if (!s.is_ok() && s.code() != StatusCode::kNotFound) {
      std::fprintf(stderr, "cassette: saving the ANN graph of %s: %s\n", job.sstable.c_str(),
                   s.message().c_str());
    }
    // DROP INDEX while it was saved (here or elsewhere): its removal may have missed these files
    if (dropped_now()) {
      (void)file::remove_file(job.sstable + "." + job.index.component + ".meta");
      (void)file::remove_file(job.sstable + "." + job.index.component);
      return BuildOutcome::kCancelled;
    }
  }
  std::shared_ptr<storage::TableFile> file = job.file.lock();
  if (file == nullptr) return BuildOutcome::kCancelled;
  std::lock_guard<std::mutex> guard(cache().mutex);
  remember(job.key, file, std::move(*graph), how);
  return how;
}

void merge_compaction(MergeJob& job);

void builder_loop() {
  for (;;) {
    std::variant<BuildJob, MergeJob> next;
    {
      std::unique_lock<std::mutex> lock(cache().mutex);
      cache().work.wait(lock, [] { return !cache().queue.empty() && !cache().held; });
      next = std::move(cache().queue.front());
      cache().queue.pop_front();
    }
    if (MergeJob* merge = std::get_if<MergeJob>(&next)) {
      const storage::TableFile* output = merge->output_key;
      const std::vector<std::string> components = merge->components;
      try {
        merge_compaction(*merge);
      } catch (const std::exception& e) {  // memory: the graphs are left to later queries
        std::fprintf(stderr, "cassette: merging the ANN graphs of a compaction: %s\n", e.what());
      }
      next = BuildJob();  // let go of the inputs (their files go) before the next job
      std::lock_guard<std::mutex> lock(cache().mutex);
      for (const std::string& c : components) cache().merging.erase({output, c});
      cache().idle.notify_all();
      continue;
    }
    BuildJob& job = std::get<BuildJob>(next);
    try {
      Result<BuildOutcome> outcome = run(job, false);
      if (!outcome.is_ok()) {
        std::fprintf(stderr, "cassette: building the ANN graph of %s: %s\n", job.sstable.c_str(),
                     outcome.status().message().c_str());
      }
    } catch (const std::exception& e) {  // memory: the graph is left to a later query
      std::fprintf(stderr, "cassette: building the ANN graph of %s: %s\n", job.sstable.c_str(),
                   e.what());
    }
    const GraphKey key = job.key;
    next = BuildJob();  // the points' memory before the next job's
    std::lock_guard<std::mutex> lock(cache().mutex);
    cache().building.erase(key);
    cache().idle.notify_all();
  }
}

// REQUIRES: cache().mutex held.
void enqueue(std::variant<BuildJob, MergeJob> job) {
  cache().queue.push_back(std::move(job));
  // (a child forked from a process that had started its thread has none)
  if (cache().builder_process != ::getpid()) {
    cache().builder_process = ::getpid();
    std::thread(builder_loop).detach();  // never joined: it ends with the process
  }
  cache().work.notify_one();
}

// REQUIRES: cache().mutex held, job.key not in cache().building.
void schedule(BuildJob job) {
  cache().building.insert(job.key);
  enqueue(std::move(job));
}

// The graph of `file` when this process has it or its component is on disk (then loaded and
// cached); nullptr when it has none yet. `*build` says whether the caller should collect the
// SSTable's points and hand them to build() (no build of this graph is queued or running in this
// process). A component that cannot be used is reported and built again.
Result<std::shared_ptr<const AnnGraph>> available_graph(
    const storage::Store& store, const schema::ColumnDef& column, const AnnIndexDef& index,
    const std::shared_ptr<storage::TableFile>& file, bool* build) {
  const GraphKey key = graph_key(*file, column, index);
  *build = false;
  std::shared_ptr<std::mutex> turn;
  {
    std::lock_guard<std::mutex> lock(cache().mutex);
    if (auto graph = cache().find(key, file)) return graph;
    if (cache().building.contains(key) || cache().merging.contains({file.get(), index.component})) {
      return std::shared_ptr<const AnnGraph>();
    }
    std::shared_ptr<std::mutex>& slot = cache().turns[key];
    if (slot == nullptr) slot = std::make_shared<std::mutex>();
    turn = slot;
  }
  std::lock_guard<std::mutex> my_turn(*turn);
  {
    std::lock_guard<std::mutex> lock(cache().mutex);
    if (auto graph = cache().find(key, file)) return graph;  // the query before this one got it
    if (cache().building.contains(key)) return std::shared_ptr<const AnnGraph>();
  }
  const std::string sstable = sstable_path(store, *file);
  Result<std::shared_ptr<const AnnGraph>> on_disk =
      AnnGraph::load(sstable, index.component, index.similarity,
                     static_cast<size_t>(column.type.dimension), index.params);
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().turns.erase(key);  // whoever waits holds it; later queries find the graph
  if (on_disk.is_ok()) {
    remember(key, file, *on_disk, BuildOutcome::kLoaded);
    return std::move(*on_disk);
  }
  if (on_disk.status().code() != StatusCode::kNotFound) {
    std::fprintf(stderr, "cassette: %s; building the graph again\n",
                 on_disk.status().message().c_str());
    ++cache().refused;
  }
  *build = true;
  return std::shared_ptr<const AnnGraph>();
}

// The build of the graph of `file` from `points`. `catalog`, when given, is the one whose latest
// schema the build asks whether the index still exists.
BuildJob make_job(const storage::Store& store, const schema::Catalog* catalog,
                  const schema::ColumnDef& column, const AnnIndexDef& index,
                  const std::shared_ptr<storage::TableFile>& file, Points points,
                  uint64_t removals) {
  BuildJob job;
  job.key = graph_key(*file, column, index);
  job.file = file;
  job.sstable = sstable_path(store, *file);
  job.index = index;
  job.dimension = static_cast<size_t>(column.type.dimension);
  job.points = std::move(points);
  job.removals = removals;
  if (catalog != nullptr) job.store = catalog->shared_store();
  job.table = file->meta.table;
  return job;
}

// Queues the graph of `file` for the builder thread, unless one is queued or running already.
void build_later(BuildJob job) {
  std::shared_ptr<storage::TableFile> file = job.file.lock();
  if (file == nullptr) return;
  std::lock_guard<std::mutex> lock(cache().mutex);
  if (cache().building.contains(job.key) || cache().find(job.key, file) != nullptr) return;
  schedule(std::move(job));
}

// The graphs of a compaction's output, merged from its inputs' on the builder thread: for each
// index of the latest schema whose component some input has, the output's vectors are read and
// the graph merged from the largest input's (run(): built instead past kMaxDeletedShare, or when
// that graph cannot be read), unless the output is gone or has its graph already.
void merge_compaction(MergeJob& job) {
  std::shared_ptr<schema::Catalog> catalog = job.catalog.lock();
  if (catalog == nullptr) return;
  storage::Store& store = catalog->store();
  Result<std::shared_ptr<const schema::Schema>> schema = catalog->current();
  if (!schema.is_ok()) return;
  std::shared_ptr<const schema::TableDef> table = (*schema)->find_table_by_id(job.table);
  if (table == nullptr) return;
  Result<std::shared_ptr<const storage::Snapshot>> snapshot = store.snapshot();
  if (!snapshot.is_ok()) return;
  for (const auto& index : (*schema)->indexes_on(*table)) {
    // held while its vectors are read, not while the graph is merged (run() gives up on an
    // output that went meanwhile)
    std::shared_ptr<storage::TableFile> output = job.output.lock();
    if (output == nullptr || output->obsolete.load()) return;
    Result<AnnIndexDef> ann = ann_index_of(*table, *index);
    const schema::ColumnDef* column = table->find_column(index->column);
    if (!ann.is_ok() || column == nullptr ||
        std::find(job.components.begin(), job.components.end(), ann->component) ==
            job.components.end()) {
      continue;
    }
    std::shared_ptr<storage::TableFile> base;
    for (const auto& input : job.inputs) {
      if ((base == nullptr || input->meta.size > base->meta.size) &&
          file::exists(sstable_path(store, *input) + "." + ann->component + ".meta")) {
        base = input;
      }
    }
    if (base == nullptr) continue;
    const uint64_t removals = storage::index_component_removals();
    Points points;
    Status read = for_each_vector(store, narrowed(**snapshot, job.table, false, output), table,
                                  *column, ann->similarity,
                                  [&](const std::string& partition, std::vector<float> floats) {
                                    points.add(partition, std::move(floats));
                                  });
    if (!read.is_ok()) {
      std::fprintf(stderr, "cassette: merging the ANN graph of %s: %s\n",
                   sstable_path(store, *output).c_str(), read.message().c_str());
      continue;
    }
    BuildJob build =
        make_job(store, catalog.get(), *column, *ann, output, std::move(points), removals);
    build.merge_base_path = sstable_path(store, *base);
    build.merge_base = std::move(base);
    output.reset();
    Result<BuildOutcome> outcome = run(build, false);
    if (!outcome.is_ok()) {
      std::fprintf(stderr, "cassette: merging the ANN graph of %s: %s\n", build.sstable.c_str(),
                   outcome.status().message().c_str());
    }
  }
}

// The compaction listener (on the compacting thread): queues the merge of the output's graphs
// when an input has a graph of an index of the table and the store's catalog is followed.
void on_compaction(const storage::CompactionEvent& event) {
  std::vector<std::string> components;
  for (const std::string& name : event.components) {
    if (!name.starts_with("ann.") || name.ends_with(".meta")) continue;
    if (std::any_of(event.inputs.begin(), event.inputs.end(), [&](const auto& input) {
          return file::exists(sstable_path(event.store_path, *input) + "." + name + ".meta");
        })) {
      components.push_back(name);
    }
  }
  if (components.empty()) return;
  std::lock_guard<std::mutex> lock(cache().mutex);
  auto catalog = cache().catalogs.find(event.store_path);
  if (catalog == cache().catalogs.end() || catalog->second.expired()) return;
  for (const auto& output : event.outputs) {
    MergeJob job;
    job.catalog = catalog->second;
    job.table = event.table;
    job.inputs = event.inputs;
    job.output = output;
    job.output_key = output.get();
    job.components = components;
    for (const std::string& c : components) cache().merging.insert({output.get(), c});
    enqueue(std::move(job));
  }
}

// Builds now, on this thread, the graphs of the SSTables of `table` that have none for `index`
// (ann_build_indexes), and counts them in `report`. A graph this process's builder thread has
// queued or is building is waited for; one another process builds (it holds the SSTable's lock)
// too, and loaded once saved. An SSTable compacted away meanwhile gives way to the compaction's
// output, whose graph is built in the next round.
Status build_now(storage::Store& store, const schema::Catalog& catalog,
                 const std::shared_ptr<const schema::TableDef>& table,
                 const schema::ColumnDef& column, const AnnIndexDef& index, AnnIndexBuild* report) {
  constexpr int kRounds = 4;
  std::set<uint64_t> present;  // file ids counted in report->present (found in any round)
  for (int round = 0; round < kRounds; ++round) {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot, store.snapshot());
    if (std::binary_search(snapshot->truncated.begin(), snapshot->truncated.end(),
                           table->table_id)) {
      return Status::ok();
    }
    bool again = false;
    for (const auto& file : snapshot->version->files(table->table_id)) {
      const uint64_t removals = storage::index_component_removals();
      bool build = false;
      CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const AnnGraph> graph,
                                available_graph(store, column, index, file, &build));
      if (graph != nullptr) {
        if (present.insert(file->meta.file_id).second) ++report->present;
        continue;
      }
      if (!build) {  // the builder thread has it
        ann_wait_for_builds();
        again = true;
        continue;
      }
      Points points;
      CASSETTE_RETURN_IF_ERROR(for_each_vector(
          store, narrowed(*snapshot, table->table_id, false, file), table, column, index.similarity,
          [&](const std::string& partition, std::vector<float> floats) {
            points.add(partition, std::move(floats));
          }));
      const size_t vectors = points.vectors.size();
      BuildJob job = make_job(store, &catalog, column, index, file, std::move(points), removals);
      {
        std::lock_guard<std::mutex> lock(cache().mutex);
        if (cache().building.contains(job.key)) {
          again = true;
          continue;
        }
        cache().building.insert(job.key);
      }
      Result<BuildOutcome> outcome = Status::internal("not built");
      try {
        outcome = run(job, true);
      } catch (const std::exception& e) {
        outcome = Status::internal(fmt::format("building an ANN graph: {}", e.what()));
      }
      {
        std::lock_guard<std::mutex> lock(cache().mutex);
        cache().building.erase(job.key);
        cache().idle.notify_all();
      }
      if (!outcome.is_ok()) {
        return Status::internal(fmt::format("building the ANN graph of {}: {}", job.sstable,
                                            outcome.status().message()));
      }
      switch (*outcome) {
        case BuildOutcome::kBuilt:
        case BuildOutcome::kMerged:
          ++report->built;
          report->vectors += vectors;
          break;
        case BuildOutcome::kLoaded:
          if (present.insert(file->meta.file_id).second) ++report->present;
          break;
        case BuildOutcome::kCancelled:
          if (index_dropped(job, true)) return Status::ok();  // dropped meanwhile: nothing to do
          again = true;
          break;
        case BuildOutcome::kBusy:
          again = true;
          break;
      }
    }
    if (!again) break;
  }
  return Status::ok();
}

// The `fetch` best of `scored` (score, partition) into `keys`; false when some were left out.
bool keep_best(std::vector<std::pair<float, std::string>> scored, size_t fetch,
               std::set<std::string>* keys) {
  const bool all = scored.size() <= fetch;
  if (!all) {
    std::partial_sort(scored.begin(), scored.begin() + static_cast<ptrdiff_t>(fetch), scored.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    scored.resize(fetch);
  }
  for (auto& [score, partition] : scored) keys->insert(std::move(partition));
  return all;
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
  if (const std::string* value = option("optimize_for")) {
    const std::string which = upper(*value);
    if (which != "LATENCY" && which != "RECALL") {
      return Status::invalid_argument(fmt::format(
          "optimize_for '{}' was not recognized for index {}. Valid values are: LATENCY, RECALL",
          which, index.name));
    }
    def.optimize_for_recall = which == "RECALL";
  }
  return def;
}

size_t ann_search_list(const AnnGraph& graph, size_t fetch, const AnnIndexDef& index) {
  constexpr size_t kRecallListFactor = 2;
  const size_t list = graph.search_candidates(fetch);
  return index.optimize_for_recall ? kRecallListFactor * list : list;
}

Status ann_build_components(const storage::Store& store,
                            std::shared_ptr<const storage::Snapshot> snapshot,
                            std::shared_ptr<const schema::TableDef> table,
                            const schema::ColumnDef& column, const AnnIndexDef& index,
                            const schema::Catalog* catalog) {
  const uint64_t removals = storage::index_component_removals();
  for (const auto& file : snapshot->version->files(table->table_id)) {
    bool build = false;
    CASSETTE_RETURN_IF_ERROR(available_graph(store, column, index, file, &build).status());
    if (!build) continue;
    Points points;
    CASSETTE_RETURN_IF_ERROR(for_each_vector(
        store, narrowed(*snapshot, table->table_id, false, file), table, column, index.similarity,
        [&](const std::string& partition, std::vector<float> floats) {
          points.add(partition, std::move(floats));
        }));
    build_later(make_job(store, catalog, column, index, file, std::move(points), removals));
  }
  return Status::ok();
}

Result<AnnCandidates> ann_candidate_partitions(const storage::Store& store,
                                               std::shared_ptr<const storage::Snapshot> snapshot,
                                               std::shared_ptr<const schema::TableDef> table,
                                               const schema::ColumnDef& column,
                                               const AnnIndexDef& index,
                                               std::span<const float> query, size_t fetch,
                                               const schema::Catalog* catalog) {
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
    if (!keep_best(std::move(scored), fetch, &keys)) result.complete = false;
  }

  // Each SSTable: its graph's nearest `fetch`; an SSTable whose graph is not built yet is scored
  // exactly as the memtables are (the answer never waits for a build), and its vectors, read
  // anyway, are handed to the builder thread. A TRUNCATE this reader sees hides them all.
  const bool truncated =
      std::binary_search(snapshot->truncated.begin(), snapshot->truncated.end(), table_id);
  const auto& files = truncated ? std::vector<std::shared_ptr<storage::TableFile>>()
                                : snapshot->version->files(table_id);
  for (const auto& file : files) {
    bool build = false;
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const AnnGraph> graph,
                              available_graph(store, column, index, file, &build));
    if (graph == nullptr) {
      const uint64_t removals = storage::index_component_removals();
      Points points;
      std::vector<std::pair<float, std::string>> scored;
      CASSETTE_RETURN_IF_ERROR(
          for_each_vector(store, narrowed(*snapshot, table_id, false, file), table, column,
                          similarity, [&](const std::string& partition, std::vector<float> floats) {
                            scored.emplace_back(similarity_score(similarity, q, floats), partition);
                            if (build) points.add(partition, std::move(floats));
                          }));
      if (!keep_best(std::move(scored), fetch, &keys)) result.complete = false;
      {
        std::lock_guard<std::mutex> lock(cache().mutex);
        ++cache().exact;
      }
      if (build) {
        build_later(make_job(store, catalog, column, index, file, std::move(points), removals));
      }
      continue;
    }
    if (graph->size() > fetch) result.complete = false;
    std::vector<uint32_t> partitions;
    try {
      graph->search(q, fetch, ann_search_list(*graph, fetch, index), &partitions);
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

Result<std::vector<AnnIndexBuild>> ann_build_indexes(schema::Catalog& catalog,
                                                     std::optional<storage::TableId> table) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> schema, catalog.current());
  ann_wait_for_builds();  // what this process's queries queued: built by now, or the next step
  std::vector<AnnIndexBuild> builds;
  for (const auto& [ks_name, keyspace] : schema->keyspaces) {
    for (const auto& [name, index] : keyspace->indexes) {
      std::shared_ptr<const schema::TableDef> def = schema->find_table(ks_name, index->table);
      if (def == nullptr || (table && def->table_id != *table)) continue;
      if (!schema::ann_component(*def, *index)) continue;
      CASSETTE_ASSIGN_OR_RETURN(AnnIndexDef ann, ann_index_of(*def, *index));
      const schema::ColumnDef* column = def->find_column(index->column);
      if (column == nullptr) continue;
      AnnIndexBuild report;
      report.keyspace = ks_name;
      report.index = name;
      CASSETTE_RETURN_IF_ERROR(build_now(catalog.store(), catalog, def, *column, ann, &report));
      builds.push_back(std::move(report));
    }
  }
  return builds;
}

void ann_follow_compactions(const std::shared_ptr<schema::Catalog>& catalog) {
  static std::once_flag listening;
  std::call_once(listening, [] { storage::set_compaction_listener(on_compaction); });
  std::lock_guard<std::mutex> lock(cache().mutex);
  std::erase_if(cache().catalogs, [](const auto& entry) { return entry.second.expired(); });
  cache().catalogs[catalog->store().path()] = catalog;
}

AnnIndexStats ann_index_stats() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().prune();
  AnnIndexStats stats;
  stats.graphs_built = cache().built;
  stats.graphs_merged = cache().merged;
  stats.graphs_loaded = cache().loaded;
  stats.components_refused = cache().refused;
  stats.graphs_cached = cache().graphs.size();
  stats.exact_scans = cache().exact;
  stats.builds_pending = cache().building.size() + cache().merging.size();
  return stats;
}

void ann_hold_builds(bool hold) {
  std::lock_guard<std::mutex> lock(cache().mutex);
  cache().held = hold;
  cache().work.notify_all();
}

void ann_wait_for_builds() {
  std::unique_lock<std::mutex> lock(cache().mutex);
  cache().idle.wait(lock, [] { return cache().building.empty() && cache().merging.empty(); });
}

}  // namespace cassette::cql
