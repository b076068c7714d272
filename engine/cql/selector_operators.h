// Arithmetic in the selection clause (Cassandra 4.0's OperationFcts): a + b, a - b, a * b, a / b,
// a % b and -a over the fixed-size numeric types, as the parser names them ("_add",
// "_substract", "_multiply", "_divide", "_modulo", "_negate"). The result type is Cassandra's:
// floating point if either side is, of the larger size (int + bigint is bigint, int + float is
// float, bigint + float is double), with Java's wrap-around for integers; integer division by zero
// fails with "the operation 'int / int' failed: / by zero".
//
// The selection uses this when resolve_function() (functions.h) does not know the operator.
// varint/decimal operands and date/time arithmetic are not handled here.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "engine/cql/functions.h"

namespace cassette::cql {

bool is_operator_function(std::string_view name);

// `arguments` types must be known (literal operands get int or double from the caller).
Result<std::shared_ptr<const ScalarFunction>> resolve_operator(
    std::string_view name, std::span<const types::CqlType> arguments);

}  // namespace cassette::cql
