// ORDER BY v ANN OF [...] LIMIT k (Cassandra 5.0's vector search): the k rows whose vector
// column is most similar to the query vector, by the similarity function of the column's
// storage-attached index (cosine unless its 'similarity_function' option says 'euclidean' or
// 'dot_product'). The search is exact: every row the restrictions leave is scored, and the
// best k kept, so the result is what an approximate index can only approach.
//
//   CREATE CUSTOM INDEX ON ks.items (v) USING 'StorageAttachedIndex'
//     WITH OPTIONS = {'similarity_function': 'dot_product'};
//   SELECT id FROM ks.items WHERE category = 'a' ORDER BY v ANN OF [0.1, 0.9] LIMIT 3
//     ALLOW FILTERING;
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/cql/ann_index.h"
#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/restrictions.h"
#include "engine/cql/vector_checks.h"
#include "engine/cql/vector_similarity.h"
#include "engine/schema/schema.h"
#include "engine/types/value.h"
#include "engine/write/operation.h"

namespace cassette::cql {

struct AnnOrdering {
  const schema::ColumnDef* column = nullptr;
  Similarity similarity = Similarity::kCosine;
  AnnIndexDef index;  // the column's vector index (its similarity is `similarity`)
  std::vector<float> query;
};

// The statement's ANN ordering, checked with Cassandra 5.0's messages ("ANN ordering by vector
// requires the column to be indexed", "Descending ANN ordering is not supported", ...) and its
// query vector evaluated; nullopt when no ORDER BY clause says ANN OF.
Result<std::optional<AnnOrdering>> prepare_ann_ordering(const SelectStatement& statement,
                                                        const schema::TableDef& table,
                                                        const ExecutionContext& context);

// Whether the vectors a write sets can be held by their columns' storage-attached indexes, as
// Cassandra 5.0's vector index checks every written and queried vector: finite elements of at
// most 1e17 in magnitude ("non-finite value at vector[1]=NaN"), and no all-zero vector under
// cosine similarity. OK for columns without such an index and for nulls.
Status check_indexable_vectors(const ExecutionContext& context, const schema::TableDef& table,
                               std::span<const write::ColumnOperation> operations);

// StatementRestrictions' rules for vector indexes: with an ANN ordering every restricted non-key
// column must be indexed ("ANN ordering by vector requires all restricted column(s) to be
// indexed", ALLOW FILTERING or not); without one, a vector column with a storage-attached index
// cannot be restricted ("Vector indexes only support ANN queries").
Status check_ann_restrictions(const SelectRestrictions& restrictions, const schema::TableDef& table,
                              const ExecutionContext& context, bool has_ann);

// An ANN query needs a LIMIT of at most 1000, as Cassandra's SAI top-k reads.
Status check_ann_limit(std::optional<int64_t> limit);

// Orders `rows` by decreasing similarity of their value at `vector_index` to the query and
// keeps the first `limit`; rows without a vector drop out. Equal scores keep their read order.
void keep_nearest(const AnnOrdering& ann, size_t vector_index, int64_t limit,
                  std::vector<std::vector<types::Value>>* rows);

}  // namespace cassette::cql
