#include "engine/cql/select_ann.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>

#include "engine/cql/modification.h"
#include "engine/cql/term.h"
#include "engine/types/value_internal.h"

namespace cassette::cql {

namespace {

constexpr int64_t kMaxAnnLimit = 1000;  // Cassandra's SAI top-k limit

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// USING 'StorageAttachedIndex', 'sai' or the fully qualified class name.
bool is_storage_attached(const schema::IndexDef& index) {
  const std::string name = lower(index.custom_class);
  return name == "sai" || name == "storageattachedindex" ||
         name == "org.apache.cassandra.index.sai.storageattachedindex";
}

const schema::IndexDef* vector_index_on(const schema::Schema& schema, const schema::TableDef& table,
                                        const std::string& column) {
  for (const auto& index : schema.indexes_on(table)) {
    if (index->column == column && is_storage_attached(*index)) return index.get();
  }
  return nullptr;
}

// Java's Float.toString for the values the messages show (NaN, Infinity, 1.0E18).
std::string java_float(float f) {
  return types::internal::java_float_to_string(f);
}

// OnHeapGraph.validateIndexable.
Status check_indexable(Similarity similarity, std::span<const float> v) {
  constexpr float kMaxComponent = 1e17f;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]))
      return Status::invalid_argument(
          fmt::format("non-finite value at vector[{}]={}", i, java_float(v[i])));
    if (std::fabs(v[i]) > kMaxComponent)
      return Status::invalid_argument(
          fmt::format("Out-of-bounds value at vector[{}]={}", i, java_float(v[i])));
  }
  if (similarity == Similarity::kCosine && is_zero_vector(v))
    return Status::invalid_argument(
        "Zero vectors cannot be indexed or queried with cosine similarity");
  return Status::ok();
}

Result<Similarity> index_similarity(const schema::IndexDef& index) {
  auto option = index.options.find("similarity_function");
  if (option == index.options.end()) return Similarity::kCosine;
  auto similarity = similarity_by_option(option->second);
  if (!similarity)
    return Status::invalid_argument(
        fmt::format("Similarity function {} was not recognized", option->second));
  return *similarity;
}

Status check_ann_clauses(const SelectStatement& statement) {
  size_t ann = 0;
  for (const OrderingClause& o : statement.order_by) ann += o.ann_of ? 1 : 0;
  if (ann > 1) return Status::invalid_argument("Cannot specify more than one ANN ordering");
  if (statement.order_by.size() > 1)
    return Status::invalid_argument("ANN ordering does not support secondary ordering");
  if (statement.order_by[0].descending)
    return Status::invalid_argument("Descending ANN ordering is not supported");
  return Status::ok();
}

}  // namespace

Result<std::optional<AnnOrdering>> prepare_ann_ordering(const SelectStatement& statement,
                                                        const schema::TableDef& table,
                                                        const ExecutionContext& context) {
  const bool has_ann = std::any_of(statement.order_by.begin(), statement.order_by.end(),
                                   [](const OrderingClause& o) { return o.ann_of != nullptr; });
  if (!has_ann) return std::optional<AnnOrdering>();
  CASSETTE_RETURN_IF_ERROR(check_ann_clauses(statement));
  const OrderingClause& clause = statement.order_by[0];
  CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column, existing_column(table, clause.column));
  const schema::IndexDef* index =
      context.schema ? vector_index_on(*context.schema, table, column->name) : nullptr;
  if (index == nullptr)
    return Status::invalid_argument("ANN ordering by vector requires the column to be indexed");
  const types::CqlType& type = column->type;
  if (type.kind != types::TypeKind::kVector || type.params[0].kind != types::TypeKind::kFloat)
    return Status::invalid_argument("ANN ordering is only supported on float vector indexes");

  AnnOrdering ann;
  ann.column = column;
  CASSETTE_ASSIGN_OR_RETURN(ann.index, ann_index_of(table, *index));
  ann.similarity = ann.index.similarity;
  CASSETTE_ASSIGN_OR_RETURN(types::Value query,
                            evaluate_term(*clause.ann_of, type, column->name, context));
  if (!query)
    return Status::invalid_argument(
        fmt::format("Unsupported null value for column {}", column->name));
  CASSETTE_ASSIGN_OR_RETURN(ann.query, types::vector_floats(*query, type.dimension));
  CASSETTE_RETURN_IF_ERROR(check_indexable(ann.similarity, ann.query));
  return std::optional<AnnOrdering>(std::move(ann));
}

