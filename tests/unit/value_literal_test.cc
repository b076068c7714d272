// Literals: which constants each type accepts, the values they parse to and Cassandra's messages
// for the ones it rejects.
#include <doctest/doctest.h>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}

std::string hex(const Result<std::string>& r) {
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  return types::to_hex(*r);
}

std::string error(const CqlType& type, ConstantKind kind, std::string_view text) {
  auto r = parse_constant(type, kind, text, "k");
  REQUIRE_FALSE(r.is_ok());
  return r.status().message();
}

}  // namespace

TEST_CASE("value type names") {
  CHECK(cql_type_name(t(TypeKind::kText)) == "text");
  CHECK(cql_type_name(CqlType::list(t(TypeKind::kInt))) == "list<int>");
  CHECK(cql_type_name(CqlType::map(t(TypeKind::kText), t(TypeKind::kInt), true)) ==
        "frozen<map<text, int>>");
  CHECK(cql_type_name(CqlType::set(CqlType::list(t(TypeKind::kInt)))) == "set<frozen<list<int>>>");
  CHECK(cql_type_name(CqlType::tuple({t(TypeKind::kInt), t(TypeKind::kText)})) ==
        "frozen<tuple<int, text>>");
  CqlType udt{TypeKind::kUdt, {t(TypeKind::kInt)}, true, "ks", "address", {"n"}};
  CHECK(cql_type_name(udt) == "frozen<address>");
  CHECK(cql_type_name(udt, "other") == "frozen<ks.address>");
  CHECK(simple_type_by_name("VARCHAR") == t(TypeKind::kText));
  CHECK(simple_type_by_name("TimeUUID") == t(TypeKind::kTimeuuid));
  CHECK_FALSE(simple_type_by_name("list").has_value());
}

TEST_CASE("value constants of the integer types") {
  CHECK(hex(parse_constant(t(TypeKind::kInt), ConstantKind::kInteger, "42", "k")) == "0000002a");
  CHECK(hex(parse_constant(t(TypeKind::kInt), ConstantKind::kInteger, "-1", "k")) == "ffffffff");
  CHECK(hex(parse_constant(t(TypeKind::kBigint), ConstantKind::kInteger, "-2", "k")) ==
        "fffffffffffffffe");
  CHECK(hex(parse_constant(t(TypeKind::kSmallint), ConstantKind::kInteger, "300", "k")) == "012c");
  CHECK(hex(parse_constant(t(TypeKind::kTinyint), ConstantKind::kInteger, "-128", "k")) == "80");
  CHECK(hex(parse_constant(t(TypeKind::kCounter), ConstantKind::kInteger, "5", "k")) ==
        "0000000000000005");
  CHECK(error(t(TypeKind::kInt), ConstantKind::kInteger, "12345678901") ==
        "Unable to make int from '12345678901'");
  CHECK(error(t(TypeKind::kSmallint), ConstantKind::kInteger, "40000") ==
        "Unable to make short from '40000'");
  CHECK(error(t(TypeKind::kTinyint), ConstantKind::kInteger, "128") ==
        "Unable to make byte from '128'");
  CHECK(error(t(TypeKind::kBigint), ConstantKind::kInteger, "9223372036854775808") ==
        "Unable to make long from '9223372036854775808'");
  CHECK(error(t(TypeKind::kInt), ConstantKind::kString, "foo") ==
        "Invalid STRING constant (foo) for \"k\" of type int");
  CHECK(error(t(TypeKind::kInt), ConstantKind::kFloat, "1.5") ==
        "Invalid FLOAT constant (1.5) for \"k\" of type int");
  CHECK(error(t(TypeKind::kText), ConstantKind::kInteger, "3") ==
        "Invalid INTEGER constant (3) for \"k\" of type text");
  CHECK(error(t(TypeKind::kUuid), ConstantKind::kString, "x") ==
        "Invalid STRING constant (x) for \"k\" of type uuid");
  CHECK(error(CqlType::list(t(TypeKind::kInt)), ConstantKind::kInteger, "1") ==
        "Invalid INTEGER constant (1) for \"k\" of type list<int>");
  CHECK_FALSE(constant_error(t(TypeKind::kInt), ConstantKind::kInteger, "1", "k").has_value());
  CHECK(constant_error(t(TypeKind::kBoolean), ConstantKind::kInteger, "1", "b") ==
        "Invalid INTEGER constant (1) for \"b\" of type boolean");
}

