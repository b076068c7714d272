// CAST: the conversions Cassandra defines, with Java's numeric conversion rules.
#include <doctest/doctest.h>

#include "engine/types/value.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}

std::string cast(TypeKind from, ConstantKind kind, std::string_view text, TypeKind to) {
  auto v = parse_constant(t(from), kind, text, "k");
  REQUIRE_MESSAGE(v.is_ok(), v.status().message());
  auto r = cast_value(t(from), t(to), Value(*v));
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  REQUIRE(r->has_value());
  return format_value(t(to), **r, ValueStyle::kString);
}

}  // namespace

TEST_CASE("value casts between numbers") {
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "1.5", TypeKind::kInt) == "1");
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "-1.5", TypeKind::kInt) == "-1");
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "1e20", TypeKind::kInt) == "2147483647");
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "NaN", TypeKind::kBigint) == "0");
  CHECK(cast(TypeKind::kInt, ConstantKind::kInteger, "300", TypeKind::kTinyint) == "44");
  CHECK(cast(TypeKind::kInt, ConstantKind::kInteger, "3", TypeKind::kDouble) == "3.0");
  CHECK(cast(TypeKind::kInt, ConstantKind::kInteger, "3", TypeKind::kDecimal) == "3");
  CHECK(cast(TypeKind::kFloat, ConstantKind::kFloat, "1.5", TypeKind::kDecimal) == "1.5");
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "2.75", TypeKind::kVarint) == "2");
  CHECK(cast(TypeKind::kDecimal, ConstantKind::kFloat, "12.99", TypeKind::kInt) == "12");
  CHECK(cast(TypeKind::kDecimal, ConstantKind::kFloat, "1.1", TypeKind::kDouble) == "1.1");
  CHECK(cast(TypeKind::kVarint, ConstantKind::kInteger, "4294967297", TypeKind::kInt) == "1");
  CHECK(cast(TypeKind::kCounter, ConstantKind::kInteger, "5", TypeKind::kFloat) == "5.0");
  // CastFctsTest: a float 5.2 and a double 6.3
  CHECK(cast(TypeKind::kFloat, ConstantKind::kFloat, "5.2", TypeKind::kDecimal) == "5.2");
  CHECK(cast(TypeKind::kFloat, ConstantKind::kFloat, "5.2", TypeKind::kDouble) ==
        "5.199999809265137");
  CHECK(cast(TypeKind::kFloat, ConstantKind::kFloat, "5.2", TypeKind::kText) == "5.2");
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "6.3", TypeKind::kDecimal) == "6.3");
  CHECK(cast(TypeKind::kDouble, ConstantKind::kFloat, "6.3", TypeKind::kTinyint) == "6");
  CHECK(cast(TypeKind::kDecimal, ConstantKind::kFloat, "6.3", TypeKind::kFloat) == "6.3");
  CHECK(cast(TypeKind::kDecimal, ConstantKind::kInteger, "18446744073709551617",
             TypeKind::kVarint) == "1");
  CHECK(cast(TypeKind::kTinyint, ConstantKind::kInteger, "2", TypeKind::kDouble) == "2.0");
}

TEST_CASE("value casts to text and between times") {
  CHECK(cast(TypeKind::kInt, ConstantKind::kInteger, "3", TypeKind::kText) == "3");
  CHECK(cast(TypeKind::kFloat, ConstantKind::kFloat, "1.5", TypeKind::kAscii) == "1.5");
  CHECK(cast(TypeKind::kBoolean, ConstantKind::kBoolean, "true", TypeKind::kText) == "true");
  CHECK(cast(TypeKind::kTimestamp, ConstantKind::kString, "2024-01-02 03:04:05", TypeKind::kText) ==
        "2024-01-02T03:04:05.000Z");
  CHECK(cast(TypeKind::kTimestamp, ConstantKind::kString, "2024-01-02 03:04:05", TypeKind::kDate) ==
        "2024-01-02");
  CHECK(cast(TypeKind::kDate, ConstantKind::kString, "2024-01-02", TypeKind::kTimestamp) ==
        "2024-01-02T00:00:00.000Z");
  CHECK(cast(TypeKind::kTimeuuid, ConstantKind::kUuid, "6bddc89a-5644-11e4-97fc-56847afe9799",
             TypeKind::kTimestamp) == "2014-10-17T21:27:39.541Z");
  CHECK(cast(TypeKind::kAscii, ConstantKind::kString, "abc", TypeKind::kText) == "abc");
  CHECK(can_cast(t(TypeKind::kInt), t(TypeKind::kInt)));
  CHECK_FALSE(can_cast(t(TypeKind::kText), t(TypeKind::kInt)));
  CHECK_FALSE(can_cast(t(TypeKind::kBlob), t(TypeKind::kText)));
  CHECK_FALSE(can_cast(t(TypeKind::kInt), t(TypeKind::kCounter)));
  auto r = cast_value(t(TypeKind::kText), t(TypeKind::kInt), Value("1"));
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() == "text cannot be cast to int");
}
