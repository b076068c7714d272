// How many terminal columns a UTF-8 string takes, as cqlsh measures it (wcwidth.wcswidth):
// East Asian wide and fullwidth characters take two columns, combining marks and zero-width
// characters none, everything else one. The table printer pads cells by this width so that
// columns line up in a terminal.
#pragma once

#include <cstddef>
#include <string_view>

namespace cassette::cli {

// The display width of one Unicode code point (0, 1 or 2; control characters count as 1 since
// the value formatter has already escaped them).
int code_point_width(char32_t code_point);

// The display width of a UTF-8 string. Malformed bytes count one column each.
size_t display_width(std::string_view utf8);

}  // namespace cassette::cli