TEST_CASE("value constants of varint, decimal, float and double") {
  CHECK(hex(parse_constant(t(TypeKind::kVarint), ConstantKind::kInteger, "128", "k")) == "0080");
  CHECK(hex(parse_constant(t(TypeKind::kVarint), ConstantKind::kInteger, "-129", "k")) == "ff7f");
  CHECK(hex(parse_constant(t(TypeKind::kVarint), ConstantKind::kInteger, "-128", "k")) == "80");
  CHECK(hex(parse_constant(t(TypeKind::kVarint), ConstantKind::kInteger, "0", "k")) == "00");
  CHECK(hex(parse_constant(t(TypeKind::kDecimal), ConstantKind::kFloat, "1.50", "k")) ==
        "0000000200"
        "96");
  CHECK(hex(parse_constant(t(TypeKind::kDecimal), ConstantKind::kInteger, "-3", "k")) ==
        "00000000fd");
  CHECK(hex(parse_constant(t(TypeKind::kDecimal), ConstantKind::kFloat, "1e3", "k")) ==
        "fffffffd01");
  CHECK(hex(parse_constant(t(TypeKind::kDouble), ConstantKind::kFloat, "1.5", "k")) ==
        "3ff8000000000000");
  CHECK(hex(parse_constant(t(TypeKind::kDouble), ConstantKind::kInteger, "2", "k")) ==
        "4000000000000000");
  CHECK(hex(parse_constant(t(TypeKind::kFloat), ConstantKind::kFloat, "1.5", "k")) == "3fc00000");
  CHECK(hex(parse_constant(t(TypeKind::kFloat), ConstantKind::kFloat, "-Infinity", "k")) ==
        "ff800000");
  CHECK(hex(parse_constant(t(TypeKind::kDouble), ConstantKind::kFloat, "NaN", "k")) ==
        "7ff8000000000000");
  CHECK(error(t(TypeKind::kDecimal), ConstantKind::kBoolean, "true") ==
        "Invalid BOOLEAN constant (true) for \"k\" of type decimal");
}

TEST_CASE("value constants of text, blob, boolean, uuid, inet") {
  CHECK(*parse_constant(t(TypeKind::kText), ConstantKind::kString, "it's", "k") == "it's");
  CHECK(*parse_constant(t(TypeKind::kAscii), ConstantKind::kString, "abc", "k") == "abc");
  CHECK(error(t(TypeKind::kAscii), ConstantKind::kString, "é") ==
        "Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: "
        "Input length = 1");
  CHECK(hex(parse_constant(t(TypeKind::kBlob), ConstantKind::kHex, "0xCafe", "k")) == "cafe");
  CHECK(hex(parse_constant(t(TypeKind::kBlob), ConstantKind::kHex, "0x", "k")) == "");
  // HEX is taken for a tinyint as its raw byte, which must then be exactly one (found by the
  // cql_literal fuzz target: tests/fuzz/regressions/cql_literal)
  CHECK(hex(parse_constant(t(TypeKind::kTinyint), ConstantKind::kHex, "0x7f", "k")) == "7f");
  CHECK(error(t(TypeKind::kTinyint), ConstantKind::kHex, "0x") ==
        "Expected 1 byte for a tinyint (0)");
  CHECK(error(t(TypeKind::kTinyint), ConstantKind::kHex, "0x0102") ==
        "Expected 1 byte for a tinyint (2)");
  CHECK(error(t(TypeKind::kBlob), ConstantKind::kString, "ab") ==
        "Invalid STRING constant (ab) for \"k\" of type blob");
  CHECK(hex(parse_constant(t(TypeKind::kBoolean), ConstantKind::kBoolean, "TRUE", "k")) == "01");
  CHECK(hex(parse_constant(t(TypeKind::kBoolean), ConstantKind::kBoolean, "false", "k")) == "00");
  CHECK(hex(parse_constant(t(TypeKind::kUuid), ConstantKind::kUuid,
                           "123E4567-e89b-12d3-a456-426614174000", "k")) ==
        "123e4567e89b12d3a456426614174000");
  CHECK(hex(parse_constant(t(TypeKind::kTimeuuid), ConstantKind::kUuid,
                           "6bddc89a-5644-11e4-97fc-56847afe9799", "k")) ==
        "6bddc89a564411e497fc56847afe9799");
  CHECK(error(t(TypeKind::kTimeuuid), ConstantKind::kUuid,
              "123e4567-e89b-42d3-a456-426614174000") == "TimeUUID supports only version 1 UUIDs");
  CHECK(hex(parse_constant(t(TypeKind::kInet), ConstantKind::kString, "127.0.0.1", "k")) ==
        "7f000001");
  CHECK(hex(parse_constant(t(TypeKind::kInet), ConstantKind::kString, "::1", "k")) ==
        "00000000000000000000000000000001");
  CHECK(hex(parse_constant(t(TypeKind::kInet), ConstantKind::kString, "::ffff:1.2.3.4", "k")) ==
        "01020304");
  CHECK(error(t(TypeKind::kInet), ConstantKind::kString, "1.2.3.256") ==
        "Unable to make inet address from '1.2.3.256'");
}

