// Sorting a transaction's rows by (table, entry key) before a spill writes them as a run
// (spill.h). A bulk load's rows fill few partitions, so most comparisons of a plain sort over the
// items would read the same partition prefix of two rows far apart in memory. The sort ranks
// the distinct (table, partition prefix) pairs first, distributes small records holding the rank
// and the 16 bytes after the prefix into one bucket per partition (a counting sort), and sorts
// each bucket by those bytes, so that only rows whose first 16 bytes of clustering tie read their
// keys again. A bucket that arrived in order, or in reverse order (a time series clustered
// DESC), is taken or reversed as it is. When most rows have a partition of their own it buckets
// by table and sorts records of the key's first 16 bytes instead. Either way the order is exactly
// that of (table, memcmp of the key), stable (items of one key keep their order); malformed keys
// (never the log's own) take the table path.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/txn/spill.h"

namespace cassette::txn {

// The indexes of `items` in (table, key) order, equal keys in index order. Returns whether some
// key is there more than once (false: no two neighbours in `order` have one key).
// REQUIRES: fewer than 2^32 items.
bool sort_order(std::span<const SortedRun::Item> items, std::vector<uint32_t>* order);
// `items` put in that order.
void sort_by_key(std::vector<SortedRun::Item>* items);

}  // namespace cassette::txn
