// The JSON reader keeps each value's source text and unescapes strings; the escaper writes what
// Jackson's quoteAsString writes.
#include "engine/util/json.h"

#include <doctest/doctest.h>

using namespace cassette;
using namespace cassette::json;

TEST_CASE("json parses values and keeps their source text") {
  auto doc = parse_json(R"( {"k": 1, "v": [1.5, "x\ny", true, null], "o": {}} )");
  REQUIRE(doc.is_ok());
  CHECK(doc->kind == JsonValue::Kind::kObject);
  REQUIRE(doc->members.size() == 3);
  CHECK(doc->members[0].first == "k");
  CHECK(doc->members[0].second.source == "1");
  CHECK(doc->members[0].second.is_integer());
  const JsonValue& v = doc->members[1].second;
  CHECK(v.source == R"([1.5, "x\ny", true, null])");
  CHECK(v.elements[0].text == "1.5");
  CHECK_FALSE(v.elements[0].is_integer());
  CHECK(v.elements[1].text == "x\ny");
  CHECK(v.elements[1].source == R"("x\ny")");
  CHECK(v.elements[2].boolean);
  CHECK(v.elements[3].is_null());
  CHECK(doc->members[2].second.members.empty());
}

TEST_CASE("json unescapes unicode escapes and surrogate pairs") {
  auto doc = parse_json(R"("\u00e9\ud83d\ude00\/")");
  REQUIRE(doc.is_ok());
  CHECK(doc->text == "\xC3\xA9\xF0\x9F\x98\x80/");
}

TEST_CASE("json rejects malformed documents") {
  for (const char* bad :
       {"", "{", "[1,]", "{\"a\" 1}", "01", "1.", "tru", "\"abc", "[1] 2", "{'a': 1}"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_json(bad).is_ok());
  }
}

TEST_CASE("json errors never cut a multi-byte character") {
  auto r = parse_json("\u038e\u0394x");  // escaped in C++: the document is "ΎΔx" as UTF-8
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() == "unexpected text '\u038e\u0394x' at character 1");
}

TEST_CASE("json escapes strings as Jackson does") {
  CHECK(escape_json_string("a\"b\\c") == "a\\\"b\\\\c");
  CHECK(escape_json_string("\n\t\r\b\f") == "\\n\\t\\r\\b\\f");
  CHECK(escape_json_string(std::string("\x01\x1f", 2)) == "\\u0001\\u001F");
  CHECK(escape_json_string("é/") == "é/");
  CHECK(quote_json_string("x") == "\"x\"");
}
