// STATUS: interface stable
//
// The access-path planner both SQL hosts share (docs/ARCHITECTURE.md §4): constraints in, plan
// and cost out, then a streaming cursor that executes the plan. The SQLite virtual table
// (ext/sqlite) and the PostgreSQL foreign-data wrapper (ext/postgres) translate their hosts'
// constraint lists into a PlanRequest, ask plan_query() what the store can do cheaply, tell their
// host which constraints and which ORDER BY / LIMIT they consumed, and later open a QueryCursor
// with the plan and the constraint values bound. The cursor executes an AccessPath
// (access_path.h), which bind() makes from a plan and its values; CQL SELECT fills one itself and
// reads through the same cursor.
//
//   // SELECT * FROM events WHERE source = ? AND hour = ? AND ts < ? ORDER BY ts DESC LIMIT 50
//   PlanRequest request;
//   request.constraints = {{0, Operator::kEq}, {1, Operator::kEq}, {2, Operator::kLt},
//                          {-1, Operator::kLimit, true, 50}};
//   request.order_by = {{2, /*descending=*/true}};
//   TableStatistics stats = table_statistics(*snapshot, table);
//   Plan plan = plan_query(table, request, stats);
//   // plan.access == AccessKind::kPartitions, plan.order_satisfied, plan.argument_of = {0,1,2,3}
//   Bindings b;  b.values = {{source}, {hour}, {ts}};  b.limit = 50;
//   auto cursor = QueryCursor::open(store, snapshot, table_ptr, plan, std::move(b)).value();
//   while (cursor->next()) { cursor->value(4); cursor->writetime(4); cursor->token(); }
//   if (!cursor->status().is_ok()) ...
//
// Contract of a plan: every consumed constraint is guaranteed by the cursor (hosts may omit their
// own check of it); constraints not consumed must be checked by the host. The cursor returns
// exactly the rows a CQL SELECT of the whole table would return that satisfy the consumed
// constraints (static-only partitions included, as Cassandra returns them with null clustering
// and regular columns), in the order the plan says, streaming: memory is bounded whatever the
// table's size.
//
// Values are Cassandra's serialized form (types::Value); the hosts convert their own values.
// Comparisons use the column type's CQL order (so `ts < x` on a DESC clustering column is still
// "less than" in value order). A null bound value matches nothing, as in SQL.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/access_path.h"
#include "engine/schema/schema.h"
#include "engine/storage/store.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::query {

// The column index that stands for token(partition key) in a Constraint or OrderTerm.
constexpr int kTokenColumn = -1;

enum class Operator : uint8_t {
  kEq,
  kIn,  // the value is a list of values (SQLite: sqlite3_vtab_in; PostgreSQL: = ANY(array))
  kLt,
  kLe,
  kGt,
  kGe,
  kLimit,   // LIMIT n for the whole query (column ignored)
  kOffset,  // OFFSET n (column ignored)
};

// One restriction the host could hand over: `column <op> value` where column is an index into
// TableDef::columns (or kTokenColumn).
struct Constraint {
  int column = 0;
  Operator op = Operator::kEq;
  bool usable = true;  // false: the host cannot supply a value for this plan (SQLite's `usable`)
  // The value when the host knows it at plan time (LIMIT/OFFSET: the row count; IN: the number
  // of values). Only used for estimates.
  std::optional<int64_t> known_count;
};

struct OrderTerm {
  int column = 0;  // index into TableDef::columns, or kTokenColumn
  bool descending = false;
};

struct PlanRequest {
  std::vector<Constraint> constraints;
  std::vector<OrderTerm> order_by;  // empty: any order will do
  // Regular columns with a secondary index (Schema::indexes_on): EQ on them may be consumed.
  std::vector<int> indexed_columns;
};

// What the store knows about a table's size (an estimate: memtable entries count versions, not
// rows, and SSTables may overlap).
struct TableStatistics {
  double rows = 0;        // clustering rows plus static-only partitions
  double partitions = 0;  // distinct partition keys
  double sstables = 0;
  double bytes = 0;  // uncompressed entry bytes (memtable rows taken at the SSTables' mean)
  bool has_clustering = false;
};

// Gathers statistics from the SSTables' statistics blocks and the memtables of a snapshot.
TableStatistics table_statistics(const storage::Snapshot& snapshot, const schema::TableDef& table);

enum class AccessKind : uint8_t {
  kPartitions,  // one or more partitions by complete partition key (EQ / IN on every component)
  kTokenRange,  // a scan of a token range (token(...) bounds)
  kIndexScan,   // EQ on an indexed regular column: the candidate partitions the index's
                // SAI components name (a filtered scan when an SSTable lacks them)
  kFullScan,    // every partition in token order
};

struct Plan {
  AccessKind access = AccessKind::kFullScan;
  // The constraints the cursor enforces, in the order their values are bound (Bindings::values):
  // first every column/token constraint, then LIMIT, then OFFSET.
  std::vector<Constraint> arguments;
  bool limit_consumed = false;   // Bindings::limit must be set
  bool offset_consumed = false;  // Bindings::offset must be set
  // For each constraint of the request: its position among the bound arguments (LIMIT and OFFSET
  // included, counted after the column arguments), or -1 when the host must check it itself.
  std::vector<int> argument_of;
  // The ORDER BY of the request holds for the rows the cursor returns (hosts: orderByConsumed).
  bool order_satisfied = false;
  bool reverse = false;  // read in reverse storage order
  // How many leading clustering columns are restricted by EQ/IN arguments, and whether the next
  // one is sliced (for explain()).
  int clustering_prefix = 0;
  bool clustering_slice = false;
  // The columns whose values the host reads (indexes into TableDef::columns, ascending: SQLite's
  // colUsed); the cursor decodes no other cell values. nullopt: every column. The host must
  // not ask for another column's value (the cursor then fails with Internal).
  std::optional<std::vector<int>> value_columns;

