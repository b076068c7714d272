// pg-import without PostgreSQL: PostgreSQL output forms into CQL values (cql_value_from_pg). (Its
// rows are encoded by the engine's RowEncoder: row_encoder_test.cc.)
#include <doctest/doctest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <random>

#include "engine/types/scalar_text.h"
#include "ext/pg_common/pg_values.h"

using namespace cassette;
using cassette::cli::pg::cql_value_from_pg;
using cassette::cli::pg::PgKind;
using cassette::cli::pg::PgSourceType;

namespace {

PgSourceType source(PgKind kind, PgKind element = PgKind::kText) {
  PgSourceType s;
  s.kind = kind;
  s.element = element;
  s.name = "t";
  return s;
}

// The CQL types the tests name.
types::CqlType type_of(std::string_view name) {
  using types::CqlType;
  using types::TypeKind;
  // Two names a line, aligned: clang-format would put each on its own.
  // clang-format off
  static const std::pair<std::string_view, TypeKind> scalars[] = {
      {"tinyint", TypeKind::kTinyint}, {"smallint", TypeKind::kSmallint},
      {"int", TypeKind::kInt},         {"bigint", TypeKind::kBigint},
      {"decimal", TypeKind::kDecimal}, {"varint", TypeKind::kVarint},
      {"double", TypeKind::kDouble},   {"float", TypeKind::kFloat},
      {"boolean", TypeKind::kBoolean}, {"text", TypeKind::kText},
      {"blob", TypeKind::kBlob},       {"uuid", TypeKind::kUuid},
      {"timestamp", TypeKind::kTimestamp}, {"date", TypeKind::kDate},
      {"time", TypeKind::kTime},       {"duration", TypeKind::kDuration},
      {"inet", TypeKind::kInet}};
  // clang-format on
  for (const auto& [n, kind] : scalars) {
    if (n == name) return CqlType::simple(kind);
  }
  if (name == "list<int>") return CqlType::list(CqlType::simple(TypeKind::kInt));
  if (name == "set<int>") return CqlType::set(CqlType::simple(TypeKind::kInt));
  if (name == "list<text>") return CqlType::list(CqlType::simple(TypeKind::kText));
  if (name == "frozen<list<int>>") return CqlType::list(CqlType::simple(TypeKind::kInt), true);
  if (name == "map<text, int>") {
    return CqlType::map(CqlType::simple(TypeKind::kText), CqlType::simple(TypeKind::kInt));
  }
  FAIL("no such type in the tests: ", name);
  return CqlType::simple(TypeKind::kBlob);
}

// The CQL bytes (hex) of a PostgreSQL value, or "error: <message>", or "null".
std::string convert(std::string_view cql_type, PgSourceType from, std::string_view text) {
  auto value = cql_value_from_pg(type_of(cql_type), from, text, "v");
  if (!value.is_ok()) return "error: " + value.status().message();
  return *value ? types::to_hex(**value) : "null";
}

}  // namespace

