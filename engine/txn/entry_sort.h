// Sorting a transaction's folded rows by (table, entry key) before a spill writes them as a run
// (spill.h). A bulk load's rows fill few partitions, so most comparisons of a plain sort over the
// items would read the same partition prefix of two rows far apart in memory. sort_by_key() ranks
// the distinct (table, partition prefix) pairs first and sorts small records holding the rank and
// the 16 bytes after the prefix, so that only rows whose first 16 bytes of clustering tie read
// their keys again. When most rows have a partition of their own it sorts records of the table
// and the key's first 16 bytes instead. Either way the order is exactly that of (table, memcmp of
// the key); malformed keys (never the log's own) sort the plain way.
#pragma once

#include <vector>

#include "engine/txn/spill.h"

namespace cassette::txn {

void sort_by_key(std::vector<SortedRun::Item>* items);

}  // namespace cassette::txn
