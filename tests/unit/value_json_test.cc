// fromJson(): each type's accepted JSON forms and Cassandra's messages for the rest.
#include <doctest/doctest.h>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}

std::string cqlsh_of(const CqlType& type, std::string_view json) {
  auto v = from_json(type, json, "v");
  REQUIRE_MESSAGE(v.is_ok(), v.status().message());
  REQUIRE(v->has_value());
  return format_value(type, **v, ValueStyle::kCqlsh);
}

std::string error(const CqlType& type, std::string_view json) {
  auto v = from_json(type, json, "v");
  REQUIRE_FALSE(v.is_ok());
  return v.status().message();
}

}  // namespace

TEST_CASE("value fromJson of numbers") {
  CHECK(cqlsh_of(t(TypeKind::kInt), "42") == "42");
  CHECK(cqlsh_of(t(TypeKind::kInt), "\"42\"") == "42");
  CHECK(error(t(TypeKind::kInt), "\"abc\"") == "Unable to make int from 'abc'");
  CHECK(error(t(TypeKind::kInt), "1.5") == "Expected an int value, but got a Double: 1.5");
  CHECK(error(t(TypeKind::kInt), "12345678901") ==
        "Expected an int value, but got a Long: 12345678901");
  CHECK(error(t(TypeKind::kInt), "[1, 2]") == "Expected an int value, but got a ArrayList: [1, 2]");
  CHECK(error(t(TypeKind::kInt), "true") == "Expected an int value, but got a Boolean: true");
  CHECK(cqlsh_of(t(TypeKind::kBigint), "12345678901") == "12345678901");
  CHECK(error(t(TypeKind::kBigint), "1.0") == "Expected a bigint value, but got a Double: 1.0");
  CHECK(cqlsh_of(t(TypeKind::kSmallint), "12") == "12");
  CHECK(error(t(TypeKind::kSmallint), "1.5") == "Unable to make short from '1.5'");
  CHECK(error(t(TypeKind::kTinyint), "{}") == "Expected a byte value, but got a LinkedHashMap: {}");
  CHECK(cqlsh_of(t(TypeKind::kVarint), "123456789012345678901234567890") ==
        "123456789012345678901234567890");
  CHECK(error(t(TypeKind::kVarint), "1.5") ==
        "Value '1.5' is not a valid representation of a varint value");
  CHECK(cqlsh_of(t(TypeKind::kDecimal), "1.25") == "1.25");
  CHECK(cqlsh_of(t(TypeKind::kDecimal), "\"1.250\"") == "1.250");
  CHECK(error(t(TypeKind::kDecimal), "\"x\"") ==
        "Value 'x' is not a valid representation of a decimal value");
  CHECK(cqlsh_of(t(TypeKind::kDouble), "1") == "1");
  CHECK(cqlsh_of(t(TypeKind::kFloat), "\"1.5\"") == "1.5");
  CHECK(error(t(TypeKind::kDouble), "\"x\"") == "Unable to make double from 'x'");
  CHECK(error(t(TypeKind::kFloat), "true") == "Expected a float value, but got a Boolean: true");
}

