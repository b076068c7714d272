// Printing values: cqlsh's table form, CQL literals, getString() and toJson().
#include <doctest/doctest.h>

#include <cstring>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType t(TypeKind k) {
  return CqlType::simple(k);
}

std::string parse(const CqlType& type, ConstantKind kind, std::string_view text) {
  auto v = parse_constant(type, kind, text, "k");
  REQUIRE_MESSAGE(v.is_ok(), v.status().message());
  return *v;
}

std::string cqlsh(const CqlType& type, ConstantKind kind, std::string_view text) {
  return format_value(type, parse(type, kind, text), ValueStyle::kCqlsh);
}

std::string json(const CqlType& type, ConstantKind kind, std::string_view text) {
  return to_json(type, parse(type, kind, text));
}

}  // namespace

TEST_CASE("value cqlsh formatting of scalars") {
  CHECK(cqlsh(t(TypeKind::kInt), ConstantKind::kInteger, "-42") == "-42");
  CHECK(cqlsh(t(TypeKind::kBoolean), ConstantKind::kBoolean, "true") == "True");
  CHECK(cqlsh(t(TypeKind::kBoolean), ConstantKind::kBoolean, "false") == "False");
  CHECK(cqlsh(t(TypeKind::kText), ConstantKind::kString, "it's") == "it's");
  CHECK(cqlsh(t(TypeKind::kText), ConstantKind::kString, "a\\b\nc") == "a\\\\b\\nc");
  CHECK(cqlsh(t(TypeKind::kBlob), ConstantKind::kHex, "0xCAFE") == "0xcafe");
  CHECK(cqlsh(t(TypeKind::kVarint), ConstantKind::kInteger, "-123456789012345678901234567890") ==
        "-123456789012345678901234567890");
  CHECK(cqlsh(t(TypeKind::kDecimal), ConstantKind::kFloat, "1.50") == "1.50");
  CHECK(cqlsh(t(TypeKind::kDecimal), ConstantKind::kFloat, "1e3") == "1E+3");
  CHECK(cqlsh(t(TypeKind::kDecimal), ConstantKind::kFloat, "0.0000001") == "1E-7");
  CHECK(cqlsh(t(TypeKind::kDecimal), ConstantKind::kFloat, "-0.000123") == "-0.000123");
  CHECK(cqlsh(t(TypeKind::kUuid), ConstantKind::kUuid, "123E4567-E89B-12D3-A456-426614174000") ==
        "123e4567-e89b-12d3-a456-426614174000");
  CHECK(cqlsh(t(TypeKind::kInet), ConstantKind::kString, "::1") == "::1");
  CHECK(cqlsh(t(TypeKind::kTimestamp), ConstantKind::kString, "2024-01-02 03:04:05.678Z") ==
        "2024-01-02 03:04:05.678000+0000");
  CHECK(cqlsh(t(TypeKind::kDate), ConstantKind::kString, "2024-01-02") == "2024-01-02");
  CHECK(cqlsh(t(TypeKind::kTime), ConstantKind::kString, "03:04:05.5") == "03:04:05.500000000");
  CHECK(cqlsh(t(TypeKind::kDuration), ConstantKind::kDuration, "1h30m") == "1h30m");
  CHECK(format_value(t(TypeKind::kInt), "", ValueStyle::kCqlsh) == "");
  CHECK(format_value(t(TypeKind::kBlob), "", ValueStyle::kCqlsh) == "0x");
  CHECK(format_value(CqlType::list(t(TypeKind::kText)),
                     serialize_list(std::vector<std::string>{""}), ValueStyle::kCqlsh) == "['']");
}

TEST_CASE("value cqlsh formatting of floats and doubles") {
  const CqlType f = t(TypeKind::kFloat), d = t(TypeKind::kDouble);
  CHECK(format_value(f, float_bytes(1.1f), ValueStyle::kCqlsh) == "1.1");
  CHECK(format_value(f, float_bytes(3.14159265f), ValueStyle::kCqlsh) == "3.14159");
  CHECK(format_value(f, float_bytes(123456.789f), ValueStyle::kCqlsh) == "1.2346e+05");
  CHECK(format_value(f, float_bytes(0.0f), ValueStyle::kCqlsh) == "0");
  CHECK(format_value(f, float_bytes(-2.5f), ValueStyle::kCqlsh) == "-2.5");
  CHECK(format_value(d, double_bytes(1.5), ValueStyle::kCqlsh) == "1.5");
  CHECK(format_value(d, double_bytes(3.141592653589793), ValueStyle::kCqlsh) == "3.14159265359");
  CHECK(format_value(d, double_bytes(1e20), ValueStyle::kCqlsh) == "1e+20");
  CHECK(format_value(d, double_bytes(0.0001), ValueStyle::kCqlsh) == "0.0001");
  CHECK(format_value(d, double_bytes(0.00001), ValueStyle::kCqlsh) == "1e-05");
  CHECK(format_value(d, double_bytes(123456789.0), ValueStyle::kCqlsh) == "123456789");
  CHECK(format_value(d, double_bytes(std::nan("")), ValueStyle::kCqlsh) == "NaN");
  CHECK(format_value(d, double_bytes(-HUGE_VAL), ValueStyle::kCqlsh) == "-Infinity");
}

