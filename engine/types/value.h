// CQL values: what every layer above the storage engine does with a value of a CqlType.
//
// A value travels as Cassandra's serialized form (the native protocol's bytes for its type:
// big-endian int32 for int, UTF-8 for text, [int32 count]([int32 len][bytes])* for a frozen
// collection, ...). A null is the absence of a value (std::nullopt); an empty byte string is a
// distinct, valid "empty" value for most types (Cassandra allows it and sorts it first).
//
//   Result<std::string> v = parse_constant(int_type, ConstantKind::kInteger, "42", "k");
//   format_value(int_type, *v, ValueStyle::kCqlsh)  == "42"
//   to_json(int_type, v)                            == "42"
//   compare_values(int_type, a, b)                  <  0 when a sorts before b
//
// Every error message is Cassandra's own wording, because users (and Cassandra's test suites)
// match on it: e.g. `Invalid STRING constant (foo) for "k" of type int`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/types/constant.h"
#include "engine/types/cql_type.h"
#include "engine/util/status.h"

namespace cassette::types {

using Value = std::optional<std::string>;  // nullopt is CQL null

// ---- type names -------------------------------------------------------------------------------

// The CQL spelling of a type as Cassandra prints it in messages and DESCRIBE: "int", "text",
// "list<int>", "frozen<map<text, int>>", "tuple<int, text>", "frozen<address>". A UDT is
// qualified with its keyspace only when it differs from `current_keyspace`. Names that need
// quoting are double-quoted.
std::string cql_type_name(const CqlType& type, std::string_view current_keyspace = {});

// The type named by a simple (non-parameterized) CQL type keyword, case-insensitive: "int",
// "varchar" (= text), "counter", ... nullopt for anything else.
std::optional<CqlType> simple_type_by_name(std::string_view name);

// ---- literals ---------------------------------------------------------------------------------

// Converts a constant of the given lexical kind to a value of a scalar `type` (not a collection,
// tuple or UDT: the statement layer assembles those from their elements). `receiver` names the
// column or bind target in messages. Accepts what Cassandra accepts (e.g. an INTEGER constant for
// a bigint, varint, decimal, double or float; a STRING for a timestamp, date, time, inet, uuid;
// a HEX for a blob) and rejects the rest with Cassandra's message:
//   Invalid STRING constant (foo) for "k" of type int
//   Invalid INTEGER constant (3) for "t" of type text
//   Unable to make int from '12345678901'       (out of range, from Int32Type.fromString)
//   Unable to coerce 'xyz' to a formatted date (long)
std::optional<std::string> constant_error(const CqlType& type, ConstantKind kind,
                                          std::string_view text, std::string_view receiver);
Result<std::string> parse_constant(const CqlType& type, ConstantKind kind, std::string_view text,
                                   std::string_view receiver);

// Parses a value's string form as Cassandra's AbstractType.fromString does (used by COPY FROM,
// by fromJson for string-encoded values and by CAST from text): "42", "2024-01-02 03:04:05+0000",
// "123e4567-...", "0xcafe", "1h30m", "[1, 2]", "{'a': 1}" for collections. Returns
// InvalidArgument with Cassandra's message on a malformed value.
Result<std::string> parse_value_string(const CqlType& type, std::string_view text);

// ---- collections, tuples and UDTs ---------------------------------------------------------------

// Serialized forms of the composite types. Sets and maps are written in comparator order with
// duplicates removed (for maps, the last value of a duplicated key wins), as Cassandra stores
// them. Tuples and UDTs hold a null as length -1.
std::string serialize_list(std::span<const std::string> elements);
std::string serialize_set(const CqlType& element_type, std::vector<std::string> elements);
std::string serialize_map(const CqlType& key_type,
                          std::vector<std::pair<std::string, std::string>> entries);
std::string serialize_tuple(std::span<const Value> components);  // also UDTs

// The elements of a serialized list or set, entries of a map, components of a tuple or UDT
// (a UDT value may hold fewer fields than its type: the missing trailing ones are null).
Result<std::vector<std::string>> deserialize_list(std::string_view bytes);  // list and set
Result<std::vector<std::pair<std::string, std::string>>> deserialize_map(std::string_view bytes);
Result<std::vector<Value>> deserialize_tuple(std::string_view bytes);  // tuple and UDT

// vector<element, n> (Cassandra 5.0's VectorType): n elements, no count; back to back when the
// element type has one fixed length (vector_element_length), else each after a vint length.
// deserialize_vector checks the dimension and each element with Cassandra's messages:
//   Invalid empty vector value / Not enough bytes to read a vector<int, 2> /
//   Unexpected 4 extraneous bytes after vector<int, 2> value
std::optional<size_t> vector_element_length(const CqlType& element);
std::string serialize_vector(const CqlType& type, std::span<const std::string> elements);
Result<std::vector<std::string>> deserialize_vector(const CqlType& type, std::string_view bytes);
// A vector<float, dimension>'s elements as floats, and back (the similarity functions, ANN).
Result<std::vector<float>> vector_floats(std::string_view bytes, int32_t dimension);
std::string vector_from_floats(std::span<const float> values);

// The elements of a list, set or vector value, and such a value of `type` from its elements
// (sets sorted and deduplicated; a vector's count checked, the message naming `receiver`:
// "Invalid vector literal for v of type vector<float, 3>; expected 3 elements, but given 2").
// The hosts map all three to arrays.
Result<std::vector<std::string>> deserialize_elements(const CqlType& type, std::string_view bytes);
Result<std::string> serialize_elements(const CqlType& type, std::vector<std::string> elements,
                                       std::string_view receiver);

// ---- checking, comparing ------------------------------------------------------------------------

// Whether `bytes` is a well-formed value of `type` (fixed widths, valid UTF-8 for text, ASCII for
// ascii, version-1 uuid for timeuuid, ...). Message as Cassandra's, e.g. "Invalid UTF-8 bytes
// 0xff" / "Expected 4 or 0 byte int (3)".
Status validate_value(const CqlType& type, std::string_view bytes);

// Cassandra's comparator order for `type` (the same order the byte-comparable key encoding
// gives): text/ascii/blob by unsigned bytes; integers signed; varint/decimal by value; uuid by
// version then time or bytes; timeuuid by time then signed bytes; boolean false < true; floats
// numerically; the empty value first; collections and tuples element by element.
int compare_values(const CqlType& type, std::string_view a, std::string_view b);

// ---- printing -----------------------------------------------------------------------------------

enum class ValueStyle {
  kCqlsh,    // as cqlsh prints a cell: text unquoted at top level, quoted inside collections;
             // timestamps "2024-01-02 03:04:05.000000+0000"; floats like cqlsh (%g, 5/12 digits)
  kLiteral,  // a CQL literal that parses back to the same value: 'it''s', 0xcafe, {1, 2}
  kString,   // AbstractType.getString(): text unquoted, timestamps ISO-8601 with ms and "Z"
             // ("2024-01-02T03:04:05.000Z"), what CAST(x AS text) returns
  kCopy,     // what COPY TO writes: kCqlsh's forms where parse_value_string reads them back to
             // the very same value, exact forms where cqlsh's lose something: floats in the
             // fewest digits that read back exactly (cqlsh: 5/12 digits), timestamps to the
             // millisecond, dates outside years 1..9999 as their raw day number, text inside
             // collections as CQL strings ('it''s'), UDT field names quoted where CQL needs it
};
std::string format_value(const CqlType& type, std::string_view bytes, ValueStyle style);
// cqlsh's format_floating_point_type: %g with `precision` significant digits, widened so that a
// number printed without an exponent keeps its integer digits ("NaN", "Infinity" as Java).
std::string format_float_cqlsh(double v, int precision);

// ---- JSON ---------------------------------------------------------------------------------------

// The value as Cassandra's toJson() writes it: numbers bare, text/uuid/inet/date/time/timestamp
// /duration as JSON strings, blobs "0x...", lists/sets as arrays, maps as objects (non-text keys
// as their JSON text quoted), tuples as arrays, UDTs as objects, null as null.
std::string to_json(const CqlType& type, const Value& value);

// The value of `json` (one JSON value, already parsed out of a document by the caller or given
// whole, e.g. by fromJson()) as a value of `type`. Messages as Cassandra's, e.g.
//   Unable to make int from '"abc"'  /  Expected a list, but got a String: "x"
// `receiver` names the column.
Result<Value> from_json(const CqlType& type, std::string_view json, std::string_view receiver);

// ---- conversions (CAST and the *AsBlob functions) -----------------------------------------------

// CAST(value AS target) with Cassandra's rules (numeric widening/narrowing as Java's casts,
// anything to text/ascii through its string form, timestamp/date/timeuuid among each other).
// Returns InvalidArgument "Cannot cast value of type X to type Y" (wording as Cassandra) for a
// cast Cassandra does not define.
Result<Value> cast_value(const CqlType& from, const CqlType& to, const Value& value);
bool can_cast(const CqlType& from, const CqlType& to);

// ---- time and uuid helpers ----------------------------------------------------------------------

// Milliseconds since the epoch from Cassandra's timestamp string forms ("2024-01-02",
// "2024-01-02 03:04", "2024-01-02T03:04:05.123+0100", an integer of milliseconds, ...).
Result<int64_t> parse_timestamp_millis(std::string_view text);
// Days since the epoch for date literals ("2024-01-02" or an unsigned integer as Cassandra's
// SimpleDateType.fromString); stored as uint32 with the epoch at 2^31.
Result<uint32_t> parse_date(std::string_view text);
// Nanoseconds since midnight for time literals ("03:04:05.123456789" or an integer).
Result<int64_t> parse_time_nanos(std::string_view text);

// A version-1 uuid for the given time (microseconds since the epoch) with `clock_seq_and_node`
// as its low 8 bytes; and the low bytes a process uses for now().
std::string make_timeuuid(int64_t micros, uint64_t clock_seq_and_node);
uint64_t process_clock_seq_and_node();
// The time for the next timeuuid this process makes: `micros`, or the microsecond after the
// latest one returned when that is not earlier, so that no two timeuuids of a process are equal
// (as Cassandra's node-wide generator guarantees now()'s are), whatever its threads and
// sessions. Thread-safe.
int64_t unique_timeuuid_micros(int64_t micros);
// minTimeuuid/maxTimeuuid: the smallest/largest timeuuid of the given millisecond.
std::string min_timeuuid(int64_t millis);
std::string max_timeuuid(int64_t millis);
// The time (microseconds since the epoch) of a version-1 uuid. REQUIRES: 16 bytes, version 1.
int64_t timeuuid_micros(std::string_view bytes);
std::string random_uuid();  // version 4

}  // namespace cassette::types
