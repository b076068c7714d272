// exp/log/log10 of decimals and varints to Cassandra's precision (decimal_math.h): the values
// Cassandra 5.0's MathFctsTest asserts, and the rounding, scale and truncation around them (the
// other expected values are Python's decimal module's, correctly rounded at that precision).
#include "engine/cql/decimal_math.h"

#include <doctest/doctest.h>

#include "engine/types/scalar_text.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::cql;

namespace {

std::string decimal_text(DecimalMathFunction f, std::string_view argument) {
  auto bytes = types::internal::decimal_from_text(argument);
  REQUIRE(bytes.has_value());
  auto result = decimal_math(f, *bytes);
  REQUIRE(result.is_ok());
  return types::decimal_to_text(*result);
}

std::string varint_text(DecimalMathFunction f, std::string_view argument) {
  auto bytes = types::internal::varint_from_text(argument);
  REQUIRE(bytes.has_value());
  auto result = varint_math(f, *bytes);
  REQUIRE(result.is_ok());
  return types::varint_to_text(*result);
}

constexpr auto kExp = DecimalMathFunction::kExp;
constexpr auto kLog = DecimalMathFunction::kLog;
constexpr auto kLog10 = DecimalMathFunction::kLog10;

}  // namespace

TEST_CASE("decimal math: MathFctsTest's decimal values, to 32 significant digits") {
  CHECK(decimal_text(kExp, "5") == "148.41315910257660342111558004055");
  CHECK(decimal_text(kExp, "1") == "2.7182818284590452353602874713527");
  CHECK(decimal_text(kExp, "0") == "1");
  CHECK(decimal_text(kExp, "-1") == "0.36787944117144232159552377016146");
  CHECK(decimal_text(kLog, "5") == "1.6094379124341003746007593332262");
  CHECK(decimal_text(kLog, "1") == "0");
  CHECK(decimal_text(kLog10, "5") == "0.69897000433601880478626110527551");
  CHECK(decimal_text(kLog10, "1") == "0");
}

TEST_CASE("decimal math: precision follows a long argument, large results keep 32 digits") {
  // 40 significant digits in, 40 out
  CHECK(decimal_text(kLog, "1234567890.123456789012345678901234567890") ==
        "20.93398685926206371721692480264790175065");
  CHECK(decimal_text(kExp, "100") == "2.6881171418161354484126255515800E+43");
  CHECK(decimal_text(kLog, "0.001") == "-6.9077552789821370520539743640531");
}

TEST_CASE("decimal math: varints truncate the decimal result") {
  CHECK(varint_text(kExp, "5") == "148");
  CHECK(varint_text(kExp, "-1") == "0");
  CHECK(varint_text(kLog, "5") == "1");
  CHECK(varint_text(kLog10, "1000") == "3");
  CHECK(varint_text(kExp, "50") == "5184705528587072464087");
  CHECK(varint_text(kLog10, "100000000000000000000000000000000000000000") == "41");
}

TEST_CASE("decimal math: log of zero or less is refused with Cassandra's messages") {
  auto zero = types::internal::decimal_from_text("0");
  auto negative = types::internal::varint_from_text("-3");
  CHECK(decimal_math(kLog, *zero).status().message() == "Natural log of number zero or less");
  CHECK(varint_math(kLog10, *negative).status().message() == "Log10 of number zero or less");
}

TEST_CASE("decimal arithmetic: BigDecimal's scales, as OperationFctsTest asserts them") {
  using types::CqlType;
  using types::TypeKind;
  const CqlType decimal = CqlType::simple(TypeKind::kDecimal);
  const CqlType tinyint = CqlType::simple(TypeKind::kTinyint);
  const CqlType varint = CqlType::simple(TypeKind::kVarint);
  auto dec = [](std::string_view text) { return *types::internal::decimal_from_text(text); };
  auto run = [&](char op, const CqlType& lt, const std::string& l, const CqlType& rt,
                 const std::string& r) {
    auto result = decimal_arithmetic(op, lt, l, rt, r);
    REQUIRE(result.is_ok());
    return types::decimal_to_text(*result);
  };
  // a tinyint enters as BigDecimal.valueOf(1.0): scale 1
  CHECK(run('*', decimal, dec("8.5"), tinyint, std::string(1, '\1')) == "8.50");
  CHECK(run('/', decimal, dec("8.5"), decimal, dec("200000000000000000000000000000000000")) ==
        "4.25E-35");
  CHECK(run('/', decimal, dec("10000"), decimal, dec("3")) ==
        "3333.33333333333333333333333333333333");
  CHECK(run('%', decimal, dec("123456789112345678921234567893123456"),
            CqlType::simple(TypeKind::kInt), std::string("\0\0\0\2", 4)) == "0.0");
  CHECK(run('%', varint, *types::internal::varint_from_text("7"), decimal, dec("8.5")) == "7");
  CHECK(decimal_arithmetic('/', decimal, dec("8.5"), tinyint, std::string(1, '\0'))
            .status()
            .message() == "BigInteger divide by zero");
}
