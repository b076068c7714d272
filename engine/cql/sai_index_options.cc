#include "engine/cql/sai_index_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include "engine/cql/vector_similarity.h"
#include "engine/schema/index_components.h"
#include "engine/types/value.h"

namespace cassette::cql {

const char kVectorIndexUsageWarning[] =
    "SAI ANN indexes on vector columns are experimental and are not recommended for production "
    "use.\n"
    "They don't yet support SELECT queries with:\n"
    " * Consistency level higher than ONE/LOCAL_ONE.\n"
    " * Paging.\n"
    " * No LIMIT clauses.\n"
    " * PER PARTITION LIMIT clauses.\n"
    " * GROUP BY clauses.\n"
    " * Aggregation functions.\n"
    " * Filters on columns without a SAI index.";

namespace {

using schema::IndexDef;
using types::CqlType;
using types::TypeKind;

constexpr std::string_view kAnalysisOptions[] = {"case_sensitive", "normalize", "ascii"};
constexpr std::string_view kVectorOptions[] = {
    "maximum_node_connections", "construction_beam_width", "similarity_function", "optimize_for"};

bool is_analysis_option(std::string_view name) {
  return std::find(std::begin(kAnalysisOptions), std::end(kAnalysisOptions), name) !=
         std::end(kAnalysisOptions);
}

bool is_vector_option(std::string_view name) {
  return std::find(std::begin(kVectorOptions), std::end(kVectorOptions), name) !=
         std::end(kVectorOptions);
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Java's String.hashCode, spread as HashMap spreads it: the unknown options are reported in
// the order Java's HashMap keySet() lists them, so that the message reads as Cassandra's.
uint32_t java_hash_bucket_key(std::string_view text) {
  uint32_t h = 0;
  for (unsigned char c : text) h = 31 * h + c;  // ASCII option names: UTF-16 units = bytes
  return h ^ (h >> 16);
}

std::string unknown_options_message(const std::vector<std::string>& unknown) {
  // HashMap(2) doubles while size > 0.75 * capacity
  uint32_t capacity = 2;
  while (unknown.size() * 4 > capacity * 3) capacity *= 2;
  std::vector<std::string> ordered = unknown;
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    return (java_hash_bucket_key(a) & (capacity - 1)) < (java_hash_bucket_key(b) & (capacity - 1));
  });
  std::string names;
  for (const auto& name : ordered) names += (names.empty() ? "" : ", ") + name;
  return fmt::format("Properties specified [{}] are not understood by StorageAttachedIndex", names);
}

// The types an SAI index holds as terms (StorageAttachedIndex.SUPPORTED_TYPES); frozen values
// (tuples, frozen collections and UDTs, vectors) are held whole.
bool supported_term_type(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kBlob:
    case TypeKind::kCounter:
    case TypeKind::kDuration:
      return false;
    default:
      return true;
  }
}

// The types of the terms an index of `target` on a column of `type` holds: the element of a
// list or set, a map's values or keys, a map's key and value for entries, else the column's.
std::vector<CqlType> indexed_types(const CqlType& type, IndexDef::Target target) {
  if (!type.is_multi_cell() || !type.is_collection()) return {type};
  if (type.kind != TypeKind::kMap) return {type.params[0]};
  switch (target) {
    case IndexDef::Target::kKeys:
      return {type.params[0]};
    case IndexDef::Target::kEntries:
      return {type.params[0], type.params[1]};
    default:
      return {type.params[1]};
  }
}

Status check_boolean_option(std::string_view name, const std::string& value) {
  if (value.empty())
    return Status::invalid_argument(fmt::format("Empty value for boolean option '{}'", name));
  std::string lower = value;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != "true" && lower != "false") {
    return Status::invalid_argument(
        fmt::format("Illegal value for boolean option '{}': {}", name, value));
  }
  return Status::ok();
}

// AbstractAnalyzer.fromOptions: the text options need a text (or ascii) term.
Status check_analysis_options(const IndexDef& index, const std::vector<CqlType>& terms) {
  bool any = false;
  for (std::string_view name : kAnalysisOptions) any = any || index.options.contains(name.data());
  if (!any) return Status::ok();
  const CqlType& term = terms.front();
  if (terms.size() != 1 || (term.kind != TypeKind::kText && term.kind != TypeKind::kAscii)) {
    std::string name = terms.size() == 1 ? types::cql_type_name(term) : "frozen<tuple>";
    return Status::invalid_argument(fmt::format("CQL type {} cannot be analyzed.", name));
  }
  for (const auto& [name, value] : index.options) {
    if (is_analysis_option(name)) CASSETTE_RETURN_IF_ERROR(check_boolean_option(name, value));
  }
  return Status::ok();
}

