// Values quoted in error messages. Cassandra's messages repeat the offending value ("Unable to
// make int from 'abc'"); a 10 MB value would make a 10 MB message, which floods a terminal, a
// log or a client's error buffer. Every message that quotes a value a user gave passes it
// through message_value(), which keeps short values whole and cuts long ones so that they still
// identify the value: the start, then how long it was.
//
//   fmt::format("Unable to make int from '{}'", message_value(text))
//     "Unable to make int from 'xyz'"                                    (short: as it is)
//     "Unable to make int from '999...999... (10485760 bytes)'"          (the first 100 chars)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cassette {

// How much of a long value a message keeps, in bytes (cut back to a whole UTF-8 character).
inline constexpr size_t kMessageValueBytes = 100;

// `value` when it has at most kMessageValueBytes bytes; otherwise its first kMessageValueBytes
// bytes (less the bytes of a UTF-8 character cut in two) and "... (N bytes)".
std::string message_value(std::string_view value);

}  // namespace cassette
