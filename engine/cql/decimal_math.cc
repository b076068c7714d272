// exp/log/log10 to Cassandra's precision (decimal_math.h), with GMP's mpf floats: exp by its
// Taylor series after halving the argument below 2^-8 (then squaring back), log by
// 2 atanh((m - 1) / (m + 1)) on the mantissa m in [1/sqrt 2, sqrt 2) plus the binary exponent
// times ln 2, log10 as log / ln 10. The result is printed with 20 guard digits and rounded
// HALF_EVEN to the kept ones.
#include "engine/cql/decimal_math.h"

#include <fmt/format.h>
#include <gmp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "engine/types/cql_type.h"
#include "engine/types/scalar.h"
#include "engine/types/scalar_text.h"
#include "engine/types/value_internal.h"

namespace cassette::cql {

namespace {

// DecimalType's MIN_SIGNIFICANT_DIGITS and MAX_PRECISION.
constexpr size_t kMinDigits = 32;
constexpr size_t kMaxDigits = 10000;
constexpr size_t kGuardDigits = 20;

// An mpf_t that frees itself.
class Float {
 public:
  explicit Float(mp_bitcnt_t bits) { mpf_init2(v_, bits); }
  ~Float() { mpf_clear(v_); }
  Float(const Float&) = delete;
  Float& operator=(const Float&) = delete;
  mpf_ptr get() { return v_; }

