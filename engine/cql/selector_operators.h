// Arithmetic in the selection clause (Cassandra 4.0's OperationFcts): a + b, a - b, a * b, a / b,
// a % b and -a over the numeric types, as the parser names them ("_add", "_substract",
// "_multiply", "_divide", "_modulo", "_negate"), timestamp/date +/- duration, and text + text
// (5.0's string concatenation). The result type is Cassandra's: floating point if either side is,
// of the larger size (int + bigint is bigint, int + float is float, bigint + float is double,
// varint + float is decimal, anything + decimal is decimal), with Java's wrap-around for integers
// and BigInteger/BigDecimal arithmetic for varint and decimal (decimal_math.h); integer division
// by zero fails with "the operation 'int / int' failed: / by zero".
//
// The selection uses this when resolve_function() (functions.h) does not know the operator.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/functions.h"

namespace cassette::cql {

bool is_operator_function(std::string_view name);

// `arguments` types must be known (literal operands get int or double from the caller).
// `operand_texts`, the operands as written, name them in a refusal ("the '+' operation is not
// supported between a and b"); without them the types do.
Result<std::shared_ptr<const ScalarFunction>> resolve_operator(
    std::string_view name, std::span<const types::CqlType> arguments,
    std::span<const std::string> operand_texts = {});

}  // namespace cassette::cql