TEST_CASE("value a date past year 9999 reads back in the form it prints in") {
  // Java's formatter writes such years with a '+' (found by the value_json fuzz target: toJson's
  // "+848819-04-28" did not convert back). 2^31 + 3000000 days is 10183-09-21.
  const CqlType date = t(TypeKind::kDate);
  const std::string bytes = types::store_be(uint32_t{(1u << 31) + 3000000}, 4);
  CHECK(format_value(date, bytes, ValueStyle::kString) == "+10183-09-21");
  CHECK(hex(parse_value_string(date, "+10183-09-21")) == types::to_hex(bytes));
  CHECK(hex(parse_constant(date, ConstantKind::kString, "+10183-09-21", "k")) ==
        types::to_hex(bytes));
}

TEST_CASE("value constants of timestamp, date and time") {
  const CqlType ts = t(TypeKind::kTimestamp);
  CHECK(hex(parse_constant(ts, ConstantKind::kString, "2024-01-02 03:04:05+0000", "k")) ==
        "0000018cc820d888");
  CHECK(hex(parse_constant(ts, ConstantKind::kString, "2024-01-02T03:04:05.000Z", "k")) ==
        "0000018cc820d888");
  CHECK(hex(parse_constant(ts, ConstantKind::kString, "2024-01-02T04:04:05+01:00", "k")) ==
        "0000018cc820d888");
  CHECK(hex(parse_constant(ts, ConstantKind::kString, "2024-01-02 03:04:05", "k")) ==
        "0000018cc820d888");
  CHECK(hex(parse_constant(ts, ConstantKind::kInteger, "1704164645000", "k")) ==
        "0000018cc820d888");
  CHECK(*parse_timestamp_millis("2024-01-02") == 1704153600000);
  CHECK(*parse_timestamp_millis("2024-01-02 03:04") == 1704164640000);
  CHECK(*parse_timestamp_millis("2024-01-02 03:04:05.123") == 1704164645123);
  CHECK(*parse_timestamp_millis("2024-01-02 03:04:05.1") == 1704164645100);
  CHECK(*parse_timestamp_millis("1970-01-01 00:00:00 UTC") == 0);
  CHECK(*parse_timestamp_millis("1969-12-31 23:59:59.999Z") == -1);
  CHECK(error(ts, ConstantKind::kString, "xyz") == "Unable to parse a date/time from 'xyz'");
  CHECK(error(ts, ConstantKind::kString, "2024-13-01") ==
        "Unable to parse a date/time from '2024-13-01'");

  const CqlType date = t(TypeKind::kDate);
  CHECK(hex(parse_constant(date, ConstantKind::kString, "1970-01-01", "k")) == "80000000");
  CHECK(hex(parse_constant(date, ConstantKind::kString, "2024-01-02", "k")) == "80004d0c");
  CHECK(hex(parse_constant(date, ConstantKind::kInteger, "2147483648", "k")) == "80000000");
  CHECK(error(date, ConstantKind::kInteger, "-1") ==
        "Unable to make unsigned int (for date) from: '-1'");
  CHECK(error(date, ConstantKind::kString, "2024-02-30") ==
        "Unable to coerce '2024-02-30' to a formatted date (long)");

  const CqlType time = t(TypeKind::kTime);
  CHECK(*parse_time_nanos("03:04:05.123456789") == 11045123456789);
  CHECK(*parse_time_nanos("03:04:05") == 11045000000000);
  CHECK(*parse_time_nanos("03:04:05.1") == 11045100000000);
  CHECK(hex(parse_constant(time, ConstantKind::kInteger, "1", "k")) == "0000000000000001");
  CHECK(error(time, ConstantKind::kString, "25:00:00") ==
        "(TimeType) Unable to coerce '25:00:00' to a formatted time (long)");
  CHECK(error(time, ConstantKind::kInteger, "86400000000000") ==
        "Unable to make long (for time) from: '86400000000000'");
}