 private:
  mpf_t v_;
};

// The binary exponent e of x = d * 2^e, 0.5 <= |d| < 1 (0 for x = 0).
long binary_exponent(mpf_srcptr x) {
  long e = 0;
  mpf_get_d_2exp(&e, x);
  return e;
}

// e^x, for |x| < 2^40.
void exp_of(mpf_ptr out, mpf_srcptr x, mp_bitcnt_t bits) {
  const long halvings = std::max(0L, binary_exponent(x) + 8);
  bits += static_cast<mp_bitcnt_t>(halvings);  // each squaring doubles the relative error
  Float r(bits), term(bits), sum(bits);
  mpf_div_2exp(r.get(), x, static_cast<mp_bitcnt_t>(halvings));
  mpf_set_ui(sum.get(), 1);
  mpf_set_ui(term.get(), 1);
  for (unsigned long n = 1;; ++n) {
    mpf_mul(term.get(), term.get(), r.get());
    mpf_div_ui(term.get(), term.get(), n);
    if (mpf_sgn(term.get()) == 0) break;
    mpf_add(sum.get(), sum.get(), term.get());
    if (binary_exponent(term.get()) < -static_cast<long>(bits)) break;
  }
  for (long i = 0; i < halvings; ++i) mpf_mul(sum.get(), sum.get(), sum.get());
  mpf_set(out, sum.get());
}

// 2 atanh(z) = 2 (z + z^3/3 + z^5/5 + ...), for |z| <= 1/3.
void two_atanh(mpf_ptr out, mpf_srcptr z, mp_bitcnt_t bits) {
  Float z2(bits), power(bits), term(bits), sum(bits);
  mpf_mul(z2.get(), z, z);
  mpf_set(power.get(), z);
  mpf_set(sum.get(), z);
  for (unsigned long n = 3; mpf_sgn(power.get()) != 0; n += 2) {
    mpf_mul(power.get(), power.get(), z2.get());
    mpf_div_ui(term.get(), power.get(), n);
    if (mpf_sgn(term.get()) == 0) break;
    mpf_add(sum.get(), sum.get(), term.get());
    if (binary_exponent(term.get()) < binary_exponent(sum.get()) - static_cast<long>(bits)) break;
  }
  mpf_mul_2exp(out, sum.get(), 1);
}

// ln x, for x > 0.
void log_of(mpf_ptr out, mpf_srcptr x, mp_bitcnt_t bits) {
  long e = 0;
  const double d = mpf_get_d_2exp(&e, x);
  Float m(bits), num(bits), den(bits), z(bits), ln2(bits), third(bits);
  if (e >= 0) {
    mpf_div_2exp(m.get(), x, static_cast<mp_bitcnt_t>(e));
  } else {
    mpf_mul_2exp(m.get(), x, static_cast<mp_bitcnt_t>(-e));
  }
  if (d < 0.70710678118654752) {  // m into [1/sqrt 2, sqrt 2)
    mpf_mul_2exp(m.get(), m.get(), 1);
    --e;
  }
  mpf_sub_ui(num.get(), m.get(), 1);
  mpf_add_ui(den.get(), m.get(), 1);
  mpf_div(z.get(), num.get(), den.get());
  two_atanh(out, z.get(), bits);
  if (e != 0) {
    mpf_set_ui(third.get(), 1);
    mpf_div_ui(third.get(), third.get(), 3);
    two_atanh(ln2.get(), third.get(), bits);  // ln 2 = 2 atanh(1/3)
    if (e > 0) {
      mpf_mul_ui(ln2.get(), ln2.get(), static_cast<unsigned long>(e));
      mpf_add(out, out, ln2.get());
    } else {
      mpf_mul_ui(ln2.get(), ln2.get(), static_cast<unsigned long>(-e));
      mpf_sub(out, out, ln2.get());
    }
  }
}

// A value rounded HALF_EVEN to `digits` significant digits: the digits of its magnitude and the
// power of ten of the first (value = 0.d1d2... * 10^exponent).
struct RoundedDigits {
  bool negative = false;
  std::string digits;  // empty for zero
  long exponent = 0;
};

RoundedDigits round_half_even(mpf_srcptr value, size_t digits) {
  RoundedDigits out;
  if (mpf_sgn(value) == 0) return out;
  const size_t printed = digits + kGuardDigits;
  std::vector<char> buffer(printed + 2);
  mp_exp_t exponent = 0;
  mpf_get_str(buffer.data(), &exponent, 10, printed, value);
  std::string text(buffer.data());
  out.negative = text.starts_with("-");
  if (out.negative) text.erase(0, 1);
  text.resize(printed, '0');
  std::string kept = text.substr(0, digits);
  const std::string_view dropped = std::string_view(text).substr(digits);
  const bool above_half =
      dropped[0] > '5' ||
      (dropped[0] == '5' && dropped.find_first_not_of('0', 1) != std::string_view::npos);
  const bool tie = dropped[0] == '5' && !above_half;
  if (above_half || (tie && (kept.back() - '0') % 2 == 1)) {
    size_t i = kept.size();
    while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
    if (i == 0) {
      kept.insert(kept.begin(), '1');  // 99..9 became 100..0: one digit more, drop a zero
      kept.pop_back();
      ++exponent;
    } else {
      ++kept[i - 1];
    }
  }
  out.digits = std::move(kept);
  out.exponent = exponent;
  return out;
}

// The argument's value and its precision (BigDecimal.precision(): digits of the unscaled value).
struct Argument {
  std::string unscaled;  // "-123"
  int32_t scale = 0;
  size_t precision = 1;
};

Status compute(DecimalMathFunction function, const Argument& argument, RoundedDigits* result) {
  const bool nonpositive = argument.unscaled.starts_with("-") ||
                           argument.unscaled.find_first_not_of('0') == std::string::npos;
  if (function != DecimalMathFunction::kExp && nonpositive) {
    return Status::invalid_argument(function == DecimalMathFunction::kLog
                                        ? "Natural log of number zero or less"
                                        : "Log10 of number zero or less");
  }
  const size_t digits = std::clamp(argument.precision, kMinDigits, kMaxDigits);
  const auto bits = static_cast<mp_bitcnt_t>(
      std::ceil(static_cast<double>(digits + 2 * kGuardDigits) * 3.3219280948873623) + 64);
  Float x(bits), y(bits);
  const std::string text = fmt::format("{}e{}", argument.unscaled, -int64_t{argument.scale});
  mpf_set_str(x.get(), text.c_str(), 10);
  if (function == DecimalMathFunction::kExp) {
    if (mpf_sgn(x.get()) == 0) {  // BigDecimalMath.exp(0) is ONE
      *result = RoundedDigits{false, "1", 1};
      return Status::ok();
    }
    if (binary_exponent(x.get()) > 40) {
      return Status::invalid_argument(
          fmt::format("Cannot compute exp({}): the argument is too large", text));
    }
    exp_of(y.get(), x.get(), bits);
  } else {
    log_of(y.get(), x.get(), bits);
    if (function == DecimalMathFunction::kLog10 && mpf_sgn(y.get()) != 0) {
      Float ten(bits), ln10(bits);
      mpf_set_ui(ten.get(), 10);
      log_of(ln10.get(), ten.get(), bits);
      mpf_div(y.get(), y.get(), ln10.get());
    }
  }
  *result = round_half_even(y.get(), digits);
  return Status::ok();
}

std::string decimal_bytes(const RoundedDigits& r) {
  if (r.digits.empty()) return types::store_be(0, 4) + *types::internal::varint_from_text("0");
  const int64_t scale = static_cast<int64_t>(r.digits.size()) - r.exponent;
  return types::store_be(static_cast<uint32_t>(static_cast<int32_t>(scale)), 4) +
         *types::internal::varint_from_text((r.negative ? "-" : "") + r.digits);
}

std::string truncated_varint_bytes(const RoundedDigits& r) {
  if (r.digits.empty() || r.exponent <= 0) return *types::internal::varint_from_text("0");
  std::string integer = r.digits.substr(0, static_cast<size_t>(r.exponent));
  integer.resize(static_cast<size_t>(r.exponent), '0');
  return *types::internal::varint_from_text((r.negative ? "-" : "") + integer);
}

size_t digit_count(std::string_view signed_digits) {
  if (signed_digits.starts_with("-")) signed_digits.remove_prefix(1);
  return std::max<size_t>(1, signed_digits.size());
}

}  // namespace

Result<std::string> decimal_math(DecimalMathFunction function, std::string_view decimal) {
  if (decimal.size() < 4) return Status::invalid_argument("A decimal needs at least 4 bytes");
  Argument argument;
  argument.scale = static_cast<int32_t>(types::read_unsigned(decimal.substr(0, 4)));
  argument.unscaled = types::varint_to_text(decimal.substr(4));
  argument.precision = digit_count(argument.unscaled);
  RoundedDigits result;
  CASSETTE_RETURN_IF_ERROR(compute(function, argument, &result));
  return decimal_bytes(result);
}

Result<std::string> varint_math(DecimalMathFunction function, std::string_view varint) {
  Argument argument;
  argument.unscaled = types::varint_to_text(varint);
  argument.precision = digit_count(argument.unscaled);
  RoundedDigits result;
  CASSETTE_RETURN_IF_ERROR(compute(function, argument, &result));
  return truncated_varint_bytes(result);
}

// ---- arithmetic ----------------------------------------------------------------------------

namespace {

using types::CqlType;
using types::TypeKind;

// An mpz_t that frees itself.
class Integer {
 public:
  Integer() { mpz_init(v_); }
  ~Integer() { mpz_clear(v_); }
  Integer(const Integer&) = delete;
  Integer& operator=(const Integer&) = delete;
  mpz_ptr get() { return v_; }
  mpz_srcptr get() const { return v_; }

