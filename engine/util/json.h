// A small JSON reader and string escaper, for toJson()/fromJson(), INSERT JSON and SELECT JSON.
//
// parse_json() turns one JSON document into a tree of JsonValue. Every value keeps the text it
// was written as (`source`), because Cassandra's messages quote values the way they were given
// and because a number must be converted by the receiving CQL type (an int, a varint, a
// decimal) from its exact digits, never through a double.
//
//   Result<JsonValue> doc = parse_json(R"({"k": 1, "v": [1.5, "x"]})");
//   doc->members[1].second.elements[0].source  == "1.5"
//   quote_json_string("a\"b")                   == R"("a\"b")"
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/util/status.h"

namespace cassette::json {

struct JsonValue {
  enum class Kind { kNull, kBoolean, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  std::string source;    // the value exactly as written in the document (without surrounding space)
  std::string text;      // kString: the unescaped string; kNumber: the number as written
  bool boolean = false;  // kBoolean
  std::vector<JsonValue> elements;                         // kArray
  std::vector<std::pair<std::string, JsonValue>> members;  // kObject, in document order

  // Out of line: clang 14 with libstdc++ 12 cannot check, inside this recursive definition,
  // whether an inline default constructor is implicit (members holds pairs of JsonValue).
  JsonValue();

  bool is_null() const { return kind == Kind::kNull; }
  // For numbers: whether it is written without fraction or exponent (an integer).
  bool is_integer() const;
};

// Parses one JSON value that makes up the whole of `document` (surrounding whitespace allowed).
// Strings must be valid UTF-8 after unescaping; \uXXXX surrogate pairs are combined.
Result<JsonValue> parse_json(std::string_view document);

// The JSON escape of `s` without the surrounding quotes, as Jackson's quoteAsString writes it:
// '"' and '\\' backslashed, \b \f \n \r \t by name, other control characters as \u00XX.
std::string escape_json_string(std::string_view s);
// escape_json_string(s) in double quotes.
std::string quote_json_string(std::string_view s);

}  // namespace cassette::json
