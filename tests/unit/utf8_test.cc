#include "engine/util/utf8.h"

#include <doctest/doctest.h>

namespace cassette::utf8 {

TEST_CASE("utf8: code points of one to four bytes round-trip") {
  const std::string text = "a\u00e9\u20ac\U0001F600";  // a, é, €, 😀
  const std::vector<uint32_t> cps = code_points(text);
  CHECK(cps == std::vector<uint32_t>{0x61, 0xE9, 0x20AC, 0x1F600});
  std::string back;
  for (uint32_t cp : cps) append(&back, cp);
  CHECK(back == text);
  CHECK(code_points("").empty());
}

}  // namespace cassette::utf8
