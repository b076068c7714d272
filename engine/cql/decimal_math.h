// exp, log and log10 of decimals and varints as Cassandra 5.0 computes them (DecimalType.exp/
// log/log10, IntegerType's through them): to max(32, the argument's precision) significant
// digits, rounded HALF_EVEN, as BigDecimalMath does with that MathContext; a varint's result is
// that decimal truncated to an integer. Computed with GMP floats carrying 20 more digits than
// kept, so every kept digit is Cassandra's (barring a true value within 10^-20 of a rounding
// tie). exp(0) is 1 and log(1) is 0, exactly.
#pragma once

#include <string>
#include <string_view>

#include "engine/types/cql_type.h"
#include "engine/util/status.h"

namespace cassette::cql {

enum class DecimalMathFunction { kExp, kLog, kLog10 };

// The function of a decimal (its serialized bytes: 4-byte scale, varint unscaled value), as a
// serialized decimal. InvalidArgument "Natural log of number zero or less" / "Log10 of number
// zero or less" for log/log10 of a value <= 0, and for an exp whose result could not be held
// (an argument beyond 10^12 in magnitude).
Result<std::string> decimal_math(DecimalMathFunction function, std::string_view decimal);

// The same for a varint (serialized), the result truncated toward zero, as a serialized varint.
Result<std::string> varint_math(DecimalMathFunction function, std::string_view varint);

// Arithmetic whose result is a decimal (OperationFcts with a decimal operand, or a varint and a
// float or double): `op` is one of + - * / %, the operands serialized values of any numeric
// type, each taken as DecimalType.toBigDecimal takes it (a varint exactly; a fixed-size number
// through its double, as BigDecimal.valueOf(double): 1 is 1.0, 1e7 is 1.0E7). + - * are exact (to
// 10000 digits, rounded HALF_UP beyond); / has max(32, ...) fraction digits, rounded HALF_UP,
// trailing zeros stripped; % has BigDecimal.remainder's scale. Errors carry Java's message alone
// ("BigInteger divide by zero", "A NaN cannot be converted into a decimal"); the caller names
// the operation.
Result<std::string> decimal_arithmetic(char op, const types::CqlType& left_type,
                                       std::string_view left, const types::CqlType& right_type,
                                       std::string_view right);
// Arithmetic whose result is a varint (a varint and integer types): BigInteger's add, subtract,
// multiply, divide (toward zero) and remainder (the dividend's sign).
Result<std::string> varint_arithmetic(char op, const types::CqlType& left_type,
                                      std::string_view left, const types::CqlType& right_type,
                                      std::string_view right);
// -x of a decimal or varint operand of `type` (the result of that type).
Result<std::string> big_negate(const types::CqlType& type, std::string_view value);

}  // namespace cassette::cql