TEST_CASE("value cqlsh formatting of collections, tuples and UDTs") {
  const CqlType text = t(TypeKind::kText), i = t(TypeKind::kInt);
  const CqlType map = CqlType::map(text, i);
  const std::string m = serialize_map(text, {{"b", parse(i, ConstantKind::kInteger, "2")},
                                             {"a", parse(i, ConstantKind::kInteger, "1")}});
  CHECK(format_value(map, m, ValueStyle::kCqlsh) == "{'a': 1, 'b': 2}");
  CHECK(format_value(map, m, ValueStyle::kLiteral) == "{'a': 1, 'b': 2}");
  CHECK(to_json(map, m) == R"({"a": 1, "b": 2})");
  const CqlType list = CqlType::list(text);
  const std::string l = serialize_list(std::vector<std::string>{"it's", "x"});
  CHECK(format_value(list, l, ValueStyle::kCqlsh) == "['it''s', 'x']");
  CHECK(to_json(list, l) == R"(["it's", "x"])");
  const CqlType set = CqlType::set(i);
  CHECK(format_value(set,
                     serialize_set(i, {parse(i, ConstantKind::kInteger, "2"),
                                       parse(i, ConstantKind::kInteger, "-1")}),
                     ValueStyle::kCqlsh) == "{-1, 2}");
  const CqlType ts_list = CqlType::list(t(TypeKind::kTimestamp));
  CHECK(format_value(ts_list, serialize_list(std::vector<std::string>{types::store_be(0, 8)}),
                     ValueStyle::kCqlsh) == "['1970-01-01 00:00:00.000000+0000']");
  const CqlType tuple = CqlType::tuple({i, text});
  const std::vector<Value> parts{parse(i, ConstantKind::kInteger, "1"), std::nullopt};
  CHECK(format_value(tuple, serialize_tuple(parts), ValueStyle::kCqlsh) == "(1, null)");
  CHECK(to_json(tuple, serialize_tuple(parts)) == "[1, null]");
  CqlType udt{TypeKind::kUdt, {i, text}, true, "ks", "u", {"a", "B"}};
  const std::vector<Value> fields{parse(i, ConstantKind::kInteger, "1"), std::string("x")};
  CHECK(format_value(udt, serialize_tuple(fields), ValueStyle::kCqlsh) == "{a: 1, B: 'x'}");
  CHECK(to_json(udt, serialize_tuple(fields)) == R"({"a": 1, "\"B\"": "x"})");
  CHECK(format_value(udt, serialize_tuple(fields), ValueStyle::kLiteral) == "{a: 1, \"B\": 'x'}");
  const CqlType int_map = CqlType::map(i, t(TypeKind::kBoolean));
  CHECK(to_json(int_map, serialize_map(i, {{parse(i, ConstantKind::kInteger, "3"),
                                            std::string(1, '\1')}})) == R"({"3": true})");
}

