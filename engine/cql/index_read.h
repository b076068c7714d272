// A SELECT that scans with a predicate an SAI component can answer (engine/schema/
// index_components.h) reads the index instead: the candidate partitions of every SSTable's
// component and the memtables, in token order, then those partitions through the normal read
// path with every predicate re-checked on the current rows (an older SSTable may still index a
// value since overwritten or deleted). With several indexed predicates one index is read (the
// first equality, else the first IN, else the first CONTAINS, else the first range) and the
// others are checked. An IN (which CQL accepts on an indexed column with ALLOW FILTERING, as
// Cassandra 5.0 does) reads one term per value.
// A table with an SSTable that lacks the component (written by a process that did not know the
// index yet, or while it was being built) is scanned as before.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/cql/execution_context.h"
#include "engine/cql/restrictions.h"
#include "engine/storage/sai_component.h"

namespace cassette::cql {

struct IndexRead {
  std::string component;
  storage::SaiColumn column;
  std::vector<storage::TermRange> ranges;  // one, or one per IN value
};

// The index read serving `restrictions` on `table`; nullopt: none applies.
std::optional<IndexRead> choose_index_read(const schema::TableDef& table,
                                           const SelectRestrictions& restrictions,
                                           const ExecutionContext& context);

}  // namespace cassette::cql
