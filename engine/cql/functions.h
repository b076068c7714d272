// CQL's native scalar functions: now(), uuid(), minTimeuuid/maxTimeuuid, toTimestamp, toDate,
// toUnixTimestamp, currentTimestamp/currentDate/currentTime/currentTimeUUID, the <type>AsBlob /
// blobAs<Type> family, toJson and fromJson (each also by its Cassandra 5.0 snake_case name),
// the math, collection and masking functions. (token(),
// writetime(), ttl(), CAST and the aggregates need the row or the schema, so the statement
// executor evaluates them itself.)
//
// Resolution works as Cassandra's FunctionResolver: the name is looked up case-insensitively
// (a quoted name exactly), overloads are matched on the argument types, and an argument whose
// type is unknown (a literal, a bind marker, null) takes the parameter's type as its receiver.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/cql_type.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::cql {

struct FunctionContext {
  int64_t now_micros = 0;           // the statement's "now" (from the store's clock)
  uint64_t clock_seq_and_node = 0;  // low bytes for the timeuuids now() makes
};

struct ScalarFunction {
  std::string name;  // as Cassandra prints it: "system.tounixtimestamp"
  std::vector<types::CqlType> parameter_types;
  types::CqlType return_type;
  // Most functions return null for a null argument without being called.
  bool called_on_null_input = false;
  std::function<Result<types::Value>(std::span<const types::Value> arguments,
                                     const FunctionContext& context)>
      apply;
};

// One argument as the resolver sees it: its type when known, else nullopt (a literal, bind
// marker or null that will take its receiver's type). `text` is the argument as written, for
// messages.
struct FunctionArgument {
  std::optional<types::CqlType> type;
  std::string text;
  // For a literal argument: its lexical kind, so that overloads are told apart as Cassandra does
  // (toTimestamp('2024-01-02') picks the date overload). Unset: any parameter type is accepted.
  std::optional<types::ConstantKind> constant_kind = std::nullopt;
  // For a [...] literal: its element count (the dimension a vector parameter takes from it).
  std::optional<int32_t> list_literal_size = std::nullopt;
};

// Resolves a call. `receiver` is the type the result must have when known (for fromJson(),
// whose return type is the receiver's). Errors as Cassandra's, e.g.
//   Unknown function 'foo'
//   Invalid number of arguments in call to function system.totimestamp: 1 required but 2 provided
//   Type error: x cannot be passed as argument 0 of function system.totimestamp of type timeuuid
//   Ambiguous call to function ...
Result<std::shared_ptr<const ScalarFunction>> resolve_function(
    std::string_view name, std::span<const FunctionArgument> arguments,
    const std::optional<types::CqlType>& receiver);

// Whether a native scalar function of that name (any overload) exists, so that callers can word
// their own "unknown function" message (Cassandra's terms say "Unknown function %s called").
bool is_native_function(std::string_view name);

}  // namespace cassette::cql
