// The native aggregates (see aggregates.h). Integral arithmetic follows the Java types Cassandra
// uses: tinyint/smallint/int/bigint sums wrap at their width; avg of tinyint/smallint/int sums
// in a long, avg of bigint in a BigInteger (here 128 bits); varint and decimal sums are exact
// (types::BigInteger), up to types::kMaxComputedDigits digits.
#include "engine/cql/aggregates.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "engine/types/scalar.h"

namespace cassette::cql {

namespace {

using types::CqlType;
using types::TypeKind;

std::string_view strip_system(std::string_view name) {
  if (name.starts_with("system.")) name.remove_prefix(7);
  return name;
}

bool is_numeric(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kDecimal:
    case TypeKind::kVarint:
    case TypeKind::kCounter:
      return true;
    default:
      return false;
  }
}

// The low `width` bytes of v, big-endian: narrowing wraps as Java's does.
std::string write_fixed(__int128 v, size_t width) {
  return types::store_be(static_cast<uint64_t>(v), width);
}

double read_double(std::string_view bytes, TypeKind kind) {
  if (kind == TypeKind::kFloat) return types::read_float(bytes);
  return types::read_double(bytes);
}

std::string write_double(double v, TypeKind kind) {
  if (kind == TypeKind::kFloat) return types::float_bytes(static_cast<float>(v));
  return types::double_bytes(v);
}

std::string signatures(std::string_view name) {
  static const char* kTypes[] = {"tinyint", "smallint", "int",    "bigint", "float",
                                 "double",  "decimal",  "varint", "counter"};
  std::string out;
  for (const char* t : kTypes) {
    if (!out.empty()) out += ", ";
    std::string result = std::string_view(t) == "counter" ? "bigint" : t;
    out += fmt::format("system.{} : ({}) -> {}", name, t, result);
  }
  return out;
}

}  // namespace

bool is_aggregate_name(std::string_view name) {
  name = strip_system(name);
  return name == "count" || name == "min" || name == "max" || name == "sum" || name == "avg";
}

Result<AggregateFunction> resolve_aggregate(std::string_view name, const CqlType& argument) {
  std::string_view base = strip_system(name);
  AggregateFunction f;
  f.name = fmt::format("system.{}", base);
  f.argument = argument;
  f.result = argument;
  if (base == "count") {
    f.kind = AggregateKind::kCount;
    f.result = CqlType::simple(TypeKind::kBigint);
  } else if (base == "min" || base == "max") {
    f.kind = base == "min" ? AggregateKind::kMin : AggregateKind::kMax;
  } else {
    f.kind = base == "sum" ? AggregateKind::kSum : AggregateKind::kAvg;
    if (!is_numeric(argument)) {
      return Status::invalid_argument(
          fmt::format("Invalid call to function {}, none of its type signatures match (known type "
                      "signatures: {})",
                      f.name, signatures(base)));
    }
    if (argument.kind == TypeKind::kCounter) f.result = CqlType::simple(TypeKind::kBigint);
  }
  return f;
}

void AggregateState::add(const types::Value& value) {
  const AggregateFunction& f = *function_;
  if (f.kind == AggregateKind::kCountRows) {
    ++count_;
    return;
  }
  if (!value) return;
  switch (f.kind) {
    case AggregateKind::kCount:
      ++count_;
      return;
    case AggregateKind::kMin:
    case AggregateKind::kMax: {
      if (!best_) {
        best_ = value;
      } else {
        int c = types::compare_values(f.argument, *value, *best_);
        if ((f.kind == AggregateKind::kMin && c < 0) || (f.kind == AggregateKind::kMax && c > 0)) {
          best_ = value;
        }
      }
      return;
    }
    default:
      break;
  }
  // sum / avg. Cassandra skips empty values of numeric types as nulls.
  if (value->empty()) return;
  ++count_;
  switch (f.argument.kind) {
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      double v = read_double(*value, f.argument.kind);
      if (float_overflow_) {
        wide_sum_ += v;
        return;
      }
      double previous = double_sum_;
      double y = v - compensation_;
      double t = double_sum_ + y;
      compensation_ = (t - double_sum_) - y;
      double_sum_ = t;
      simple_sum_ += v;
      // avg switches to an exact sum when the double sum overflows (FloatAvgAggregate).
      if (f.kind == AggregateKind::kAvg && std::isinf(double_sum_) && !std::isinf(v)) {
        float_overflow_ = true;
        wide_sum_ = static_cast<long double>(previous) + v;
      }
      return;
    }
    case TypeKind::kDecimal:
      add_decimal(*value);
      return;
    case TypeKind::kVarint:
      big_sum_ += types::BigInteger::from_twos_complement(*value);
      return;
    default:
      integer_sum_ += types::read_signed(std::string_view(*value).substr(0, 8));
      return;
  }
}

