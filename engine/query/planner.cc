// plan_query(): the access-path choice, written as a small table of cases.
//
//   complete partition key by EQ/IN     -> kPartitions (+ clustering prefix EQ/IN, then one slice)
//   token(...) bounds                   -> kTokenRange (+ clustering EQ prefix and slice per
//                                          partition)
//   EQ or IN on an indexed regular column -> kIndexScan (the index's SAI components, one term
//                                          per value, then the candidate partitions); a range
//                                          (<, <=, >, >=, BETWEEN) on an indexed number, date,
//                                          time or inet column when it costs less than the scan
//                                          -> kIndexScan (one term range)
//                                          per value, then the candidate partitions)
//   otherwise                           -> kFullScan   (+ clustering EQ prefix and slice per
//                                          partition)
//
// Costs are in rows touched plus a fixed price per partition seek, from the store's statistics
// (floored at a nominal table size so an empty table plans like a small one, never free).
#include <algorithm>
#include <cmath>

#include "engine/query/query.h"
#include "engine/schema/index_components.h"

namespace cassette::query {

namespace {

using schema::ColumnDef;
using schema::ColumnKind;
using schema::TableDef;

constexpr double kSeekCost = 20;         // locating one partition: bloom filters, index, a block
constexpr double kNominalRows = 1000;    // the smallest table size costs are computed for
constexpr double kDefaultInValues = 5;   // IN list size when the host does not know it yet
constexpr double kOneSidedSlice = 0.25;  // fraction of a partition one range bound keeps
constexpr double kTwoSidedSlice = 0.0625;
constexpr double kIndexSelectivity = 0.1;
constexpr double kIndexRowsPerValue = 10;  // rows an indexed EQ matches (SQLite's guess too)
// The rows an indexed range keeps without statistics of the values: SQLite's own guess for a
// range on an index it has not analysed (each bound a quarter, both 1/64).
constexpr double kIndexOneSidedRange = 0.25;
constexpr double kIndexTwoSidedRange = 1.0 / 64;

bool is_range(Operator op) {
  return op == Operator::kLt || op == Operator::kLe || op == Operator::kGt || op == Operator::kGe;
}
bool is_lower(Operator op) {
  return op == Operator::kGt || op == Operator::kGe;
}

struct Builder {
  const TableDef& table;
  const PlanRequest& request;
  std::vector<int> chosen;  // indices into request.constraints, in argument order
  std::vector<bool> used;

  Builder(const TableDef& t, const PlanRequest& r)
      : table(t), request(r), used(r.constraints.size(), false) {}

