// The key and range arithmetic of every read and every range deletion, in one place
// (docs/ARCHITECTURE.md §4): which partitions a list of partition key values names, and which
// byte ranges of encoded clustering keys a clustering prefix and slice cover.
//
// Three callers share it and differ only in the options they pass:
//   - the SQL hosts' QueryCursor (cursor.cc): partitions in token order, keys that cannot exist
//     skipped, single-column slices;
//   - CQL SELECT (engine/cql/restriction_access_path.cc): partitions in key-value order (as
//     Cassandra's sorted set of IN keys), invalid keys an error with Cassandra's message,
//     optionally filtered by a token restriction, multi-column slices;
//   - DELETE's range tombstones (engine/cql/modification_where.cc): one range per prefix, not
//     merged, every range with an explicit end.
//
//   std::vector<std::string> sources = {"a", "b"}, hours = {h};
//   const std::vector<std::string>* lists[] = {&sources, &hours};
//   auto keys = partition_keys(table, lists, KeyOrder::kToken, BadKey::kSkip);
//   SliceBounds slice;  slice.upper = SliceBound{{ts}, /*inclusive=*/false};
//   auto ranges = clustering_ranges(table, {{}}, &slice);   // [start, end) byte ranges
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/row_position.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::query {

// One partition to read: its serialized key and the key's token.
struct PartitionKey {
  std::string key;
  int64_t token = 0;
  // An index read's candidates in the partition: the clustering keys of the only rows that may
  // match, read by key (engine/storage/keyed_read.h); nullopt: the partition's rows in the ranges.
  std::optional<std::vector<std::string>> rows = std::nullopt;
  // Where index components place those rows in SSTables (engine/storage/row_position.h).
  std::vector<storage::RowPosition> positions = {};
};

// The order of the partitions partition_keys() returns.
enum class KeyOrder : uint8_t {
  kToken,     // storage order (token, then key bytes), as a scan returns them: SQL
  kKeyValue,  // the key components' value order, duplicates by value removed: CQL's IN
};

// What partition_keys() does with a key that cannot have been written.
enum class BadKey : uint8_t {
  kSkip,   // leave it out (a composite key with a component longer than 65535 bytes): SQL
  kError,  // fail with Cassandra's message ("Key may not be empty", "Key length of N is longer
           // than maximum of 65535"): CQL
};

// The keys of the cartesian product of `key_lists` (one list of serialized values per partition
// key column, in key order), deduplicated, in `order`. With `within`, keys whose token falls
// outside it are left out (after the BadKey check: a token restriction does not hide an invalid
// key). An empty list gives no keys.
Result<std::vector<PartitionKey>> partition_keys(
    const schema::TableDef& table, std::span<const std::vector<std::string>* const> key_lists,
    KeyOrder order, BadKey bad_key, const storage::TokenRange* within = nullptr);

// [start, end) over encoded clustering keys; an empty end: to the last row of the partition.
using ClusteringRange = std::pair<std::string, std::string>;

// One bound of a clustering slice: a tuple of values of consecutive clustering columns, starting
// at the first column after the prefix (one value for a single-column slice).
struct SliceBound {
  std::vector<std::string> values;
  bool inclusive = false;
};

// A slice after a clustering prefix, its bounds in the columns' value order.
struct SliceBounds {
  std::optional<SliceBound> lower, upper;
  bool descending = false;  // the first sliced column's order (its byte order is reversed)
  // The sliced columns mix ASC and DESC: only the first column bounds the read, inclusively; the
  // caller filters the rest (CQL's `(a, b) > (1, 2)` over a mixed-order key).
  bool only_first_column = false;
};

struct RangeOptions {
  // Sort the ranges and merge those that touch or overlap (reads). DELETE writes one range
  // tombstone per prefix as given.
  bool merge = true;
  // The empty prefix's range ends at an explicit bound (prefix_end_bound("")) rather than open:
  // a range tombstone stores its end.
  bool explicit_end = false;
};

// The clustering cartesian product of `tuple_lists`: each list holds alternative tuples of
// values of consecutive clustering columns (an EQ gives one tuple, an IN several, a
// multi-column IN tuples of several values); a prefix concatenates one tuple of each list, the
// last list varying fastest. No lists: one empty prefix; an empty list: none.
std::vector<std::vector<std::string>> clustering_prefixes(
    std::span<const std::vector<std::vector<std::string>>* const> tuple_lists);
// The same with single values (one clustering column per list).
std::vector<std::vector<std::string>> clustering_prefixes(
    std::span<const std::vector<std::string>* const> value_lists);

// The byte ranges of the rows whose clustering key starts with one of `prefixes` (each a list of
// values of the leading clustering columns) and, with a slice, lies within it. Empty ranges are
// left out; an empty result reads nothing. Fails when a value does not encode for its column.
Result<std::vector<ClusteringRange>> clustering_ranges(
    const schema::TableDef& table, std::span<const std::vector<std::string>> prefixes,
    const SliceBounds* slice, RangeOptions options = {});

class QueryCursor;

// Where a read stopped: the last row a cursor returned (QueryCursor::position()). An AccessPath
// resumed after it reads exactly the rows that follow it in the read's order; rows written in
// between are read when they lie after it, and no row is read twice.
struct ReadPosition {
  std::string partition_key;  // serialized
  std::string clustering;     // encoded; empty for a static-only row
  bool static_only = false;
};

// A check on each row a read finds, beyond what its keys and ranges decide (CQL: every
// predicate of the WHERE clause). It reads the row's values through the cursor, lazily.
class RowFilter {
 public:
  virtual ~RowFilter() = default;
  // Whether the cursor's current row is returned; an error ends the read with it.
  virtual Result<bool> matches(QueryCursor& row) = 0;
};

// An EQ or IN on a regular or static column (SQL's index scans): the row's value must equal
// one of `values` (serialized; a null value matches nothing).
struct EqualFilter {
  size_t column = 0;  // index in TableDef::columns
  std::vector<std::string> values;
};

// A read, fully bound: which partitions, which clustering ranges in each, in which order, and
// what to drop. bind() makes one from a SQL host's Plan; CQL SELECT fills one from its
// restrictions. QueryCursor::open(..., AccessPath) executes it.
struct AccessPath {
  enum class Partitions : uint8_t { kKeys, kTokenRange };
  Partitions partitions = Partitions::kTokenRange;
  std::vector<PartitionKey> keys;  // kKeys: the partitions in read order
  storage::TokenRange tokens;      // kTokenRange: the scan's tokens (unbounded: every partition)
  std::vector<ClusteringRange> ranges;  // sorted, disjoint; none: the read returns no row
  bool reverse_rows = false;            // each partition's rows in reverse clustering order
  bool reverse_partitions = false;      // kKeys: the keys in reverse order (SQL; CQL keeps them)
  // A partition with a live static row and no live row in the ranges is one static-only row.
  bool emit_static_only = true;
  // A scan with several ranges reads their hull, the filter dropping what lies between them
  // (CQL); without it such a path is an error (SQL plans never make one).
  bool scan_hull = false;
  std::vector<EqualFilter> equal_filters;
  std::shared_ptr<RowFilter> filter;
  // The columns whose values are read through the cursor (indexes in TableDef::columns): only
  // their cells' values are decoded (storage::ValueColumns). The filters' columns are added by
  // bind() and the cursor. nullopt: every column.
  std::optional<std::vector<size_t>> value_columns;
  std::optional<int64_t> limit;  // rows returned at most
  int64_t offset = 0;            // rows passed over first (after the filters)
  // Set by resume_after(): the read starts strictly after this row.
  std::optional<ReadPosition> after;

  // Makes the read continue after `position` (a row a read of this path returned): the next
  // page of a paged read. A LIMIT and OFFSET then count from there.
  void resume_after(ReadPosition position) { after = std::move(position); }
};

}  // namespace cassette::query
