// Private to functions*.cc (and the operators of selector_operators.cc): the table of native
// scalar functions and how entries are added.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/functions.h"
#include "engine/types/temporal.h"

namespace cassette::cql::functions_internal {

// Native functions by lower-case name; a name has one entry per overload.
using Functions = std::multimap<std::string, std::shared_ptr<const ScalarFunction>>;

using Apply =
    std::function<Result<types::Value>(std::span<const types::Value>, const FunctionContext&)>;

// Adds system.<name>(params) -> ret.
void add_function(Functions* fns, std::string name, std::vector<types::CqlType> params,
                  types::CqlType ret, Apply apply);

// floor(time, duration[, start]) for timestamp, timeuuid, date and time (GROUP BY's time buckets).
void add_floor_functions(Functions* fns);

// Timestamp (milliseconds) + or - a duration, as Cassandra's Duration.addTo()/substractFrom():
// the months on the UTC calendar (the day clamped to the month's length), then the days and
// whole milliseconds.
int64_t add_duration(int64_t millis, const types::Duration& duration, bool subtract);

// abs, exp, log, log10 and round of every numeric type (Cassandra 5.0's MathFcts).
void add_math_functions(Functions* fns);

// Cassandra 5.0's CollectionFcts (map_keys, map_values, collection_count, collection_min/max/
// sum/avg): generic over their argument's type, so each call builds its own instance.
bool is_collection_function(std::string_view name);
Result<std::shared_ptr<const ScalarFunction>> make_collection_function(
    std::string_view name, std::span<const FunctionArgument> args);

// Cassandra 5.0's VectorFcts (similarity_cosine, similarity_euclidean,
// similarity_dot_product): generic over the vectors' dimension, so each call builds its own.
bool is_vector_function(std::string_view name);
Result<std::shared_ptr<const ScalarFunction>> make_vector_function(
    std::string_view name, std::span<const FunctionArgument> args);

// Cassandra 5.0's masking functions (mask_null, mask_default, mask_replace, mask_inner,
// mask_outer, mask_hash): generic over the masked value's type. make_masking_function builds the
// instance for these arguments; the caller then checks the arguments against its parameters.
bool is_masking_function(std::string_view name);
Result<std::shared_ptr<const ScalarFunction>> make_masking_function(
    std::string_view name, std::span<const FunctionArgument> args);
// AbstractType.getMaskedValue(): what mask_default() returns for a value of `type`.
std::string masked_default_value(const types::CqlType& type);

// The type an untyped argument that is a literal constant is an exact match for
// (Constants.Type.getPreferedTypeFor): int for 123, ascii for 'Alice'; nullopt for a bind
// marker, null or a collection literal.
std::optional<types::CqlType> literal_type(const FunctionArgument& arg);

// AbstractFunction.toString(): "system.totimestamp : (timeuuid) -> timestamp"; a parameter
// whose `constant` flag is set is printed as a partial application prints a bound one
// ("system.floor : (timestamp, duration(constant), timestamp) -> timestamp").
std::string signature(const ScalarFunction& f, std::span<const bool> constant = {});

}  // namespace cassette::cql::functions_internal
