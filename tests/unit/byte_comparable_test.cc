// The byte-comparable key encoding: for every type that can be a clustering column, values listed
// in Cassandra's comparator order must encode to strictly increasing (ASC) or decreasing (DESC)
// byte strings that decode back to the exact input bytes. Reference comparators written from
// Cassandra's rules check the same on random values; malformed and random input must fail with a
// Status, never crash.
#include "engine/types/byte_comparable.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/types/scalar.h"
#include "engine/types/value.h"

using namespace cassette;
using namespace cassette::types;

namespace {

// ---- serialized values, in the native protocol's form ----

std::string big_endian(uint64_t v, int width) {
  std::string out;
  for (int i = width - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}
// clang-format off
std::string tinyint(int8_t v) { return big_endian(static_cast<uint8_t>(v), 1); }
std::string smallint(int16_t v) { return big_endian(static_cast<uint16_t>(v), 2); }
std::string int32(int32_t v) { return big_endian(static_cast<uint32_t>(v), 4); }
std::string bigint(int64_t v) { return big_endian(static_cast<uint64_t>(v), 8); }
std::string float_bits(uint32_t bits) { return big_endian(bits, 4); }
std::string double_bits(uint64_t bits) { return big_endian(bits, 8); }
std::string float32(float v) { return float_bits(std::bit_cast<uint32_t>(v)); }
std::string float64(double v) { return double_bits(std::bit_cast<uint64_t>(v)); }
// clang-format on

// Bytes from hex digits; other characters (dashes in UUIDs, spaces) are skipped.
std::string hex(std::string_view text) {
  std::string out;
  int pending = -1;
  for (char c : text) {
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) continue;
    if (pending < 0) {
      pending = digit;
    } else {
      out.push_back(static_cast<char>(pending * 16 + digit));
      pending = -1;
    }
  }
  return out;
}

// The minimal two's complement big-endian bytes of v (Cassandra's varint form).
std::string varint(int64_t v) {
  std::string out = bigint(v);
  while (out.size() > 1 &&
         ((out[0] == '\0' && !(out[1] & 0x80)) || (out[0] == '\xFF' && (out[1] & 0x80)))) {
    out.erase(0, 1);
  }
  return out;
}

std::string decimal(int32_t scale, const std::string& unscaled) {
  return int32(scale) + unscaled;
}

std::string list_of(const std::vector<std::string>& elements) {
  std::string out = int32(static_cast<int32_t>(elements.size()));
  for (const std::string& e : elements) out += int32(static_cast<int32_t>(e.size())) + e;
  return out;
}
std::string map_of(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out = int32(static_cast<int32_t>(entries.size()));
  for (const auto& [k, v] : entries) {
    out += int32(static_cast<int32_t>(k.size())) + k + int32(static_cast<int32_t>(v.size())) + v;
  }
  return out;
}
std::string tuple_of(const std::vector<std::optional<std::string>>& components) {
  std::string out;
  for (const auto& c : components) {
    out += c ? int32(static_cast<int32_t>(c->size())) + *c : int32(-1);
  }
  return out;
}
constexpr std::nullopt_t null = std::nullopt;

CqlType simple(TypeKind kind) {
  return CqlType::simple(kind);
}
CqlType udt(std::vector<CqlType> fields) {
  CqlType t{TypeKind::kUdt, std::move(fields), true, "ks", "point", {}};
  for (size_t i = 0; i < t.params.size(); ++i) t.field_names.push_back(fmt::format("f{}", i));
  return t;
}

// ---- helpers over the encoding ----

// memcmp order, shorter first on a common prefix.
int compare_bytes(std::string_view a, std::string_view b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}
std::string hex_of(std::string_view bytes) {
  std::string out;
  for (char c : bytes) out += fmt::format("{:02x}", static_cast<uint8_t>(c));
  return out;
}

std::string encode(const CqlType& type, std::string_view value, bool descending) {
  std::string out = "prefix";  // encoding appends
  const Status status = encode_key_component(type, value, descending, &out);
  INFO("value ", hex_of(value), ": ", status.message());
  REQUIRE(status.is_ok());
  REQUIRE(out.compare(0, 6, "prefix") == 0);
  return out.substr(6);
}

// Decodes `encoded` followed by a trailer and checks it gives back `value` and stops exactly at
// the trailer.
void check_round_trip(const CqlType& type, const std::string& value, const std::string& encoded,
                      bool descending) {
  const std::string with_trailer = encoded + "\x04tail";
  std::string_view in = with_trailer;
  auto decoded = decode_key_component(type, descending, &in);
  INFO("value ", hex_of(value), " encoded ", hex_of(encoded));
  REQUIRE(decoded.is_ok());
  CHECK(hex_of(*decoded) == hex_of(value));
  CHECK(in == "\x04tail");
}

// `values` are in Cassandra's order (ties between values Cassandra calls equal in the encoder's
// tie-break order): their encodings must be strictly increasing ASC, strictly decreasing DESC,
// prefix-free, never start with 0x00 or 0xFF, and decode back exactly.
void check_order(const CqlType& type, const std::vector<std::string>& values) {
  std::vector<std::string> asc, desc;
  for (const std::string& v : values) {
    asc.push_back(encode(type, v, false));
    desc.push_back(encode(type, v, true));
    for (const std::string* e : {&asc.back(), &desc.back()}) {
      REQUIRE(!e->empty());
      CHECK(e->front() != '\0');
      CHECK(e->front() != '\xFF');
    }
    check_round_trip(type, v, asc.back(), false);
    check_round_trip(type, v, desc.back(), true);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = i + 1; j < values.size(); ++j) {
      INFO("values #", i, " ", hex_of(values[i]), " and #", j, " ", hex_of(values[j]));
      INFO("ASC ", hex_of(asc[i]), " vs ", hex_of(asc[j]));
      CHECK(compare_bytes(asc[i], asc[j]) < 0);
      CHECK(compare_bytes(desc[i], desc[j]) > 0);
      // Prefix-free: a byte decides, neither is a prefix of the other (nor, inverted, for DESC).
      CHECK_FALSE(asc[j].starts_with(asc[i]));
      CHECK_FALSE(asc[i].starts_with(asc[j]));
    }
  }
}

}  // namespace

// The value tables below are laid out by hand: values Cassandra calls equal share a line, in the
// encoder's tie-break order, with a comment saying what they are.
// clang-format off

TEST_CASE("byte strings sort as unsigned bytes, a prefix first") {
  const std::vector<std::string> text = {
      "", std::string("\0", 1), std::string("\0\0", 2), std::string("\0\x01", 2), "\x01", "A",
      "a", std::string("a\0", 2), std::string("a\0b", 3), "a\x01", "ab", "b", "\x7f",
      "\xc3\xa9",          // é
      "\xe2\x82\xac",      // €
      "\xf0\x9f\x98\x80",  // 😀
  };
  check_order(simple(TypeKind::kText), text);
  check_order(simple(TypeKind::kAscii), {"", "A", "Z", "a", "aa", "b"});

  std::vector<std::string> blob = text;
  blob.insert(blob.end(), {"\xfe", "\xff", std::string("\xff\0", 2), "\xff\xff"});
  check_order(simple(TypeKind::kBlob), blob);

  check_order(simple(TypeKind::kInet), {
      "",
      hex("00000000"),                          // 0.0.0.0, a prefix of ::1
      hex("00000000000000000000000000000001"),  // ::1
      hex("0a000001"),                          // 10.0.0.1
      hex("7f000001"),                          // 127.0.0.1
      hex("fe800000000000000000000000000001"),  // fe80::1
      hex("ffffffff"),                          // 255.255.255.255
      hex("ffffffffffffffffffffffffffffffff"),
  });
}

