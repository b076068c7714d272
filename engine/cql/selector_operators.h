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

// A type hint over a selector, "(int)(a + b)" (Selectable.WithTypeHint): the parser writes it as
// a call of this function (a name no unquoted identifier can spell, like the operators') with the
// hint in Selector::type; the selection names it "(int)(a + b)" and gives it the hinted type.
inline constexpr std::string_view kTypeHintFunction = "_type_hint";

// Collection and tuple literals of selectors, [a, b], {a, b}, {a: b}, (a, b) (Selectable.WithList,
// WithSet, WithMapOrUdt, BetweenParenthesesOrWithTuple), written by the parser as calls of these
// (map entries as key, value, key, value, ...) when an element is not a literal; literals only
// stay terms.
inline constexpr std::string_view kListSelectorFunction = "_list";
inline constexpr std::string_view kSetSelectorFunction = "_set";
inline constexpr std::string_view kMapSelectorFunction = "_map";
inline constexpr std::string_view kTupleSelectorFunction = "_tuple";

// `arguments` types must be known (literal operands get int or double from the caller).
// `operand_texts`, the operands as written, name them in a refusal ("the '+' operation is not
// supported between a and b"); without them the types do.
Result<std::shared_ptr<const ScalarFunction>> resolve_operator(
    std::string_view name, std::span<const types::CqlType> arguments,
    std::span<const std::string> operand_texts = {});

}  // namespace cassette::cql
