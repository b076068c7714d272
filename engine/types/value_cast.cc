// CAST(x AS type): the conversions Cassandra's CastFcts defines. Numbers convert among each other
// as Java's Number.xxxValue() does (truncating, wrapping, saturating from floating point);
// most types convert to text and ascii through their string form; timeuuid, timestamp and date
// convert among each other as toTimestamp()/toDate() do.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

using namespace internal;

namespace {

bool is_numeric(TypeKind k) {
  switch (k) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal:
    case TypeKind::kCounter:
    case TypeKind::kVarint:
      return true;
    default:
      return false;
  }
}

bool is_integral(TypeKind k) {
  return k == TypeKind::kTinyint || k == TypeKind::kSmallint || k == TypeKind::kInt ||
         k == TypeKind::kBigint || k == TypeKind::kCounter;
}

bool castable_to_text(TypeKind k) {
  return is_numeric(k) || k == TypeKind::kInet || k == TypeKind::kBoolean ||
         k == TypeKind::kTimeuuid || k == TypeKind::kTimestamp || k == TypeKind::kDate ||
         k == TypeKind::kTime || k == TypeKind::kUuid || k == TypeKind::kAscii;
}

double load_floating(TypeKind k, std::string_view b) {
  return k == TypeKind::kFloat ? static_cast<double>(read_float(b)) : read_double(b);
}

// Java's (long) of a double: NaN is 0, out-of-range values saturate.
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

// The value as Java's long (longValue()) and, for the narrower integers, intValue().
int64_t long_value(TypeKind from, std::string_view b) {
  if (is_integral(from)) return read_signed(b);
  if (from == TypeKind::kFloat || from == TypeKind::kDouble)
    return java_d2l(load_floating(from, b));
  if (from == TypeKind::kVarint) return varint_low64(b);
  return decimal_low64(b);
}
int32_t int_value(TypeKind from, std::string_view b) {
  if (from == TypeKind::kFloat || from == TypeKind::kDouble)
    return java_d2i(load_floating(from, b));
  return static_cast<int32_t>(long_value(from, b));
}

double double_value(TypeKind from, std::string_view b) {
  if (is_integral(from)) return static_cast<double>(read_signed(b));
  if (from == TypeKind::kFloat || from == TypeKind::kDouble) return load_floating(from, b);
  if (from == TypeKind::kVarint) return varint_to_double(b);
  return decimal_to_double(b);
}

float float_value(TypeKind from, std::string_view b) {
  if (is_integral(from)) return static_cast<float>(read_signed(b));
  if (from == TypeKind::kFloat || from == TypeKind::kDouble)
    return static_cast<float>(load_floating(from, b));
  // BigInteger/BigDecimal.floatValue() round once, from the exact value
  const std::string text = from == TypeKind::kVarint
                               ? varint_to_text(b)
                               : format_value(CqlType::simple(from), b, ValueStyle::kString);
  return std::strtof(text.c_str(), nullptr);
}

Result<std::string> cast_number(TypeKind from, TypeKind to, std::string_view b) {
  switch (to) {
    case TypeKind::kTinyint:
      return store_be(static_cast<uint64_t>(static_cast<int8_t>(int_value(from, b))), 1);
    case TypeKind::kSmallint:
      return store_be(static_cast<uint64_t>(static_cast<int16_t>(int_value(from, b))), 2);
    case TypeKind::kInt:
      return store_be(static_cast<uint32_t>(int_value(from, b)), 4);
    case TypeKind::kBigint:
      return store_be(static_cast<uint64_t>(long_value(from, b)), 8);
    case TypeKind::kFloat:
      return float_bytes(float_value(from, b));
    case TypeKind::kDouble:
      return double_bytes(double_value(from, b));
    case TypeKind::kDecimal: {
      if (from == TypeKind::kFloat || from == TypeKind::kDouble) {
        // new BigDecimal(Float.toString(f)) / BigDecimal.valueOf(d): the digits Java prints
        const double d = load_floating(from, b);
        const std::string text = from == TypeKind::kFloat
                                     ? java_float_to_string(static_cast<float>(d))
                                     : java_double_to_string(d);
        if (!std::isfinite(d))
          return Status::invalid_argument(
              fmt::format("Character {} is neither a decimal digit number, decimal point, nor "
                          "\"e\" notation exponential mark.",
                          text.substr(text[0] == '-' ? 1 : 0, 1)));
        return *decimal_from_text(text);
      }
      if (from == TypeKind::kVarint) return store_be(0, 4) + std::string(b);
      return store_be(0, 4) + varint_from_int64(read_signed(b));
    }
    case TypeKind::kVarint:
      // BigInteger.valueOf(p.longValue()) whatever the input, as CastFcts does
      return varint_from_int64(long_value(from, b));
    default:
      break;
  }
  return Status::internal("unexpected numeric cast");
}

int64_t epoch_days_of_millis(int64_t millis) {
  return millis / 86400000;
}  // TimeUnit.toDays truncates

}  // namespace

bool can_cast(const CqlType& from, const CqlType& to) {
  if (from == to) return true;
  if (from.is_collection() || to.is_collection() || from.kind == TypeKind::kTuple ||
      from.kind == TypeKind::kUdt || to.kind == TypeKind::kTuple || to.kind == TypeKind::kUdt ||
      from.kind == TypeKind::kVector || to.kind == TypeKind::kVector)
    return false;
  if (is_numeric(from.kind) && is_numeric(to.kind) && to.kind != TypeKind::kCounter) return true;
  if (to.kind == TypeKind::kText) return castable_to_text(from.kind);
  if (to.kind == TypeKind::kAscii)
    return castable_to_text(from.kind) && from.kind != TypeKind::kAscii;
  if (from.kind == TypeKind::kTimeuuid)
    return to.kind == TypeKind::kDate || to.kind == TypeKind::kTimestamp;
  if (from.kind == TypeKind::kTimestamp) return to.kind == TypeKind::kDate;
  if (from.kind == TypeKind::kDate) return to.kind == TypeKind::kTimestamp;
  return false;
}

Result<Value> cast_value(const CqlType& from, const CqlType& to, const Value& value) {
  if (!can_cast(from, to))
    return Status::invalid_argument(
        fmt::format("{} cannot be cast to {}", cql_type_name(from), cql_type_name(to)));
  if (!value) return Value();
  if (from == to) return value;
  if (value->empty()) return Value();  // Cassandra's converters see an empty value as null
  const std::string_view b = *value;
  if (to.kind == TypeKind::kText || to.kind == TypeKind::kAscii)
    return Value(format_value(from, b, ValueStyle::kString));
  if (is_numeric(from.kind)) {
    CASSETTE_ASSIGN_OR_RETURN(
        std::string out,
        cast_number(from.kind == TypeKind::kCounter ? TypeKind::kBigint : from.kind, to.kind, b));
    return Value(std::move(out));
  }
  int64_t millis = 0;
  if (from.kind == TypeKind::kTimeuuid) millis = timeuuid_micros(b) / 1000;
  if (from.kind == TypeKind::kTimestamp) millis = read_signed(b);
  if (from.kind == TypeKind::kDate)
    millis = (static_cast<int64_t>(read_unsigned(b)) - (int64_t{1} << 31)) * 86400000;
  if (to.kind == TypeKind::kTimestamp) return Value(store_be(static_cast<uint64_t>(millis), 8));
  // to date
  return Value(
      store_be(static_cast<uint32_t>(epoch_days_of_millis(millis) + (int64_t{1} << 31)), 4));
}

}  // namespace cassette::types