TEST_CASE("value fromJson of text, blob, boolean, uuid and time types") {
  CHECK(cqlsh_of(t(TypeKind::kText), "\"a\\nb\"") == "a\\nb");
  CHECK(error(t(TypeKind::kText), "1") == "Expected a UTF-8 string, but got a Integer: 1");
  CHECK(error(t(TypeKind::kAscii), "1") == "Expected an ascii string, but got a Integer: 1");
  CHECK(cqlsh_of(t(TypeKind::kBlob), "\"0xcafe\"") == "0xcafe");
  CHECK(error(t(TypeKind::kBlob), "\"cafe\"") ==
        "Value 'cafe' is not a valid blob representation: String representation of blob is missing "
        "0x prefix: cafe");
  CHECK(cqlsh_of(t(TypeKind::kBoolean), "true") == "True");
  CHECK(cqlsh_of(t(TypeKind::kBoolean), "\"FALSE\"") == "False");
  CHECK(error(t(TypeKind::kBoolean), "1") == "Expected a boolean value, but got a Integer: 1");
  CHECK(error(t(TypeKind::kBoolean), "\"yes\"") == "Unable to make boolean from 'yes'");
  CHECK(error(t(TypeKind::kTimeuuid), "\"00000000-0000-0000-0000-000000000000\"") ==
        "TimeUUID supports only version 1 UUIDs");
  CHECK(error(t(TypeKind::kTimeuuid), "123") ==
        "Expected a string representation of a timeuuid, but got a Integer: 123");
  CHECK(error(t(TypeKind::kUuid), "\"abc\"") == "Unable to make UUID from 'abc'");
  CHECK(cqlsh_of(t(TypeKind::kTimestamp), "0") == "1970-01-01 00:00:00.000000+0000");
  CHECK(cqlsh_of(t(TypeKind::kTimestamp), "\"1970-01-01 00:00:01.5Z\"") ==
        "1970-01-01 00:00:01.500000+0000");
  CHECK(
      error(t(TypeKind::kTimestamp), "1.5") ==
      "Expected a long or a datestring representation of a timestamp value, but got a Double: 1.5");
  CHECK(cqlsh_of(t(TypeKind::kDate), "\"2024-01-02\"") == "2024-01-02");
  CHECK(error(t(TypeKind::kDate), "1") ==
        "Expected a string representation of a date value, but got a Integer: 1");
  CHECK(error(t(TypeKind::kTime), "1") ==
        "Expected a string representation of a time value, but got a Integer: 1");
  CHECK(error(t(TypeKind::kInet), "1") ==
        "Expected a string representation of an inet value, but got a Integer: 1");
  CHECK(error(t(TypeKind::kDuration), "1") ==
        "Expected a string representation of a duration, but got a Integer: 1");
  auto null = from_json(t(TypeKind::kInt), "null", "v");
  REQUIRE(null.is_ok());
  CHECK_FALSE(null->has_value());
}

TEST_CASE("value fromJson of collections, tuples and UDTs") {
  const CqlType i = t(TypeKind::kInt), text = t(TypeKind::kText);
  CHECK(cqlsh_of(CqlType::list(i), "[3, 1, 2]") == "[3, 1, 2]");
  CHECK(cqlsh_of(CqlType::list(i), "\"[3, 1]\"") == "[3, 1]");
  CHECK(error(CqlType::list(i), "1") == "Expected a list, but got a Integer: 1");
  CHECK(error(CqlType::list(i), "[1, null]") == "Invalid null element in list");
  CHECK(cqlsh_of(CqlType::set(i), "[3, 1, 3]") == "{1, 3}");
  CHECK(error(CqlType::set(i), "{}") ==
        "Expected a list (representing a set), but got a LinkedHashMap: {}");
  CHECK(cqlsh_of(CqlType::map(text, i), R"({"b": 2, "a": 1})") == "{'a': 1, 'b': 2}");
  CHECK(cqlsh_of(CqlType::map(i, text), R"({"2": "x", "1": "y"})") == "{1: 'y', 2: 'x'}");
  CHECK(error(CqlType::map(text, i), R"({"a": null})") == "Invalid null value in map");
  CHECK(error(CqlType::map(text, i), "[]") == "Expected a map, but got a ArrayList: []");
  const CqlType tuple = CqlType::tuple({i, text});
  CHECK(cqlsh_of(tuple, R"([1, null])") == "(1, null)");
  CHECK(error(tuple, R"([1, "a", 3])") == "Tuple contains extra items (expected 2): [1, a, 3]");
  CHECK(error(tuple, R"([1])") == "Tuple is missing items (expected 2): [1]");
  CHECK(error(tuple, "{}") ==
        "Expected a list representation of a tuple, but got a LinkedHashMap: {}");
  CqlType udt{TypeKind::kUdt, {i, text}, true, "ks", "u", {"a", "B"}};
  CHECK(cqlsh_of(udt, R"({"A": 1, "\"B\"": "x"})") == "{a: 1, B: 'x'}");
  CHECK(cqlsh_of(udt, R"({"a": 1})") == "{a: 1, B: null}");
  CHECK(error(udt, R"({"c": 1})") == "Unknown field 'c' in value of user defined type u");
}
