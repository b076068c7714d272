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
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::query {

// One partition to read: its serialized key and the key's token.
struct PartitionKey {
  std::string key;
  int64_t token = 0;
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

}  // namespace cassette::query