Status check_indexable_vector(const schema::Schema& schema, const schema::TableDef& table,
                              const schema::ColumnDef& column, const types::Value& value) {
  if (!value || column.type.kind != types::TypeKind::kVector ||
      column.type.params[0].kind != types::TypeKind::kFloat) {
    return Status::ok();
  }
  const schema::IndexDef* index = vector_index_on(schema, table, column.name);
  if (index == nullptr) return Status::ok();
  CASSETTE_ASSIGN_OR_RETURN(Similarity similarity, index_similarity(*index));
  CASSETTE_ASSIGN_OR_RETURN(std::vector<float> floats,
                            types::vector_floats(*value, column.type.dimension));
  return check_indexable(similarity, floats);
}

Status check_indexable_vectors(const ExecutionContext& context, const schema::TableDef& table,
                               std::span<const write::ColumnOperation> operations) {
  if (!context.schema) return Status::ok();
  for (const write::ColumnOperation& op : operations) {
    if (op.kind != write::ColumnOperation::Kind::kSetValue) continue;
    CASSETTE_RETURN_IF_ERROR(check_indexable_vector(*context.schema, table, *op.column, op.value));
  }
  return Status::ok();
}

Status check_ann_restrictions(const SelectRestrictions& restrictions, const schema::TableDef& table,
                              const ExecutionContext& context, bool has_ann) {
  if (!context.schema) return Status::ok();
  const auto indexes = context.schema->indexes_on(table);
  auto indexed = [&](const schema::ColumnDef* column) {
    return std::any_of(indexes.begin(), indexes.end(),
                       [&](const auto& index) { return index->column == column->name; });
  };
  constexpr const char* kNeedsIndexedFiltering =
      "ANN ordering by vector requires all restricted column(s) to be indexed";
  if (has_ann) {
    // StatementRestrictions (5.0): a partition key restricted in part (filtered) is refused, and
    // every restricted clustering column must be indexed, the partition key given or not.
    for (const RowPredicate& predicate : restrictions.predicates) {
      for (const schema::ColumnDef* column : predicate.columns) {
        if (column->kind == schema::ColumnKind::kPartitionKey && !restrictions.partition_keys &&
            !restrictions.has_token_restriction) {
          return Status::invalid_argument(kNeedsIndexedFiltering);
        }
        if (column->kind == schema::ColumnKind::kClustering && !indexed(column)) {
          return Status::invalid_argument(kNeedsIndexedFiltering);
        }
      }
    }
  }
  for (const schema::ColumnDef* column : restrictions.non_primary_key_columns) {
    if (has_ann) {
      if (!indexed(column)) return Status::invalid_argument(kNeedsIndexedFiltering);
    } else if (column->type.kind == types::TypeKind::kVector &&
               vector_index_on(*context.schema, table, column->name) != nullptr) {
      return Status::invalid_argument("Vector indexes only support ANN queries");
    }
  }
  return Status::ok();
}

Status check_ann_limit(std::optional<int64_t> limit) {
  if (limit && *limit <= kMaxAnnLimit) return Status::ok();
  return Status::invalid_argument(
      fmt::format("Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than "
                  "{}. LIMIT was {}",
                  kMaxAnnLimit, limit ? std::to_string(*limit) : "NO LIMIT"));
}

void keep_nearest(const AnnOrdering& ann, size_t vector_index, int64_t limit,
                  std::vector<std::vector<types::Value>>* rows) {
  struct Scored {
    float score;
    size_t row;
  };
  std::vector<Scored> scored;
  for (size_t i = 0; i < rows->size(); ++i) {
    const types::Value& v = (*rows)[i][vector_index];
    if (!v) continue;
    auto floats = types::vector_floats(*v, ann.column->type.dimension);
    if (!floats.is_ok()) continue;
    // a stored all-zero vector has no cosine similarity: Cassandra's index refuses to hold one
    if (ann.similarity == Similarity::kCosine && is_zero_vector(*floats)) continue;
    scored.push_back({similarity_score(ann.similarity, ann.query, *floats), i});
  }
  const size_t keep = std::min(scored.size(), static_cast<size_t>(std::max<int64_t>(limit, 0)));
  // top-k: the best `keep` first, by score then by read order, in O(n log k)
  auto better = [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score > b.score : a.row < b.row;
  };
  std::partial_sort(scored.begin(), scored.begin() + static_cast<ptrdiff_t>(keep), scored.end(),
                    better);
  std::vector<std::vector<types::Value>> nearest;
  nearest.reserve(keep);
  for (size_t i = 0; i < keep; ++i) nearest.push_back(std::move((*rows)[scored[i].row]));
  *rows = std::move(nearest);
}

}  // namespace cassette::cql
