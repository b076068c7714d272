// BigInteger and the varint/decimal conversions over it: exact round trips at the byte
// boundaries and far past 128 bits, Java's printing of decimals, the bound on computed digits,
// and the aggregates that used to wrap at 128 bits.
#include "engine/types/big_integer.h"

#include <doctest/doctest.h>

#include <string>

#include "cql_test_fixture.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

std::string hex_of_varint(std::string_view text) {
  auto bytes = internal::varint_from_text(text);
  REQUIRE(bytes);
  return types::to_hex(*bytes);
}

std::string decimal_round_trip(std::string_view text) {
  auto bytes = internal::decimal_from_text(text);
  REQUIRE(bytes);
  return types::decimal_to_text(*bytes);
}

}  // namespace

TEST_CASE("varint bytes are Java's minimal two's complement at every byte boundary") {
  CHECK(hex_of_varint("0") == "00");
  CHECK(hex_of_varint("-0") == "00");
  CHECK(hex_of_varint("+5") == "05");
  CHECK(hex_of_varint("127") == "7f");
  CHECK(hex_of_varint("128") == "0080");
  CHECK(hex_of_varint("255") == "00ff");
  CHECK(hex_of_varint("256") == "0100");
  CHECK(hex_of_varint("-1") == "ff");
  CHECK(hex_of_varint("-128") == "80");
  CHECK(hex_of_varint("-129") == "ff7f");
  CHECK(hex_of_varint("-256") == "ff00");
  CHECK(hex_of_varint("-257") == "feff");
  CHECK(hex_of_varint("9223372036854775808") == "008000000000000000");
  CHECK(hex_of_varint("-9223372036854775808") == "8000000000000000");
  CHECK_FALSE(internal::varint_from_text(""));
  CHECK_FALSE(internal::varint_from_text("-"));
  CHECK_FALSE(internal::varint_from_text("1 "));
  CHECK_FALSE(internal::varint_from_text("0x10"));
  for (std::string_view text : {"0", "-1", "1", "-128", "128", "-32769", "18446744073709551616",
                                "-340282366920938463463374607431768211457"}) {
    INFO(text);
    CHECK(types::varint_to_text(*internal::varint_from_text(text)) == text);
  }
  CHECK(types::varint_to_text("") == "0");  // the empty value reads as zero
  CHECK(types::varint_from_int64(INT64_MIN) == *internal::varint_from_text("-9223372036854775808"));
}

TEST_CASE("varint and decimal digits round-trip far past 128 bits") {
  std::string digits(5000, '9');
  digits[0] = '4';
  for (std::string sign : {"", "-"}) {
    const std::string text = sign + digits;
    CHECK(types::varint_to_text(*internal::varint_from_text(text)) == text);
    CHECK(decimal_round_trip(text + ".125") == text + ".125");
  }
  // byte_comparable's digits of a magnitude, through the same code
  CHECK(internal::magnitude_to_digits("") == "");
  CHECK(internal::magnitude_to_digits(std::string("\0\0", 2)) == "");
  CHECK(internal::magnitude_to_digits(std::string("\x01\x00", 2)) == "256");
  CHECK(internal::digits_to_magnitude("256") == std::string("\x01\x00", 2));
  CHECK(internal::digits_to_magnitude("0") == "");
  CHECK(internal::magnitude_to_digits(internal::digits_to_magnitude(digits)) == digits);
}

TEST_CASE("decimal text is BigDecimal's, exponents and scales included") {
  CHECK(decimal_round_trip("12345678901234567890.123456789") == "12345678901234567890.123456789");
  CHECK(decimal_round_trip("1E+400") == "1E+400");
  CHECK(decimal_round_trip("-1.50e-10") == "-1.50E-10");
  CHECK(decimal_round_trip("0.000001") == "0.000001");
  CHECK(decimal_round_trip("0.0000001") == "1E-7");
  CHECK(decimal_round_trip(".5") == "0.5");
  CHECK(decimal_round_trip("5.") == "5");
  CHECK(decimal_round_trip("1E+2147483647") == "1E+2147483647");
  CHECK(decimal_round_trip("1E+2147483648") == "1E+2147483648");  // scale -2^31
  CHECK(decimal_round_trip("1E-2147483647") == "1E-2147483647");
  // the scale is a 32-bit int, as BigDecimal's ("Scale out of range.")
  CHECK_FALSE(internal::decimal_from_text("1E+2147483649"));
  CHECK_FALSE(internal::decimal_from_text("1E-2147483648"));
  CHECK_FALSE(internal::decimal_from_text("0.1E-2147483647"));
  CHECK_FALSE(internal::decimal_from_text("1E+99999999999"));
  CHECK_FALSE(internal::decimal_from_text("."));
  CHECK_FALSE(internal::decimal_from_text("1.2.3"));
  CHECK_FALSE(internal::decimal_from_text("1e"));
  CHECK_FALSE(internal::decimal_from_text("e5"));
}

