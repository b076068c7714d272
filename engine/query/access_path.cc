// Partition keys and clustering ranges from bound values (access_path.h).
#include "engine/query/access_path.h"

#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/storage/internal_key.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/murmur3.h"
#include "engine/types/partition_key.h"

namespace cassette::query {

namespace {

using schema::ColumnDef;
using schema::TableDef;

void append(std::vector<std::string>& out, const std::string& value) {
  out.push_back(value);
}
void append(std::vector<std::string>& out, const std::vector<std::string>& tuple) {
  out.insert(out.end(), tuple.begin(), tuple.end());
}

// Calls f(combination) for each combination of the cartesian product of `lists` (one element of
// each list appended in turn, the last list varying fastest) until f fails; none when a list is
// empty, one empty combination when there are no lists.
template <typename Element, typename F>
Status for_each_combination(std::span<const std::vector<Element>* const> lists, F&& f) {
  bool single = true;  // the usual case (all EQ): one combination, no counters
  for (const std::vector<Element>* list : lists) {
    if (list->empty()) return Status::ok();
    single = single && list->size() == 1;
  }
  std::vector<std::string> combination;
  if (single) {
    for (const std::vector<Element>* list : lists) append(combination, list->front());
    return f(combination);
  }
  std::vector<size_t> at(lists.size(), 0);
  while (true) {
    combination.clear();
    for (size_t i = 0; i < lists.size(); ++i) append(combination, (*lists[i])[at[i]]);
    CASSETTE_RETURN_IF_ERROR(f(combination));
    size_t i = lists.size();
    while (i > 0 && ++at[i - 1] == lists[i - 1]->size()) at[--i] = 0;
    if (i == 0) return Status::ok();
  }
}

template <typename Element>
std::vector<std::vector<std::string>> product(std::span<const std::vector<Element>* const> lists) {
  std::vector<std::vector<std::string>> out;
  (void)for_each_combination(lists, [&](const std::vector<std::string>& combination) {
    out.push_back(combination);
    return Status::ok();
  });
  return out;
}

// BadKey::kError: QueryProcessor.validateKey, a serialized key is not empty and at most 65535
// bytes (a composite key counts 3 bytes of framing per component).
Status validate_key(std::span<const std::string> components) {
  if (components.size() == 1 && components[0].empty()) {
    return Status::invalid_argument("Key may not be empty");
  }
  size_t length = 0;
  for (const std::string& component : components) {
    length += components.size() > 1 ? component.size() + 3 : component.size();
  }
  if (length > 0xFFFF) {
    return Status::invalid_argument(
        fmt::format("Key length of {} is longer than maximum of 65535", length));
  }
  return Status::ok();
}

// BadKey::kSkip: a composite key whose component is too long for its framing cannot exist.
bool key_can_exist(std::span<const std::string> components) {
  if (components.size() == 1) return true;
  for (const std::string& component : components) {
    if (component.size() > types::kMaxPartitionKeyComponentSize) return false;
  }
  return true;
}

bool token_within(int64_t t, const storage::TokenRange& range) {
  if (range.start && (t < *range.start || (t == *range.start && !range.start_inclusive))) {
    return false;
  }
  return !(range.end && (t > *range.end || (t == *range.end && !range.end_inclusive)));
}

// Storage order: by partition prefix (token, then the escaped key), duplicates removed.
void sort_by_token(std::vector<PartitionKey>& keys) {
  if (keys.size() < 2) return;
  std::vector<std::pair<std::string, size_t>> order;
  order.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    order.emplace_back(storage::partition_prefix(keys[i].token, keys[i].key), i);
  }
  std::sort(order.begin(), order.end());
  std::vector<PartitionKey> sorted;
  sorted.reserve(keys.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && order[i].first == order[i - 1].first) continue;
    sorted.push_back(std::move(keys[order[i].second]));
  }
  keys = std::move(sorted);
}

