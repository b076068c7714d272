// Building the ANN graphs now, for a process that does not live long enough for the background
// builds of engine/cql/ann_index.h (a shell running a script, a sqlite3 invocation, a PostgreSQL
// backend): the shell's BUILD INDEXES and SQLite's cql_build_indexes() call it.
//
//   auto builds = cql::ann_build_indexes(session.catalog(), std::nullopt);   // every table
//   for (const cql::AnnIndexBuild& b : *builds) ...   // b.built graphs of b.vectors vectors
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/schema/catalog.h"
#include "engine/storage/ids.h"
#include "engine/util/status.h"

namespace cassette::cql {

// What ann_build_indexes did for one vector index: graphs built and saved now (of `vectors`
// vectors in all), and SSTables that had theirs already.
struct AnnIndexBuild {
  std::string keyspace, index;
  size_t built = 0, present = 0, vectors = 0;
};

// Builds now, on the calling thread, and saves the graph of every SSTable of `table` (nullopt:
// every table) that has none, for each vector index of the latest schema on it, in the order of
// the indexes' keyspaces and names. Waits for the builds this process has queued and for those
// another process is running (it holds their SSTables' locks), then loads their graphs. An index
// dropped meanwhile (here or elsewhere) ends its builds, and nothing of it is saved. The
// memtables are not flushed (the caller flushes first when it wants their vectors in graphs). A
// process that exits (or is killed) half way through a build saves nothing of it: a graph is
// trusted only once whole, and the next build starts from scratch.
Result<std::vector<AnnIndexBuild>> ann_build_indexes(schema::Catalog& catalog,
                                                     std::optional<storage::TableId> table);

}  // namespace cassette::cql
