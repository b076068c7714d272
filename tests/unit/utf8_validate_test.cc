// types::internal::is_valid_utf8 (text values' check, Cassandra's "String didn't validate."): the
// ASCII fast path (eight bytes at a time) agrees with a byte-by-byte reading of RFC 3629 on ASCII
// runs of every length around multi-byte sequences, valid and not, at every alignment.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/types/value_internal.h"

namespace cassette {
namespace {

// RFC 3629, one byte at a time: no overlong forms, no surrogates, nothing above U+10FFFF.
bool reference_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = static_cast<uint8_t>(s[i]);
    size_t n = 0;
    uint32_t cp = c;
    if (c >= 0x80) {
      if (c >= 0xC0 && c < 0xE0) {
        n = 1, cp = c & 0x1F;
      } else if (c >= 0xE0 && c < 0xF0) {
        n = 2, cp = c & 0x0F;
      } else if (c >= 0xF0 && c < 0xF8) {
        n = 3, cp = c & 0x07;
      } else {
        return false;
      }
    }
    if (i + n >= s.size() && n > 0) return false;
    for (size_t k = 1; k <= n; ++k) {
      const uint8_t cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace

TEST_CASE("utf8: the ASCII fast path agrees with a byte-by-byte check") {
  const std::vector<std::string> pieces = {
      "\xc3\xa9",     "\xe2\x82\xac", "\xf0\x9f\x98\x80",   "\xc3",    "\xe2\x82",
      "\xc0\xaf",     "\xed\xa0\x80", "\xf4\x90\x80\x80",   "\xff",    "\x80",
      "\xef\xbf\xbf", "\x7f",         std::string(1, '\0'), "\xf8\x88"};
  std::mt19937 random(5);
  int valid = 0, invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    const int parts = static_cast<int>(random() % 4);
    for (int p = 0; p < parts; ++p) {
      s.append(random() % 20, static_cast<char>('a' + random() % 26));  // an ASCII run
      if (random() % 3 != 0) s += pieces[random() % pieces.size()];
    }
    s.append(random() % 12, 'z');
    CAPTURE(s);
    const bool want = reference_utf8(s);
    CHECK(types::internal::is_valid_utf8(s) == want);
    (want ? valid : invalid) += 1;
  }
  CHECK(valid > 1000);
  CHECK(invalid > 1000);
  CHECK(types::internal::is_valid_utf8(""));
  CHECK(types::internal::is_valid_utf8("plain ascii, longer than sixteen bytes"));
  CHECK_FALSE(types::internal::is_valid_utf8("plain ascii, then \xff at the end of sixteen"));
  CHECK_FALSE(types::internal::is_valid_utf8("abcdefg\xc3"));  // cut at a word's end
}

}  // namespace cassette
