// Private to functions*.cc: the table of native scalar functions and how entries are added.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/functions.h"

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

}  // namespace cassette::cql::functions_internal
