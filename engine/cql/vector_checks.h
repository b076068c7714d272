// The checks Cassandra 5.0's vector index makes of every vector written to an indexed column,
// for the SQL hosts' writes (CQL's INSERT and UPDATE make them through select_ann.h): finite
// elements of at most 1e17 in magnitude ("non-finite value at vector[1]=NaN"), and no all-zero
// vector under cosine similarity ("Zero vectors cannot be indexed or queried with cosine
// similarity").
#pragma once

#include "engine/schema/schema.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::cql {

// Whether `value`, written to `column` of `table`, can be held by the column's storage-attached
// index under `schema`. OK at once for a column that is not a float vector, for a null and for a
// column without such an index.
Status check_indexable_vector(const schema::Schema& schema, const schema::TableDef& table,
                              const schema::ColumnDef& column, const types::Value& value);

}  // namespace cassette::cql