TEST_CASE("booleans and fixed-width integers sort by value") {
  check_order(simple(TypeKind::kBoolean), {"", hex("00"), hex("01")});
  check_order(simple(TypeKind::kTinyint),
              {"", tinyint(-128), tinyint(-1), tinyint(0), tinyint(1), tinyint(127)});
  check_order(simple(TypeKind::kSmallint),
              {"", smallint(-32768), smallint(-256), smallint(-1), smallint(0), smallint(1),
               smallint(255), smallint(256), smallint(32767)});
  check_order(simple(TypeKind::kInt),
              {"", int32(INT32_MIN), int32(-65536), int32(-256), int32(-1), int32(0), int32(1),
               int32(255), int32(256), int32(INT32_MAX)});
  const std::vector<std::string> longs = {
      "", bigint(INT64_MIN), bigint(-(int64_t{1} << 32)), bigint(-1), bigint(0), bigint(1),
      bigint(int64_t{1} << 32), bigint(INT64_MAX)};
  check_order(simple(TypeKind::kBigint), longs);
  check_order(simple(TypeKind::kCounter), longs);
  // Milliseconds since the epoch, signed: 1969 sorts before 1970.
  check_order(simple(TypeKind::kTimestamp),
              {"", bigint(INT64_MIN), bigint(-86400000), bigint(-1), bigint(0),
               bigint(1700000000000), bigint(INT64_MAX)});
}

TEST_CASE("dates sort as unsigned days and times as nanoseconds") {
  check_order(simple(TypeKind::kDate), {
      "",
      int32(0),                                  // -5877641-06-23, the first date
      int32(0x7FFFFFFF),
      int32(INT32_MIN), int32(INT32_MIN + 1),    // 1970-01-01, 1970-01-02
      int32(-1),                                 // the last date
  });
  check_order(simple(TypeKind::kTime),
              {"", bigint(0), bigint(1), bigint(1000000000), bigint(86399999999999)});
}

TEST_CASE("varints sort by numeric value, however long") {
  check_order(simple(TypeKind::kVarint), {
      "",
      hex("fe" + std::string(50, 'f')),          // -(2^200) - 1
      hex("ff" + std::string(50, '0')),          // -(2^200)
      hex("ff 00 00000000 00000000"),            // -(2^64)
      hex("ff 7f ffffffff ffffffff"),            // -(2^63) - 1
      varint(INT64_MIN),                         // -(2^63)
      varint(-257), varint(-256), varint(-129),
      varint(-128), hex("ff80"),                 // -128, then a non-minimal -128
      varint(-2),
      varint(-1), hex("ffff"), hex("ffffff"),    // -1, then with redundant sign bytes
      varint(0), hex("0000"), hex("000000"),
      varint(1), hex("0001"),
      varint(127), varint(128), varint(255), varint(256), varint(65535), varint(65536),
      varint(INT64_MAX),
      hex("00 80 00000000 000000"),              // 2^63
      hex("01 00000000 00000000"),               // 2^64
      hex("01" + std::string(50, '0')),          // 2^200
      hex("01" + std::string(50, '0') + "01"),   // 2^208 + 1
      hex("7f" + std::string(300, 'f')),         // 2^1207 - 1
  });
}

TEST_CASE("decimals sort by numeric value, then by scale") {
  const std::string one = varint(1), minus_one = varint(-1);
  check_order(simple(TypeKind::kDecimal), {
      "",
      decimal(INT32_MIN, minus_one),                       // -1E+2147483648
      decimal(-100, minus_one),                            // -1E+100
      decimal(0, varint(-100)),                            // -100
      decimal(-1, minus_one), decimal(0, varint(-10)),     // -1E+1, -10: ties go by scale
      decimal(0, varint(-2)),                              // -2
      decimal(0, minus_one), decimal(0, hex("ffff")),      // -1, then a non-minimal -1
      decimal(1, varint(-10)), decimal(2, varint(-100)),   // -1.0, -1.00
      decimal(2, varint(-99)),                             // -0.99
      decimal(1, varint(-5)),                              // -0.5
      decimal(10, minus_one),                              // -1E-10
      decimal(INT32_MAX, minus_one),                       // -1E-2147483647
      decimal(-1, varint(0)), decimal(0, varint(0)),       // 0E+1, 0,
      decimal(0, hex("0000")), decimal(3, varint(0)),      // 0 (non-minimal), 0.000
      decimal(INT32_MAX, one),                             // 1E-2147483647
      decimal(10, one),                                    // 1E-10
      decimal(3, varint(5)),                               // 0.005
      decimal(2, varint(5)),                               // 0.05
      decimal(1, varint(5)), decimal(2, varint(50)),       // 0.5, 0.50
      decimal(2, varint(99)),                              // 0.99
      decimal(0, one), decimal(0, hex("0001")),            // 1, 1 (non-minimal)
      decimal(1, varint(10)), decimal(2, varint(100)),     // 1.0, 1.00
      decimal(2, varint(101)),                             // 1.01
      decimal(1, varint(11)),                              // 1.1
      decimal(0, varint(2)),                               // 2
      decimal(2, varint(999)),                             // 9.99
      decimal(-1, one), decimal(0, varint(10)),            // 1E+1, 10
      decimal(3, varint(12345678901234567)),               // 12345678901234.567
      decimal(0, hex("01" + std::string(50, '0'))),        // 2^200, about 1.6E+60
      decimal(-100, one),                                  // 1E+100
      decimal(INT32_MIN, one),                             // 1E+2147483648
  });
}

// clang-format on
// The bytes that order a value without its tie-break: shared by every encoding of one value (so
// an SAI index finds 5000 when asked for 5E+3), a prefix of no other value's encoding.
TEST_CASE("equal decimals and varints share their value-ordering bytes") {
  auto prefix = [](TypeKind kind, const std::string& serialized) {
    std::string encoded;
    REQUIRE(encode_key_component(simple(kind), serialized, false, &encoded).is_ok());
    Result<size_t> length = value_order_length(simple(kind), encoded);
    REQUIRE(length.is_ok());
    REQUIRE(*length <= encoded.size());
    return encoded.substr(0, *length);
  };
  auto encoded = [](TypeKind kind, const std::string& serialized) {
    std::string out;
    REQUIRE(encode_key_component(simple(kind), serialized, false, &out).is_ok());
    return out;
  };
  const std::vector<std::vector<std::string>> equal_decimals = {
      {decimal(-1, varint(5)), decimal(0, varint(50)), decimal(3, varint(50000))},  // 50
      {decimal(0, varint(-1)), decimal(0, hex("ffff")), decimal(2, varint(-100))},  // -1
      {decimal(0, varint(0)), decimal(5, varint(0)), decimal(-3, hex("0000"))},     // 0
      {decimal(30, varint(7)), decimal(31, varint(70))},                            // 7E-30
  };
  for (const auto& group : equal_decimals) {
    for (const std::string& value : group) {
      CHECK(prefix(TypeKind::kDecimal, value) == prefix(TypeKind::kDecimal, group[0]));
    }
  }
  for (size_t a = 0; a < equal_decimals.size(); ++a) {
    for (size_t b = 0; b < equal_decimals.size(); ++b) {
      if (a == b) continue;
      const std::string p = prefix(TypeKind::kDecimal, equal_decimals[a][0]);
      for (const std::string& other : equal_decimals[b]) {
        CHECK(encoded(TypeKind::kDecimal, other).substr(0, p.size()) != p);
      }
    }
  }
  CHECK(prefix(TypeKind::kVarint, varint(-1)) == prefix(TypeKind::kVarint, hex("ffffff")));
  CHECK(prefix(TypeKind::kVarint, varint(1)) == prefix(TypeKind::kVarint, hex("0001")));
  CHECK(prefix(TypeKind::kVarint, varint(256)) != prefix(TypeKind::kVarint, varint(1)));
  CHECK(prefix(TypeKind::kInt, int32(5)) == encoded(TypeKind::kInt, int32(5)));
  CHECK(prefix(TypeKind::kDecimal, "") == encoded(TypeKind::kDecimal, ""));
}