TEST_CASE("pg-import converts each PostgreSQL type to its CQL bytes") {
  CHECK(convert("int", source(PgKind::kInteger), "42") == "0000002a");
  CHECK(convert("int", source(PgKind::kInteger), "-2147483648") == "80000000");
  CHECK(convert("bigint", source(PgKind::kInteger), "-1") == "ffffffffffffffff");
  CHECK(convert("smallint", source(PgKind::kInteger), "300") == "012c");
  CHECK(convert("tinyint", source(PgKind::kInteger), "-5") == "fb");
  CHECK(convert("decimal", source(PgKind::kNumeric), "1.50") == "000000020096");
  CHECK(convert("decimal", source(PgKind::kNumeric), "-0.5") == "00000001fb");
  CHECK(convert("decimal", source(PgKind::kNumeric), "0.00") == "0000000200");
  CHECK(convert("varint", source(PgKind::kNumeric), "12345678901234567890") ==
        "00ab54a98ceb1f0ad2");
  CHECK(convert("double", source(PgKind::kFloat), "0.1") == "3fb999999999999a");
  CHECK(convert("double", source(PgKind::kNumeric), "0.14285714285714285") == "3fc2492492492492");
  CHECK(convert("double", source(PgKind::kFloat), "NaN") == "7ff8000000000000");
  CHECK(convert("double", source(PgKind::kFloat), "-Infinity") == "fff0000000000000");
  CHECK(convert("float", source(PgKind::kFloat), "1.5") == "3fc00000");
  CHECK(convert("boolean", source(PgKind::kBool), "t") == "01");
  CHECK(convert("boolean", source(PgKind::kBool), "f") == "00");
  CHECK(convert("text", source(PgKind::kText), "h\xc3\xa9llo") == "68c3a96c6c6f");
  CHECK(convert("text", source(PgKind::kText), "") == "");
  CHECK(convert("text", source(PgKind::kInteger), "42") == "3432");
  CHECK(convert("blob", source(PgKind::kBytea), "\\x0aff") == "0aff");
  CHECK(convert("blob", source(PgKind::kBytea), "\\x") == "");
  CHECK(convert("uuid", source(PgKind::kUuid), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11") ==
        "a0eebc999c0b4ef8bb6d6bb9bd380a11");
  CHECK(convert("timestamp", source(PgKind::kTimestamptz), "2024-01-02 03:04:05.123+00") ==
        "0000018cc820d903");
  CHECK(convert("timestamp", source(PgKind::kTimestamptz), "2024-01-02 05:04:05.123+02") ==
        "0000018cc820d903");
  CHECK(convert("timestamp", source(PgKind::kDate), "2024-01-02") == "0000018cc7785000");
  CHECK(convert("date", source(PgKind::kDate), "2024-01-02") == "80004d0c");
  CHECK(convert("time", source(PgKind::kTime), "03:04:05.123456") == "00000a0ba4a8fc00");
  CHECK(convert("duration", source(PgKind::kInterval), "P1Y2M3DT4H5M6.5S") == "1c06fc1ac03f6ab200");
  CHECK(convert("inet", source(PgKind::kInet), "192.168.0.1") == "c0a80001");
  CHECK(convert("inet", source(PgKind::kInet), "::1") == "00000000000000000000000000000001");
  CHECK(convert("list<int>", source(PgKind::kArray, PgKind::kInteger), "{1,2,3}") ==
        "00000003000000040000000100000004000000020000000400000003");
  CHECK(convert("set<int>", source(PgKind::kArray, PgKind::kInteger), "{3,1,2}") ==
        "00000003000000040000000100000004000000020000000400000003");
  CHECK(convert("list<text>", source(PgKind::kArray, PgKind::kText), "{\"a b\",c}") ==
        "00000002000000036120620000000163");
  CHECK(convert("map<text, int>", source(PgKind::kJson), "{\"a\": 1}") ==
        "00000001000000016100000004"
        "00000001");
  CHECK(convert("map<text, int>", source(PgKind::kJson), "null") == "null");
}

TEST_CASE("pg-import reads numbers and uuids exactly as Cassandra's parser does") {
  // The bridge reads PostgreSQL's common forms without the general parser: the bytes must be
  // the same, for many values of every width and sign.
  std::mt19937_64 random(7);
  auto check = [](std::string_view cql_type, PgKind kind, const std::string& text) {
    auto type = type_of(cql_type);
    auto expected = types::parse_value_string(type, text);
    auto actual = cql_value_from_pg(type, source(kind), text, "v");
    INFO(cql_type, " ", text);
    REQUIRE(expected.is_ok() == actual.is_ok());
    if (expected.is_ok()) {
      CHECK(types::to_hex(**actual) == types::to_hex(*expected));
    } else {
      CHECK(actual.status().message() == expected.status().message());
    }
  };
  for (int i = 0; i < 3000; ++i) {
    const uint64_t bits = random();
    const int shift = static_cast<int>(random() % 64);
    const int64_t number = static_cast<int64_t>(bits) >> shift;
    const std::string text = std::to_string(number);
    for (const char* type : {"tinyint", "smallint", "int", "bigint", "decimal", "double"}) {
      check(type, PgKind::kInteger, text);
    }
    const double real = std::bit_cast<double>(bits);
    if (std::isfinite(real)) {
      char buffer[64];
      auto end = std::to_chars(buffer, buffer + sizeof(buffer), real).ptr;
      check("double", PgKind::kFloat, std::string(buffer, end));
    }
    check("double", PgKind::kFloat,
          std::to_string(number % 100000) + "." + std::to_string(bits % 1000));
    const int scale = static_cast<int>(random() % 20);
    std::string numeric = std::to_string(number < 0 ? -(number / 10) : number / 10);
    if (scale > 0) {
      while (static_cast<int>(numeric.size()) <= scale) numeric.insert(0, "0");
      numeric.insert(numeric.size() - static_cast<size_t>(scale), ".");
    }
    if (number < 0) numeric.insert(0, "-");
    check("decimal", PgKind::kNumeric, numeric);
    check("double", PgKind::kNumeric, numeric);
    char uuid[37];
    std::snprintf(uuid, sizeof(uuid), "%08x-%04x-%04x-%04x-%012llx",
                  static_cast<unsigned>(bits >> 32), static_cast<unsigned>(bits >> 16) & 0xffff,
                  static_cast<unsigned>(bits) & 0xffff, static_cast<unsigned>(random() & 0xffff),
                  static_cast<unsigned long long>(random() & 0xffffffffffffULL));
    check("uuid", PgKind::kUuid, uuid);
  }
  for (const char* odd : {"", "-", "+5", "1.", ".5", "-.5", "1e5", "NaN", "Infinity", "0x10",
                          "00012", "-0", "-0.00", "99999999999999999999.5", "1.5d", " 1"}) {
    for (const char* type : {"int", "bigint", "decimal", "double"}) {
      check(type, PgKind::kNumeric, odd);
    }
  }
  check("uuid", PgKind::kUuid, "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11");
  check("uuid", PgKind::kUuid, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1");
}

TEST_CASE("pg-import refuses values CQL cannot hold, with the reason") {
  CHECK(convert("timestamp", source(PgKind::kTimestamptz), "2024-01-02 03:04:05.123456+00") ==
        "error: timestamp '2024-01-02 03:04:05.123456+00' has sub-millisecond digits, but CQL "
        "timestamps hold milliseconds (use date_trunc('milliseconds', ...) in the query)");
  CHECK(convert("timestamp", source(PgKind::kTimestamptz), "infinity") ==
        "error: Unable to coerce 'infinity' to a formatted date (long)");
  CHECK(convert("list<int>", source(PgKind::kArray, PgKind::kInteger), "{1,NULL}") ==
        "error: null is not supported inside collections");
  CHECK(convert("list<int>", source(PgKind::kArray, PgKind::kInteger), "{{1},{2}}") ==
        "error: cannot read array '{{1},{2}}': multi-dimensional arrays have no CQL list or set "
        "form");
  CHECK(convert("int", source(PgKind::kInteger), "2147483648") ==
        "error: Unable to make int from '2147483648'");
  CHECK(convert("duration", source(PgKind::kInterval), "P1M-1D") ==
        "error: The duration months, days and nanoseconds must be all of the same sign (1, -1, 0)");
}
