// Numbers for the value layer: big-endian fixed-width integers, hex, arbitrary-precision varint
// and decimal conversions with Java's BigInteger/BigDecimal syntax and printing, and the two
// ways floating point values are printed (Java's Double.toString, cqlsh's %g).
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "engine/types/big_integer.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    out.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
    out.push_back(kDigits[static_cast<uint8_t>(c) & 0xF]);
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

}  // namespace cassette::types

namespace cassette::types::internal {

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII (most text) eight bytes at a time.
    for (uint64_t word; i + 8 <= s.size(); i += 8) {
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ULL) != 0) break;
    }
    if (i == s.size()) break;
    const uint8_t c = static_cast<uint8_t>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const uint8_t cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
      return false;
    i += n + 1;
  }
  return true;
}

// ---- varint and decimal ----

std::optional<std::string> varint_from_text(std::string_view text) {
  auto n = BigInteger::from_decimal(text);
  if (!n) return std::nullopt;
  return n->to_twos_complement();
}

}  // namespace cassette::types::internal

namespace cassette::types {

std::string varint_from_int64(int64_t v) {
  return BigInteger(v).to_twos_complement();
}

std::string varint_to_text(std::string_view bytes) {
  return BigInteger::from_twos_complement(bytes).to_decimal();
}

}  // namespace cassette::types

namespace cassette::types::internal {

int64_t varint_low64(std::string_view bytes) {
  if (bytes.size() > 8) bytes = bytes.substr(bytes.size() - 8);
  return read_signed(bytes);
}

double varint_to_double(std::string_view bytes) {
  // strtod rounds the exact digits to nearest, as BigInteger.doubleValue() does.
  return std::strtod(varint_to_text(bytes).c_str(), nullptr);
}

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The exponent of a decimal's text ("e-5" -> -5), nullopt when malformed or when it is beyond
// what any int32 scale could absorb.
std::optional<int64_t> decimal_exponent(std::string_view exp) {
  bool negative = false;
  if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) {
    negative = exp[0] == '-';
    exp.remove_prefix(1);
  }
  if (!all_digits(exp) || exp.size() > 10) return std::nullopt;
  int64_t e = 0;
  for (char c : exp) e = e * 10 + (c - '0');
  return negative ? -e : e;
}

}  // namespace

std::optional<std::string> decimal_from_text(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  const size_t exponent_at = text.find_first_of("eE");
  const std::string_view mantissa = text.substr(0, exponent_at);
  int64_t scale = 0;
  std::string digits;
  const size_t point = mantissa.find('.');
  if (point == std::string_view::npos) {
    digits = std::string(mantissa);
  } else {
    digits = std::string(mantissa.substr(0, point));
    digits += mantissa.substr(point + 1);
    scale = static_cast<int64_t>(mantissa.size() - point - 1);
  }
  if (!all_digits(digits)) return std::nullopt;  // also no digits at all, or a second '.'
  if (exponent_at != std::string_view::npos) {
    auto exponent = decimal_exponent(text.substr(exponent_at + 1));
    if (!exponent) return std::nullopt;
    scale -= *exponent;
  }
  if (scale > INT32_MAX || scale < INT32_MIN) return std::nullopt;
  auto unscaled = BigInteger::from_decimal(digits);
  if (!unscaled) return std::nullopt;
  if (negative) unscaled->negate();
  return store_be(static_cast<uint32_t>(static_cast<int32_t>(scale)), 4) +
         unscaled->to_twos_complement();
}

namespace {

struct DecimalParts {
  bool negative = false;
  std::string digits;  // unscaled magnitude, "0" for zero
  int32_t scale = 0;
};

DecimalParts decimal_parts(std::string_view bytes) {
  DecimalParts p;
  if (bytes.size() < 4) return p;
  p.scale = static_cast<int32_t>(read_unsigned(bytes.substr(0, 4)));
  p.digits = BigInteger::from_twos_complement(bytes.substr(4)).to_decimal();
  if (p.digits.starts_with("-")) {
    p.negative = true;
    p.digits.erase(0, 1);
  }
  return p;
}

}  // namespace

}  // namespace cassette::types::internal