TEST_CASE("the largest varints and decimals round-trip; larger ones are rejected") {
  // Cassandra caps a clustering value at 64 KiB, and so does the encoder for numbers.
  const std::string largest_varint = "\x7f" + std::string(0xFFFE, '\xff');
  const std::string largest_decimal = int32(-5) + largest_varint.substr(0, 0xFFFF - 4);
  // (ASC only: converting ~158,000 digits takes a noticeable fraction of a second.)
  check_round_trip(simple(TypeKind::kVarint), largest_varint,
                   encode(simple(TypeKind::kVarint), largest_varint, false), false);
  check_round_trip(simple(TypeKind::kDecimal), largest_decimal,
                   encode(simple(TypeKind::kDecimal), largest_decimal, false), false);
  std::string out;
  CHECK(encode_key_component(simple(TypeKind::kVarint), largest_varint + "\x01", false, &out)
            .is_invalid_argument());
  CHECK(encode_key_component(simple(TypeKind::kDecimal), largest_decimal + "\x01", false, &out)
            .is_invalid_argument());
  // 1 x 10^200000 as an integer would need about 83 KB; the decoder refuses to build it.
  // It also refuses the varint 1 with 65535 redundant sign bytes (a 64 KiB + 1 byte value).
  for (const auto& [kind, bytes] : {std::pair{TypeKind::kDecimal, "04 03 83 030d41 0b 00 80 80"},
                                    std::pair{TypeKind::kVarint, "04 81 01 01 82 ffff"}}) {
    const std::string encoded = hex(bytes);
    std::string_view in = encoded;
    CHECK(decode_key_component(simple(kind), false, &in).status().is_corruption());
  }
}
// clang-format off

TEST_CASE("floats and doubles sort like Java's Float.compare, NaN last") {
  using F = std::numeric_limits<float>;
  check_order(simple(TypeKind::kFloat), {
      "", float32(-F::infinity()), float32(-F::max()), float32(-1.5f), float32(-1.0f),
      float32(-F::min()), float32(-F::denorm_min()), float32(-0.0f), float32(0.0f),
      float32(F::denorm_min()), float32(F::min()), float32(1.0f), float32(1.5f),
      float32(F::max()), float32(F::infinity()),
      // Every NaN is equal to Cassandra; the raw bits break the tie.
      float_bits(0x7F800001), float_bits(0x7FC00000), float_bits(0x7FC00001),
      float_bits(0xFF800001), float_bits(0xFFC00000), float_bits(0xFFFFFFFF),
  });
  using D = std::numeric_limits<double>;
  check_order(simple(TypeKind::kDouble), {
      "", float64(-D::infinity()), float64(-D::max()), float64(-1e100), float64(-1.0),
      float64(-D::denorm_min()), float64(-0.0), float64(0.0), float64(D::denorm_min()),
      float64(1e-300), float64(1.0), float64(1.0000000000000002), float64(D::max()),
      float64(D::infinity()),
      double_bits(0x7FF0000000000001), double_bits(0x7FF8000000000000),
      double_bits(0xFFF8000000000000),
  });
}

TEST_CASE("uuids sort by version, then a time UUID's timestamp, then unsigned bytes") {
  check_order(simple(TypeKind::kUuid), {
      "",
      hex("00000000-0000-0000-0000-000000000000"),  // nil (version 0)
      hex("00000000-0000-0fff-ffff-ffffffffffff"),
      hex("ffffffff-ffff-0000-0000-000000000000"),
      // Version 1, by timestamp (time_hi, time_mid, time_low), not by raw bytes:
      hex("ffffffff-0000-1000-0000-000000000000"),
      hex("00000000-0001-1000-0000-000000000000"),
      hex("00000000-0000-1001-0000-000000000000"),
      // Same timestamp: the low 8 bytes unsigned (unlike timeuuid).
      hex("00000000-0000-1002-0000-000000000000"),
      hex("00000000-0000-1002-7fff-ffffffffffff"),
      hex("00000000-0000-1002-8000-000000000000"),
      hex("00000000-0000-1002-ffff-ffffffffffff"),
      hex("00000000-0000-2000-0000-000000000000"),
      // Other versions: the high 8 bytes, then the low 8 bytes, unsigned.
      hex("00000000-0000-4000-8000-000000000000"),
      hex("00000000-0000-4000-8000-000000000001"),
      hex("00000000-0000-4fff-8000-000000000000"),
      hex("00000000-0001-4000-8000-000000000000"),
      hex("80000000-0000-4000-8000-000000000000"),
      hex("ffffffff-ffff-4fff-bfff-ffffffffffff"),
      hex("00000000-0000-5000-8000-000000000000"),
      hex("00000000-0000-f000-0000-000000000000"),
  });
  check_order(simple(TypeKind::kTimeuuid), {
      "",
      hex("ffffffff-0000-1000-0000-000000000000"),
      hex("00000000-0001-1000-0000-000000000000"),
      hex("00000000-ffff-1000-0000-000000000000"),
      hex("00000000-0000-1001-0000-000000000000"),
      // Same timestamp: clock sequence and node compared as signed bytes.
      hex("00000000-0000-1fff-8000-000000000000"),
      hex("00000000-0000-1fff-8001-000000000000"),
      hex("00000000-0000-1fff-bfff-800000000000"),
      hex("00000000-0000-1fff-bfff-ff0000000000"),
      hex("00000000-0000-1fff-bfff-00ffffffffff"),
      hex("00000000-0000-1fff-bfff-7f0000000000"),
      hex("00000000-0000-1fff-0000-000000000000"),
      hex("00000000-0000-1fff-7fff-000000000000"),
  });
}

