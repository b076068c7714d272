// The WHERE clause of a SELECT analysed against its table, as Cassandra's StatementRestrictions
// does: which partitions to read (a list of partition keys, or a token range / full scan), which
// clustering byte ranges to read inside each of them, and which predicates must still be checked
// on every candidate row (filtering, secondary-index lookups, multi-column slices over mixed
// clustering orders). Every rule violation is reported with Cassandra 4.1's message, e.g.
//   PRIMARY KEY column "c2" cannot be restricted as preceding column "c1" is not restricted
//   Cannot execute this query as it might involve data filtering and thus may have ...
//
// The clustering ranges are an access path only: every clustering restriction is also kept as a
// row predicate, so a range may be wider than the restriction (never narrower) and results stay
// exact. Secondary indexes are honoured for validation (a query an index supports needs no
// ALLOW FILTERING) but executed as a filtered scan in token order, which returns the rows in the
// order a single Cassandra node does. (A real index lookup is a performance follow-up.)
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/schema/schema.h"
#include "engine/storage/row_cursor.h"
#include "engine/types/value.h"

namespace cassette::cql {

// One predicate checked on a candidate row. `columns` has one column, or several for a
// multi-column relation ((a, b) > (1, 2) compares the tuples column by column, each by its type's
// order, whatever the clustering order).
struct RowPredicate {
  enum class Kind {
    kEq,  // columns = values[0]
    kIn,  // columns is one of values
    kLt,  // tuple comparisons against values[0]
    kLte,
    kGt,
    kGte,
    kContains,     // collection contains values[0][0]
    kContainsKey,  // map has key values[0][0]
    kMapEntry,     // map[values[0][0]] = values[0][1]
  };
  Kind kind = Kind::kEq;
  std::vector<const schema::ColumnDef*> columns;
  std::vector<std::vector<std::string>> values;
  // Text compared after SAI's text analysis (schema::TextAnalysis bits: case_sensitive =
  // false, normalize, ascii): an EQ on a column whose storage-attached index analyzes its values
  // (as the index answers it). 0: compared as stored.
  uint8_t text_analysis = 0;
};

// The values of one candidate row, by the column's index in TableDef::columns (nullopt: null).
using RowValues = std::vector<types::Value>;

bool row_matches(const RowPredicate& predicate, const schema::TableDef& table,
                 const RowValues& row);

struct SelectRestrictions {
  // Partitions. When `partition_keys` is set the query reads exactly those partitions (serialized
  // keys, in the order Cassandra returns them: by key value, duplicates removed); otherwise it
  // scans `token_range` (unbounded: the whole table) in token order.
  std::optional<std::vector<std::string>> partition_keys;
  storage::TokenRange token_range;
  bool has_token_restriction = false;
  bool partition_key_has_in = false;
  bool has_partition_key_restrictions = false;  // any relation on the key or its token
  bool is_key_range = false;  // a scan over partitions (no complete partition key)

  // Clustering ranges to read in each partition: sorted, disjoint, [start, end) over encoded
  // clustering keys (an empty end: to the last row). Empty vector: no row can match.
  std::vector<std::pair<std::string, std::string>> clustering_ranges;
  bool has_clustering_restrictions = false;

  // Predicates every row must satisfy (all of them are rechecked, including those the access
  // path already guarantees: it is cheap and keeps the access path an optimisation only).
  std::vector<RowPredicate> predicates;
  bool has_regular_restrictions = false;  // predicates on regular columns
  bool has_non_primary_key_restrictions = false;
  std::vector<const schema::ColumnDef*> non_primary_key_columns;
  bool uses_secondary_index = false;
  // The query would filter without ALLOW FILTERING (SelectStatement.checkNeedsFiltering); the
  // executor reports it after the DISTINCT / GROUP BY / ORDER BY checks, as Cassandra does.
  bool requires_allow_filtering = false;

  // Columns restricted by = (single column or a multi-column =), for ORDER BY / GROUP BY checks.
  std::set<const schema::ColumnDef*> eq_restricted;

  // A null restriction value ("Invalid null value in condition for column k", "Unsupported null
  // value for column v"): Cassandra meets it when binding values at execution, so the executor
  // reports it after every statement check, and nothing here may be used if it is an error.
  Status bind_error;
};

struct RestrictionOptions {
  bool allow_filtering = false;
  bool selects_only_static_columns = false;
};

Result<SelectRestrictions> analyze_restrictions(const schema::TableDef& table,
                                                const std::vector<Relation>& where,
                                                const RestrictionOptions& options,
                                                const ExecutionContext& context);

// Cassandra's REQUIRES_ALLOW_FILTERING_MESSAGE.
extern const char* const kRequiresAllowFilteringMessage;

// The refusal of a relation whose operator a WHERE clause does not take: Cassandra 5.0's
// `Unsupported "!=" relation: v != 0` (Relation.toRestriction); `text` is the relation as written.
Status unsupported_relation(Operator op, std::string_view text);

}  // namespace cassette::cql
