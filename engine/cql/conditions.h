// Lightweight transactions: IF EXISTS, IF NOT EXISTS and IF c op v AND ... on INSERT, UPDATE,
// DELETE and BATCH, as Cassandra's ColumnCondition/Conditions and CQL3CasRequest. Conditions are
// checked against the current row read under the store's write lock (Store::apply_prepared),
// and the statement answers one row: [applied], plus, when not applied, the current values of
// the columns the conditions name (all columns for IF EXISTS / IF NOT EXISTS).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/modification.h"
#include "engine/cql/result.h"
#include "engine/schema/schema.h"

namespace cassette::cql {

struct ColumnCondition {
  const schema::ColumnDef* column = nullptr;
  enum class Target { kValue, kElement, kField } target = Target::kValue;
  std::string element;  // kElement: list index (int32) or map key
  size_t field = 0;     // kField
  Operator op = Operator::kEq;
  types::Value value;                   // for every operator but IN
  std::vector<types::Value> in_values;  // IN
};

struct PreparedConditions {
  enum class Kind { kNone, kIfExists, kIfNotExists, kColumns };
  Kind kind = Kind::kNone;
  std::vector<ColumnCondition> conditions;

  bool empty() const { return kind == Kind::kNone; }
  // The columns the conditions name, once each: regular columns in the order of the IF clause,
  // then static ones (the order Cassandra answers them in when a condition does not apply).
  std::vector<const schema::ColumnDef*> columns() const;
  bool applies_to_regular_columns() const;
  bool applies_to_static_columns() const;
};

// Checks IF clauses against the schema and evaluates their values, with Cassandra's messages
// ("PRIMARY KEY column 'k' cannot have IF conditions", "Conditions on counters are not
// supported", ...). Statement-level rules (counter tables, USING TIMESTAMP) are the caller's.
Result<PreparedConditions> prepare_conditions(const schema::TableDef& table, bool if_exists,
                                              bool if_not_exists,
                                              const std::vector<Condition>& conditions,
                                              const ExecutionContext& context);

// Whether the conditions hold for the current state of the row (`row` nullopt: no live row;
// `static_row` the partition's static row). `row_exists` says whether the row the statement
// targets exists (a live clustering row, or for static-only statements a live partition).
Result<bool> conditions_apply(const PreparedConditions& conditions, const CurrentRow& current,
                              bool row_exists);

// The values of `columns` in the current row, for the result of a condition that did not apply.
// `partition_values` and `clustering_values` give the key columns.
std::vector<types::Value> current_values(const std::vector<const schema::ColumnDef*>& columns,
                                         const std::vector<std::string>& partition_values,
                                         const std::vector<std::string>& clustering_values,
                                         const CurrentRow& current);

// The [applied] column.
ResultColumn applied_column();

// Every column in Cassandra's allColumnsInSelectOrder (partition key and clustering columns in
// key order, then static, then regular columns, each by name): the order SELECT * returns them
// in, and a conditional write that did not apply (IF EXISTS / IF NOT EXISTS) shows them in.
std::vector<const schema::ColumnDef*> columns_in_select_order(const schema::TableDef& table);

}  // namespace cassette::cql