TEST_CASE("frozen collections sort element by element, a shorter one first") {
  check_order(CqlType::list(simple(TypeKind::kInt), true), {
      "", list_of({}), list_of({int32(INT32_MIN)}), list_of({int32(-1)}),
      list_of({int32(-1), int32(0)}), list_of({int32(-1), int32(0), int32(5)}),
      list_of({int32(0)}),
      list_of({int32(0), ""}),  // an empty int sorts before every int
      list_of({int32(0), int32(INT32_MIN)}), list_of({int32(0), int32(1)}), list_of({int32(1)}),
  });
  check_order(CqlType::set(simple(TypeKind::kText), true), {
      "", list_of({}), list_of({""}), list_of({"", "a"}), list_of({"a"}), list_of({"a", "b"}),
      list_of({std::string("a\0", 2)}), list_of({"b"}),
  });
  check_order(CqlType::map(simple(TypeKind::kText), simple(TypeKind::kInt), true), {
      "", map_of({}), map_of({{"", int32(0)}}), map_of({{"a", int32(-1)}}),
      map_of({{"a", int32(1)}}), map_of({{"a", int32(1)}, {"b", int32(0)}}),
      map_of({{"a", int32(2)}}), map_of({{"b", int32(-1)}}),
  });
  const CqlType ints = CqlType::list(simple(TypeKind::kInt), true);
  check_order(CqlType::list(ints, true), {
      "", list_of({}), list_of({list_of({})}), list_of({list_of({}), list_of({})}),
      list_of({list_of({int32(1)})}), list_of({list_of({int32(1)}), list_of({int32(0)})}),
      list_of({list_of({int32(1), int32(0)})}), list_of({list_of({int32(2)})}),
  });
  const std::string nan = double_bits(0x7FF8000000000000);
  check_order(CqlType::list(simple(TypeKind::kDouble), true), {
      "", list_of({}), list_of({float64(-0.0)}), list_of({float64(0.0)}),
      list_of({float64(0.0), nan}), list_of({float64(1.0)}), list_of({nan}),
  });
}

TEST_CASE("tuples and UDTs sort component-wise, null first, trailing nulls as missing") {
  const CqlType pair = CqlType::tuple({simple(TypeKind::kInt), simple(TypeKind::kText)});
  check_order(pair, {
      "",
      tuple_of({null}), tuple_of({null, null}),          // equal: trailing nulls break the tie
      tuple_of({null, ""}), tuple_of({null, "a"}),
      tuple_of({""}), tuple_of({"", "x"}),               // an empty int, then with a text
      tuple_of({int32(-1)}),
      tuple_of({int32(0)}), tuple_of({int32(0), null}),  // equal
      tuple_of({int32(0), ""}), tuple_of({int32(0), "a"}),
      tuple_of({int32(1), "a"}),
  });

  const CqlType point = udt({simple(TypeKind::kInt), CqlType::list(simple(TypeKind::kText), true),
                             CqlType::tuple({simple(TypeKind::kDecimal),
                                             simple(TypeKind::kBoolean)})});
  const std::string a = list_of({"a"});
  check_order(point, {
      "",
      tuple_of({null}),
      tuple_of({int32(0)}),
      tuple_of({int32(0), list_of({})}),
      tuple_of({int32(0), list_of({""})}),
      tuple_of({int32(0), a}), tuple_of({int32(0), a, null}),
      tuple_of({int32(0), a, tuple_of({null})}),
      // (1, null) and (1.0) are equal; the decimals' scales break the tie.
      tuple_of({int32(0), a, tuple_of({decimal(0, varint(1)), null})}),
      tuple_of({int32(0), a, tuple_of({decimal(1, varint(10))})}),
      tuple_of({int32(0), a, tuple_of({decimal(1, varint(10)), hex("00")})}),
      tuple_of({int32(0), a, tuple_of({decimal(0, varint(2))})}),
      tuple_of({int32(1)}),
  });
}

// clang-format on

namespace {

// A table's clustering columns for the compound-key tests, each with values in Cassandra order.
struct Column {
  CqlType type;
  bool descending;
  std::vector<std::string> values;
};

std::vector<Column> mixed_columns() {
  return {
      {simple(TypeKind::kInt), false, {"", int32(-1), int32(0), int32(7)}},
      {simple(TypeKind::kText), true, {"", "a", std::string("a\0", 2), "b"}},
      {simple(TypeKind::kDouble),
       true,
       {float64(-0.0), float64(0.0), double_bits(0x7FF8000000000000)}},
      {CqlType::list(simple(TypeKind::kInt), true),
       false,
       {list_of({}), list_of({int32(1)}), list_of({int32(1), int32(2)})}},
  };
}

// Every clustering prefix (including the empty one and the full keys) as value indexes.
void all_prefixes(const std::vector<Column>& columns, std::vector<size_t> current,
                  std::vector<std::vector<size_t>>* out) {
  out->push_back(current);
  if (current.size() == columns.size()) return;
  for (size_t i = 0; i < columns[current.size()].values.size(); ++i) {
    current.push_back(i);
    all_prefixes(columns, current, out);
    current.pop_back();
  }
}

// Cassandra's clustering order: column by column (reversed for DESC), a prefix first.
int reference_compare(const std::vector<Column>& columns, const std::vector<size_t>& a,
                      const std::vector<size_t>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] == b[i]) continue;
    return (a[i] < b[i]) != columns[i].descending ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

}  // namespace

TEST_CASE("compound keys with ASC and DESC columns sort column by column") {
  const std::vector<Column> columns = mixed_columns();
  REQUIRE(columns.size() == 4);
  std::vector<CqlType> types;
  std::array<bool, 4> descending{};
  for (size_t i = 0; i < columns.size(); ++i) {
    types.push_back(columns[i].type);
    descending[i] = columns[i].descending;
  }

  std::vector<std::vector<size_t>> keys;
  all_prefixes(columns, {}, &keys);
  REQUIRE(keys.size() == 1 + 4 + 16 + 48 + 144);
  std::vector<std::string> encoded;
  for (const auto& key : keys) {
    std::vector<std::string> values;
    for (size_t i = 0; i < key.size(); ++i) values.push_back(columns[i].values[key[i]]);
    std::string out;
    REQUIRE(encode_clustering(types, descending, values, &out).is_ok());
    // The encoding of a prefix is a byte prefix of the whole key.
    for (size_t k = 0; k < values.size(); ++k) {
      std::string prefix;
      REQUIRE(encode_clustering(types, descending, std::span(values).first(k), &prefix).is_ok());
      CHECK(out.starts_with(prefix));
    }
    auto decoded = decode_clustering(types, descending, out);
    REQUIRE(decoded.is_ok());
    CHECK(*decoded == values);
    encoded.push_back(std::move(out));
  }

  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string bound = prefix_end_bound(encoded[i]);
    for (size_t j = 0; j < keys.size(); ++j) {
      const int expected = reference_compare(columns, keys[i], keys[j]);
      CAPTURE(i);
      CAPTURE(j);
      CHECK(compare_bytes(encoded[i], encoded[j]) == expected);
      // The bound sorts after every key extending keys[i], and where keys[i] sorts otherwise.
      const bool extends = keys[j].size() >= keys[i].size() &&
                           std::equal(keys[i].begin(), keys[i].end(), keys[j].begin());
      CHECK(compare_bytes(bound, encoded[j]) == (extends ? 1 : expected));
    }
  }
}

