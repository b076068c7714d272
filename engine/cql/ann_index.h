// The ANN index behind ORDER BY v ANN OF [...] LIMIT k on a column with a storage-attached
// index: an HNSW graph per SSTable (hnswlib, Debian's libhnswlib-dev), as Cassandra 5.0's SAI
// keeps a jvector graph per SSTable, plus an exact scan of the memtables.
//
// A graph is built the first time a query needs it, from the SSTable's rows, and kept in memory
// for as long as its SSTable is live in this process (keyed by the SSTable's TableFile, the
// column and the similarity function): an SSTable never changes, so neither does its graph; a
// flush or a compaction makes new SSTables, whose graphs the next query builds, and the graphs of
// the SSTables they replaced are dropped. Nothing is written beside the SSTables, so the flush
// and compaction paths are untouched (a new process builds its graphs again).
//
// A graph only proposes candidates. ann_candidate_partitions() returns the partitions of the
// `fetch` nearest vectors of each SSTable and of the memtables; the caller re-reads them through
// the normal read path (so a deleted or overwritten vector drops out or is scored as it now is)
// and scores them exactly (keep_nearest). A vector stored in an older SSTable and overwritten
// later is still a candidate of the old graph, which is why each source over-fetches.
//
//   auto candidates = ann_candidate_partitions(store, snapshot, table, *column,
//                                              Similarity::kCosine, query, 40);
//   // candidates->keys: serialized partition keys in storage order;
//   // candidates->complete: every vector of every source was a candidate (the search was exact)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/cql/vector_similarity.h"
#include "engine/schema/schema.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::cql {

struct AnnCandidates {
  std::vector<std::string> keys;  // serialized partition keys, in token order, no duplicates
  // True when no source had more than `fetch` vectors: the candidates are every partition that
  // holds a vector, and an exact search over them is the exact search over the table.
  bool complete = false;
};

// The candidate partitions for the `fetch` nearest neighbours of `query` in `column` (a
// vector<float, n> column of `table`) under `snapshot`. Builds and caches the graphs of the
// snapshot's SSTables that have none yet. REQUIRES: query.size() is the column's dimension.
Result<AnnCandidates> ann_candidate_partitions(const storage::Store& store,
                                               std::shared_ptr<const storage::Snapshot> snapshot,
                                               std::shared_ptr<const schema::TableDef> table,
                                               const schema::ColumnDef& column,
                                               Similarity similarity, std::span<const float> query,
                                               size_t fetch);

// What the graph cache has done in this process, for tests: graphs built from SSTables, and the
// graphs held now.
struct AnnIndexStats {
  uint64_t graphs_built = 0;
  size_t graphs_cached = 0;
};
AnnIndexStats ann_index_stats();

}  // namespace cassette::cql
