// The scalar accessors (engine/types/scalar.h) against the widths CQL's values have: every width
// of 0 to 8 bytes, both signs, the one-load paths (4 and 8 bytes) and the byte loop agreeing.
#include "engine/types/scalar.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace cassette::types;

namespace {

std::string bytes(std::initializer_list<unsigned> list) {
  std::string out;
  for (unsigned b : list) out.push_back(static_cast<char>(b));
  return out;
}

}  // namespace

TEST_CASE("scalar read_signed sign-extends every width of 0 to 8 bytes") {
  CHECK(read_signed("") == 0);
  CHECK(read_signed(bytes({0x7f})) == 127);
  CHECK(read_signed(bytes({0x80})) == -128);
  CHECK(read_signed(bytes({0xff, 0xfe})) == -2);
  CHECK(read_signed(bytes({0x01, 0x00})) == 256);
  CHECK(read_signed(bytes({0x80, 0x00, 0x00})) == -8388608);
  CHECK(read_signed(bytes({0x80, 0x00, 0x00, 0x00})) == std::numeric_limits<int32_t>::min());
  CHECK(read_signed(bytes({0x7f, 0xff, 0xff, 0xff})) == std::numeric_limits<int32_t>::max());
  CHECK(read_signed(bytes({0xff, 0xff, 0xff, 0xff, 0xfd})) == -3);
  CHECK(read_signed(bytes({0x00, 0x01, 0x00, 0x00, 0x00, 0x00})) == int64_t{1} << 32);
  CHECK(read_signed(bytes({0x80, 0, 0, 0, 0, 0, 0, 0})) == std::numeric_limits<int64_t>::min());
  CHECK(read_signed(bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})) == -1);
  CHECK(read_signed(bytes({0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08})) == 0x0102030405060708);
}

TEST_CASE("scalar exact-width reads agree with read_signed and read_unsigned") {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{300}, int64_t{-70000},
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    const auto u = static_cast<uint64_t>(v);
    CHECK(read_int64(store_be(u, 8)) == v);
    CHECK(read_int32(store_be(u, 4)) == static_cast<int32_t>(v));
    CHECK(read_int16(store_be(u, 2)) == static_cast<int16_t>(v));
    CHECK(read_int8(store_be(u, 1)) == static_cast<int8_t>(v));
    for (size_t width = 1; width <= 8; ++width) {
      const std::string b = store_be(u, width);
      REQUIRE(b.size() == width);
      const uint64_t mask = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
      CHECK(read_unsigned(b) == (u & mask));
      // Sign-extension of the low `width` bytes.
      const int shift = 64 - 8 * static_cast<int>(width);
      CHECK(read_signed(b) == static_cast<int64_t>(u << shift) >> shift);
    }
  }
  CHECK(read_unsigned("") == 0);
  CHECK(read_unsigned(bytes({0xff, 0xff})) == 65535);
}

TEST_CASE("scalar writers are big-endian and append") {
  CHECK(store_be(256, 4) == bytes({0, 0, 1, 0}));
  CHECK(store_be(0x0102, 1) == bytes({0x02}));
  CHECK(store_be(7, 0).empty());
  std::string out = "x";
  append_be(&out, 0xabcd, 2);
  CHECK(out == "x" + bytes({0xab, 0xcd}));
}

TEST_CASE("scalar floats and doubles round-trip through their bytes") {
  CHECK(float_bytes(1.0f) == bytes({0x3f, 0x80, 0x00, 0x00}));
  CHECK(double_bytes(-2.0) == bytes({0xc0, 0, 0, 0, 0, 0, 0, 0}));
  for (double d : {0.0, -0.0, 1.5, -1e300, std::numeric_limits<double>::infinity()}) {
    CHECK(read_double(double_bytes(d)) == d);
    CHECK(std::signbit(read_double(double_bytes(d))) == std::signbit(d));
    CHECK(read_float(float_bytes(static_cast<float>(d))) == static_cast<float>(d));
  }
  CHECK(std::isnan(read_double(double_bytes(std::nan("")))));
  CHECK(read_boolean(bytes({1})));
  CHECK(read_boolean(bytes({2})));
  CHECK_FALSE(read_boolean(bytes({0})));
  CHECK_FALSE(read_boolean(""));
}
