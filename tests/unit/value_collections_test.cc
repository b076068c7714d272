// Serialized collections, tuples and UDTs: their byte layout, the comparator order and
// de-duplication of sets and maps, and the errors on malformed bytes.
#include <doctest/doctest.h>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}
std::string int_bytes(int32_t v) {
  return types::store_be(static_cast<uint32_t>(v), 4);
}
std::string decimal(std::string_view text) {
  return *internal::decimal_from_text(text);
}

}  // namespace

TEST_CASE("value collections serialize in the native protocol layout") {
  CHECK(types::to_hex(serialize_list(std::vector<std::string>{"a", ""})) ==
        "00000002"
        "00000001"
        "61"
        "00000000");
  const std::vector<Value> parts{int_bytes(1), std::nullopt};
  CHECK(types::to_hex(serialize_tuple(parts)) ==
        "00000004"
        "00000001"
        "ffffffff");
  auto back = deserialize_tuple(serialize_tuple(parts));
  REQUIRE(back.is_ok());
  REQUIRE(back->size() == 2);
  CHECK((*back)[0] == int_bytes(1));
  CHECK_FALSE((*back)[1].has_value());
}

TEST_CASE("value sets and maps are sorted and de-duplicated by the comparator") {
  const CqlType i = t(TypeKind::kInt);
  auto set = deserialize_list(serialize_set(i, {int_bytes(3), int_bytes(-1), int_bytes(3)}));
  REQUIRE(set.is_ok());
  CHECK(*set == std::vector<std::string>{int_bytes(-1), int_bytes(3)});
  // equal decimals: the set keeps the first written; the map keeps the first key, the last value
  const CqlType dec = t(TypeKind::kDecimal);
  set = deserialize_list(serialize_set(dec, {decimal("1.0"), decimal("1.00")}));
  REQUIRE(set.is_ok());
  CHECK(*set == std::vector<std::string>{decimal("1.0")});
  auto map = deserialize_map(
      serialize_map(dec, {{decimal("1.0"), "a"}, {decimal("0"), "z"}, {decimal("1.00"), "b"}}));
  REQUIRE(map.is_ok());
  REQUIRE(map->size() == 2);
  CHECK((*map)[0].second == "z");
  CHECK((*map)[1].first == decimal("1.0"));
  CHECK((*map)[1].second == "b");
}

TEST_CASE("value malformed collections are errors") {
  CHECK_FALSE(deserialize_list("\x00\x00").is_ok());
  CHECK_FALSE(deserialize_list(std::string("\x00\x00\x00\x01\x00\x00\x00\x05x", 9)).is_ok());
  CHECK_FALSE(deserialize_map(std::string("\x00\x00\x00\x01\x00\x00\x00\x01x", 9)).is_ok());
  CHECK_FALSE(deserialize_tuple(std::string("\x00\x00\x00\x02x", 5)).is_ok());
  const Status st = validate_value(CqlType::list(t(TypeKind::kInt)),
                                   serialize_list(std::vector<std::string>{"abc"}));
  CHECK(st.message() == "Expected 4 or 0 byte int (3)");
  CHECK(validate_value(t(TypeKind::kTimeuuid), std::string(16, '\0')).message() ==
        "Invalid version for TimeUUID type.");
  CHECK(validate_value(t(TypeKind::kText), "\xff").message() == "String didn't validate.");
  CHECK(validate_value(t(TypeKind::kAscii), "\xc3\xa9").message() == "Invalid byte for ascii: -61");
  CHECK(validate_value(t(TypeKind::kInet), "\x01\x02\x03").message() ==
        "Expected 4 or 16 byte inetaddress; got 010203");
  CHECK(validate_value(t(TypeKind::kDate), "").message() == "Expected 4 byte long for date (0)");
  CHECK(validate_value(t(TypeKind::kBigint), "").is_ok());
}
