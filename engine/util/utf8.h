// UTF-8 code points in and out, for code that counts or rewrites characters (JSON's \u escapes,
// the masking functions' character positions). Text reaching them was validated as UTF-8 where
// it entered the engine; these do not validate again.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cassette::utf8 {

// Appends code point `cp` (at most 0x10FFFF) to `out`, encoded in UTF-8.
void append(std::string* out, uint32_t cp);

// The code points of `text`, which must be valid UTF-8 (a truncated last sequence yields the
// bits it has).
std::vector<uint32_t> code_points(std::string_view text);

}  // namespace cassette::utf8