TEST_CASE("malformed values are rejected with InvalidArgument") {
  const CqlType int_type = simple(TypeKind::kInt);
  const CqlType ints = CqlType::list(int_type, true);
  const CqlType pair = CqlType::tuple({int_type, simple(TypeKind::kText)});
  const std::pair<CqlType, std::string> cases[] = {
      {int_type, hex("000001")},
      {int_type, hex("0000000001")},
      {simple(TypeKind::kTinyint), hex("0001")},
      {simple(TypeKind::kSmallint), hex("01")},
      {simple(TypeKind::kBigint), hex("00000000000001")},
      {simple(TypeKind::kTimestamp), hex("000000000000000001")},
      {simple(TypeKind::kDate), hex("800000")},
      {simple(TypeKind::kTime), hex("00000001")},
      {simple(TypeKind::kBoolean), hex("0001")},
      // Cassandra's true is any non-zero byte, but a key holds 0x01 only (see the layout)
      {simple(TypeKind::kBoolean), hex("02")},
      {CqlType::list(simple(TypeKind::kBoolean), true), list_of({hex("ff")})},
      {simple(TypeKind::kFloat), float64(1.0)},
      {simple(TypeKind::kDouble), float32(1.0f)},
      {simple(TypeKind::kUuid), hex("00000000000040008000000000000000").substr(1)},
      {simple(TypeKind::kUuid), hex("00000000000040008000000000000000ff")},
      {simple(TypeKind::kTimeuuid), hex("00000000-0000-4000-8000-000000000000")},
      {simple(TypeKind::kInet), hex("7f00000100")},
      {simple(TypeKind::kDecimal), hex("000001")},
      {simple(TypeKind::kDecimal), int32(1)},  // a scale without an unscaled value
      {simple(TypeKind::kDuration), hex("000000")},
      {CqlType::list(simple(TypeKind::kDuration), true), list_of({hex("000000")})},
      {ints, hex("ffffffff")},                 // negative count
      {ints, hex("000000")},                   // truncated count
      {ints, int32(2) + int32(4) + int32(1)},  // one element of two
      {ints, int32(1) + int32(-1)},            // a null element
      {ints, int32(1) + int32(8) + int32(1)},  // an element past the end
      {ints, list_of({int32(1)}) + "x"},       // trailing bytes
      {ints, list_of({hex("000001")})},        // a bad element
      {CqlType::map(int_type, int_type, true), int32(1) + int32(4) + int32(1)},  // no value
      {pair, tuple_of({int32(1), "a", "b"})},                         // too many components
      {pair, int32(-2)},                                              // a bad length
      {pair, int32(1) + int32(5) + "ab"},                             // truncated component
      {pair, tuple_of({hex("0001")})},                                // a bad component
      {CqlType{TypeKind::kList, {}, true, {}, {}, {}}, list_of({})},  // a list of nothing
  };
  for (const auto& [type_of_case, value_of_case] : cases) {
    // (references by new names: doctest's INFO captures them, and clang 14 cannot capture a
    // structured binding)
    const CqlType& type = type_of_case;
    const std::string& value = value_of_case;
    std::string out;
    const Status status = encode_key_component(type, value, false, &out);
    INFO("kind ", static_cast<int>(type.kind), " value ", hex_of(value));
    CHECK(status.is_invalid_argument());
    CHECK(encode_key_component(type, value, true, &out).is_invalid_argument());
  }

  // encode_clustering reports the first bad column.
  const CqlType types[] = {int_type, int_type};
  const bool descending[] = {false, true};
  const std::string values[] = {int32(1), hex("01")};
  std::string out;
  CHECK(encode_clustering(types, descending, values, &out).is_invalid_argument());
}

TEST_CASE("malformed encodings are Corruption") {
  const CqlType int_type = simple(TypeKind::kInt);
  const CqlType pair = CqlType::tuple({int_type, simple(TypeKind::kText)});
  const std::pair<CqlType, std::string> cases[] = {
      {int_type, ""},
      {int_type, hex("00")},
      {int_type, hex("01")},  // the end of a collection, outside one
      {int_type, hex("02")},  // a null, outside a tuple
      {int_type, hex("06")},
      {int_type, hex("ff")},
      {int_type, hex("04 80 00")},     // truncated
      {int_type, hex("04 80 00 00")},  // one byte short
      {simple(TypeKind::kTinyint), hex("04")},
      {simple(TypeKind::kSmallint), hex("04 80")},
      {simple(TypeKind::kBigint), hex("04 80 00 00 00 00 00 00")},
      {simple(TypeKind::kTimestamp), hex("04")},
      {simple(TypeKind::kDate), hex("04 80 00 00")},
      {simple(TypeKind::kTime), hex("04 00 00 00 00 00 00 00")},
      {simple(TypeKind::kBigint), hex("05 80 00 00 00 00 00 00 00")},  // a NaN header
      {int_type, hex("05 80 00 00 00")},                               // a NaN header
      {int_type, hex("fb 7f ff ff ff")},                        // a DESC component read as ASC
      {simple(TypeKind::kDouble), hex("04 fff8000000000000")},  // a NaN as a plain value
      {simple(TypeKind::kDouble), hex("05 3ff0000000000000")},  // 1.0 as a NaN
      {simple(TypeKind::kText), hex("04 61 62")},               // not terminated
      {simple(TypeKind::kText), hex("04 61 00")},
      {simple(TypeKind::kText), hex("04 00 00")},          // empty, but not with the empty header
      {simple(TypeKind::kText), hex("04 61 00 01")},       // a bad escape
      {simple(TypeKind::kVarint), hex("04 81 00 80")},     // a non-minimal length
      {simple(TypeKind::kVarint), hex("04 81 01 00 80")},  // a non-minimal magnitude
      {simple(TypeKind::kVarint), hex("04 81 01")},
      {simple(TypeKind::kVarint), hex("04 89 0000000000000000 01")},  // a length of 9 bytes
      {simple(TypeKind::kVarint), hex("04 81 01 01 7f")},             // negative padding
      {simple(TypeKind::kDecimal), hex("04 04")},                     // a bad sign
      {simple(TypeKind::kDecimal), hex("04 03 81 01 01 00 80 80")},   // digits "00"
      {simple(TypeKind::kDecimal), hex("04 03 81 01 0b")},            // digits not terminated
      {simple(TypeKind::kDecimal), hex("04 03 81 01 0b 00 84 80000000 80")},  // scale 2^31
      // An exponent of 2^63 - 1 with scale 2^31 - 1: must not overflow.
      {simple(TypeKind::kDecimal), hex("04 03 88 7fffffffffffffff 0b 00 84 7fffffff 80")},
      {simple(TypeKind::kDecimal), hex("04 03 81 01 0b 00 7f 80")},  // unscaled 0.1
      {simple(TypeKind::kTimeuuid), hex("04 4000000000000000 8000000000000000")},
      {simple(TypeKind::kUuid), hex("04 4000000000000000 80000000")},
      {simple(TypeKind::kInet), hex("04 7f 01 01 00 00")},                 // three bytes
      {simple(TypeKind::kBoolean), hex("04 02")},                          // true, not as 0x01
      {CqlType::list(int_type, true), hex("04 04 80000000")},              // not terminated
      {CqlType::map(int_type, int_type, true), hex("04 04 80000000 01")},  // a key alone
      {pair, hex("04 04 80000000 04 6100 00 04 80000000 01 80")},          // three components
      {pair, hex("04 02 01 80")},  // a null right before the end
      {pair, hex("04 01 80")},     // no components at all
      {pair, hex("04 01 81 03")},  // three trailing nulls
      {pair, hex("04 01 7f")},     // negative trailing nulls
  };
  for (const auto& [type_of_case, bytes_of_case] : cases) {
    const CqlType& type = type_of_case;  // (as above: for INFO and clang 14)
    const std::string& bytes = bytes_of_case;
    INFO("kind ", static_cast<int>(type.kind), " bytes ", hex_of(bytes));
    std::string_view in = bytes;
    CHECK(decode_key_component(type, false, &in).status().is_corruption());
    std::string inverted = bytes;
    for (char& c : inverted) c = static_cast<char>(~c);
    in = inverted;
    CHECK(decode_key_component(type, true, &in).status().is_corruption());
  }

  const CqlType one_column[] = {int_type};
  const bool ascending[] = {false};
  CHECK(decode_clustering(one_column, ascending, hex("04 80000001 04 80000002"))
            .status()
            .is_corruption());
  CHECK(decode_clustering(one_column, ascending, hex("04 80")).status().is_corruption());
  auto empty = decode_clustering(one_column, ascending, "");
  REQUIRE(empty.is_ok());
  CHECK(empty->empty());
}