 private:
  mpz_t v_;
};

// unscaled * 10^-scale, as a BigDecimal.
struct BigDecimal {
  Integer unscaled;
  int64_t scale = 0;
};

constexpr int64_t kDivisionMinScale = 32;    // DecimalType.MIN_SCALE (and MIN_SIGNIFICANT_DIGITS)
constexpr int64_t kDivisionMaxScale = 1000;  // DecimalType.MAX_SCALE
constexpr uint64_t kMaxPrecision = 10000;    // DecimalType.MAX_PRECISION

void power_of_ten(mpz_ptr out, uint64_t n) {
  mpz_ui_pow_ui(out, 10, n);
}

// BigDecimal.precision(): the digits of |x| (1 for zero).
uint64_t precision_of(mpz_srcptr x) {
  if (mpz_sgn(x) == 0) return 1;
  uint64_t n = mpz_sizeinbase(x, 10);  // exact or one too many
  Integer bound;
  power_of_ten(bound.get(), n - 1);
  return mpz_cmpabs(x, bound.get()) < 0 ? n - 1 : n;
}

void set_from_varint(mpz_ptr out, std::string_view bytes) {
  const std::string text = types::varint_to_text(bytes);
  mpz_set_str(out, text.c_str(), 10);
}

std::string varint_bytes_of(mpz_srcptr x) {
  std::vector<char> text(mpz_sizeinbase(x, 10) + 2);
  mpz_get_str(text.data(), 10, x);
  return *types::internal::varint_from_text(text.data());
}

Result<std::string> decimal_bytes_of(const BigDecimal& d) {
  if (d.scale < INT32_MIN || d.scale > INT32_MAX)
    return Status::invalid_argument("Decimal scale out of range");
  return types::store_be(static_cast<uint32_t>(static_cast<int32_t>(d.scale)), 4) +
         varint_bytes_of(d.unscaled.get());
}

// BigDecimal.valueOf(d): the decimal Double.toString(d) writes (shortest digits; plain notation
// from 10^-3 to 10^7, else d.dddE±n; at least one digit after the point).
Status decimal_of_double(double d, BigDecimal* out) {
  if (std::isnan(d)) return Status::invalid_argument("A NaN cannot be converted into a decimal");
  if (std::isinf(d))
    return Status::invalid_argument("An infinite number cannot be converted into a decimal");
  if (d == 0) {
    mpz_set_ui(out->unscaled.get(), 0);
    out->scale = 1;  // "0.0"
    return Status::ok();
  }
  char buffer[64];
  const std::to_chars_result written =
      std::to_chars(buffer, buffer + sizeof buffer, d, std::chars_format::scientific);
  const std::string_view text(buffer, static_cast<size_t>(written.ptr - buffer));
  const size_t e = text.find('e');
  std::string digits = d < 0 ? "-" : "";
  for (char c : text.substr(0, e))
    if (c >= '0' && c <= '9') digits.push_back(c);
  const int64_t exponent = std::strtol(std::string(text.substr(e + 1)).c_str(), nullptr, 10);
  const int64_t n = static_cast<int64_t>(digits.size()) - (d < 0 ? 1 : 0);
  const double magnitude = std::fabs(d);
  int64_t fraction = 0;
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    fraction = std::max<int64_t>(1, n - 1 - exponent);
    digits.append(static_cast<size_t>(fraction - (n - 1 - exponent)), '0');
    out->scale = fraction;
  } else {
    fraction = std::max<int64_t>(1, n - 1);
    digits.append(static_cast<size_t>(fraction - (n - 1)), '0');
    out->scale = fraction - exponent;
  }
  mpz_set_str(out->unscaled.get(), digits.c_str(), 10);
  return Status::ok();
}

// DecimalType.toBigDecimal of an operand of `type`.
Status decimal_operand(const CqlType& type, std::string_view bytes, BigDecimal* out) {
  switch (type.kind) {
    case TypeKind::kDecimal:
      if (bytes.size() < 4) return Status::invalid_argument("A decimal needs at least 4 bytes");
      out->scale = static_cast<int32_t>(types::read_unsigned(bytes.substr(0, 4)));
      set_from_varint(out->unscaled.get(), bytes.substr(4));
      return Status::ok();
    case TypeKind::kVarint:
      out->scale = 0;
      set_from_varint(out->unscaled.get(), bytes);
      return Status::ok();
    case TypeKind::kFloat:
      return decimal_of_double(types::read_float(bytes), out);
    case TypeKind::kDouble:
      return decimal_of_double(types::read_double(bytes), out);
    default:
      return decimal_of_double(static_cast<double>(types::read_signed(bytes)), out);
  }
}

// x * 10^(to - from), REQUIRES to >= from.
void rescale(mpz_ptr x, int64_t from, int64_t to) {
  if (to == from) return;
  Integer factor;
  power_of_ten(factor.get(), static_cast<uint64_t>(to - from));
  mpz_mul(x, x, factor.get());
}

// q = num / den rounded HALF_UP (ties away from zero).
void divide_half_up(mpz_ptr q, mpz_srcptr num, mpz_srcptr den) {
  Integer r;
  mpz_tdiv_qr(q, r.get(), num, den);
  mpz_mul_2exp(r.get(), r.get(), 1);
  if (mpz_cmpabs(r.get(), den) >= 0) {
    if ((mpz_sgn(num) < 0) != (mpz_sgn(den) < 0)) {
      mpz_sub_ui(q, q, 1);
    } else {
      mpz_add_ui(q, q, 1);
    }
  }
}

// MathContext(10000, HALF_UP): at most 10000 significant digits.
void round_to_max_precision(BigDecimal* d) {
  for (uint64_t p = precision_of(d->unscaled.get()); p > kMaxPrecision;
       p = precision_of(d->unscaled.get())) {
    Integer factor, q;
    power_of_ten(factor.get(), p - kMaxPrecision);
    divide_half_up(q.get(), d->unscaled.get(), factor.get());
    mpz_swap(d->unscaled.get(), q.get());
    d->scale -= static_cast<int64_t>(p - kMaxPrecision);
  }
}

void strip_trailing_zeros(BigDecimal* d) {
  if (mpz_sgn(d->unscaled.get()) == 0) {
    d->scale = 0;
    return;
  }
  while (mpz_divisible_ui_p(d->unscaled.get(), 10)) {
    mpz_divexact_ui(d->unscaled.get(), d->unscaled.get(), 10);
    --d->scale;
  }
}

// DecimalType.divide: the scale predicted to hold 32 significant digits (at least each operand's
// and 32, at most 1000), HALF_UP, trailing zeros stripped.
Status divide(const BigDecimal& a, const BigDecimal& b, BigDecimal* out) {
  if (mpz_sgn(b.unscaled.get()) == 0) return Status::invalid_argument("BigInteger divide by zero");
  const int64_t first_digit = (static_cast<int64_t>(precision_of(a.unscaled.get())) - a.scale) -
                              (static_cast<int64_t>(precision_of(b.unscaled.get())) - b.scale);
  int64_t scale = std::max({kDivisionMinScale - first_digit, a.scale, b.scale, kDivisionMinScale});
  scale = std::min(scale, kDivisionMaxScale);
  Integer num, den;
  mpz_set(num.get(), a.unscaled.get());
  mpz_set(den.get(), b.unscaled.get());
  const int64_t shift = b.scale + scale - a.scale;  // a/b * 10^scale = num * 10^shift / den
  if (shift >= 0) {
    rescale(num.get(), 0, shift);
  } else {
    rescale(den.get(), 0, -shift);
  }
  divide_half_up(out->unscaled.get(), num.get(), den.get());
  out->scale = scale;
  strip_trailing_zeros(out);
  return Status::ok();
}

// BigDecimal.remainder: a - trunc(a / b) * b, at the scale Java's divideToIntegralValue and
// subtract give it (a's scale, or more when b's is larger and the quotient ends in few zeros).
Status remainder(const BigDecimal& a, const BigDecimal& b, BigDecimal* out) {
  if (mpz_sgn(b.unscaled.get()) == 0)
    return Status::invalid_argument(mpz_sgn(a.unscaled.get()) == 0 ? "Division undefined"
                                                                   : "Division by zero");
  const int64_t common = std::max(a.scale, b.scale);
  Integer x, y, q;
  mpz_set(x.get(), a.unscaled.get());
  mpz_set(y.get(), b.unscaled.get());
  rescale(x.get(), a.scale, common);
  rescale(y.get(), b.scale, common);
  mpz_tdiv_qr(q.get(), out->unscaled.get(), x.get(), y.get());
  int64_t target = a.scale;
  if (b.scale > a.scale && mpz_sgn(q.get()) != 0) {
    int64_t zeros = 0;
    while (zeros < b.scale - a.scale && mpz_divisible_ui_p(q.get(), 10)) {
      mpz_divexact_ui(q.get(), q.get(), 10);
      ++zeros;
    }
    target = std::max(a.scale, b.scale - zeros);
  }
  if (target < common) {
    Integer factor;
    power_of_ten(factor.get(), static_cast<uint64_t>(common - target));
    mpz_divexact(out->unscaled.get(), out->unscaled.get(), factor.get());
  }
  out->scale = target;
  return Status::ok();
}

void integer_operand(const CqlType& type, std::string_view bytes, mpz_ptr out) {
  if (type.kind == TypeKind::kVarint) {
    set_from_varint(out, bytes);
  } else {
    mpz_set_si(out, static_cast<long>(types::read_signed(bytes)));
  }
}

}  // namespace

