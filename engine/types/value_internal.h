// Private helpers of the value layer (value_*.cc): fixed-width integers, hex, arbitrary-precision
// varint/decimal text conversions, Java-compatible number printing, durations, dates and times,
// uuids and inet addresses. Not part of the engine's interface: use value.h, and scalar.h,
// scalar_text.h and temporal.h for the pieces hosts need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/types/cql_type.h"
#include "engine/types/scalar.h"
#include "engine/types/scalar_text.h"
#include "engine/types/temporal.h"
#include "engine/util/status.h"

namespace cassette::types::internal {

// ---- bytes ----
bool is_valid_utf8(std::string_view s);

// ---- varint and decimal (Java BigInteger / BigDecimal semantics, over big_integer.h) ----
// Minimal two's complement big-endian bytes of a decimal integer (Java `new BigInteger(s)`:
// optional sign, then one or more digits). nullopt when malformed.
std::optional<std::string> varint_from_text(std::string_view text);
int64_t varint_low64(std::string_view bytes);  // BigInteger.longValue()
// Java `new BigDecimal(s)`: [sign] digits [. digits] [e|E [sign] digits]; the serialized form is
// the int32 scale then the unscaled varint.
std::optional<std::string> decimal_from_text(std::string_view text);
// The integer part of a decimal (BigDecimal.toBigInteger()), as varint bytes; an error when it
// would have more than kMaxComputedDigits digits (big_integer.h).
Result<std::string> decimal_to_varint(std::string_view bytes);
// The low 64 bits of that integer part (BigDecimal.longValue()), however large the decimal.
int64_t decimal_low64(std::string_view bytes);
double decimal_to_double(std::string_view bytes);
double varint_to_double(std::string_view bytes);
// The decimal digits of a big-endian magnitude ("" for zero), and back (digits REQUIRED).
std::string magnitude_to_digits(std::string_view magnitude);
std::string digits_to_magnitude(std::string_view digits);

// ---- floating point printing ----
std::string java_double_to_string(double v);  // Double.toString: "1.0", "1.0E10", "NaN"
std::string java_float_to_string(float v);    // Float.toString
// cqlsh's format_floating_point_type with the given precision (5 for float, 12 for double).
std::string cqlsh_float_to_string(double v, int precision);
// The same layout with the fewest significant digits that read back (strtof when `single`,
// strtod otherwise) to exactly `v`, sign of zero included: "0.1", "1e+300", "NaN".
std::string exact_float_to_string(double v, bool single);

// ---- Cassandra's unsigned vint (VIntCoding): durations and variable-width vector elements ----
void put_unsigned_vint(std::string* out, uint64_t v);
// Reads one from the front of *in and consumes it; false when truncated.
bool get_unsigned_vint(std::string_view* in, uint64_t* out);

// ---- duration (the value, its serialized form: temporal.h) ----
// Cassandra's Duration.from(): 1h30m, 1y2mo3w4d5h6m7s8ms9us10ns, P1Y2M3DT4H5M6S, P2W,
// P0001-02-03T04:05:06; errors are Cassandra's messages.
Result<Duration> parse_duration(std::string_view text);
std::string duration_to_string(const Duration& d);  // Duration.toString(): "1h30m"

// ---- dates and times (days_from_civil, civil_from_days: temporal.h) ----
// "2024-01-02T03:04:05.000Z" (kString) or "2024-01-02 03:04:05.000Z" (toJson), UTC.
std::string format_timestamp_java(int64_t millis, char date_time_separator);
// cqlsh: "2024-01-02 03:04:05.000000+0000", or the milliseconds when outside years 1..9999.
std::string format_timestamp_cqlsh(int64_t millis);
// cqlsh's COPY TO: "2024-01-02 03:04:05.678+0000", or the milliseconds as above.
std::string format_timestamp_copy(int64_t millis);
// LocalDate.toString() of a serialized date (days with the epoch at 2^31).
std::string format_date_java(uint32_t days);
// cqlsh: the ISO date, or the signed days since the epoch when outside years 1..9999.
std::string format_date_cqlsh(uint32_t days);
// COPY TO: the ISO date, or the raw day number (epoch at 2^31, what parse_date reads) outside
// years 1..9999.
std::string format_date_copy(uint32_t days);
std::string format_time(int64_t nanos);  // "03:04:05.123456789"

// ---- uuid and inet ----
// A uuid in its canonical 8-4-4-4-12 hex form (either case), as 16 bytes.
std::optional<std::string> parse_uuid_text(std::string_view text);
int uuid_version(std::string_view bytes);  // REQUIRES: 16 bytes
// An IPv4 or IPv6 address (4 or 16 bytes; an IPv4-mapped IPv6 address gives 4 bytes, as Java's
// InetAddress does), or "localhost".
std::optional<std::string> parse_inet_text(std::string_view text);

// ---- composite literals ----
// A list, set, map, tuple or UDT written as a CQL literal ("[1, 2]", "{'a': 1}", "(1, 'x')",
// "{f: 1}"), for parse_value_string(); scalars inside are read with parse_value_string().
Result<std::string> parse_collection_literal(const CqlType& type, std::string_view text);
}  // namespace cassette::types::internal
