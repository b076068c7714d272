// The checks Cassandra 5.0 makes when a storage-attached index is created
// (StorageAttachedIndex.validateOptions, with the analyzer's and the vector index's option
// checks): which options exist, which types can be indexed, which options suit which type, one
// SAI index per column and target, float vectors only. Run by CREATE INDEX after the checks every
// index shares (execute_schema_index.cc), so a refused index never reaches the schema and a
// query never meets an option it cannot use.
#pragma once

#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/util/status.h"

namespace cassette::cql {

// REQUIRES: schema::is_sai_index(index); `column` is the indexed column; `keyspace` holds the
// table's other indexes (not `index` itself). Errors carry Cassandra's wording;
// unknown options are a ConfigurationException there, a Status::configuration here. On success,
// appends the client warnings Cassandra gives (an index on a vector column) to `warnings`.
Status validate_sai_index(const schema::KeyspaceDef& keyspace, const schema::ColumnDef& column,
                          const schema::IndexDef& index, std::vector<std::string>* warnings);

// StorageAttachedIndex.VECTOR_USAGE_WARNING, given when an SAI index on a vector is created.
extern const char kVectorIndexUsageWarning[];

}  // namespace cassette::cql
