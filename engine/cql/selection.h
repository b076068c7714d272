// The selection of a SELECT: its selectors prepared against the table (columns, writetime()/
// ttl(), token(), native scalar functions, aggregates, CAST, toJson(), UDT field access,
// collection element and slice access, literal terms, aliases), the result columns as Cassandra
// names and types them ("writetime(v)", "system.token(k)", "count", "system.max(v)",
// "cast(v as text)"), and their evaluation on rows, one row at a time or aggregated over groups.
//
// In an aggregate query a selector that is not an aggregate takes its value from the first row
// of the group, as Cassandra does.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cql/aggregates.h"
#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/restrictions.h"
#include "engine/cql/result.h"
#include "engine/schema/schema.h"
#include "engine/storage/row.h"

namespace cassette::cql {

// What a selector can read of one result row.
struct SelectionRow {
  const RowValues* values = nullptr;         // by TableDef::columns index
  const storage::Row* row = nullptr;         // the clustering row (nullptr: static-only row)
  const storage::Row* static_row = nullptr;  // the partition's static row, if any
  int64_t token = 0;
  int64_t now_seconds = 0;
};

struct SelectorNode;

class Selection {
 public:
  // Prepares the statement's selectors (all columns for SELECT *). Errors as Cassandra's, e.g.
  //   Undefined column name x
  //   Cannot use selection function writeTime on PRIMARY KEY part k
  //   aggregate functions cannot be used as arguments of aggregate functions
  static Result<Selection> prepare(const schema::TableDef& table, const SelectStatement& statement,
                                   const ExecutionContext& context);

  // The first step of preparing a SELECT, before its WHERE clause (RawSelector.toSelectables):
  // every column the selectors name must exist ("Undefined column name x"). Returns whether
  // they select only static (and partition key) columns, with at least one static one
  // (SelectStatement.selectOnlyStaticColumns).
  static Result<bool> check_columns(const schema::TableDef& table,
                                    const SelectStatement& statement);

  Selection();
  ~Selection();
  Selection(Selection&&) noexcept;
  Selection& operator=(Selection&&) noexcept;

  // The result columns: the visible ones, then hidden ones added for ORDER BY.
  const std::vector<ResultColumn>& columns() const { return columns_; }
  size_t visible_count() const { return visible_count_; }
  bool is_wildcard() const { return wildcard_; }
  bool is_aggregate() const { return aggregate_; }
  // The table columns the selectors read (for the DISTINCT checks).
  const std::vector<const schema::ColumnDef*>& referenced_columns() const { return referenced_; }
  // The result index of a plain selection of `column`, adding a hidden one when there is none.
  size_t index_of_column(const schema::ColumnDef& column);
  // The prepared tree of selector `i` (selection_internal.h), for GROUP BY's function checks.
  const SelectorNode& node(size_t i) const;

  // Non-aggregate queries: the result values of one row.
  Result<std::vector<types::Value>> evaluate(const SelectionRow& row) const;

  // Aggregate queries (and GROUP BY): accumulate the rows of one group, then produce its row.
  class Group {
   public:
    explicit Group(const Selection& selection);
    Status add(const SelectionRow& row);
    Result<std::vector<types::Value>> result() const;
    bool empty() const { return !first_; }

   private:
    struct FirstRow;
    const Selection* selection_;
    std::vector<AggregateState> states_;
    std::shared_ptr<FirstRow> first_;
  };

 private:
  friend class SelectionBuilder;
  const schema::TableDef* table_ = nullptr;
  FunctionContext functions_;
  std::vector<std::unique_ptr<SelectorNode>> selectors_;
  std::vector<const SelectorNode*> aggregates_;  // aggregate nodes, in evaluation order
  std::vector<ResultColumn> columns_;
  size_t visible_count_ = 0;
  bool wildcard_ = false;
  bool aggregate_ = false;
  std::vector<const schema::ColumnDef*> referenced_;
};

// SELECT JSON: the JSON object of one row, keyed by the visible result column names (a name
// with upper-case characters is double-quoted inside the key, as Cassandra does).
std::string row_to_json(const std::vector<ResultColumn>& columns, size_t visible_count,
                        const std::vector<types::Value>& row);

}  // namespace cassette::cql
