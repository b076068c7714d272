// Scalar accessors: the fixed-width big-endian integers and IEEE 754 values of Cassandra's
// serialized forms (value.h), read and written. Every layer and host that takes a number out of a
// value's bytes, or builds those bytes, uses these; they are inline because the SQL hosts call
// them per value per row (SQLite's xColumn, PostgreSQL's batch decode).
//
//   read_signed("\xff\xfe")       == -2        (any width of 0 to 8 bytes, sign-extended)
//   read_unsigned("\x01\x00")     == 256
//   store_be(256, 4)              == "\0\0\x01\0"
//   read_double(double_bytes(x))  == x
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/types/cql_type.h"

namespace cassette::types {

// The width in bytes of every value of a fixed-width type (boolean and tinyint 1 ... uuid 16),
// as Cassandra serializes it; 0 for a type whose values vary in length (text, varint, decimal,
// collections, ...). An empty value (zero bytes) is allowed besides, where the type allows one.
constexpr size_t fixed_width(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean:
    case TypeKind::kTinyint:
      return 1;
    case TypeKind::kSmallint:
      return 2;
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kFloat:
      return 4;
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kDouble:
      return 8;
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return 16;
    default:
      return 0;
  }
}

// ---- exact widths. REQUIRES: bytes.size() is the width the name says. ----
inline int8_t read_int8(std::string_view bytes) {
  return static_cast<int8_t>(bytes[0]);
}
inline int16_t read_int16(std::string_view bytes) {
  uint16_t v;
  std::memcpy(&v, bytes.data(), 2);
  return static_cast<int16_t>(__builtin_bswap16(v));
}
inline int32_t read_int32(std::string_view bytes) {
  uint32_t v;
  std::memcpy(&v, bytes.data(), 4);
  return static_cast<int32_t>(__builtin_bswap32(v));
}
inline int64_t read_int64(std::string_view bytes) {
  uint64_t v;
  std::memcpy(&v, bytes.data(), 8);
  return static_cast<int64_t>(__builtin_bswap64(v));
}

// ---- any width of 0 to 8 bytes (REQUIRES: at most 8) ----
// Big-endian, unsigned: 0 for no bytes.
inline uint64_t read_unsigned(std::string_view bytes) {
  uint64_t v = 0;
  for (unsigned char c : bytes) v = (v << 8) | c;
  return v;
}
// Big-endian two's complement, sign-extended from bytes.size(): CQL's integer types, a varint of
// up to 8 bytes. 0 for no bytes. The usual widths (bigint, int) take one load, not a loop.
inline int64_t read_signed(std::string_view bytes) {
  if (bytes.size() == 8) return read_int64(bytes);
  if (bytes.size() == 4) return read_int32(bytes);
  if (bytes.empty()) return 0;
  uint64_t v = static_cast<signed char>(bytes[0]) < 0 ? ~uint64_t{0} : 0;
  for (unsigned char c : bytes) v = (v << 8) | c;
  return static_cast<int64_t>(v);
}

// IEEE 754 values (float: 4 bytes, double: 8); other widths read as the bits read_unsigned gives.
inline float read_float(std::string_view bytes) {
  const auto bits = static_cast<uint32_t>(
      bytes.size() == 4 ? static_cast<uint32_t>(read_int32(bytes)) : read_unsigned(bytes));
  return std::bit_cast<float>(bits);
}
inline double read_double(std::string_view bytes) {
  const uint64_t bits =
      bytes.size() == 8 ? static_cast<uint64_t>(read_int64(bytes)) : read_unsigned(bytes);
  return std::bit_cast<double>(bits);
}
// A boolean's one byte: anything but zero is true (Cassandra's BooleanSerializer).
inline bool read_boolean(std::string_view bytes) {
  return !bytes.empty() && bytes[0] != 0;
}

// ---- writers ----
// The low `width` bytes of v, big-endian (REQUIRES: width <= 8).
inline void append_be(std::string* out, uint64_t v, size_t width) {
  for (size_t i = width; i > 0; --i) out->push_back(static_cast<char>(v >> ((i - 1) * 8)));
}
inline std::string store_be(uint64_t v, size_t width) {
  std::string out;
  out.reserve(width);
  append_be(&out, v, width);
  return out;
}
inline std::string float_bytes(float f) {
  return store_be(std::bit_cast<uint32_t>(f), 4);
}
inline std::string double_bytes(double d) {
  return store_be(std::bit_cast<uint64_t>(d), 8);
}

}  // namespace cassette::types