// Fixed-width integers, dates and times decode on a short path of their own (a read decodes one
// per row): the same bytes as the general one, whether the key ends right after the component or
// goes on, in both orders.
TEST_CASE("fixed-width components decode the same at the end of a key and before the next") {
  const std::pair<TypeKind, std::vector<std::string>> cases[] = {
      {TypeKind::kTinyint, {tinyint(-128), tinyint(-1), tinyint(0), tinyint(127)}},
      {TypeKind::kSmallint, {smallint(-32768), smallint(-1), smallint(0), smallint(32767)}},
      {TypeKind::kInt, {int32(INT32_MIN), int32(-1), int32(0), int32(1), int32(INT32_MAX)}},
      {TypeKind::kBigint, {bigint(INT64_MIN), bigint(-1), bigint(0), bigint(INT64_MAX)}},
      {TypeKind::kCounter, {bigint(-5), bigint(7)}},
      {TypeKind::kTimestamp, {bigint(-86400000), bigint(1700000000000)}},
      {TypeKind::kDate, {int32(0), int32(INT32_MIN), int32(-1)}},
      {TypeKind::kTime, {bigint(0), bigint(86399999999999)}},
  };
  for (const auto& kind_and_values : cases) {
    const TypeKind kind = kind_and_values.first;  // (not a structured binding: INFO, clang 14)
    const std::vector<std::string>& values = kind_and_values.second;
    const CqlType type = simple(kind);
    for (const std::string& v : values) {
      for (bool descending : {false, true}) {
        INFO("kind ", static_cast<int>(kind), " value ", hex_of(v), " descending ", descending);
        const std::string encoded = encode(type, v, descending);
        CHECK(encoded.size() == 1 + v.size());
        std::string_view at_end = encoded;
        auto last = decode_key_component(type, descending, &at_end);
        REQUIRE(last.is_ok());
        CHECK(hex_of(*last) == hex_of(v));
        CHECK(at_end.empty());
        const std::string two = encoded + encode(type, v, !descending);
        std::string_view in = two;
        auto first = decode_key_component(type, descending, &in);
        REQUIRE(first.is_ok());
        CHECK(hex_of(*first) == hex_of(v));
        auto second = decode_key_component(type, !descending, &in);
        REQUIRE(second.is_ok());
        CHECK(hex_of(*second) == hex_of(v));
        CHECK(in.empty());
      }
    }
    // The empty value (no bytes: allowed for these types) has a header of its own.
    const std::string empty = encode(type, "", true);
    std::string_view in = empty;
    auto decoded = decode_key_component(type, true, &in);
    REQUIRE(decoded.is_ok());
    CHECK(decoded->empty());
    CHECK(in.empty());
    // The readers' fast path (decode_fixed_key_component) decodes what decode_key_component
    // does, into a reused buffer of any previous size, and leaves the empty value alone.
    const FixedKeyComponent fixed = FixedKeyComponent::of(kind);
    CHECK(fixed.width == fixed_width(kind));
    std::string buffer = "previous value of another width";
    for (const std::string& v : values) {
      for (bool descending : {false, true}) {
        INFO("fast path: kind ", static_cast<int>(kind), " value ", hex_of(v));
        const std::string two = encode(type, v, descending) + encode(type, v, !descending);
        std::string_view rest = two;
        REQUIRE(decode_fixed_key_component(fixed, descending, &rest, &buffer));
        CHECK(hex_of(buffer) == hex_of(v));
        REQUIRE(decode_fixed_key_component(fixed, !descending, &rest, &buffer));
        CHECK(hex_of(buffer) == hex_of(v));
        CHECK(rest.empty());
      }
    }
    for (bool descending : {false, true}) {
      const std::string empty_key = encode(type, "", descending);
      std::string_view rest = empty_key;
      CHECK_FALSE(decode_fixed_key_component(fixed, descending, &rest, &buffer));
      CHECK(rest.size() == empty_key.size());
      // A value cut short is left to decode_key_component too (which says Corruption).
      const std::string cut = encode(type, values.front(), descending).substr(0, fixed.width);
      rest = cut;
      CHECK_FALSE(decode_fixed_key_component(fixed, descending, &rest, &buffer));
      CHECK(rest.size() == cut.size());
    }
  }
  // Other types have no fast path.
  for (TypeKind kind : {TypeKind::kBoolean, TypeKind::kFloat, TypeKind::kDouble, TypeKind::kText,
                        TypeKind::kUuid, TypeKind::kTimeuuid, TypeKind::kVarint}) {
    CHECK(FixedKeyComponent::of(kind).width == 0);
    const std::string key = encode(simple(kind), kind == TypeKind::kText ? "a" : "", false);
    std::string_view rest = key;
    std::string value;
    CHECK_FALSE(decode_fixed_key_component(FixedKeyComponent::of(kind), false, &rest, &value));
  }
}

namespace {

// A random well-formed serialized value of `type`, biased towards edge cases.
std::string random_value(const CqlType& type, std::mt19937_64& rng, int depth = 0) {
  auto below = [&](uint64_t n) { return static_cast<size_t>(rng() % n); };
  auto random_bytes = [&](size_t n) {
    static const char kAlphabet[] = {'\0', '\x01', 'a', '\x7f', '\x80', '\xfe', '\xff'};
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      out.push_back(below(2) ? kAlphabet[below(sizeof kAlphabet)] : static_cast<char>(rng()));
    }
    return out;
  };
  if (below(12) == 0) return "";
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
    case TypeKind::kBlob:
      return random_bytes(below(6));
    case TypeKind::kInet:
      return random_bytes(below(2) ? 4 : 16);
    case TypeKind::kBoolean:
      return std::string(1, static_cast<char>(below(2)));
    case TypeKind::kTinyint:
      return random_bytes(1);
    case TypeKind::kSmallint:
      return random_bytes(2);
    case TypeKind::kInt:
    case TypeKind::kDate:
      return random_bytes(4);
    case TypeKind::kFloat:
      return below(4) == 0 ? float32(static_cast<float>(below(5)) - 2.0f) : random_bytes(4);
    case TypeKind::kDouble:
      return below(4) == 0 ? float64(static_cast<double>(below(5)) - 2.0) : random_bytes(8);
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
      return random_bytes(8);
    case TypeKind::kUuid:
      return random_bytes(16);
    case TypeKind::kTimeuuid: {
      std::string uuid = random_bytes(16);
      uuid[6] = static_cast<char>((uuid[6] & 0x0F) | 0x10);
      return uuid;
    }
    case TypeKind::kVarint:
      return random_bytes(1 + below(12));
    case TypeKind::kDecimal:
      return int32(static_cast<int32_t>(below(2) ? below(40) - 20 : rng())) +
             random_bytes(1 + below(10));
    case TypeKind::kList:
    case TypeKind::kSet: {
      std::vector<std::string> elements(below(depth > 1 ? 2 : 4));
      for (auto& e : elements) e = random_value(type.params[0], rng, depth + 1);
      return list_of(elements);
    }
    case TypeKind::kMap: {
      std::vector<std::pair<std::string, std::string>> entries(below(3));
      for (auto& [k, v] : entries) {
        k = random_value(type.params[0], rng, depth + 1);
        v = random_value(type.params[1], rng, depth + 1);
      }
      return map_of(entries);
    }
    case TypeKind::kTuple:
    case TypeKind::kUdt: {
      std::vector<std::optional<std::string>> components(1 + below(type.params.size()));
      for (size_t i = 0; i < components.size(); ++i) {
        if (below(3) != 0) components[i] = random_value(type.params[i], rng, depth + 1);
      }
      return tuple_of(components);
    }
    case TypeKind::kVector: {
      std::vector<std::string> elements(static_cast<size_t>(type.dimension));
      for (std::string& e : elements) e = random_value(type.params[0], rng, depth + 1);
      return serialize_vector(type, elements);
    }
    case TypeKind::kDuration:
      break;
  }
  return "";
}