namespace cassette::types {

std::string decimal_to_text(std::string_view bytes) {
  const internal::DecimalParts p = internal::decimal_parts(bytes);
  const std::string& d = p.digits;
  const std::string sign = p.negative ? "-" : "";
  const int64_t adjusted = -static_cast<int64_t>(p.scale) + static_cast<int64_t>(d.size()) - 1;
  if (p.scale == 0) return sign + d;
  if (p.scale > 0 && adjusted >= -6) {
    const int64_t point = static_cast<int64_t>(d.size()) - p.scale;
    if (point > 0) return sign + d.substr(0, point) + "." + d.substr(point);
    return sign + "0." + std::string(static_cast<size_t>(-point), '0') + d;
  }
  std::string out = sign + d.substr(0, 1);
  if (d.size() > 1) out += "." + d.substr(1);
  if (adjusted != 0) out += fmt::format("E{}{}", adjusted > 0 ? "+" : "", adjusted);
  return out;
}

}  // namespace cassette::types

namespace cassette::types::internal {

Result<std::string> decimal_to_varint(std::string_view bytes) {
  const int64_t scale =
      bytes.size() < 4 ? 0 : static_cast<int32_t>(read_unsigned(bytes.substr(0, 4)));
  BigInteger n = BigInteger::from_twos_complement(bytes.size() < 4 ? "" : bytes.substr(4));
  if (scale > 0) {
    n.divide_by_power_of_ten(static_cast<uint64_t>(scale));
  } else if (scale < 0) {
    if (!n.fits_power_of_ten(static_cast<uint64_t>(-scale))) {
      return Status::invalid_argument(fmt::format("The integer part of {} has more than {} digits",
                                                  decimal_to_text(bytes), kMaxComputedDigits));
    }
    n.multiply_by_power_of_ten(static_cast<uint64_t>(-scale));
  }
  return n.to_twos_complement();
}

int64_t decimal_low64(std::string_view bytes) {
  // Times 10^64 or more, the integer part is a multiple of 2^64: its low 64 bits are zero.
  const int64_t scale =
      bytes.size() < 4 ? 0 : static_cast<int32_t>(read_unsigned(bytes.substr(0, 4)));
  if (scale <= -64) return 0;
  auto integer = decimal_to_varint(bytes);
  return integer.is_ok() ? varint_low64(*integer) : 0;
}

double decimal_to_double(std::string_view bytes) {
  const DecimalParts p = decimal_parts(bytes);
  const std::string text =
      fmt::format("{}{}e{}", p.negative ? "-" : "", p.digits, -static_cast<int64_t>(p.scale));
  return std::strtod(text.c_str(), nullptr);
}

std::string magnitude_to_digits(std::string_view magnitude) {
  if (magnitude.find_first_not_of('\0') == std::string_view::npos) return std::string();
  return BigInteger::from_magnitude(magnitude, false).to_decimal();
}

std::string digits_to_magnitude(std::string_view digits) {
  auto n = BigInteger::from_decimal(digits);
  return n ? n->magnitude() : std::string();
}

// ---- floating point printing ----

namespace {

// Java's FloatingDecimal layout for the shortest digits of a finite non-zero value.
std::string java_format(std::string_view sci) {
  // sci is like "-1.2345e+06" from std::to_chars(..., scientific)
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits.push_back(c);
  int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      std::string int_part = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
      int_part += std::string(exponent + 1 - int_part.size(), '0');
      std::string frac =
          digits.size() > static_cast<size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
      return out + int_part + "." + frac;
    }
    return out + "0." + std::string(-exponent - 1, '0') + digits;
  }
  return out + digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
         std::to_string(exponent);
}