// IndexWriterConfig.fromOptions as StorageAttachedIndex.validateOptions calls it (with no index
// name yet: Cassandra's messages say "for index null"). Custom graph parameters need a system
// property Cassandra 5.0 leaves off; Cassette has none to turn on.
Status check_vector_options(const IndexDef& index, const CqlType& column_type,
                            std::optional<Similarity>* similarity) {
  bool any = false;
  for (std::string_view name : kVectorOptions) any = any || index.options.contains(name.data());
  if (!any) return Status::ok();
  if (column_type.kind != TypeKind::kVector) {
    return Status::invalid_argument(
        fmt::format("CQL type {} cannot have vector options", types::cql_type_name(column_type)));
  }
  if (index.options.contains("maximum_node_connections")) {
    return Status::invalid_argument(
        "Maximum node connections cannot be set without enabling "
        "SAI_VECTOR_ALLOW_CUSTOM_PARAMETERS");
  }
  if (index.options.contains("construction_beam_width")) {
    return Status::invalid_argument(
        "Construction beam width cannot be set without enabling "
        "SAI_VECTOR_ALLOW_CUSTOM_PARAMETERS");
  }
  if (auto it = index.options.find("similarity_function"); it != index.options.end()) {
    *similarity = similarity_by_option(it->second);
    if (!*similarity) {
      return Status::invalid_argument(
          fmt::format("Similarity function {} was not recognized for index null. Valid values "
                      "are: EUCLIDEAN, DOT_PRODUCT, COSINE",
                      upper(it->second)));
    }
  }
  if (auto it = index.options.find("optimize_for"); it != index.options.end()) {
    std::string value = upper(it->second);
    if (value != "LATENCY" && value != "RECALL") {
      return Status::invalid_argument(fmt::format(
          "optimize_for '{}' was not recognized for index null. Valid values are: LATENCY, "
          "RECALL",
          value));
    }
  }
  return Status::ok();
}

}  // namespace

Status validate_sai_index(const schema::KeyspaceDef& keyspace, const schema::ColumnDef& column,
                          const schema::IndexDef& index, std::vector<std::string>* warnings) {
  std::vector<std::string> unknown;
  for (const auto& [name, value] : index.options) {
    if (!is_analysis_option(name) && !is_vector_option(name)) unknown.push_back(name);
  }
  if (!unknown.empty()) return Status::configuration(unknown_options_message(unknown));

  for (const auto& [name, other] : keyspace.indexes) {
    if (other->table == index.table && other->column == index.column &&
        other->target == index.target && schema::is_sai_index(*other)) {
      return Status::invalid_argument(
          fmt::format("Cannot create more than one storage-attached index on the same column: {}",
                      column.name));
    }
  }

  if (column.is_primary_key()) {
    std::string found;
    for (const auto& [name, value] : index.options) {  // std::map: sorted, as CqlBuilder's
      if (!is_analysis_option(name)) continue;
      found += fmt::format("{}'{}': '{}'", found.empty() ? "" : ", ", name, value);
    }
    if (!found.empty()) {
      return Status::invalid_argument(fmt::format(
          "Analysis options are not supported on primary key columns, but found {{{}}}", found));
    }
  }

  const std::vector<CqlType> terms = indexed_types(column.type, index.target);
  CASSETTE_RETURN_IF_ERROR(check_analysis_options(index, terms));
  std::optional<Similarity> similarity;
  CASSETTE_RETURN_IF_ERROR(check_vector_options(index, column.type, &similarity));

  for (const CqlType& term : terms) {
    if (!supported_term_type(term)) {
      return Status::invalid_argument(
          fmt::format("Unsupported type: {}", types::cql_type_name(term)));
    }
  }
  if (column.type.kind == TypeKind::kVector) {
    if (column.type.params[0].kind != TypeKind::kFloat) {
      return Status::invalid_argument(
          "SAI ANN indexes are only allowed on vector columns with float elements");
    }
    if (column.type.dimension == 1 &&
        similarity.value_or(Similarity::kCosine) == Similarity::kCosine) {
      return Status::invalid_argument(
          "Cosine similarity is not supported for single-dimension vectors");
    }
    if (warnings != nullptr) warnings->push_back(kVectorIndexUsageWarning);
  }
  return Status::ok();
}

}  // namespace cassette::cql