std::vector<CqlType> fuzzed_types() {
  std::vector<CqlType> types;
  for (TypeKind kind : {TypeKind::kAscii, TypeKind::kBigint, TypeKind::kBlob, TypeKind::kBoolean,
                        TypeKind::kCounter, TypeKind::kDate, TypeKind::kDecimal, TypeKind::kDouble,
                        TypeKind::kFloat, TypeKind::kInet, TypeKind::kInt, TypeKind::kSmallint,
                        TypeKind::kText, TypeKind::kTime, TypeKind::kTimestamp, TypeKind::kTimeuuid,
                        TypeKind::kTinyint, TypeKind::kUuid, TypeKind::kVarint}) {
    types.push_back(simple(kind));
  }
  types.push_back(CqlType::list(simple(TypeKind::kInt), true));
  types.push_back(CqlType::set(simple(TypeKind::kText), true));
  types.push_back(CqlType::map(simple(TypeKind::kText), simple(TypeKind::kDouble), true));
  types.push_back(CqlType::list(CqlType::list(simple(TypeKind::kVarint), true), true));
  types.push_back(CqlType::tuple(
      {simple(TypeKind::kInt), simple(TypeKind::kText), simple(TypeKind::kDecimal)}));
  types.push_back(udt({simple(TypeKind::kUuid), simple(TypeKind::kTimeuuid),
                       CqlType::list(simple(TypeKind::kBoolean), true),
                       CqlType::tuple({simple(TypeKind::kFloat)})}));
  return types;
}

// Decodes `bytes`; a success must be canonical (re-encoding gives back the bytes consumed),
// a failure must be Corruption.
void check_decodes_or_fails_cleanly(const CqlType& type, bool descending,
                                    const std::string& bytes) {
  std::string_view in = bytes;
  auto decoded = decode_key_component(type, descending, &in);
  INFO("kind ", static_cast<int>(type.kind), " desc ", descending, " bytes ", hex_of(bytes));
  if (!decoded.is_ok()) {
    CHECK(decoded.status().is_corruption());
    return;
  }
  std::string reencoded;
  REQUIRE(encode_key_component(type, *decoded, descending, &reencoded).is_ok());
  CHECK(hex_of(reencoded) == hex_of(bytes.substr(0, bytes.size() - in.size())));
}

}  // namespace

TEST_CASE("random values round-trip and random bytes never crash the decoder") {
  std::mt19937_64 rng(20240611);
  auto below = [&](uint64_t n) { return static_cast<size_t>(rng() % n); };
  const std::vector<CqlType> types = fuzzed_types();
  for (int iteration = 0; iteration < 30000; ++iteration) {
    const CqlType& type = types[below(types.size())];
    const bool descending = below(2);

    // A valid value round-trips; a mutation of its encoding decodes canonically or fails.
    const std::string value = random_value(type, rng);
    std::string encoded;
    {
      INFO("kind ", static_cast<int>(type.kind), " value ", hex_of(value));
      REQUIRE(encode_key_component(type, value, descending, &encoded).is_ok());
    }
    check_round_trip(type, value, encoded, descending);
    std::string mutated = encoded;
    for (size_t edits = 1 + below(3); edits > 0; --edits) {
      const size_t at = below(mutated.size() + 1);
      switch (below(4)) {
        case 0:
          mutated.resize(at);
          break;
        case 1:
          mutated.insert(at, 1, static_cast<char>(rng()));
          break;
        default:
          if (at < mutated.size()) mutated[at] = static_cast<char>(mutated[at] ^ (1 << below(8)));
      }
    }
    check_decodes_or_fails_cleanly(type, descending, mutated);

    // Random bytes: as an encoding they decode canonically or fail with Corruption; as a
    // serialized value they encode (and round-trip) or fail with InvalidArgument.
    // Small bytes (headers, terminators) are common; a value header usually comes first.
    std::string noise(below(24), '\0');
    for (char& c : noise) c = static_cast<char>(below(3) == 0 ? below(6) : rng());
    if (!noise.empty() && below(2)) noise[0] = static_cast<char>(descending ? ~0x04 : 0x04);
    check_decodes_or_fails_cleanly(type, descending, noise);
    std::string noise_encoded;
    const Status status = encode_key_component(type, noise, descending, &noise_encoded);
    if (status.is_ok()) {
      check_round_trip(type, noise, noise_encoded, descending);
    } else {
      CHECK(status.is_invalid_argument());
    }
  }
}

namespace {

// Cassandra's comparators, written from their documented rules, for the random order checks.

uint64_t load_big_endian(std::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) v = v << 8 | static_cast<uint8_t>(c);
  return v;
}
int three_way(auto a, auto b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

int compare_bigints(const std::string& a, const std::string& b) {
  return three_way(static_cast<int64_t>(load_big_endian(a)),
                   static_cast<int64_t>(load_big_endian(b)));
}

// IntegerType: numeric order of two's complement big-endian integers of any length.
int compare_varints(const std::string& a, const std::string& b) {
  const bool a_negative = a[0] & 0x80, b_negative = b[0] & 0x80;
  if (a_negative != b_negative) return a_negative ? -1 : 1;
  const size_t width = std::max(a.size(), b.size());
  const char pad = a_negative ? '\xFF' : '\0';
  return compare_bytes(std::string(width - a.size(), pad) + a,
                       std::string(width - b.size(), pad) + b);
}

// DecimalType: numeric order, here exactly at a common scale (for small test values only).
int compare_decimals(const std::string& a, const std::string& b) {
  auto parse = [](const std::string& d) {
    __int128 unscaled = static_cast<int8_t>(d[4]);
    for (size_t i = 5; i < d.size(); ++i) unscaled = unscaled * 256 + static_cast<uint8_t>(d[i]);
    return std::pair{unscaled, static_cast<int32_t>(load_big_endian(d.substr(0, 4)))};
  };
  auto [x, x_scale] = parse(a);
  auto [y, y_scale] = parse(b);
  for (; x_scale < y_scale; ++x_scale) x *= 10;
  for (; y_scale < x_scale; ++y_scale) y *= 10;
  return three_way(x, y);
}

// FloatType / DoubleType: Java's Double.compare (-0.0 < 0.0, every NaN equal and largest).
int java_compare(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) - std::isnan(b);
  if (a != b) return a < b ? -1 : 1;
  return std::signbit(b) - std::signbit(a);
}
int compare_doubles(const std::string& a, const std::string& b) {
  return java_compare(std::bit_cast<double>(load_big_endian(a)),
                      std::bit_cast<double>(load_big_endian(b)));
}
int compare_floats(const std::string& a, const std::string& b) {
  return java_compare(std::bit_cast<float>(static_cast<uint32_t>(load_big_endian(a))),
                      std::bit_cast<float>(static_cast<uint32_t>(load_big_endian(b))));
}

