// message_value: values quoted in error messages are kept whole up to 100 bytes and cut after
// that, never inside a UTF-8 character, with the whole length said.
#include "engine/util/message.h"

#include <doctest/doctest.h>

#include <string>

#include "engine/types/value.h"

using namespace cassette;

TEST_CASE("message_value keeps short values and cuts long ones") {
  CHECK(message_value("") == "");
  CHECK(message_value("abc") == "abc");
  const std::string hundred(100, 'x');
  CHECK(message_value(hundred) == hundred);
  CHECK(message_value(hundred + "y") == hundred + "... (101 bytes)");
  CHECK(message_value(std::string(10 << 20, '9')) ==
        std::string(100, '9') + "... (10485760 bytes)");
}

TEST_CASE("message_value never cuts a UTF-8 character in two") {
  // 99 ASCII bytes, then a 3-byte character across the cut: the character is left out whole.
  const std::string text = std::string(99, 'a') + "\xE2\x82\xAC" + "tail";
  CHECK(message_value(text) == std::string(99, 'a') + "... (106 bytes)");
  const std::string two = std::string(98, 'a') + "\xC3\xA9" + "tail";  // ends exactly at 100
  CHECK(message_value(two) == std::string(98, 'a') + "\xC3\xA9" + "... (104 bytes)");
}

TEST_CASE("a long bad literal's message quotes only its start") {
  const std::string literal = "12x" + std::string(1 << 20, '4');
  auto parsed = types::parse_value_string(types::CqlType::simple(types::TypeKind::kInt), literal);
  REQUIRE_FALSE(parsed.is_ok());
  CHECK(parsed.status().message() ==
        "Unable to make int from '12x" + std::string(97, '4') + "... (1048579 bytes)'");
}
