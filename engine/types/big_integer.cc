// BigInteger over GMP (see big_integer.h).
#include "engine/types/big_integer.h"

#include <cstring>
#include <utility>

namespace cassette::types {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The minimal big-endian bytes of a non-negative mpz ("" for zero).
std::string export_bytes(const mpz_t v) {
  if (mpz_sgn(v) == 0) return std::string();
  std::string out((mpz_sizeinbase(v, 2) + 7) / 8, '\0');
  size_t written = 0;
  mpz_export(out.data(), &written, /*order=*/1, /*size=*/1, /*endian=*/1, /*nails=*/0, v);
  out.resize(written);
  return out;
}

}  // namespace

BigInteger::BigInteger() {
  mpz_init(value_);
}
BigInteger::BigInteger(int64_t v) {
  mpz_init(value_);
  // mpz_set_si takes a long, which is 64 bits on every platform this builds for.
  static_assert(sizeof(long) == sizeof(int64_t));
  mpz_set_si(value_, static_cast<long>(v));
}
BigInteger::BigInteger(const BigInteger& other) {
  mpz_init_set(value_, other.value_);
}
BigInteger::BigInteger(BigInteger&& other) noexcept {
  mpz_init(value_);
  mpz_swap(value_, other.value_);
}
BigInteger& BigInteger::operator=(const BigInteger& other) {
  mpz_set(value_, other.value_);
  return *this;
}
BigInteger& BigInteger::operator=(BigInteger&& other) noexcept {
  mpz_swap(value_, other.value_);
  return *this;
}
BigInteger::~BigInteger() {
  mpz_clear(value_);
}

BigInteger BigInteger::from_magnitude(std::string_view bytes, bool negative) {
  BigInteger n;
  if (!bytes.empty()) {
    mpz_import(n.value_, bytes.size(), /*order=*/1, /*size=*/1, /*endian=*/1, /*nails=*/0,
               bytes.data());
  }
  if (negative) mpz_neg(n.value_, n.value_);
  return n;
}

BigInteger BigInteger::from_twos_complement(std::string_view bytes) {
  BigInteger n = from_magnitude(bytes, false);
  if (!bytes.empty() && (static_cast<uint8_t>(bytes[0]) & 0x80)) {
    // The bytes read as unsigned are v + 2^(8 * size).
    mpz_t power;
    mpz_init(power);
    mpz_setbit(power, 8 * bytes.size());
    mpz_sub(n.value_, n.value_, power);
    mpz_clear(power);
  }
  return n;
}

std::string BigInteger::magnitude() const {
  mpz_t absolute;
  mpz_init(absolute);
  mpz_abs(absolute, value_);
  std::string out = export_bytes(absolute);
  mpz_clear(absolute);
  return out;
}

std::string BigInteger::to_twos_complement() const {
  if (mpz_sgn(value_) >= 0) {
    std::string out = export_bytes(value_);
    if (out.empty() || (static_cast<uint8_t>(out[0]) & 0x80)) out.insert(out.begin(), '\0');
    return out;
  }
  // -m - 1 is ~m: the bytes of m = |v| - 1 with a clear sign bit, inverted.
  mpz_t m;
  mpz_init(m);
  mpz_neg(m, value_);
  mpz_sub_ui(m, m, 1);
  std::string out = export_bytes(m);
  mpz_clear(m);
  if (out.empty() || (static_cast<uint8_t>(out[0]) & 0x80)) out.insert(out.begin(), '\0');
  for (char& c : out) c = static_cast<char>(~c);
  return out;
}

std::optional<BigInteger> BigInteger::from_decimal(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (!all_digits(text)) return std::nullopt;
  BigInteger n;
  const std::string digits(text);  // GMP reads a terminated string
  if (mpz_set_str(n.value_, digits.c_str(), 10) != 0) return std::nullopt;
  if (negative) mpz_neg(n.value_, n.value_);
  return n;
}

std::string BigInteger::to_decimal() const {
  std::string out(mpz_sizeinbase(value_, 10) + 2, '\0');  // room for the sign and the NUL
  mpz_get_str(out.data(), 10, value_);
  out.resize(std::strlen(out.c_str()));
  return out;
}

uint64_t BigInteger::decimal_digits() const {
  // mpz_sizeinbase may say one too many; the digits themselves settle it.
  const size_t bound = mpz_sizeinbase(value_, 10);
  if (bound <= 1) return 1;
  mpz_t power;
  mpz_init(power);
  mpz_ui_pow_ui(power, 10, bound - 1);
  const bool below = mpz_cmpabs(value_, power) < 0;
  mpz_clear(power);
  return below ? bound - 1 : bound;
}

int BigInteger::sign() const {
  return mpz_sgn(value_);
}

void BigInteger::negate() {
  mpz_neg(value_, value_);
}

int64_t BigInteger::low64() const {
  const uint64_t low = mpz_getlimbn(value_, 0);  // of the absolute value; 0 for zero
  return static_cast<int64_t>(mpz_sgn(value_) < 0 ? uint64_t{0} - low : low);
}

BigInteger& BigInteger::operator+=(const BigInteger& other) {
  mpz_add(value_, value_, other.value_);
  return *this;
}

BigInteger& BigInteger::operator-=(const BigInteger& other) {
  mpz_sub(value_, value_, other.value_);
  return *this;
}

bool BigInteger::fits_power_of_ten(uint64_t n) const {
  if (mpz_sgn(value_) == 0) return true;
  return n <= kMaxComputedDigits && mpz_sizeinbase(value_, 10) + n <= kMaxComputedDigits + 1;
}

void BigInteger::multiply_by_power_of_ten(uint64_t n) {
  if (n == 0 || mpz_sgn(value_) == 0) return;
  mpz_t power;
  mpz_init(power);
  mpz_ui_pow_ui(power, 10, n);
  mpz_mul(value_, value_, power);
  mpz_clear(power);
}

void BigInteger::divide_by_power_of_ten(uint64_t n) {
  if (n == 0 || mpz_sgn(value_) == 0) return;
  if (n > mpz_sizeinbase(value_, 10)) {
    mpz_set_ui(value_, 0);
    return;
  }
  mpz_t power;
  mpz_init(power);
  mpz_ui_pow_ui(power, 10, n);
  mpz_tdiv_q(value_, value_, power);
  mpz_clear(power);
}

void BigInteger::divide_toward_zero(int64_t divisor) {
  mpz_tdiv_q_ui(value_, value_, static_cast<unsigned long>(divisor));
}

void BigInteger::divide_half_even(int64_t divisor) {
  mpz_t remainder;
  mpz_init(remainder);
  const int sign = mpz_sgn(value_);
  mpz_tdiv_qr_ui(value_, remainder, value_, static_cast<unsigned long>(divisor));
  // Round away from zero when the remainder is over half, or exactly half and the quotient odd.
  mpz_abs(remainder, remainder);
  mpz_mul_2exp(remainder, remainder, 1);
  const int versus_half = mpz_cmp_ui(remainder, static_cast<unsigned long>(divisor));
  if (versus_half > 0 || (versus_half == 0 && mpz_odd_p(value_))) {
    if (sign < 0) {
      mpz_sub_ui(value_, value_, 1);
    } else {
      mpz_add_ui(value_, value_, 1);
    }
  }
  mpz_clear(remainder);
}

int compare(const BigInteger& a, const BigInteger& b) {
  return mpz_cmp(a.value_, b.value_);
}

}  // namespace cassette::types
