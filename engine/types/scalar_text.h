// The text of scalar values that a host prints in its own syntax rather than CQL's: varint and
// decimal digits, hex, uuids and inet addresses. value.h's format_value prints whole values the
// ways CQL does; these are its pieces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cassette::types {

// ---- varint and decimal (Java BigInteger / BigDecimal) ----
std::string varint_to_text(std::string_view bytes);   // "-123"; "0" for no bytes
std::string varint_from_int64(int64_t v);             // the minimal two's complement bytes
std::string decimal_to_text(std::string_view bytes);  // BigDecimal.toString()

// ---- bytes ----
std::string to_hex(std::string_view bytes);                 // lower case, no 0x
std::optional<std::string> from_hex(std::string_view hex);  // even length, no 0x

// ---- uuid and inet ----
std::string uuid_to_text(std::string_view bytes);  // 8-4-4-4-12, lower case
// Java's InetAddress.getHostAddress() ("0:0:0:0:0:0:0:1") or Python's ("::1", for cqlsh).
std::string inet_to_text(std::string_view bytes, bool java_style);

}  // namespace cassette::types