void AggregateState::add_decimal(std::string_view value) {
  if (value.size() < 4 || !error_.is_ok()) return;
  const int32_t scale = static_cast<int32_t>(types::read_signed(value.substr(0, 4)));
  types::BigInteger unscaled = types::BigInteger::from_twos_complement(value.substr(4));
  // Both start from BigDecimal.ZERO (scale 0), and BigDecimal addition keeps the larger scale,
  // so a negative input scale is rescaled to 0.
  const int32_t common = std::max(scale, decimal_scale_);
  const auto value_shift = static_cast<uint64_t>(int64_t{common} - scale);
  const auto sum_shift = static_cast<uint64_t>(int64_t{common} - decimal_scale_);
  if (!unscaled.fits_power_of_ten(value_shift) || !big_sum_.fits_power_of_ten(sum_shift)) {
    error_ = Status::invalid_argument(
        fmt::format("{} of decimals: the values' scales are too far apart (more than {} digits)",
                    function_->name, types::kMaxComputedDigits));
    return;
  }
  unscaled.multiply_by_power_of_ten(value_shift);
  big_sum_.multiply_by_power_of_ten(sum_shift);
  decimal_scale_ = common;
  if (function_->kind == AggregateKind::kSum) {
    big_sum_ += unscaled;
    return;
  }
  // avg = avg + (value - avg) / count, the division rounded HALF_EVEN at the scale of the
  // difference: Cassandra's running average, which loses precision at every step (avg of the
  // decimals 1 and 2 is 1).
  unscaled -= big_sum_;
  unscaled.divide_half_even(count_);
  big_sum_ += unscaled;
}

Result<types::Value> AggregateState::result() const {
  CASSETTE_RETURN_IF_ERROR(error_);
  return final_value();
}

types::Value AggregateState::final_value() const {
  const AggregateFunction& f = *function_;
  switch (f.kind) {
    case AggregateKind::kCountRows:
    case AggregateKind::kCount:
      return write_fixed(count_, 8);
    case AggregateKind::kMin:
    case AggregateKind::kMax:
      return best_;
    default:
      break;
  }
  const bool avg = f.kind == AggregateKind::kAvg;
  switch (f.argument.kind) {
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      if (float_overflow_) {
        return write_double(static_cast<double>(wide_sum_ / static_cast<long double>(count_)),
                            f.argument.kind);
      }
      double sum = double_sum_ + compensation_;
      if (std::isnan(sum) && std::isinf(simple_sum_)) sum = simple_sum_;
      if (avg) sum = count_ == 0 ? 0 : sum / static_cast<double>(count_);
      return write_double(sum, f.argument.kind);
    }
    case TypeKind::kDecimal:
      // The sum, or the running average; both BigDecimal.ZERO over no rows.
      return write_fixed(decimal_scale_, 4) + big_sum_.to_twos_complement();
    case TypeKind::kVarint: {
      types::BigInteger v = big_sum_;
      if (avg && count_ > 0) v.divide_toward_zero(count_);
      return v.to_twos_complement();
    }
    default: {
      size_t width = types::fixed_width(f.argument.kind);
      __int128 v = integer_sum_;
      if (avg && count_ > 0) v /= count_;
      return write_fixed(v, width);  // truncation wraps as Java's narrowing does
    }
  }
}

}  // namespace cassette::cql