Result<std::string> decimal_arithmetic(char op, const CqlType& left_type, std::string_view left,
                                       const CqlType& right_type, std::string_view right) {
  BigDecimal a, b, result;
  CASSETTE_RETURN_IF_ERROR(decimal_operand(left_type, left, &a));
  CASSETTE_RETURN_IF_ERROR(decimal_operand(right_type, right, &b));
  switch (op) {
    case '+':
    case '-': {
      const int64_t scale = std::max(a.scale, b.scale);
      rescale(a.unscaled.get(), a.scale, scale);
      rescale(b.unscaled.get(), b.scale, scale);
      if (op == '+') {
        mpz_add(result.unscaled.get(), a.unscaled.get(), b.unscaled.get());
      } else {
        mpz_sub(result.unscaled.get(), a.unscaled.get(), b.unscaled.get());
      }
      result.scale = scale;
      round_to_max_precision(&result);
      break;
    }
    case '*':
      mpz_mul(result.unscaled.get(), a.unscaled.get(), b.unscaled.get());
      result.scale = a.scale + b.scale;
      round_to_max_precision(&result);
      break;
    case '/':
      CASSETTE_RETURN_IF_ERROR(divide(a, b, &result));
      break;
    default:
      CASSETTE_RETURN_IF_ERROR(remainder(a, b, &result));
      break;
  }
  return decimal_bytes_of(result);
}

