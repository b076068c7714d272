// Index components no index of the schema has: those an index dropped by one process left on
// SSTables another process wrote or built them for meanwhile (a flush writing the SAI components
// of an index it still knew; an ANN graph saved by a build that had not heard of the DROP INDEX
// yet, engine/cql/ann_index.cc). Removed when a process first reads the schema of a store
// (Catalog::current), so that they do not wait for their SSTables' compaction.
#pragma once

#include <functional>

#include "engine/schema/schema.h"
#include "engine/storage/store.h"

namespace cassette::schema {

// Removes the SAI and ANN component files ("sai.", "sai2.", "sai3.", "ann." names) of the live
// SSTables of `schema`'s tables that no index of `schema` has. `unchanged` is asked once the
// files are listed, before any is removed: false (the schema changed since `schema` was read, so
// a new index's components may be among them) removes nothing. Errors are ignored: the files stay
// until the next open or their SSTable's compaction. Returns how many files were removed.
size_t remove_orphan_components(storage::Store& store, const Schema& schema,
                                const std::function<bool()>& unchanged);

}  // namespace cassette::schema
