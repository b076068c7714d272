// The WHERE clause of UPDATE and DELETE (and the key columns of INSERT, given as equalities): which
// partitions and which rows of them a modification writes, with the restriction rules and
// messages of Cassandra's StatementRestrictions for modification statements:
//   - every partition key column restricted by = or IN ("Some partition key parts are missing: k");
//   - clustering columns by = or IN, in order; a slice on the last restricted one only for DELETE
//     ("Slice restrictions are not supported on the clustering columns in UPDATE statements");
//   - UPDATE and INSERT need every clustering column unless only static columns are written
//     ("Some clustering keys are missing: c"); UPDATE/DELETE of static columns only must not
//     restrict clustering columns;
//   - no other column ("Non PRIMARY KEY columns found in where clause: v ").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/schema/schema.h"

namespace cassette::cql {

enum class StatementType { kInsert, kUpdate, kDelete };
std::string_view statement_type_name(StatementType type);  // "INSERT", "UPDATE", "DELETE"

// A slice after an equality prefix (DELETE only): on one clustering column, or a multi-column
// slice `(c1, c2) > (1, 2)` whose bounds are tuples starting at `column`.
struct ClusteringSlice {
  const schema::ColumnDef* column = nullptr;
  std::optional<std::vector<std::string>> lower;  // bounds in the columns' value order
  bool lower_inclusive = false;
  std::optional<std::vector<std::string>> upper;
  bool upper_inclusive = false;
};

struct ModificationTargets {
  std::vector<std::string> partition_keys;  // serialized, deduplicated, in IN order
  bool partition_has_in = false;
  bool clustering_restricted = false;  // any clustering column restricted
  bool clustering_has_in = false;
  // The clustering prefixes the = / IN restrictions select (each of the same length; one empty
  // prefix when no clustering column is restricted by = or IN).
  std::vector<std::vector<std::string>> clustering_prefixes;
  std::optional<ClusteringSlice> slice;
  size_t clustering_column_count = 0;
  size_t clustering_equality_columns = 0;  // leading clustering columns restricted by = or IN

  // Whether the statement names whole rows: every clustering column given by = / IN.
  bool selects_rows() const {
    return !slice && !clustering_prefixes.empty() &&
           clustering_prefixes.front().size() == clustering_column_count;
  }
};

// Checks and evaluates the relations. `only_static` says the statement writes (or conditions)
// only static columns. An equality relation without a value term takes its value from
// `given_values` (INSERT JSON, whose values are already decoded), by column name.
Result<ModificationTargets> resolve_modification_where(
    const schema::TableDef& table, const std::vector<Relation>& relations, StatementType type,
    bool only_static, const ExecutionContext& context,
    const std::map<std::string, types::Value>* given_values = nullptr);

// The encoded clustering key of each prefix.
Result<std::vector<std::string>> encoded_prefixes(const schema::TableDef& table,
                                                  const ModificationTargets& targets);

// The [start, end) byte ranges of encoded clustering keys a DELETE of ranges covers: one per
// prefix (with the slice applied); empty ranges are left out.
Result<std::vector<std::pair<std::string, std::string>>> clustering_ranges(
    const schema::TableDef& table, const ModificationTargets& targets);

}  // namespace cassette::cql
