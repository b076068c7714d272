// BigInteger: an arbitrary-precision integer for varint and decimal values (Java's BigInteger,
// which Cassandra's IntegerType and DecimalType use), over GMP's mpz_t.
//
// GMP converts between binary and decimal digits in time n log^2 n (divide and conquer with
// fast multiplication), where digit-by-digit schoolbook conversion is quadratic: 10 million
// digits take a second or two instead of hours. Every place that reads or prints a varint or
// a decimal goes through here (value_number.cc, byte_comparable.cc, the aggregates).
//
//   auto n = BigInteger::from_decimal("-12345678901234567890").value();
//   n.to_twos_complement()   // Cassandra's serialized varint: minimal big-endian bytes
//   n.to_decimal()           // "-12345678901234567890"
//
// Numbers that operations make bigger (a decimal rescaled to a varint, a sum brought to a
// common scale) are bounded by kMaxComputedDigits; callers check fits_power_of_ten() first.
#pragma once

#include <gmp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cassette::types {

// The most decimal digits an operation may produce: as many as the largest literal a statement
// can carry (Cassandra's native_transport_max_frame_size, 16 MiB). Java's BigInteger would go
// on to 2^31 bits and spend minutes and gigabytes on the way.
inline constexpr uint64_t kMaxComputedDigits = 16u << 20;

class BigInteger {
 public:
  BigInteger();  // zero
  explicit BigInteger(int64_t v);
  BigInteger(const BigInteger& other);
  BigInteger(BigInteger&& other) noexcept;
  BigInteger& operator=(const BigInteger& other);
  BigInteger& operator=(BigInteger&& other) noexcept;
  ~BigInteger();

  // Cassandra's varint form: two's complement, big-endian; "" reads as zero.
  static BigInteger from_twos_complement(std::string_view bytes);
  // The minimal form, as Java's BigInteger.toByteArray(): "\0" for zero.
  std::string to_twos_complement() const;
  // A big-endian magnitude of any length, and the sign to give it.
  static BigInteger from_magnitude(std::string_view bytes, bool negative);
  // The minimal big-endian magnitude: "" for zero.
  std::string magnitude() const;

  // [+|-] then one or more ASCII digits (Java's `new BigInteger(s)`); nullopt otherwise.
  static std::optional<BigInteger> from_decimal(std::string_view text);
  std::string to_decimal() const;  // "-123", "0"
  // The number of decimal digits of the absolute value (1 for zero).
  uint64_t decimal_digits() const;

  int sign() const;  // -1, 0 or 1
  void negate();
  // The low 64 bits as a signed number (Java's BigInteger.longValue()).
  int64_t low64() const;

  BigInteger& operator+=(const BigInteger& other);
  BigInteger& operator-=(const BigInteger& other);
  // this *= 10^n. REQUIRES: fits_power_of_ten(n).
  void multiply_by_power_of_ten(uint64_t n);
  // Whether this * 10^n stays within kMaxComputedDigits.
  bool fits_power_of_ten(uint64_t n) const;
  // this /= 10^n, rounded toward zero (n may be anything: 10^n beyond the number gives zero).
  void divide_by_power_of_ten(uint64_t n);
  // this /= divisor, rounded toward zero (BigInteger.divide()). REQUIRES: divisor > 0.
  void divide_toward_zero(int64_t divisor);
  // this / divisor rounded half to even (BigDecimal's HALF_EVEN at the same scale).
  // REQUIRES: divisor > 0.
  void divide_half_even(int64_t divisor);

  friend int compare(const BigInteger& a, const BigInteger& b);  // <0, 0, >0

 private:
  mpz_t value_;
};

}  // namespace cassette::types
