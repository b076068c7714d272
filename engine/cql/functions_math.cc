// Cassandra 5.0's math functions: abs, exp, log, log10 and round for every numeric type, each
// returning its argument's type with Java's arithmetic (NumberType.abs/exp/log/log10/round):
// fixed-width integers convert the double result back with Java's saturating casts and round
// is the identity for them; float and double round half up (Math.round); decimal rounds
// HALF_UP to scale 0. exp/log/log10 of varint and decimal are computed to Cassandra's precision
// (decimal_math.h).
#include <cmath>

#include "engine/cql/decimal_math.h"
#include "engine/cql/functions_internal.h"
#include "engine/types/value_internal.h"

namespace cassette::cql::functions_internal {

using types::CqlType;
using types::TypeKind;
using types::Value;
namespace internal = types::internal;

namespace {

enum class Op { kAbs, kExp, kLog, kLog10, kRound };

int64_t java_d2l(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return INT64_MAX;
  if (d <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}
int32_t java_d2i(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 2147483647.0) return INT32_MAX;
  if (d <= -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(d);
}

double apply_double(Op op, double x) {
  switch (op) {
    case Op::kAbs:
      return std::fabs(x);
    case Op::kExp:
      return std::exp(x);
    case Op::kLog:
      return std::log(x);
    case Op::kLog10:
      return std::log10(x);
    case Op::kRound:
      return x;
  }
  return x;
}

// Math.round: floor(x + 1/2) with NaN as 0 and saturation.
int64_t java_round(double x, bool to_int) {
  if (std::isnan(x)) return 0;
  const double r = std::floor(x + 0.5);
  return to_int ? java_d2i(r) : java_d2l(r);
}

Result<Value> fixed_width(Op op, TypeKind kind, std::string_view b) {
  const int64_t v = types::read_signed(b);
  const size_t width = b.size();
  int64_t out;
  if (op == Op::kRound) {
    out = v;
  } else if (op == Op::kAbs) {
    out = v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v))
                : v;  // Math.abs wraps at MIN_VALUE
  } else {
    const double r = apply_double(op, static_cast<double>(v));
    out = width == 8 ? java_d2l(r) : java_d2i(r);  // (byte)/(short) narrow the int below
  }
  return Value(types::store_be(static_cast<uint64_t>(out), width));
}

Result<Value> floating(Op op, TypeKind kind, std::string_view b) {
  if (kind == TypeKind::kFloat) {
    const float f = types::read_float(b);
    if (op == Op::kRound) return Value(types::float_bytes(static_cast<float>(java_round(f, true))));
    if (op == Op::kAbs) return Value(types::float_bytes(std::fabs(f)));
    return Value(types::float_bytes(static_cast<float>(apply_double(op, f))));
  }
  const double d = types::read_double(b);
  if (op == Op::kRound)
    return Value(types::double_bytes(static_cast<double>(java_round(d, false))));
  return Value(types::double_bytes(apply_double(op, d)));
}

std::string strip_sign(std::string text) {
  return text.starts_with("-") ? text.substr(1) : text;
}

DecimalMathFunction decimal_math_function(Op op) {
  return op == Op::kExp   ? DecimalMathFunction::kExp
         : op == Op::kLog ? DecimalMathFunction::kLog
                          : DecimalMathFunction::kLog10;
}

Result<Value> varint_op(Op op, std::string_view b) {
  const std::string text = types::varint_to_text(b);
  if (op == Op::kRound) return Value(std::string(b));
  if (op == Op::kAbs) return Value(*internal::varint_from_text(strip_sign(text)));
  CASSETTE_ASSIGN_OR_RETURN(std::string result, varint_math(decimal_math_function(op), b));
  return Value(std::move(result));
}

// BigDecimal.setScale(0, HALF_UP): drop the fraction, rounding half away from zero.
Result<std::string> round_decimal(std::string_view b) {
  const int32_t scale = static_cast<int32_t>(types::read_unsigned(b.substr(0, 4)));
  if (scale <= 0) {
    CASSETTE_ASSIGN_OR_RETURN(std::string integer, internal::decimal_to_varint(b));
    return types::store_be(0, 4) + integer;
  }
  std::string digits = types::varint_to_text(b.substr(4));
  const bool negative = digits.starts_with("-");
  if (negative) digits.erase(0, 1);
  const size_t fraction = static_cast<size_t>(scale);
  std::string integer = digits.size() > fraction ? digits.substr(0, digits.size() - fraction) : "0";
  const char first_dropped = digits.size() >= fraction ? digits[digits.size() - fraction] : '0';
  if (first_dropped >= '5') {
    int i = static_cast<int>(integer.size()) - 1;
    while (i >= 0 && integer[i] == '9') integer[i--] = '0';
    if (i < 0) {
      integer.insert(integer.begin(), '1');
    } else {
      ++integer[i];
    }
  }
  const bool zero = integer.find_first_not_of('0') == std::string::npos;
  return types::store_be(0, 4) +
         *internal::varint_from_text((negative && !zero ? "-" : "") + integer);
}

Result<Value> decimal_op(Op op, std::string_view b) {
  if (op == Op::kRound) {
    CASSETTE_ASSIGN_OR_RETURN(std::string rounded, round_decimal(b));
    return Value(std::move(rounded));
  }
  const std::string text = types::decimal_to_text(b);
  if (op == Op::kAbs) return Value(*internal::decimal_from_text(strip_sign(text)));
  CASSETTE_ASSIGN_OR_RETURN(std::string result, decimal_math(decimal_math_function(op), b));
  return Value(std::move(result));
}

Apply math(Op op, TypeKind kind) {
  return [op, kind](std::span<const Value> a, const FunctionContext&) -> Result<Value> {
    if (!a[0] || a[0]->empty()) return Value();
    switch (kind) {
      case TypeKind::kFloat:
      case TypeKind::kDouble:
        return floating(op, kind, *a[0]);
      case TypeKind::kVarint:
        return varint_op(op, *a[0]);
      case TypeKind::kDecimal:
        return decimal_op(op, *a[0]);
      default:
        return fixed_width(op, kind, *a[0]);
    }
  };
}

}  // namespace

void add_math_functions(Functions* fns) {
  static constexpr std::pair<std::string_view, Op> kOps[] = {{"abs", Op::kAbs},
                                                             {"exp", Op::kExp},
                                                             {"log", Op::kLog},
                                                             {"log10", Op::kLog10},
                                                             {"round", Op::kRound}};
  for (TypeKind kind : {TypeKind::kTinyint, TypeKind::kSmallint, TypeKind::kInt, TypeKind::kFloat,
                        TypeKind::kBigint, TypeKind::kDouble, TypeKind::kVarint, TypeKind::kDecimal,
                        TypeKind::kCounter}) {
    const CqlType type = CqlType::simple(kind);
    for (const auto& [name, op] : kOps)
      add_function(fns, std::string(name), {type}, type, math(op, kind));
  }
}

}  // namespace cassette::cql::functions_internal
