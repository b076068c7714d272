// Cassandra's comparator order for every CQL type (AbstractType.compare), kept in agreement with
// the byte-comparable key encoding (byte_comparable.h) so that an ORDER BY, a set's element order
// and a clustering key's order are one and the same.
#include <cmath>
#include <cstring>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

namespace {

int sign(int64_t v) {
  return (v > 0) - (v < 0);
}

int compare_unsigned(std::string_view a, std::string_view b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return sign(static_cast<int64_t>(a.size()) - static_cast<int64_t>(b.size()));
}

int compare_signed_int(std::string_view a, std::string_view b) {
  return sign(types::read_signed(a) < types::read_signed(b)
                  ? -1
                  : types::read_signed(a) > types::read_signed(b));
}

// Float.compare / Double.compare: -0.0 < 0.0 and NaN above +Infinity.
template <typename F>
int compare_floating(F x, F y) {
  const bool xn = std::isnan(x), yn = std::isnan(y);
  if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
  if (x < y) return -1;
  if (x > y) return 1;
  return sign(static_cast<int>(!std::signbit(x)) - static_cast<int>(!std::signbit(y)));
}

// Minimal two's complement form (redundant sign bytes dropped).
std::string_view minimal_varint(std::string_view v) {
  while (v.size() > 1 &&
         ((v[0] == '\0' && !(static_cast<uint8_t>(v[1]) & 0x80)) ||
          (static_cast<uint8_t>(v[0]) == 0xFF && (static_cast<uint8_t>(v[1]) & 0x80))))
    v.remove_prefix(1);
  return v;
}

int compare_varint(std::string_view a, std::string_view b) {
  a = minimal_varint(a);
  b = minimal_varint(b);
  const bool an = static_cast<uint8_t>(a[0]) & 0x80, bn = static_cast<uint8_t>(b[0]) & 0x80;
  if (an != bn) return an ? -1 : 1;
  if (a.size() != b.size()) return (a.size() < b.size()) != an ? -1 : 1;
  // same sign and length: the first byte signed, then unsigned (equivalently all unsigned)
  return compare_unsigned(a, b);
}

// A decimal as sign, digits without leading/trailing zeros and the exponent E of 0.DIGITS x 10^E.
struct NormalizedDecimal {
  int sign = 0;
  std::string digits;
  int64_t exponent = 0;
};
NormalizedDecimal normalize_decimal(std::string_view bytes) {
  NormalizedDecimal n;
  const std::string unscaled = types::varint_to_text(bytes.substr(4));
  const int64_t scale = static_cast<int32_t>(read_unsigned(bytes.substr(0, 4)));
  std::string_view d = unscaled;
  if (d.starts_with("-")) {
    n.sign = -1;
    d.remove_prefix(1);
  } else {
    n.sign = 1;
  }
  if (d == "0") {
    n.sign = 0;
    return n;
  }
  n.exponent = static_cast<int64_t>(d.size()) - scale;
  while (!d.empty() && d.back() == '0') d.remove_suffix(1);
  n.digits = std::string(d);
  return n;
}

int compare_decimal(std::string_view a, std::string_view b) {
  const NormalizedDecimal x = normalize_decimal(a), y = normalize_decimal(b);
  if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
  if (x.sign == 0) return 0;
  int c = x.exponent != y.exponent ? (x.exponent < y.exponent ? -1 : 1)
                                   : compare_unsigned(x.digits, y.digits);
  return x.sign > 0 ? c : -c;
}

// The 60-bit timestamp of a version-1 uuid.
uint64_t uuid_timestamp(std::string_view b) {
  const uint64_t msb = read_unsigned(b.substr(0, 8));
  return ((msb & 0x0FFF) << 48) | (((msb >> 16) & 0xFFFF) << 32) | (msb >> 32);
}

int compare_uuid(std::string_view a, std::string_view b) {
  const int va = internal::uuid_version(a), vb = internal::uuid_version(b);
  if (va != vb) return va < vb ? -1 : 1;
  if (va == 1) {
    const uint64_t ta = uuid_timestamp(a), tb = uuid_timestamp(b);
    if (ta != tb) return ta < tb ? -1 : 1;
  } else {
    const int c = compare_unsigned(a.substr(0, 8), b.substr(0, 8));
    if (c != 0) return c;
  }
  return compare_unsigned(a.substr(8), b.substr(8));
}

int compare_timeuuid(std::string_view a, std::string_view b) {
  const uint64_t ta = uuid_timestamp(a), tb = uuid_timestamp(b);
  if (ta != tb) return ta < tb ? -1 : 1;
  for (size_t i = 8; i < 16; ++i) {
    const int8_t x = static_cast<int8_t>(a[i]), y = static_cast<int8_t>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int compare_elements(const CqlType& element, const std::vector<std::string>& a,
                     const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const int c = compare_values(element, a[i], b[i]);
    if (c != 0) return c;
  }
  return sign(static_cast<int64_t>(a.size()) - static_cast<int64_t>(b.size()));
}

}  // namespace

int compare_values(const CqlType& type, std::string_view a, std::string_view b) {
  if (a.empty() || b.empty())
    return sign(static_cast<int64_t>(!a.empty()) - static_cast<int64_t>(!b.empty()));
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
    case TypeKind::kBlob:
    case TypeKind::kInet:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kDuration:
      return compare_unsigned(a, b);
    case TypeKind::kBoolean: {
      const bool x = a[0] != 0, y = b[0] != 0;
      return sign(static_cast<int>(x) - static_cast<int>(y));
    }
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTimestamp:
      return compare_signed_int(a, b);
    case TypeKind::kFloat:
      if (a.size() != 4 || b.size() != 4) return compare_unsigned(a, b);
      return compare_floating(read_float(a), read_float(b));
    case TypeKind::kDouble:
      if (a.size() != 8 || b.size() != 8) return compare_unsigned(a, b);
      return compare_floating(read_double(a), read_double(b));
    case TypeKind::kVarint:
      return compare_varint(a, b);
    case TypeKind::kDecimal:
      if (a.size() < 4 || b.size() < 4) return compare_unsigned(a, b);
      return compare_decimal(a, b);
    case TypeKind::kUuid:
      if (a.size() != 16 || b.size() != 16) return compare_unsigned(a, b);
      return compare_uuid(a, b);
    case TypeKind::kTimeuuid:
      if (a.size() != 16 || b.size() != 16) return compare_unsigned(a, b);
      return compare_timeuuid(a, b);
    case TypeKind::kList:
    case TypeKind::kSet: {
      auto x = deserialize_list(a), y = deserialize_list(b);
      if (!x.is_ok() || !y.is_ok()) return compare_unsigned(a, b);
      return compare_elements(type.params.at(0), *x, *y);
    }
    case TypeKind::kMap: {
      auto x = deserialize_map(a), y = deserialize_map(b);
      if (!x.is_ok() || !y.is_ok()) return compare_unsigned(a, b);
      for (size_t i = 0; i < x->size() && i < y->size(); ++i) {
        int c = compare_values(type.params.at(0), (*x)[i].first, (*y)[i].first);
        if (c != 0) return c;
        c = compare_values(type.params.at(1), (*x)[i].second, (*y)[i].second);
        if (c != 0) return c;
      }
      return sign(static_cast<int64_t>(x->size()) - static_cast<int64_t>(y->size()));
    }
    case TypeKind::kTuple:
    case TypeKind::kUdt: {
      auto x = deserialize_tuple(a), y = deserialize_tuple(b);
      if (!x.is_ok() || !y.is_ok()) return compare_unsigned(a, b);
      // A missing trailing component compares as null; null sorts before any value.
      const size_t n = std::max(x->size(), y->size());
      for (size_t i = 0; i < n && i < type.params.size(); ++i) {
        const Value& u = i < x->size() ? (*x)[i] : Value();
        const Value& v = i < y->size() ? (*y)[i] : Value();
        if (!u || !v) {
          if (u.has_value() != v.has_value()) return u ? 1 : -1;
          continue;
        }
        const int c = compare_values(type.params[i], *u, *v);
        if (c != 0) return c;
      }
      return 0;
    }
    case TypeKind::kVector: {
      auto x = deserialize_vector(type, a), y = deserialize_vector(type, b);
      if (!x.is_ok() || !y.is_ok()) return compare_unsigned(a, b);
      return compare_elements(type.params.at(0), *x, *y);
    }
  }
  return compare_unsigned(a, b);
}

}  // namespace cassette::types