// Cassandra builds IN keys into a sorted set: key value order, no duplicates by value.
void sort_by_value(const TableDef& table, std::vector<std::vector<std::string>>& tuples) {
  const std::vector<const ColumnDef*>& key = table.layout().partition_key;
  auto less = [&](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (size_t i = 0; i < key.size(); ++i) {
      int c = types::compare_values(key[i]->type, a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return false;
  };
  std::sort(tuples.begin(), tuples.end(), less);
  tuples.erase(
      std::unique(tuples.begin(), tuples.end(),
                  [&](const auto& a, const auto& b) { return !less(a, b) && !less(b, a); }),
      tuples.end());
}

}  // namespace

Result<std::vector<PartitionKey>> partition_keys(
    const TableDef& table, std::span<const std::vector<std::string>* const> key_lists,
    KeyOrder order, BadKey bad_key, const storage::TokenRange* within) {
  std::vector<PartitionKey> keys;
  auto add_key = [&](std::span<const std::string> tuple) -> Status {
    if (bad_key == BadKey::kError) {
      CASSETTE_RETURN_IF_ERROR(validate_key(tuple));
    } else if (!key_can_exist(tuple)) {
      return Status::ok();
    }
    std::string bytes = cql::partition_key_bytes(tuple);
    int64_t token = types::murmur3_token(bytes);
    if (within && !token_within(token, *within)) return Status::ok();
    keys.push_back({std::move(bytes), token});
    return Status::ok();
  };
  if (order == KeyOrder::kToken) {
    // Sorted after building: no tuples kept.
    CASSETTE_RETURN_IF_ERROR(for_each_combination(
        key_lists, [&](const std::vector<std::string>& tuple) { return add_key(tuple); }));
    sort_by_token(keys);
    return keys;
  }
  // Key-value order: the tuples sorted first, the checks then run in that order.
  std::vector<std::vector<std::string>> tuples = product(key_lists);
  sort_by_value(table, tuples);
  keys.reserve(tuples.size());
  for (const std::vector<std::string>& tuple : tuples) CASSETTE_RETURN_IF_ERROR(add_key(tuple));
  return keys;
}

std::vector<std::vector<std::string>> clustering_prefixes(
    std::span<const std::vector<std::vector<std::string>>* const> tuple_lists) {
  return product(tuple_lists);
}

std::vector<std::vector<std::string>> clustering_prefixes(
    std::span<const std::vector<std::string>* const> value_lists) {
  return product(value_lists);
}

namespace {

// Narrows `range` (the rows of `prefix`) to a slice bound: in value order `is_lower` or not, and
// in byte order the reverse on a DESC column.
Status apply_bound(const TableDef& table, const std::vector<std::string>& prefix,
                   const SliceBound& b, bool is_lower, const SliceBounds& slice,
                   ClusteringRange& range) {
  std::vector<std::string> values = prefix;
  bool inclusive = b.inclusive;
  if (slice.only_first_column) {
    values.push_back(b.values.front());
    inclusive = true;
  } else {
    values.insert(values.end(), b.values.begin(), b.values.end());
  }
  CASSETTE_ASSIGN_OR_RETURN(std::string key, cql::clustering_key_bytes(table, values));
  if (is_lower != slice.descending) {
    range.first = inclusive ? std::move(key) : types::prefix_end_bound(key);
  } else {
    range.second = inclusive ? types::prefix_end_bound(key) : std::move(key);
  }
  return Status::ok();
}

// Sorted, disjoint ranges (an empty end means "to the last row").
void merge_ranges(std::vector<ClusteringRange>& ranges) {
  if (ranges.size() < 2) return;  // nothing to sort or merge (the usual single range)
  std::sort(ranges.begin(), ranges.end());
  std::vector<ClusteringRange> merged;
  for (ClusteringRange& r : ranges) {
    if (!merged.empty() && (merged.back().second.empty() || r.first <= merged.back().second)) {
      if (r.second.empty() || merged.back().second.empty()) {
        merged.back().second.clear();
      } else {
        merged.back().second = std::max(merged.back().second, r.second);
      }
      continue;
    }
    merged.push_back(std::move(r));
  }
  ranges = std::move(merged);
}

}  // namespace

Result<std::vector<ClusteringRange>> clustering_ranges(
    const TableDef& table, std::span<const std::vector<std::string>> prefixes,
    const SliceBounds* slice, RangeOptions options) {
  std::vector<ClusteringRange> ranges;
  ranges.reserve(prefixes.size());
  for (const std::vector<std::string>& prefix : prefixes) {
    ClusteringRange range;
    CASSETTE_ASSIGN_OR_RETURN(range.first, cql::clustering_key_bytes(table, prefix));
    if (!prefix.empty() || options.explicit_end)
      range.second = types::prefix_end_bound(range.first);
    if (slice && slice->lower) {
      CASSETTE_RETURN_IF_ERROR(apply_bound(table, prefix, *slice->lower, true, *slice, range));
    }
    if (slice && slice->upper) {
      CASSETTE_RETURN_IF_ERROR(apply_bound(table, prefix, *slice->upper, false, *slice, range));
    }
    if (!range.second.empty() && range.first >= range.second) continue;  // empty
    ranges.push_back(std::move(range));
  }
  if (options.merge) merge_ranges(ranges);
  return ranges;
}

}  // namespace cassette::query
