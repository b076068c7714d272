// The ANN index behind ORDER BY v ANN OF [...] LIMIT k on a column with a storage-attached
// index: an HNSW graph per SSTable (ann_graph.h: hnswlib, Debian's libhnswlib-dev), as Cassandra
// 5.0's SAI keeps a jvector graph per SSTable, plus an exact scan of the memtables.
//
// A graph is an index component of its SSTable (schema::ann_component names it), loaded by the
// first query of a process that needs it and kept in memory for as long as its SSTable is live
// in this process (keyed by the SSTable's TableFile, the column and the similarity function). A
// graph is not built while an SSTable is written (a flush's or a compaction's steps stay as
// short as the bytes they write: building a graph costs about a millisecond a vector, seconds to
// minutes for one SSTable) but in the background, by one builder thread of the first process
// whose query (or CREATE INDEX) finds the SSTable without one: that query scores the SSTable's
// vectors exactly, as the memtables' are (its answer never waits for the build), and hands the
// vectors it read to the builder, which saves the graph beside the SSTable for every later
// process. One build of a graph at a time across processes (a lock on the SSTable's file); a
// build is abandoned when its SSTable goes (compaction, TRUNCATE, DROP TABLE, the store closed)
// or an index component is removed (DROP INDEX). A component that cannot be read (damaged, or
// built with other options) is reported on stderr and built again.
//
// A graph only proposes candidates. ann_candidate_partitions() returns the partitions of the
// `fetch` nearest vectors of each SSTable and of the memtables; the caller re-reads them through
// the normal read path (so a deleted or overwritten vector drops out or is scored as it now is)
// and scores them exactly (keep_nearest). A vector stored in an older SSTable and overwritten
// later is still a candidate of the old graph, which is why each source over-fetches.
//
//   auto index = ann_index_of(*table, *index_def);
//   auto candidates = ann_candidate_partitions(store, snapshot, table, *column, *index, query, 40);
//   // candidates->keys: serialized partition keys in storage order;
//   // candidates->complete: every vector of every source was a candidate (the search was exact)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/cql/ann_build.h"
#include "engine/cql/ann_graph.h"
#include "engine/cql/vector_similarity.h"
#include "engine/schema/schema.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::schema {
class Catalog;
}  // namespace cassette::schema

namespace cassette::cql {

struct AnnCandidates {
  std::vector<std::string> keys;  // serialized partition keys, in token order, no duplicates
  // True when no source had more than `fetch` vectors: the candidates are every partition that
  // holds a vector, and an exact search over them is the exact search over the table.
  bool complete = false;
};

// A vector index as the graphs see it: its component's name, similarity function, build
// parameters, and its optimize_for: LATENCY (Cassandra's default) or RECALL.
struct AnnIndexDef {
  std::string component;
  Similarity similarity = Similarity::kCosine;
  AnnGraphParams params;
  bool optimize_for_recall = false;
};

// The search list of `graph` to find `fetch` points with under `index`: the graph's own
// (AnnGraph::search_candidates: recall@10 >= 0.95 on uniformly random data) for LATENCY, twice
// that for RECALL (0.98-0.99 there, at about twice the search time; tests/bench/README.md,
// "Session 25"). Cassandra 5.0's RECALL asks its graph for more results instead (4.3x the LIMIT
// at 10 against 1.7x); this engine fetches 4x the LIMIT from every graph already.
size_t ann_search_list(const AnnGraph& graph, size_t fetch, const AnnIndexDef& index);

// The ANN index of `index` (a storage-attached index on a vector column of `table`), its options
// checked as Cassandra 5.0's IndexWriterConfig checks them: similarity_function,
// maximum_node_connections (1 to 512), construction_beam_width (1 to 3200) and optimize_for.
Result<AnnIndexDef> ann_index_of(const schema::TableDef& table, const schema::IndexDef& index);

// Queues the build of the graph of every SSTable of `table` under `snapshot` that has none on
// disk (CREATE INDEX on a table with data); reads their vectors, does not wait for the builds.
// `catalog` (the store's; optional) is asked, before a graph is saved and every few seconds of
// its build, whether the index still exists: another process may drop it meanwhile.
Status ann_build_components(const storage::Store& store,
                            std::shared_ptr<const storage::Snapshot> snapshot,
                            std::shared_ptr<const schema::TableDef> table,
                            const schema::ColumnDef& column, const AnnIndexDef& index,
                            const schema::Catalog* catalog = nullptr);

// The candidate partitions for the `fetch` nearest neighbours of `query` in `column` (a
// vector<float, n> column of `table`) under `snapshot`. Builds and caches the graphs of the
// snapshot's SSTables that have none on disk yet, scoring those exactly meanwhile (`catalog` as
// for ann_build_components).
// REQUIRES: query.size() is the column's dimension.
Result<AnnCandidates> ann_candidate_partitions(const storage::Store& store,
                                               std::shared_ptr<const storage::Snapshot> snapshot,
                                               std::shared_ptr<const schema::TableDef> table,
                                               const schema::ColumnDef& column,
                                               const AnnIndexDef& index,
                                               std::span<const float> query, size_t fetch,
                                               const schema::Catalog* catalog = nullptr);

// Makes the compactions of `catalog`'s store in this process keep the ANN graphs: a compaction
// whose inputs have graphs queues, on the builder thread, the graph of its output merged from
// the largest input's (its changed points marked deleted, its new ones added: FORMAT.md, "ANN
// components"), or built when that graph would hold more than 30% of deleted points. Until it is
// saved, queries score the output exactly. The inputs stay on disk until it is made. Called for
// every catalog (cql::catalog_for); a store whose catalog is gone is not followed.
void ann_follow_compactions(const std::shared_ptr<schema::Catalog>& catalog);

// What the graph cache has done in this process, for tests: graphs built from SSTables, graphs
// merged from a compaction input's, graphs loaded from their components, components refused
// (damaged, other options), the graphs held now, SSTables scored exactly by a query because
// their graph was not built yet, and the builds and merges queued or running.
struct AnnIndexStats {
  uint64_t graphs_built = 0;
  uint64_t graphs_merged = 0;
  uint64_t graphs_loaded = 0;
  uint64_t components_refused = 0;
  size_t graphs_cached = 0;
  uint64_t exact_scans = 0;
  size_t builds_pending = 0;
};
AnnIndexStats ann_index_stats();

// Waits until this process's builder thread has nothing queued or running (tests, benches).
void ann_wait_for_builds();
// For tests: while held, the builder thread starts no build (queued ones wait).
void ann_hold_builds(bool hold);

}  // namespace cassette::cql