  double estimated_rows = 0;  // rows the cursor returns
  double estimated_cost = 0;  // in "rows touched" units: comparable between plans of all tables

  // A one-line description for EXPLAIN output, e.g.
  //   "partition lookup on (source, hour), clustering slice on ts, reversed, limit"
  std::string explain(const schema::TableDef& table) const;
  // A compact, readable text form that decode() turns back into the same plan (SQLite's idxStr,
  // shown by EXPLAIN QUERY PLAN; PostgreSQL's fdw_private), argument_of and estimates aside:
  //   <access> [<argument>...] [reverse] [limit] [offset] [values(<column>,...)]
  //   access   = partitions | token-range | index | scan
  //   argument = <column name><op> with op one of = < <= > >= " IN"; token() for the token
  //   values   = value_columns, when not every column
  //   e.g. "partitions source= hour= ts< reverse limit", "token-range token()>= token()<",
  //        "scan values(ts,kind)"
  // Column names that need quoting in CQL are double-quoted.
  std::string encode(const schema::TableDef& table) const;
  static Result<Plan> decode(std::string_view text, const schema::TableDef& table);
};

// Chooses the cheapest access path for the request. Never fails: with nothing usable it returns
// a full scan. Constraints on columns the store cannot use are left to the host.
Plan plan_query(const schema::TableDef& table, const PlanRequest& request,
                const TableStatistics& statistics);

// The values bound to a plan's arguments: values[i] goes with plan.arguments[i]; an EQ or range
// argument has exactly one value, an IN argument any number (duplicates and nulls allowed).
struct Bindings {
  std::vector<std::vector<types::Value>> values;
  std::optional<int64_t> limit;
  std::optional<int64_t> offset;
  // By column (TableDef::columns): the text analysis of the index an index scan reads for EQ/IN
  // on it (schema::sai_column_analyses; the values are analyzed as the index's terms were, and
  // the filter still compares them as written). Empty, or 0: the values as written.
  std::vector<uint8_t> index_analysis;
};

// The access path a plan reads with its values bound: partitions in token order (reversed with
// the plan), keys that cannot exist skipped, EQ filters on regular and static columns, static-only
// rows unless a clustering column is restricted. Fails with InvalidArgument when the bindings do
// not fit the plan (count, or a value that is not a valid serialized value of its column's type:
// hosts convert before binding).
Result<AccessPath> bind(const schema::TableDef& table, const Plan& plan, Bindings bindings);

// Executes an access path: a stream of rows. Not thread-safe; one cursor per scan.
class QueryCursor {
 public:
  // open(..., plan, bindings) is open(..., bind(*table, plan, bindings)).
  static Result<std::unique_ptr<QueryCursor>> open(
      const storage::Store& store, std::shared_ptr<const storage::Snapshot> snapshot,
      std::shared_ptr<const schema::TableDef> table, const Plan& plan, Bindings bindings);
  // Fails with InvalidArgument when a scan path has several ranges without scan_hull, or a
  // resumed path's position is not a partition of its keys.
  static Result<std::unique_ptr<QueryCursor>> open(
      const storage::Store& store, std::shared_ptr<const storage::Snapshot> snapshot,
      std::shared_ptr<const schema::TableDef> table, AccessPath path);
  virtual ~QueryCursor() = default;

  // Advances to the next row. False at the end or on error (then status() says which).
  virtual bool next() = 0;
  virtual const Status& status() const = 0;

  // The current row. REQUIRES: next() returned true. Views stay valid until the next next().
  virtual int64_t token() const = 0;
  // The serialized value of column `column` (index in TableDef::columns), nullopt for null.
  // Decoded lazily, only for the columns asked for.
  virtual std::optional<std::string_view> value(size_t column) = 0;
  // The current row's values by column, for a host that reads several a row: [i] is value(i),
  // with data() == nullptr for null, for every column the path reads (AccessPath::value_columns;
  // the others are unspecified). Valid until the next next(). nullptr: on error (status()), or
  // from a cursor without it (then value()).
  virtual const std::string_view* row_values() { return nullptr; }
  // Whether a NUL byte follows every view value() returns (they view std::strings): a host that
  // hands text on as C strings can skip a terminating copy.
  virtual bool values_nul_terminated() const { return false; }
  // writetime() in microseconds and remaining ttl() in seconds of a non-key column's cell
  // (nullopt: no live cell, no TTL, or a non-frozen collection, as CQL's writetime()/ttl()).
  virtual std::optional<int64_t> writetime(size_t column) const = 0;
  virtual std::optional<int64_t> ttl(size_t column) const = 0;
  // Raw identity of the row: serialized partition key and encoded clustering key (empty for a
  // static-only row). Hosts use them as row ids for UPDATE and DELETE.
  virtual const std::string& partition_key() const = 0;
  virtual const std::string& clustering() const = 0;
  virtual bool is_static_only() const = 0;
  // The current row as a position to resume a read after (AccessPath::resume_after).
  ReadPosition position() const { return {partition_key(), clustering(), is_static_only()}; }

  // Skips the rest of the current partition: the next next() returns the next partition's first
  // row (CQL's DISTINCT, PER PARTITION LIMIT and GROUP BY). A cursor that cannot skip reads on.
  virtual void skip_partition() {}
  // The stored clustering row (nullptr for a static-only row) and the partition's static row
  // (nullptr when none) of the current row, for CQL's writetime()/ttl() selectors; nullptr from
  // a cursor that does not read rows from the store itself.
  virtual const storage::Row* stored_row() const { return nullptr; }
  virtual const storage::Row* stored_static_row() const { return nullptr; }
};

}  // namespace cassette::query
