// The rows of a read regrouped for SQLite's GROUP BY and DISTINCT.
//
// For GROUP BY and DISTINCT, SQLite asks a virtual table for the grouping columns as an ORDER BY
// that needs only group rows together (sqlite3_vtab_distinct() >= 1). When the clustering order
// cannot give that, SQLite would push every row through its external sorter. group_rows() does
// it for less: it reads the rows once, keeps the columns the statement uses in one buffer,
// gathers the rows of each group by hashing the grouping values, and returns them group after
// group, the groups sorted as SQLite orders those values. Sorted, not just grouped: for
// `GROUP BY x ORDER BY x` SQLite 3.40 takes a consumed GROUP BY for the ORDER BY too (it drops
// its own sort), although sqlite3_vtab_distinct() said only "grouped".
//
// Memory: the kept values, about 12 bytes per row and each partition key once. Past
// `memory_budget` bytes the rows move to an unlinked temporary file (a row read back from there
// costs a pread).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/query/query.h"

namespace cassette::sqlite {

struct GroupTerm {
  size_t column = 0;  // index in TableDef::columns
  bool descending = false;
};

// What group_rows() keeps of each row besides its identity (partition key and clustering, for
// xRowid): the token if asked, and the values, writetimes and TTLs of these columns (indexes in
// TableDef::columns).
struct KeptColumns {
  bool token = false;
  std::vector<size_t> values;
  std::vector<size_t> writetimes;
  std::vector<size_t> ttls;
};

// Whether rows can be grouped and ordered on a column of `type` as SQLite would: every value of
// the type maps to one SQLite value and back (equal bytes <=> equal SQL values), and SQLite's
// order of those values is known here. The integer types, boolean, text, ascii, blob, uuid and
// timeuuid (as text, whose order is their bytes' order).
bool groupable(const types::CqlType& type);

// Reads all of `parts` on the first next() and returns their rows grouped by `terms` (each
// groupable; their values are kept), groups in SQLite's order of their values (NULL first, DESC
// reversing it). The parts (disjoint reads of one snapshot, e.g. token ranges) are read at the
// same time, each but the first on a thread of its own; each gets an equal share of the budget.
std::unique_ptr<query::QueryCursor> group_rows(
    std::vector<std::unique_ptr<query::QueryCursor>> parts,
    std::shared_ptr<const schema::TableDef> table, std::vector<GroupTerm> terms, KeptColumns keep,
    size_t memory_budget);

}  // namespace cassette::sqlite