// JDK 8-17's FloatingDecimal prints an integer-valued float or double below 2^63 from its exact
// integer digits, rounding off only the digits its precision cannot carry (a table indexed by
// the surplus binary exponent), instead of the shortest digits: Float.toString(3451250944f) is
// "3.45125094E9" there, not "3.451251E9". Cassandra runs on those JDKs, so we do the same.
std::optional<std::string> java_integer_digits(double v, int significant_bits) {
  int binary_exponent;
  std::frexp(v, &binary_exponent);
  --binary_exponent;  // v = 1.xxx * 2^binary_exponent
  if (v != std::floor(v) || binary_exponent < 0 || binary_exponent > 62) return std::nullopt;
  static constexpr int kInsignificantDigits[] = {
      0,  0,  0,  0,  1,  1,  1,  2,  2,  2,  3,  3,  3,  3,  4,  4,  4,  5,  5,  5,  6,  6,
      6,  6,  7,  7,  7,  8,  8,  8,  9,  9,  9,  9,  10, 10, 10, 11, 11, 11, 12, 12, 12, 12,
      13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19};
  const int surplus = binary_exponent - significant_bits - 1;
  const int insignificant = surplus > 1 && surplus < 64 ? kInsignificantDigits[surplus] : 0;
  uint64_t value = static_cast<uint64_t>(std::fabs(v));
  int exponent = 0;
  if (insignificant > 0) {
    uint64_t pow10 = 1;
    for (int i = 0; i < insignificant; ++i) pow10 *= 10;
    const uint64_t residue = value % pow10;
    value /= pow10;
    exponent += insignificant;
    if (residue >= pow10 / 2) ++value;
  }
  std::string digits = std::to_string(value);
  exponent += static_cast<int>(digits.size()) - 1;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return fmt::format("{}{}{}e{}", v < 0 ? "-" : "", digits.substr(0, 1),
                     digits.size() > 1 ? "." + digits.substr(1) : "", exponent);
}

}  // namespace

std::string java_double_to_string(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  if (auto sci = java_integer_digits(v, 53)) return java_format(*sci);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return java_format(std::string_view(buf, res.ptr - buf));
}

std::string java_float_to_string(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  if (auto sci = java_integer_digits(v, 24)) return java_format(*sci);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return java_format(std::string_view(buf, res.ptr - buf));
}

std::string cqlsh_float_to_string(double v, int precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // As cqlsh: when %g would not use an exponent, widen the precision by the integer digits so
  // that it does not round them away.
  if (std::fabs(v) > DBL_EPSILON) {
    const int exponent = static_cast<int>(std::log10(std::fabs(v)));  // truncates toward zero
    if (exponent >= -4 && exponent < precision) precision = precision + exponent + 1;
  }
  char buf[128];  // precision up to 40, widened by up to 40 integer digits
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

std::string exact_float_to_string(double v, bool single) {
  if (std::isnan(v) || std::isinf(v)) return cqlsh_float_to_string(v, 1);
  auto reads_back = [&](const std::string& text) {
    if (single) {
      return float_bytes(std::strtof(text.c_str(), nullptr)) == float_bytes(static_cast<float>(v));
    }
    return double_bytes(std::strtod(text.c_str(), nullptr)) == double_bytes(v);
  };
  // The shortest digits that round-trip (std::to_chars), then as many more as printf's
  // rounding of them may need (rarely any).
  char buf[64];
  const auto end = single
                       ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v),
                                       std::chars_format::scientific)
                             .ptr
                       : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr;
  int digits = 0;
  for (const char* c = buf; c < end && *c != 'e'; ++c) digits += *c >= '0' && *c <= '9';
  for (int precision = std::max(digits, 1); precision < 40; ++precision) {
    std::string text = cqlsh_float_to_string(v, precision);
    if (reads_back(text)) return text;
  }
  return cqlsh_float_to_string(v, single ? 9 : 17);  // always exact
}

}  // namespace cassette::types::internal