Result<std::string> varint_arithmetic(char op, const CqlType& left_type, std::string_view left,
                                      const CqlType& right_type, std::string_view right) {
  Integer a, b, result;
  integer_operand(left_type, left, a.get());
  integer_operand(right_type, right, b.get());
  switch (op) {
    case '+':
      mpz_add(result.get(), a.get(), b.get());
      break;
    case '-':
      mpz_sub(result.get(), a.get(), b.get());
      break;
    case '*':
      mpz_mul(result.get(), a.get(), b.get());
      break;
    default:
      if (mpz_sgn(b.get()) == 0) return Status::invalid_argument("BigInteger divide by zero");
      if (op == '/') {
        mpz_tdiv_q(result.get(), a.get(), b.get());
      } else {
        mpz_tdiv_r(result.get(), a.get(), b.get());
      }
      break;
  }
  return varint_bytes_of(result.get());
}

Result<std::string> big_negate(const CqlType& type, std::string_view value) {
  if (type.kind == TypeKind::kVarint) {
    Integer x;
    set_from_varint(x.get(), value);
    mpz_neg(x.get(), x.get());
    return varint_bytes_of(x.get());
  }
  BigDecimal d;
  CASSETTE_RETURN_IF_ERROR(decimal_operand(type, value, &d));
  mpz_neg(d.unscaled.get(), d.unscaled.get());
  return decimal_bytes_of(d);
}

}  // namespace cassette::cql
