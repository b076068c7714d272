// Internals of the selection (selection.h), shared by selection.cc (preparing selectors) and
// selection_evaluate.cc (evaluating them on rows and groups).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/cql/selection.h"

namespace cassette::cql {

// One prepared selector: what it reads or computes, its result type and its column name.
struct SelectorNode {
  enum class Kind {
    kColumn,
    kWritetime,
    kMaxWritetime,
    kTtl,
    kToken,
    kScalar,
    kAggregate,
    kCast,
    kToJson,
    kField,
    kElement,
    kSlice,
    kTerm,
    kLiteral,  // [a, b], {a, b}, (a, b) of selectors: `type` says which (args, the elements)
  };
  Kind kind = Kind::kColumn;
  const schema::ColumnDef* column = nullptr;
  types::CqlType type;
  std::string name;
  std::vector<std::unique_ptr<SelectorNode>> args;
  std::shared_ptr<const ScalarFunction> function;
  AggregateFunction aggregate;
  size_t aggregate_index = 0;
  types::Value constant;      // kTerm value; kElement key; kSlice start
  types::Value constant_end;  // kSlice end
  size_t field_index = 0;
  bool contains_aggregate = false;
};

namespace selection_internal {

// The value of `node` for `row`; aggregates take their group's result from `states`.
Result<types::Value> evaluate_node(const SelectorNode& node, const schema::TableDef& table,
                                   const SelectionRow& row,
                                   const std::vector<AggregateState>* states,
                                   const FunctionContext* functions);

}  // namespace selection_internal

}  // namespace cassette::cql