TEST_CASE("value durations") {
  const CqlType d = t(TypeKind::kDuration);
  auto fmt_duration = [&](std::string_view text, ConstantKind kind = ConstantKind::kDuration) {
    auto v = parse_constant(d, kind, text, "d");
    REQUIRE_MESSAGE(v.is_ok(), v.status().message());
    return format_value(d, *v, ValueStyle::kCqlsh);
  };
  CHECK(fmt_duration("1h30m") == "1h30m");
  CHECK(fmt_duration("1y2mo3w4d5h6m7s8ms9us10ns") == "1y2mo25d5h6m7s8ms9us10ns");
  CHECK(fmt_duration("-2d") == "-2d");
  CHECK(fmt_duration("90m") == "1h30m");
  CHECK(fmt_duration("P1Y2M3DT4H5M6S") == "1y2mo3d4h5m6s");
  CHECK(fmt_duration("P2W") == "14d");
  CHECK(fmt_duration("P0001-02-03T04:05:06") == "1y2mo3d4h5m6s");
  CHECK(fmt_duration("1µs") == "1us");
  CHECK(hex(parse_constant(d, ConstantKind::kDuration, "1h", "d")) == "0000fc068c61714000");
  CHECK(error(d, ConstantKind::kDuration, "1x") == "Unable to convert '1x' to a duration");
  CHECK(error(d, ConstantKind::kInteger, "3") == "Unable to convert '3' to a duration");
  CHECK(error(d, ConstantKind::kDuration, "1h2h") ==
        "Invalid duration. The hours are specified multiple times");
  CHECK(error(d, ConstantKind::kDuration, "1m1h") ==
        "Invalid duration. The minutes should be after hours");
  CHECK(error(d, ConstantKind::kString, "1h") ==
        "Invalid STRING constant (1h) for \"k\" of type duration");
}

TEST_CASE("value parse_value_string of collections") {
  const CqlType list = CqlType::list(t(TypeKind::kInt));
  auto v = parse_value_string(list, "[1, 2, 3]");
  REQUIRE(v.is_ok());
  CHECK(format_value(list, *v, ValueStyle::kCqlsh) == "[1, 2, 3]");
  const CqlType map = CqlType::map(t(TypeKind::kText), t(TypeKind::kInt));
  v = parse_value_string(map, "{'b': 2, 'a': 1, 'it''s': 3}");
  REQUIRE(v.is_ok());
  CHECK(format_value(map, *v, ValueStyle::kCqlsh) == "{'a': 1, 'b': 2, 'it''s': 3}");
  const CqlType set = CqlType::set(t(TypeKind::kInt));
  v = parse_value_string(set, "{3, 1, 3}");
  REQUIRE(v.is_ok());
  CHECK(format_value(set, *v, ValueStyle::kCqlsh) == "{1, 3}");
  const CqlType tuple = CqlType::tuple({t(TypeKind::kInt), t(TypeKind::kText)});
  v = parse_value_string(tuple, "(1, null)");
  REQUIRE(v.is_ok());
  CHECK(format_value(tuple, *v, ValueStyle::kCqlsh) == "(1, null)");
}