TEST_CASE("a decimal's integer part is bounded, its low 64 bits are not") {
  auto integer = internal::decimal_to_varint(*internal::decimal_from_text("-12.9E+1"));
  REQUIRE(integer.is_ok());
  CHECK(types::varint_to_text(*integer) == "-129");
  auto huge = internal::decimal_to_varint(*internal::decimal_from_text("1E+2147483647"));
  REQUIRE_FALSE(huge.is_ok());
  CHECK(huge.status().message() ==
        "The integer part of 1E+2147483647 has more than 16777216 digits");
  CHECK(internal::decimal_low64(*internal::decimal_from_text("1E+2147483647")) == 0);
  CHECK(internal::decimal_low64(*internal::decimal_from_text("1E+19")) ==
        static_cast<int64_t>(10000000000000000000ull));
  CHECK(internal::decimal_low64(*internal::decimal_from_text("-7.9")) == -7);
}

TEST_CASE("BigInteger arithmetic the aggregates use") {
  BigInteger n = *BigInteger::from_decimal("-25");
  n.divide_half_even(10);  // -2.5 -> -2 (even)
  CHECK(n.to_decimal() == "-2");
  n = *BigInteger::from_decimal("35");
  n.divide_half_even(10);  // 3.5 -> 4
  CHECK(n.to_decimal() == "4");
  n = *BigInteger::from_decimal("-7");
  n.divide_toward_zero(2);
  CHECK(n.to_decimal() == "-3");
  n = BigInteger(7);
  n.divide_by_power_of_ten(1000000);
  CHECK(n.sign() == 0);
  CHECK(BigInteger(12).fits_power_of_ten(kMaxComputedDigits - 2));
  CHECK_FALSE(BigInteger(12).fits_power_of_ten(kMaxComputedDigits));
  CHECK(BigInteger(0).fits_power_of_ten(UINT64_MAX));
  CHECK(BigInteger(-1).low64() == -1);
  CHECK(BigInteger::from_decimal("18446744073709551617")->low64() == 1);
  CHECK(BigInteger::from_decimal("99")->decimal_digits() == 2);
  CHECK(BigInteger::from_decimal("100")->decimal_digits() == 3);
  CHECK(BigInteger(0).decimal_digits() == 1);
}

TEST_CASE_FIXTURE(test::CqlFixture, "sum and avg of varints and decimals are exact past 128 bits") {
  ok("CREATE TABLE n (k int, c int, v varint, d decimal, PRIMARY KEY (k, c))");
  const std::string big = "170141183460469231731687303715884105727";  // 2^127 - 1
  ok("INSERT INTO n (k, c, v, d) VALUES (1, 1, " + big + ", " + big + ".5)");
  ok("INSERT INTO n (k, c, v, d) VALUES (1, 2, " + big + ", " + big + ".25)");
  CHECK(rows("SELECT sum(v), avg(v), sum(d) FROM n WHERE k = 1") ==
        std::vector<std::string>{"340282366920938463463374607431768211454|" + big +
                                 "|340282366920938463463374607431768211454.75"});
  CHECK(rows("SELECT avg(d) FROM n WHERE k = 1") ==
        std::vector<std::string>{"170141183460469231731687303715884105727.38"});
  ok("INSERT INTO n (k, c, d) VALUES (2, 1, 1E+2147483647)");
  ok("INSERT INTO n (k, c, d) VALUES (2, 2, 1E-2147483647)");
  CHECK(error("SELECT sum(d) FROM n WHERE k = 2") ==
        "system.sum of decimals: the values' scales are too far apart (more than 16777216 "
        "digits)");
}