  // The first usable, unused constraint on `column` with an operator `accept` takes.
  template <typename Accept>
  int find(int column, Accept accept) const {
    for (size_t i = 0; i < request.constraints.size(); ++i) {
      const Constraint& c = request.constraints[i];
      if (!used[i] && c.usable && c.column == column && accept(c.op)) return static_cast<int>(i);
    }
    return -1;
  }
  void take(int index) {
    used[static_cast<size_t>(index)] = true;
    chosen.push_back(index);
  }
  double in_count(int index) const {
    const Constraint& c = request.constraints[static_cast<size_t>(index)];
    if (c.op != Operator::kIn) return 1;
    return c.known_count ? std::max<double>(1, static_cast<double>(*c.known_count))
                         : kDefaultInValues;
  }
  // Takes a lower and an upper bound on `column` when there are; returns the kept fraction.
  double take_slice(int column, bool* sliced) {
    int lower = find(column, [](Operator op) { return is_lower(op); });
    int upper = find(column, [](Operator op) { return is_range(op) && !is_lower(op); });
    if (lower >= 0) take(lower);
    if (upper >= 0) take(upper);
    *sliced = lower >= 0 || upper >= 0;
    if (lower >= 0 && upper >= 0) return kTwoSidedSlice;
    return *sliced ? kOneSidedSlice : 1.0;
  }
};

int column_index(const TableDef& table, const ColumnDef* column) {
  return static_cast<int>(column - table.columns.data());
}

// Whether `order_by` holds for rows read from one partition (or from every partition when
// `single_partition` is false: then only a token order can hold). Sets *reverse.
bool order_holds(const TableDef& table, const std::vector<OrderTerm>& order_by,
                 const std::vector<bool>& constant_clustering, int first_free_clustering,
                 bool single_partition, bool token_order_only, bool* reverse) {
  *reverse = false;
  if (order_by.empty()) return true;
  std::optional<bool> reversed;
  auto agree = [&](bool r) {
    if (reversed && *reversed != r) return false;
    reversed = r;
    return true;
  };
  if (!single_partition) {
    // Rows come in token order; only ORDER BY token is satisfied.
    if (!token_order_only) return false;
    for (const OrderTerm& t : order_by) {
      if (t.column != kTokenColumn || !agree(t.descending)) return false;
    }
    *reverse = reversed.value_or(false);
    return true;
  }
  size_t next = 0;  // the next clustering position the ORDER BY may name
  for (const OrderTerm& t : order_by) {
    if (t.column == kTokenColumn) continue;  // constant in one partition
    if (t.column < 0 || static_cast<size_t>(t.column) >= table.columns.size()) return false;
    const ColumnDef& c = table.columns[static_cast<size_t>(t.column)];
    if (c.kind == ColumnKind::kPartitionKey) continue;
    if (c.kind != ColumnKind::kClustering) return false;
    size_t position = static_cast<size_t>(c.position);
    if (position < next) {
      // Already ordered by an earlier term: a repeat, or a constant column.
      if (!constant_clustering[position]) return false;
      continue;
    }
    while (next < position) {
      if (!constant_clustering[next]) return false;
      ++next;
    }
    ++next;
    if (constant_clustering[position]) continue;
    if (!agree(t.descending != c.descending)) return false;
  }
  (void)first_free_clustering;
  *reverse = reversed.value_or(false);
  return true;
}

}  // namespace

Plan plan_query(const TableDef& table, const PlanRequest& request,
                const TableStatistics& statistics) {
  Builder b(table, request);
  Plan plan;

  const double rows = std::max(statistics.rows, kNominalRows);
  double rows_per_partition = 1;
  if (statistics.partitions >= 1 && statistics.rows >= 1) {
    rows_per_partition = std::max(1.0, statistics.rows / statistics.partitions);
  } else if (!table.clustering().empty()) {
    rows_per_partition = 10;
  }
  const double partitions = std::max(1.0, rows / rows_per_partition);

  // ---- partitions by key ----
  std::vector<int> key_constraints;
  double partition_count = 1;
  bool has_in = false;
  for (const ColumnDef* c : table.partition_key()) {
    int index = b.find(column_index(table, c), [](Operator op) { return op == Operator::kEq; });
    if (index < 0) {
      index = b.find(column_index(table, c), [](Operator op) { return op == Operator::kIn; });
      has_in = has_in || index >= 0;
    }
    if (index < 0) {
      key_constraints.clear();
      break;
    }
    key_constraints.push_back(index);
    partition_count *= b.in_count(index);
  }
  const bool by_key = !key_constraints.empty();
  if (by_key) {
    plan.access = AccessKind::kPartitions;
    for (int index : key_constraints) b.take(index);
  }

  // ---- token range (only when the key is not given) ----
  double token_fraction = 1;
  if (!by_key) {
    int eq = b.find(kTokenColumn, [](Operator op) { return op == Operator::kEq; });
    if (eq >= 0) {
      b.take(eq);
      plan.access = AccessKind::kTokenRange;
      token_fraction = 1 / partitions;
    } else {
      bool sliced = false;
      double kept = b.take_slice(kTokenColumn, &sliced);
      if (sliced) {
        plan.access = AccessKind::kTokenRange;
        token_fraction = kept == kOneSidedSlice ? 0.5 : 0.25;
      }
    }
  }

  // ---- clustering prefix and slice ----
  const std::vector<const ColumnDef*>& clustering = table.clustering();
  std::vector<bool> constant_clustering(clustering.size(), false);
  double row_fraction = 1;  // of a partition's rows
  double clustering_in = 1;
  size_t position = 0;
  for (; position < clustering.size(); ++position) {
    int column = column_index(table, clustering[position]);
    int index = b.find(column, [](Operator op) { return op == Operator::kEq; });
    if (index >= 0) {
      constant_clustering[position] = true;
    } else if (by_key) {
      // Several clustering prefixes need one read per prefix: only for partition lookups.
      index = b.find(column, [](Operator op) { return op == Operator::kIn; });
      if (index >= 0) clustering_in *= b.in_count(index);
    }
    if (index < 0) break;
    b.take(index);
    ++plan.clustering_prefix;
  }
  if (!clustering.empty()) {
    if (position == clustering.size()) {
      row_fraction = 1 / rows_per_partition;
    } else {
      // Each restricted column divides the partition by an equal share of its fan-out.
      row_fraction = std::pow(rows_per_partition, -static_cast<double>(position) /
                                                      static_cast<double>(clustering.size()));
      bool sliced = false;
      row_fraction *= b.take_slice(column_index(table, clustering[position]), &sliced);
      plan.clustering_slice = sliced;
    }
  }
  row_fraction = std::min(1.0, row_fraction * clustering_in);

  // ---- an indexed column, for scans ----
  double index_fraction = 1;
  int index_terms = 0;
  double index_values = 1;  // the terms read: an IN reads one per value
  if (!by_key && plan.access != AccessKind::kTokenRange) {
    for (int column : request.indexed_columns) {
      int index = b.find(column, [](Operator op) { return op == Operator::kEq; });
      if (index < 0) index = b.find(column, [](Operator op) { return op == Operator::kIn; });
      if (index < 0) continue;
      const double values = b.in_count(index);
      b.take(index);
      plan.access = AccessKind::kIndexScan;
      index_fraction *= std::min(1.0, kIndexSelectivity * values);
      index_values *= values;
      ++index_terms;
    }
  }
  // Without an indexed EQ or IN: a range on an indexed column whose index answers ranges (not
  // float or double: SQL's zero is both of their zeros, which the index keeps apart), read as
  // one term range when its candidates' lookups cost less than scanning every row.
  double index_range = 1;  // the fraction of the rows an indexed range keeps; 1: none
  if (!by_key && plan.access != AccessKind::kTokenRange && index_terms == 0) {
    for (int column : request.indexed_columns) {
      const types::CqlType& type = table.columns[static_cast<size_t>(column)].type;
      if (!schema::sai_supports_ranges(type) || type.kind == types::TypeKind::kFloat ||
          type.kind == types::TypeKind::kDouble) {
        continue;
      }
      const bool lower = b.find(column, [](Operator op) { return is_lower(op); }) >= 0;
      const bool upper =
          b.find(column, [](Operator op) { return is_range(op) && !is_lower(op); }) >= 0;
      if (!lower && !upper) continue;
      const double kept = lower && upper ? kIndexTwoSidedRange : kIndexOneSidedRange;
      const double matched = rows * kept;
      const double parts = std::max(1.0, matched / rows_per_partition);
      const double sstables = std::max(1.0, statistics.sstables);
      const double index_cost = (sstables + parts) * kSeekCost + std::log2(rows) * sstables +
                                parts * std::max(1.0, rows_per_partition * row_fraction);
      const double scan_cost = kSeekCost * (1 + (row_fraction < 1 ? partitions : 0)) +
                               partitions * std::max(1.0, rows_per_partition * row_fraction);
      if (index_cost >= scan_cost) continue;
      bool sliced = false;
      b.take_slice(column, &sliced);
      plan.access = AccessKind::kIndexScan;
      index_range = kept;
      break;
    }
  }

  // ---- order ----
  const bool single_partition = by_key && !has_in;
  plan.order_satisfied =
      order_holds(table, request.order_by, constant_clustering, static_cast<int>(position),
                  single_partition, !by_key, &plan.reverse);
  if (!plan.order_satisfied) plan.reverse = false;

  // ---- LIMIT / OFFSET: only when every other constraint is enforced here ----
  bool all_consumed = true;
  int limit = -1, offset = -1;
  for (size_t i = 0; i < request.constraints.size(); ++i) {
    Operator op = request.constraints[i].op;
    if (op == Operator::kLimit) {
      if (limit < 0 && request.constraints[i].usable) limit = static_cast<int>(i);
    } else if (op == Operator::kOffset) {
      if (offset < 0 && request.constraints[i].usable) offset = static_cast<int>(i);
    } else if (!b.used[i]) {
      all_consumed = false;
    }
  }
  double limit_rows = -1;
  if (all_consumed && plan.order_satisfied && limit >= 0) {
    plan.limit_consumed = true;
    const auto& l = request.constraints[static_cast<size_t>(limit)];
    double skip = 0;
    if (offset >= 0) {
      plan.offset_consumed = true;
      const auto& o = request.constraints[static_cast<size_t>(offset)];
      if (o.known_count) skip = std::max<double>(0, static_cast<double>(*o.known_count));
    }
    if (l.known_count) limit_rows = std::max<double>(0, static_cast<double>(*l.known_count)) + skip;
  }

  // ---- arguments, in binding order ----
  plan.argument_of.assign(request.constraints.size(), -1);
  for (int index : b.chosen) {
    plan.argument_of[static_cast<size_t>(index)] = static_cast<int>(plan.arguments.size());
    plan.arguments.push_back(request.constraints[static_cast<size_t>(index)]);
  }
  int next_argument = static_cast<int>(plan.arguments.size());
  if (plan.limit_consumed) plan.argument_of[static_cast<size_t>(limit)] = next_argument++;
  if (plan.offset_consumed) plan.argument_of[static_cast<size_t>(offset)] = next_argument++;

  // ---- estimates ----
  double touched = 0, seeks = 0, returned = 0;
  switch (plan.access) {
    case AccessKind::kPartitions:
      seeks = partition_count * std::max(1.0, clustering_in);
      touched = partition_count * rows_per_partition * row_fraction;
      returned = touched;
      break;
    case AccessKind::kIndexScan: {
      // The index components (one binary search per SSTable and a scan of the memtable), then
      // one partition lookup per candidate. Without statistics of distinct values an EQ is taken
      // to match about as many rows as SQLite assumes of an index it has not analysed.
      double matched = index_range < 1
                           ? rows * index_range
                           : std::min(rows * std::pow(kIndexSelectivity, index_terms),
                                      kIndexRowsPerValue * static_cast<double>(index_terms)) *
                                 index_values;
      matched = std::min(matched, rows);
      double parts = std::max(1.0, matched / rows_per_partition);
      seeks = std::max(1.0, statistics.sstables) * index_values + parts;
      touched = std::log2(rows) * std::max(1.0, statistics.sstables) * index_values +
                parts * std::max(1.0, rows_per_partition * row_fraction);
      returned = matched * row_fraction;
      break;
    }
    case AccessKind::kTokenRange:
    case AccessKind::kFullScan: {
      double parts = partitions * token_fraction;
      seeks = 1 + (row_fraction < 1 ? parts : 0);
      // A clustering slice still visits every partition of the range, but skips its rows.
      touched = parts * std::max(1.0, rows_per_partition * row_fraction);
      returned = parts * rows_per_partition * row_fraction * index_fraction;
      break;
    }
  }
  if (limit_rows >= 0) {
    touched = std::min(touched, limit_rows);
    returned = std::min(returned, limit_rows);
  }
  plan.estimated_rows = std::max(1.0, returned);
  plan.estimated_cost = seeks * kSeekCost + touched;
  return plan;
}

}  // namespace cassette::query