TEST_CASE("value literal and string forms") {
  CHECK(format_value(t(TypeKind::kText), "it's", ValueStyle::kLiteral) == "'it''s'");
  CHECK(format_value(t(TypeKind::kBlob), "\xca\xfe", ValueStyle::kLiteral) == "0xcafe");
  const std::string ts = parse(t(TypeKind::kTimestamp), ConstantKind::kInteger, "1704164645000");
  CHECK(format_value(t(TypeKind::kTimestamp), ts, ValueStyle::kString) ==
        "2024-01-02T03:04:05.000Z");
  CHECK(format_value(t(TypeKind::kTimestamp), ts, ValueStyle::kLiteral) ==
        "'2024-01-02T03:04:05.000Z'");
  CHECK(format_value(t(TypeKind::kBoolean), "\x01", ValueStyle::kString) == "true");
  CHECK(format_value(t(TypeKind::kDouble), double_bytes(1.0), ValueStyle::kString) == "1.0");
  CHECK(format_value(t(TypeKind::kDouble), double_bytes(1e10), ValueStyle::kString) == "1.0E10");
  CHECK(format_value(t(TypeKind::kDouble), double_bytes(0.001), ValueStyle::kString) == "0.001");
  CHECK(format_value(t(TypeKind::kDouble), double_bytes(0.0001), ValueStyle::kString) == "1.0E-4");
  CHECK(format_value(t(TypeKind::kFloat), float_bytes(1.1f), ValueStyle::kString) == "1.1");
  CHECK(format_value(t(TypeKind::kInet), parse(t(TypeKind::kInet), ConstantKind::kString, "::1"),
                     ValueStyle::kString) == "0:0:0:0:0:0:0:1");
}

TEST_CASE("value toJson of scalars") {
  CHECK(to_json(t(TypeKind::kInt), std::nullopt) == "null");
  CHECK(json(t(TypeKind::kInt), ConstantKind::kInteger, "7") == "7");
  CHECK(json(t(TypeKind::kText), ConstantKind::kString, "a\"b") == R"("a\"b")");
  CHECK(json(t(TypeKind::kBlob), ConstantKind::kHex, "0x01") == R"("0x01")");
  CHECK(json(t(TypeKind::kBoolean), ConstantKind::kBoolean, "true") == "true");
  CHECK(json(t(TypeKind::kDouble), ConstantKind::kFloat, "1.5") == "1.5");
  CHECK(json(t(TypeKind::kDouble), ConstantKind::kInteger, "2") == "2.0");
  CHECK(json(t(TypeKind::kDouble), ConstantKind::kFloat, "NaN") == "null");
  CHECK(json(t(TypeKind::kFloat), ConstantKind::kFloat, "1.1") == "1.1");
  CHECK(json(t(TypeKind::kDecimal), ConstantKind::kFloat, "1.10") == "1.10");
  CHECK(json(t(TypeKind::kTimestamp), ConstantKind::kInteger, "1704164645000") ==
        R"("2024-01-02 03:04:05.000Z")");
  CHECK(json(t(TypeKind::kDate), ConstantKind::kString, "2024-01-02") == R"("2024-01-02")");
  CHECK(json(t(TypeKind::kTime), ConstantKind::kString, "03:04:05") == R"("03:04:05.000000000")");
  CHECK(json(t(TypeKind::kDuration), ConstantKind::kDuration, "1h30m") == R"("1h30m")");
  CHECK(json(t(TypeKind::kInet), ConstantKind::kString, "1.2.3.4") == R"("1.2.3.4")");
  CHECK(json(t(TypeKind::kUuid), ConstantKind::kUuid, "123e4567-e89b-12d3-a456-426614174000") ==
        R"("123e4567-e89b-12d3-a456-426614174000")");
  CHECK(to_json(t(TypeKind::kInt), std::string()) == R"("")");
  CHECK(to_json(t(TypeKind::kText), std::string()) == R"("")");
  CHECK(to_json(t(TypeKind::kBlob), std::string()) == R"("0x")");
  CHECK(json(t(TypeKind::kText), ConstantKind::kString, std::string(1, '\0')) == R"("\u0000")");
  CHECK(json(t(TypeKind::kFloat), ConstantKind::kFloat, "123.123") == "123.123");
  CHECK(json(t(TypeKind::kFloat), ConstantKind::kInteger, "123123") == "123123.0");
  CHECK(json(t(TypeKind::kDecimal), ConstantKind::kFloat, "-1.23E-12") == "-1.23E-12");
  CHECK(json(t(TypeKind::kTime), ConstantKind::kInteger, "123") == R"("00:00:00.000000123")");
}

TEST_CASE("value the lowest and highest timestamps print, and read back") {
  // The lowest overflowed computing its time of day (UBSan: signed overflow in days * 86400000).
  const CqlType ts = t(TypeKind::kTimestamp);
  for (const char* millis : {"-9223372036854775808", "9223372036854775807"}) {
    CAPTURE(millis);
    const std::string value = parse(ts, ConstantKind::kInteger, millis);
    const std::string printed = format_value(ts, value, ValueStyle::kString);
    auto back = parse_value_string(ts, printed);
    REQUIRE_MESSAGE(back.is_ok(), (printed + ": " + back.status().message()));
    CHECK(*back == value);
  }
}
