#include <doctest/doctest.h>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "engine/util/status.h"

using namespace cassette;

TEST_CASE("crc32c matches the published check values") {
  // RFC 3720 B.4 test vectors.
  CHECK(crc32c::value(std::string(32, '\0')) == 0x8a9136aau);
  CHECK(crc32c::value(std::string(32, '\xff')) == 0x62a8ab43u);
  CHECK(crc32c::value("123456789") == 0xe3069283u);
  CHECK(crc32c::extend(crc32c::value("1234"), "56789", 5) == 0xe3069283u);
  uint32_t c = crc32c::value("hello");
  CHECK(crc32c::mask(c) != c);
  CHECK(crc32c::unmask(crc32c::mask(c)) == c);
}

TEST_CASE("varints and fixed integers round-trip and reject short input") {
  std::string buf;
  const uint64_t values[] = {0, 1, 127, 128, 300, (1ull << 35) + 7, UINT64_MAX};
  for (uint64_t v : values) coding::put_varint64(&buf, v);
  coding::put_signed_varint64(&buf, -5);
  coding::put_fixed32(&buf, 0xdeadbeef);
  coding::put_big_endian64(&buf, 0x0102030405060708ull);
  std::string_view in = buf;
  for (uint64_t v : values) {
    uint64_t got = 0;
    REQUIRE(coding::get_varint64(&in, &got));
    CHECK(got == v);
  }
  int64_t s = 0;
  REQUIRE(coding::get_signed_varint64(&in, &s));
  CHECK(s == -5);
  uint32_t f = 0;
  REQUIRE(coding::get_fixed32(&in, &f));
  CHECK(f == 0xdeadbeef);
  REQUIRE(in.size() == 8);
  CHECK(in[0] == 1);
  CHECK(coding::decode_big_endian64(in.data()) == 0x0102030405060708ull);

  std::string_view truncated("\x80\x80", 2);
  uint64_t v;
  CHECK_FALSE(coding::get_varint64(&truncated, &v));
}

TEST_CASE("Result carries a value or the error that replaced it") {
  Result<int> good = 7;
  CHECK(good.is_ok());
  CHECK(*good == 7);
  Result<int> bad = Status::corruption("file x: bad block at offset 12");
  CHECK_FALSE(bad.is_ok());
  CHECK(bad.status().is_corruption());
  CHECK(bad.status().message() == "file x: bad block at offset 12");
}