// A version 1 UUID's 60-bit timestamp: time_hi (without the version), time_mid, time_low.
uint64_t uuid_timestamp(const std::string& u) {
  return (load_big_endian(u.substr(6, 2)) & 0x0FFF) << 48 | load_big_endian(u.substr(4, 2)) << 32 |
         load_big_endian(u.substr(0, 4));
}

// UUIDType: the version nibble, then a version 1 UUID's timestamp (other versions: the high 8
// bytes unsigned), then the low 8 bytes unsigned.
int compare_uuids(const std::string& a, const std::string& b) {
  const int version_a = static_cast<uint8_t>(a[6]) >> 4;
  const int version_b = static_cast<uint8_t>(b[6]) >> 4;
  if (version_a != version_b) return three_way(version_a, version_b);
  if (version_a == 1 && uuid_timestamp(a) != uuid_timestamp(b)) {
    return three_way(uuid_timestamp(a), uuid_timestamp(b));
  }
  const int high = compare_bytes(a.substr(0, 8), b.substr(0, 8));
  return high != 0 ? high : compare_bytes(a.substr(8), b.substr(8));
}

// TimeUUIDType: the timestamp, then the low 8 bytes as signed bytes.
int compare_timeuuids(const std::string& a, const std::string& b) {
  if (uuid_timestamp(a) != uuid_timestamp(b))
    return three_way(uuid_timestamp(a), uuid_timestamp(b));
  for (int i = 8; i < 16; ++i) {
    if (a[i] != b[i]) return three_way(static_cast<int8_t>(a[i]), static_cast<int8_t>(b[i]));
  }
  return 0;
}

// Checks the encoding of random value pairs against `reference` (values Cassandra calls equal
// must encode equal exactly when their bytes are equal).
template <typename Generate, typename Compare>
void check_against_reference(const CqlType& type, Generate generate, Compare reference) {
  for (int i = 0; i < 3000; ++i) {
    const std::string a = generate(), b = generate();
    const int expected = reference(a, b);
    INFO("a ", hex_of(a), " b ", hex_of(b));
    const int asc = compare_bytes(encode(type, a, false), encode(type, b, false));
    const int desc = compare_bytes(encode(type, a, true), encode(type, b, true));
    if (expected != 0) {
      CHECK(asc == expected);
    } else {
      CHECK((asc == 0) == (a == b));
    }
    CHECK(desc == -asc);
  }
}

}  // namespace

TEST_CASE("random values sort like Cassandra's comparators") {
  std::mt19937_64 rng(7);
  auto random_bytes = [&](size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(rng()));
    return out;
  };

  check_against_reference(
      simple(TypeKind::kBigint), [&] { return random_bytes(8); }, compare_bigints);
  check_against_reference(
      simple(TypeKind::kVarint),
      [&] {
        std::string v = random_bytes(1 + rng() % 10);
        if (rng() % 3 == 0) v.insert(0, rng() % 3, (v[0] & 0x80) ? '\xFF' : '\0');  // padding
        return v;
      },
      compare_varints);
  check_against_reference(
      simple(TypeKind::kDecimal),
      [&] {
        const auto unscaled = static_cast<int64_t>(rng() % 2000001) - 1000000;
        return decimal(static_cast<int32_t>(rng() % 17) - 6, varint(unscaled));
      },
      compare_decimals);

  using D = std::numeric_limits<double>;
  const double specials[] = {0.0, -0.0, 1.0, -1.0, D::infinity(), -D::infinity(), D::quiet_NaN()};
  check_against_reference(
      simple(TypeKind::kDouble),
      [&] { return rng() % 3 == 0 ? float64(specials[rng() % 7]) : random_bytes(8); },
      compare_doubles);
  check_against_reference(
      simple(TypeKind::kFloat),
      [&] {
        return rng() % 3 == 0 ? float32(static_cast<float>(specials[rng() % 7])) : random_bytes(4);
      },
      compare_floats);

  // Few versions and narrow bytes, so ties on version and timestamp are common.
  auto random_uuid = [&](bool time_based) {
    std::string u;
    for (int i = 0; i < 16; ++i) u.push_back("\x00\x7f\x80\xff\x10\x40"[rng() % 6]);
    if (time_based) u[6] = static_cast<char>((u[6] & 0x0F) | 0x10);
    return u;
  };
  check_against_reference(
      simple(TypeKind::kUuid), [&] { return random_uuid(false); }, compare_uuids);
  check_against_reference(
      simple(TypeKind::kTimeuuid), [&] { return random_uuid(true); }, compare_timeuuids);
}

TEST_CASE("byte strings with runs of zero bytes decode whole and stop at their terminator") {
  // The decoder copies runs of non-zero bytes at once: runs of every length, zeros at either end
  // and back to back, ASC and DESC, followed by another component it must leave in place.
  const CqlType text = simple(TypeKind::kBlob);
  const CqlType int_type = simple(TypeKind::kInt);
  const std::string values[] = {
      std::string("\0", 1),
      std::string("\0\0\0", 3),
      std::string("abc\0", 4),
      std::string("\0abc", 4),
      std::string("a\0\0b\xff\0", 6),
      std::string(100, 'x') + std::string("\0", 1) + std::string(37, '\xfe'),
  };
  for (bool descending : {false, true}) {
    for (const std::string& v : values) {
      INFO("descending ", descending, " value ", hex_of(v));
      std::string encoded = encode(text, v, descending);
      encoded += encode(int_type, hex("00000007"), descending);
      std::string_view in = encoded;
      auto decoded = decode_key_component(text, descending, &in);
      REQUIRE(decoded.is_ok());
      CHECK(*decoded == v);
      auto next = decode_key_component(int_type, descending, &in);
      REQUIRE(next.is_ok());
      CHECK(*next == hex("00000007"));
      CHECK(in.empty());
    }
  }
}

TEST_CASE("a duration is no key component, empty or not, when decoding as when encoding") {
  // Found by the key_decode fuzz target: the empty value's header decoded to an empty duration,
  // which encoding rejects.
  const CqlType duration = CqlType::simple(TypeKind::kDuration);
  std::string encoded;
  CHECK(encode_key_component(duration, "", false, &encoded).message() ==
        "Invalid key value: a duration cannot be part of a key.");
  for (std::string_view bytes : {std::string_view("\x03", 1), std::string_view("\x04\x00", 2)}) {
    std::string_view in = bytes;
    auto decoded = decode_key_component(duration, false, &in);
    REQUIRE_FALSE(decoded.is_ok());
    CHECK(decoded.status().message() ==
          "Malformed clustering key bytes: a duration cannot be part of a key.");
  }
}
