// The byte layout of a key component (ASC; a DESC component is every byte of it inverted).
//
// A component is a header byte, then a payload that depends on the type:
//   0x01  end of a collection's elements or a tuple's components (only inside one)
//   0x02  a null tuple/UDT component (only inside one)
//   0x03  the empty value (zero serialized bytes); no payload
//   0x04  a value; the payload follows
//   0x05  a float/double NaN; its 4/8 raw bytes follow (NaN sorts after +Infinity)
// Headers 0x01 < 0x02 < 0x03 < 0x04 give "missing < null < empty < value", and never being 0x00
// or 0xFF (nor 0xFF/0x00 once inverted) is what makes prefix_end_bound() work.
//
// Payloads (all prefix-free, so the component is):
//   ascii, text, blob, inet  bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x00: unsigned
//                            byte order, a proper prefix first (0x00 0x00 < any next byte).
//                            Never empty (zero bytes take header 0x03); inet is 4 or 16 bytes.
//   boolean, date, time      the serialized bytes: Cassandra compares date and time as unsigned
//                            bytes (date is days with 2^31 at the epoch; time is non-negative
//                            nanoseconds), and boolean as false (0x00) < true (any other byte).
//                            A boolean key is 0x00 or 0x01 only: a true of another byte would
//                            need a tie-break, and one inside a collection, tuple or UDT (or
//                            before another clustering column) would decide the order before
//                            the elements that follow, against Cassandra's ([true, false] <
//                            [true, true] whatever byte each true is).
//   tinyint .. bigint,       the big-endian bytes with the sign bit flipped.
//   counter, timestamp
//   float, double            non-negative: sign bit flipped; negative: all bits inverted, so
//                            -Infinity < ... < -0.0 < 0.0 < ... < +Infinity (Float.compare).
//   varint                   ordinal(L or -L) magnitude ordinal(padding), where L is the length
//                            of the minimal big-endian magnitude, stored inverted for negatives
//                            (a longer negative is smaller), and padding counts the redundant
//                            sign bytes of a non-minimal input (a tie-break, so decoding gives
//                            back the input bytes). At most 64 KiB serialized.
//   decimal                  0x01 negative | 0x02 zero | 0x03 positive; for non-zero values the
//                            value as 0.DIGITS x 10^E (DIGITS without leading or trailing zeros):
//                            ordinal(E), the digits two per byte (10*d1 + d2 + 1, an odd last
//                            digit padded with 0) and a 0x00 terminator, all inverted for
//                            negatives; then the tie-break ordinal(scale) ordinal(padding), so
//                            1.0 and 1.00 sort next to each other, lower scale first. At most
//                            64 KiB serialized (Cassandra's limit for a clustering value).
//   uuid                     16 bytes as Cassandra's UUIDType compares them: the version
//                            nibble first, then for version 1 the timestamp (time_hi, time_mid,
//                            time_low), else the other most significant bits; then the least
//                            significant 8 bytes unsigned.
//   timeuuid                 the version-1 timestamp as above, then the least significant bytes
//                            with each byte's top bit flipped (TimeUUIDType compares them signed).
//   list, set                the elements' components, then 0x01 (a shorter list sorts first).
//   map                      key and value components alternating, then 0x01.
//   tuple, UDT               the components up to the last non-null one (null as 0x02), then
//                            0x01 and the tie-break ordinal(number of trailing nulls): Cassandra
//                            5 compares trailing nulls equal to missing components.
//   vector                   its n elements' components, no end marker: every value of the
//                            type has n of them.
// ordinal(v) is an order-preserving prefix-free signed integer: 0x80 + n then the n big-endian
// bytes of v >= 0, or 0x7F - n then the low n bytes of v < 0 (n = bytes of ~v), n minimal.
//
// Every value has exactly one encoding and the decoder accepts nothing else (Corruption), so
// decoding then encoding gives back the same bytes.
#include "engine/types/byte_comparable.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <optional>

#include "engine/types/scalar.h"
#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

namespace {

constexpr uint8_t kEnd = 0x01;
constexpr uint8_t kNull = 0x02;
constexpr uint8_t kEmpty = 0x03;
constexpr uint8_t kValue = kKeyValueHeader;
constexpr uint8_t kNaN = 0x05;

constexpr uint8_t kDecimalNegative = 0x01;
constexpr uint8_t kDecimalZero = 0x02;
constexpr uint8_t kDecimalPositive = 0x03;

// The largest varint or decimal we encode: Cassandra rejects clustering values over 64 KiB.
// Bounding them keeps decoding cheap, so corrupt input cannot make the decoder ask for
// gigabytes.
constexpr size_t kMaxNumberSize = 0xFFFF;
constexpr int64_t kMaxDecodedPadding = kMaxNumberSize;
// More than the decimal digits of any unscaled value of kMaxNumberSize bytes (157,825).
constexpr int64_t kMaxDecodedDigits = 158000;
constexpr int64_t kMaxDecodedExponent = int64_t{1} << 48;

Status invalid(std::string_view what) {
  return Status::invalid_argument(fmt::format("Invalid key value: {}.", what));
}
Status corrupt(std::string_view what) {
  return Status::corruption(fmt::format("Malformed clustering key bytes: {}.", what));
}

// Reads encoded bytes, undoing a DESC inversion by XOR with mask (0x00 or 0xFF).
class Reader {
 public:
  Reader(std::string_view* in, uint8_t mask) : in_(in), mask_(mask) {}
  Reader inverted() const { return Reader(in_, mask_ ^ 0xFF); }

  bool peek(uint8_t* b) const {
    if (in_->empty()) return false;
    *b = static_cast<uint8_t>((*in_)[0]) ^ mask_;
    return true;
  }
  bool get(uint8_t* b) {
    if (!peek(b)) return false;
    in_->remove_prefix(1);
    return true;
  }
  bool get_bytes(size_t n, std::string* out) {
    if (in_->size() < n) return false;
    append_unmasked(n, out);
    in_->remove_prefix(n);
    return true;
  }
  // The number of bytes before the first one that reads as `b` (all of them when none does).
  size_t span_until(uint8_t b) const {
    if (in_->empty()) return 0;  // (memchr wants a valid pointer even for no bytes)
    const void* hit = std::memchr(in_->data(), b ^ mask_, in_->size());
    return hit == nullptr ? in_->size()
                          : static_cast<size_t>(static_cast<const char*>(hit) - in_->data());
  }
  // Appends the next n bytes, unmasked, and skips them. REQUIRES: n <= what is left.
  void take(size_t n, std::string* out) {
    append_unmasked(n, out);
    in_->remove_prefix(n);
  }

 private:
  // One append and one pass over the bytes (both vectorize), not a push_back per byte.
  void append_unmasked(size_t n, std::string* out) const {
    const size_t start = out->size();
    out->append(in_->data(), n);
    if (mask_ != 0) {
      // A word at a time: key components are mostly 1 - 16 bytes, too short for the
      // vectorized byte loop to pay its set-up.
      char* p = out->data() + start;
      const uint64_t mask = 0x0101010101010101ull * mask_;
      size_t i = 0;
      for (; i + 8 <= n; i += 8) {
        uint64_t word;
        std::memcpy(&word, p + i, 8);
        word ^= mask;
        std::memcpy(p + i, &word, 8);
      }
      for (; i < n; ++i) p[i] = static_cast<char>(p[i] ^ mask_);
    }
  }

  std::string_view* in_;
  uint8_t mask_;
};

void invert(std::string* out, size_t from) {
  for (size_t i = from; i < out->size(); ++i) (*out)[i] = static_cast<char>(~(*out)[i]);
}
bool read_int32(std::string_view* in, int32_t* v) {
  if (in->size() < 4) return false;
  *v = static_cast<int32_t>(static_cast<uint32_t>(read_unsigned(in->substr(0, 4))));
  in->remove_prefix(4);
  return true;
}

// ---- ordinal(v): order-preserving signed integers ----

size_t significant_bytes(uint64_t v) {
  size_t n = 0;
  for (; v != 0; v >>= 8) ++n;
  return n;
}

void put_ordinal(std::string* out, int64_t v) {
  if (v >= 0) {
    const size_t n = significant_bytes(static_cast<uint64_t>(v));
    out->push_back(static_cast<char>(0x80 + n));
    append_be(out, static_cast<uint64_t>(v), n);
  } else {
    const size_t n = significant_bytes(~static_cast<uint64_t>(v));
    out->push_back(static_cast<char>(0x7F - n));
    append_be(out, static_cast<uint64_t>(v), n);
  }
}

Status get_ordinal(Reader& r, int64_t* v) {
  uint8_t header;
  if (!r.get(&header)) return corrupt("an integer is truncated");
  const bool negative = header < 0x80;
  const size_t n = negative ? 0x7F - header : header - 0x80;
  std::string bytes;
  if (n > 8 || !r.get_bytes(n, &bytes)) return corrupt("an integer is truncated or too long");
  const uint64_t mask = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  const uint64_t raw = read_unsigned(bytes);
  const uint64_t magnitude = negative ? ~raw & mask : raw;  // v itself, or ~v
  if (magnitude > static_cast<uint64_t>(INT64_MAX)) return corrupt("an integer overflows");
  // put_ordinal writes the fewest bytes; anything longer would decode to a value whose
  // encoding differs from the input.
  if (significant_bytes(magnitude) != n) return corrupt("an integer is not minimal");
  *v = negative ? ~static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return Status::ok();
}

// ---- byte strings ----

void put_escaped_bytes(std::string* out, std::string_view bytes) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xFF');
  }
  out->append("\0\0", 2);
}

Status get_escaped_bytes(Reader& r, std::string* value) {
  uint8_t b;
  while (true) {
    r.take(r.span_until(0x00), value);  // a run of non-zero bytes, copied at once
    if (!r.get(&b)) break;              // (b is the zero that ended the run)
    if (!r.get(&b) || (b != 0x00 && b != 0xFF)) return corrupt("a byte string has a bad escape");
    if (b == 0x00) return Status::ok();
    value->push_back('\0');
  }
  return corrupt("a byte string is not terminated");
}

// ---- varint: big-endian two's complement of any length ----

// A varint split into sign, minimal big-endian magnitude ("" for zero) and the number of
// redundant sign-extension bytes the input carried.
struct VarintParts {
  bool negative = false;
  std::string magnitude;
  int64_t padding = 0;
};

// Two's complement negation in place (invert, add one).
void negate(std::string* bytes) {
  bool carry = true;
  for (size_t i = bytes->size(); i > 0; --i) {
    auto b = static_cast<uint8_t>(~(*bytes)[i - 1]);
    if (carry) carry = (++b == 0);
    (*bytes)[i - 1] = static_cast<char>(b);
  }
}

VarintParts parse_varint(std::string_view twos) {  // REQUIRES: !twos.empty()
  VarintParts n;
  n.negative = static_cast<uint8_t>(twos[0]) & 0x80;
  auto byte = [&](size_t i) { return static_cast<uint8_t>(twos[i]); };
  size_t start = 0;
  while (start + 1 < twos.size() && ((byte(start) == 0x00 && !(byte(start + 1) & 0x80)) ||
                                     (byte(start) == 0xFF && (byte(start + 1) & 0x80)))) {
    ++start;
  }
  n.padding = static_cast<int64_t>(start);
  n.magnitude = std::string(twos.substr(start));
  if (n.negative) negate(&n.magnitude);
  const size_t first = n.magnitude.find_first_not_of('\0');
  n.magnitude.erase(0, first == std::string::npos ? n.magnitude.size() : first);
  return n;
}

std::string format_varint(const VarintParts& n) {
  std::string twos = n.magnitude;
  if (twos.empty()) {
    twos.assign(1, '\0');
  } else if (n.negative) {
    negate(&twos);
    if (!(static_cast<uint8_t>(twos[0]) & 0x80)) twos.insert(0, 1, '\xFF');
  } else if (static_cast<uint8_t>(twos[0]) & 0x80) {
    twos.insert(0, 1, '\0');
  }
  return std::string(static_cast<size_t>(n.padding), n.negative ? '\xFF' : '\0') + twos;
}

void put_varint(std::string* out, std::string_view serialized) {
  const VarintParts n = parse_varint(serialized);
  const auto length = static_cast<int64_t>(n.magnitude.size());
  put_ordinal(out, n.negative ? -length : length);
  const size_t start = out->size();
  out->append(n.magnitude);
  if (n.negative) invert(out, start);
  put_ordinal(out, n.padding);
}

Status get_varint(Reader& r, std::string* value) {
  int64_t signed_length;
  CASSETTE_RETURN_IF_ERROR(get_ordinal(r, &signed_length));
  VarintParts n;
  n.negative = signed_length < 0;
  if (signed_length == INT64_MIN) return corrupt("a varint length overflows");
  const auto length = static_cast<size_t>(n.negative ? -signed_length : signed_length);
  Reader magnitude_reader = n.negative ? r.inverted() : r;
  if (length > kMaxNumberSize || !magnitude_reader.get_bytes(length, &n.magnitude)) {
    return corrupt("a varint is truncated or too long");
  }
  if (length > 0 && n.magnitude[0] == '\0') return corrupt("a varint is not minimal");
  CASSETTE_RETURN_IF_ERROR(get_ordinal(r, &n.padding));
  if (n.padding < 0 || n.padding > kMaxDecodedPadding) return corrupt("bad varint padding");
  *value = format_varint(n);
  return value->size() <= kMaxNumberSize ? Status::ok() : corrupt("a varint is too long");
}

// ---- decimal: int32 scale, then a varint unscaled value ----

void put_decimal(std::string* out, std::string_view serialized) {  // REQUIRES: size >= 5
  int32_t scale;
  read_int32(&serialized, &scale);
  const VarintParts unscaled = parse_varint(serialized);
  std::string digits = internal::magnitude_to_digits(unscaled.magnitude);
  if (digits.empty()) {
    out->push_back(static_cast<char>(kDecimalZero));
  } else {
    out->push_back(static_cast<char>(unscaled.negative ? kDecimalNegative : kDecimalPositive));
    const size_t start = out->size();
    put_ordinal(out, static_cast<int64_t>(digits.size()) - scale);  // E in 0.DIGITS x 10^E
    digits.erase(digits.find_last_not_of('0') + 1);
    for (size_t i = 0; i < digits.size(); i += 2) {
      const int high = digits[i] - '0';
      const int low = i + 1 < digits.size() ? digits[i + 1] - '0' : 0;
      out->push_back(static_cast<char>(high * 10 + low + 1));
    }
    out->push_back('\0');
    if (unscaled.negative) invert(out, start);
  }
  put_ordinal(out, scale);
  put_ordinal(out, unscaled.padding);
}

Status get_decimal(Reader& r, std::string* value) {
  uint8_t sign;
  if (!r.get(&sign) || sign < kDecimalNegative || sign > kDecimalPositive) {
    return corrupt("a decimal has no valid sign");
  }
  VarintParts unscaled;
  unscaled.negative = sign == kDecimalNegative;
  int64_t exponent = 0;
  std::string digits;
  if (sign != kDecimalZero) {
    Reader value_reader = unscaled.negative ? r.inverted() : r;
    CASSETTE_RETURN_IF_ERROR(get_ordinal(value_reader, &exponent));
    uint8_t pair;
    while (true) {
      if (!value_reader.get(&pair)) return corrupt("a decimal's digits are truncated");
      if (pair == 0) break;
      if (pair > 100) return corrupt("a decimal has a bad digit pair");
      digits.push_back(static_cast<char>('0' + (pair - 1) / 10));
      digits.push_back(static_cast<char>('0' + (pair - 1) % 10));
    }
    if (!digits.empty() && digits.back() == '0') digits.pop_back();  // an odd digit's padding
    if (digits.empty() || digits[0] == '0' || digits.back() == '0') {
      return corrupt("a decimal's digits are not normalized");
    }
  }
  int64_t scale;
  CASSETTE_RETURN_IF_ERROR(get_ordinal(r, &scale));
  CASSETTE_RETURN_IF_ERROR(get_ordinal(r, &unscaled.padding));
  if (scale < INT32_MIN || scale > INT32_MAX) return corrupt("a decimal's scale overflows");
  if (unscaled.padding < 0 || unscaled.padding > kMaxDecodedPadding) {
    return corrupt("bad decimal padding");
  }
  if (!digits.empty()) {
    // unscaled = DIGITS x 10^(E - len(DIGITS) + scale). A valid E is the unscaled value's digit
    // count minus an int32 scale, far inside this bound, which keeps the sum from overflowing.
    if (exponent > kMaxDecodedExponent || exponent < -kMaxDecodedExponent) {
      return corrupt("a decimal's exponent is out of range");
    }
    const int64_t zeros = exponent - static_cast<int64_t>(digits.size()) + scale;
    if (zeros < 0 || static_cast<int64_t>(digits.size()) + zeros > kMaxDecodedDigits) {
      return corrupt("a decimal's exponent is invalid");
    }
    digits.append(static_cast<size_t>(zeros), '0');
    unscaled.magnitude = internal::digits_to_magnitude(digits);
  }
  value->clear();
  append_be(value, static_cast<uint32_t>(scale), 4);
  value->append(format_varint(unscaled));
  return value->size() <= kMaxNumberSize ? Status::ok() : corrupt("a decimal is too long");
}

// ---- uuid and timeuuid ----

// time_hi_and_version, time_mid, time_low: a version-1 UUID's timestamp in significance order.
uint64_t reorder_timestamp(uint64_t msb) {
  return (msb << 48) | ((msb << 16) & 0xFFFF00000000ull) | (msb >> 32);
}
uint64_t restore_timestamp(uint64_t hi) {
  return (hi << 32) | ((hi >> 16) & 0xFFFF0000ull) | (hi >> 48);
}
constexpr uint64_t kSignedByteFlip = 0x8080808080808080ull;

Status put_uuid(std::string* out, std::string_view v, bool time_uuid) {
  const uint64_t msb = read_unsigned(v.substr(0, 8));
  const uint64_t lsb = read_unsigned(v.substr(8, 8));
  const uint64_t version = (msb >> 12) & 0xF;
  if (time_uuid && version != 1) return invalid("a timeuuid must be a version 1 UUID");
  if (version == 1) {
    append_be(out, reorder_timestamp(msb), 8);
  } else {
    append_be(out, (version << 60) | ((msb >> 4) & 0x0FFFFFFFFFFFF000ull) | (msb & 0xFFF), 8);
  }
  append_be(out, time_uuid ? lsb ^ kSignedByteFlip : lsb, 8);
  return Status::ok();
}

Status get_uuid(Reader& r, bool time_uuid, std::string* value) {
  std::string bytes;
  if (!r.get_bytes(16, &bytes)) return corrupt("a uuid is truncated");
  const uint64_t hi = read_unsigned(std::string_view(bytes).substr(0, 8));
  const uint64_t lo = read_unsigned(std::string_view(bytes).substr(8, 8));
  const uint64_t version = hi >> 60;
  if (time_uuid && version != 1) return corrupt("a timeuuid is not version 1");
  const uint64_t msb = version == 1
                           ? restore_timestamp(hi)
                           : ((hi << 4) & 0xFFFFFFFFFFFF0000ull) | (version << 12) | (hi & 0xFFF);
  append_be(value, msb, 8);
  append_be(value, time_uuid ? lo ^ kSignedByteFlip : lo, 8);
  return Status::ok();
}

// ---- the dispatch over types ----

Status put_value(const CqlType& type, std::string_view v, std::string* out);
Status get_value(const CqlType& type, Reader& r, std::string* value);

[[maybe_unused]] bool is_signed_integer(TypeKind kind) {
  return kind == TypeKind::kTinyint || kind == TypeKind::kSmallint || kind == TypeKind::kInt ||
         kind == TypeKind::kBigint || kind == TypeKind::kCounter || kind == TypeKind::kTimestamp;
}

// False or true as CQL writes them; see the layout comment for why no other byte is a key.
bool is_key_boolean(std::string_view v) {
  return v == std::string_view("\x00", 1) || v == "\x01";
}

// IPv4 or IPv6; Cassandra's InetAddressType accepts nothing else.
bool is_inet_address_size(size_t size) {
  return size == 4 || size == 16;
}

bool is_nan(uint64_t bits, size_t width) {
  const uint64_t exponent = width == 4 ? 0x7F800000ull : 0x7FF0000000000000ull;
  const uint64_t mantissa = width == 4 ? 0x007FFFFFull : 0x000FFFFFFFFFFFFFull;
  return (bits & exponent) == exponent && (bits & mantissa) != 0;
}

void put_floating(std::string* out, std::string_view v) {
  const size_t width = v.size();
  const uint64_t sign = uint64_t{1} << (width * 8 - 1);
  uint64_t bits = read_unsigned(v);
  if (is_nan(bits, width)) {
    out->push_back(static_cast<char>(kNaN));
  } else {
    out->push_back(static_cast<char>(kValue));
    bits = (bits & sign) ? ~bits : bits ^ sign;
  }
  append_be(out, bits, width);
}

Status get_floating(Reader& r, uint8_t header, size_t width, std::string* value) {
  std::string bytes;
  if (!r.get_bytes(width, &bytes)) return corrupt("a floating-point value is truncated");
  const uint64_t sign = uint64_t{1} << (width * 8 - 1);
  uint64_t bits = read_unsigned(bytes);
  if (header == kValue) bits = (bits & sign) ? bits ^ sign : ~bits;
  if ((header == kNaN) != is_nan(bits, width)) return corrupt("a NaN is misplaced");
  append_be(value, bits, width);
  return Status::ok();
}

// Lists, sets and maps: [int32 count] then per element (per key and value for maps)
// [int32 length][bytes].
Status put_collection(const CqlType& type, std::string_view v, std::string* out) {
  const bool is_map = type.kind == TypeKind::kMap;
  if (type.params.size() != (is_map ? 2u : 1u)) return invalid("a collection type is malformed");
  int32_t count;
  if (!read_int32(&v, &count) || count < 0) return invalid("a collection has a bad size");
  for (int64_t i = 0; i < int64_t{count} * (is_map ? 2 : 1); ++i) {
    int32_t length;
    if (!read_int32(&v, &length) || length < 0 || v.size() < static_cast<size_t>(length)) {
      return invalid("a collection element is null or truncated");
    }
    CASSETTE_RETURN_IF_ERROR(put_value(type.params[is_map ? i % 2 : 0], v.substr(0, length), out));
    v.remove_prefix(static_cast<size_t>(length));
  }
  if (!v.empty()) return invalid("a collection has trailing bytes");
  out->push_back(static_cast<char>(kEnd));
  return Status::ok();
}

void put_length_and_bytes(std::string* out, std::string_view bytes) {
  append_be(out, bytes.size(), 4);
  out->append(bytes);
}

Status get_collection(const CqlType& type, Reader& r, std::string* value) {
  const bool is_map = type.kind == TypeKind::kMap;
  if (type.params.size() != (is_map ? 2u : 1u)) return corrupt("a collection type is malformed");
  std::string elements;
  uint32_t count = 0;
  for (uint8_t header; r.peek(&header) && header != kEnd; ++count) {
    std::string element;
    CASSETTE_RETURN_IF_ERROR(get_value(type.params[is_map ? count % 2 : 0], r, &element));
    put_length_and_bytes(&elements, element);
  }
  uint8_t end;
  if (!r.get(&end)) return corrupt("a collection is not terminated");
  if (is_map && count % 2 != 0) return corrupt("a map has a key without a value");
  append_be(value, is_map ? count / 2 : count, 4);
  value->append(elements);
  return Status::ok();
}

// Tuples and UDTs: per component [int32 length][bytes], length -1 for null; trailing
// components may be missing.
Status put_tuple(const CqlType& type, std::string_view v, std::string* out) {
  std::vector<std::optional<std::string_view>> components;
  while (!v.empty()) {
    int32_t length;
    if (components.size() == type.params.size() || !read_int32(&v, &length) || length < -1 ||
        v.size() < static_cast<size_t>(std::max(length, 0))) {
      return invalid("a tuple or UDT value is malformed");
    }
    if (length < 0) {
      components.emplace_back();
    } else {
      components.emplace_back(v.substr(0, length));
      v.remove_prefix(static_cast<size_t>(length));
    }
  }
  size_t present = components.size();
  while (present > 0 && !components[present - 1]) --present;
  for (size_t i = 0; i < present; ++i) {
    if (!components[i]) {
      out->push_back(static_cast<char>(kNull));
    } else {
      CASSETTE_RETURN_IF_ERROR(put_value(type.params[i], *components[i], out));
    }
  }
  out->push_back(static_cast<char>(kEnd));
  put_ordinal(out, static_cast<int64_t>(components.size() - present));
  return Status::ok();
}

Status get_tuple(const CqlType& type, Reader& r, std::string* value) {
  size_t count = 0;  // components before the end marker, nulls included
  bool last_is_null = false;
  for (uint8_t header; r.peek(&header) && header != kEnd; ++count) {
    if (count == type.params.size()) return corrupt("a tuple has too many components");
    last_is_null = header == kNull;
    if (last_is_null) {
      r.get(&header);
      append_be(value, 0xFFFFFFFFu, 4);
      continue;
    }
    std::string component;
    CASSETTE_RETURN_IF_ERROR(get_value(type.params[count], r, &component));
    put_length_and_bytes(value, component);
  }
  uint8_t end;
  if (!r.get(&end)) return corrupt("a tuple is not terminated");
  // The encoder moves trailing nulls behind the end marker; a null right before it would not
  // round-trip.
  if (last_is_null) return corrupt("a tuple's last component before its end is null");
  int64_t trailing_nulls;
  CASSETTE_RETURN_IF_ERROR(get_ordinal(r, &trailing_nulls));
  if (trailing_nulls < 0 || static_cast<uint64_t>(trailing_nulls) > type.params.size() - count) {
    return corrupt("a tuple has a bad number of trailing nulls");
  }
  // A tuple without components is the empty value, which has its own header.
  if (count == 0 && trailing_nulls == 0) return corrupt("a tuple has no components");
  for (int64_t i = 0; i < trailing_nulls; ++i) append_be(value, 0xFFFFFFFFu, 4);
  return Status::ok();
}

// Vectors: their `dimension` elements one after the other, no count and no end: every vector
// of a type has the same number of elements.
Status put_vector(const CqlType& type, std::string_view v, std::string* out) {
  auto elements = deserialize_vector(type, v);
  if (!elements.is_ok()) return invalid(elements.status().message());
  for (const std::string& e : *elements)
    CASSETTE_RETURN_IF_ERROR(put_value(type.params[0], e, out));
  return Status::ok();
}

Status get_vector(const CqlType& type, Reader& r, std::string* value) {
  std::vector<std::string> elements(static_cast<size_t>(std::max(type.dimension, 0)));
  for (std::string& e : elements) CASSETTE_RETURN_IF_ERROR(get_value(type.params.at(0), r, &e));
  value->append(serialize_vector(type, elements));
  return Status::ok();
}

// Appends the component (header and payload) of a value.
Status put_value(const CqlType& type, std::string_view v, std::string* out) {
  if (type.kind == TypeKind::kDuration) return invalid("a duration cannot be part of a key");
  if (v.empty()) {
    out->push_back(static_cast<char>(kEmpty));
    return Status::ok();
  }
  const size_t width = fixed_width(type.kind);
  if (width != 0 && v.size() != width) {
    return invalid(fmt::format("expected {} bytes but got {}", width, v.size()));
  }
  if (type.kind == TypeKind::kFloat || type.kind == TypeKind::kDouble) {
    put_floating(out, v);
    return Status::ok();
  }
  out->push_back(static_cast<char>(kValue));
  const size_t start = out->size();
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
    case TypeKind::kBlob:
      put_escaped_bytes(out, v);
      return Status::ok();
    case TypeKind::kInet:
      if (!is_inet_address_size(v.size())) return invalid("an inet address needs 4 or 16 bytes");
      put_escaped_bytes(out, v);
      return Status::ok();
    case TypeKind::kBoolean:
      if (!is_key_boolean(v))
        return invalid("a boolean key is neither 0x00 (false) nor 0x01 (true)");
      out->append(v);
      return Status::ok();
    case TypeKind::kDate:
    case TypeKind::kTime:
      out->append(v);
      return Status::ok();
    case TypeKind::kVarint:
      if (v.size() > kMaxNumberSize) return invalid("a varint key is longer than 64 KiB");
      put_varint(out, v);
      return Status::ok();
    case TypeKind::kDecimal:
      if (v.size() < 5) return invalid("a decimal needs a scale and an unscaled value");
      if (v.size() > kMaxNumberSize) return invalid("a decimal key is longer than 64 KiB");
      put_decimal(out, v);
      return Status::ok();
    case TypeKind::kUuid:
      return put_uuid(out, v, /*time_uuid=*/false);
    case TypeKind::kTimeuuid:
      return put_uuid(out, v, /*time_uuid=*/true);
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return put_collection(type, v, out);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return put_tuple(type, v, out);
    case TypeKind::kVector:
      return put_vector(type, v, out);
    default:
      break;
  }
  assert(is_signed_integer(type.kind));
  out->append(v);
  (*out)[start] = static_cast<char>((*out)[start] ^ 0x80);
  return Status::ok();
}

// Reads one component (header and payload) into *value (which must be empty).
Status get_value(const CqlType& type, Reader& r, std::string* value) {
  // Before the empty value's header: encoding rejects an empty duration too.
  if (type.kind == TypeKind::kDuration) return corrupt("a duration cannot be part of a key");
  uint8_t header;
  if (!r.get(&header)) return corrupt("a component is truncated");
  if (header == kEmpty) return Status::ok();
  const bool floating = type.kind == TypeKind::kFloat || type.kind == TypeKind::kDouble;
  if (header != kValue && !(header == kNaN && floating)) {
    return corrupt(fmt::format("unexpected component header 0x{:02x}", header));
  }
  const size_t width = fixed_width(type.kind);
  if (floating) return get_floating(r, header, width, value);
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
    case TypeKind::kBlob:
      CASSETTE_RETURN_IF_ERROR(get_escaped_bytes(r, value));
      // Zero bytes are the empty value, which has its own header.
      return value->empty() ? corrupt("an empty byte string has a value header") : Status::ok();
    case TypeKind::kInet:
      CASSETTE_RETURN_IF_ERROR(get_escaped_bytes(r, value));
      return is_inet_address_size(value->size()) ? Status::ok()
                                                 : corrupt("an inet address is not 4 or 16 bytes");
    case TypeKind::kBoolean:
      if (!r.get_bytes(width, value)) return corrupt("a value is truncated");
      return is_key_boolean(*value) ? Status::ok() : corrupt("a boolean is neither 0x00 nor 0x01");
    case TypeKind::kDate:
    case TypeKind::kTime:
      return r.get_bytes(width, value) ? Status::ok() : corrupt("a value is truncated");
    case TypeKind::kVarint:
      return get_varint(r, value);
    case TypeKind::kDecimal:
      return get_decimal(r, value);
    case TypeKind::kUuid:
      return get_uuid(r, /*time_uuid=*/false, value);
    case TypeKind::kTimeuuid:
      return get_uuid(r, /*time_uuid=*/true, value);
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return get_collection(type, r, value);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return get_tuple(type, r, value);
    case TypeKind::kVector:
      return get_vector(type, r, value);
    default:
      break;
  }
  assert(is_signed_integer(type.kind));
  if (!r.get_bytes(width, value)) return corrupt("an integer is truncated");
  (*value)[0] = static_cast<char>((*value)[0] ^ 0x80);
  return Status::ok();
}

}  // namespace

Status encode_key_component(const CqlType& type, std::string_view serialized, bool descending,
                            std::string* out) {
  const size_t start = out->size();
  Status status = put_value(type, serialized, out);
  if (!status.is_ok()) {
    out->resize(start);
    return status;
  }
  if (descending) invert(out, start);
  return Status::ok();
}

Status decode_key_component(const CqlType& type, bool descending, std::string_view* in,
                            std::string* value) {
  // The commonest clustering components (timestamps, bigints, ints, dates, times) are a value
  // header and a fixed number of bytes: decoded in a few instructions (a read decodes one per
  // row). Anything else, an empty value or a malformed one included, goes the general way.
  if (decode_fixed_key_component(FixedKeyComponent::of(type.kind), descending, in, value)) {
    return Status::ok();
  }
  value->clear();  // get_value appends
  std::string_view rest = *in;
  Reader reader(&rest, descending ? 0xFF : 0x00);
  CASSETTE_RETURN_IF_ERROR(get_value(type, reader, value));
  *in = rest;
  return Status::ok();
}

Result<std::string> decode_key_component(const CqlType& type, bool descending,
                                         std::string_view* in) {
  std::string value;
  CASSETTE_RETURN_IF_ERROR(decode_key_component(type, descending, in, &value));
  return value;
}

Status encode_clustering(std::span<const CqlType> types, std::span<const bool> descending,
                         std::span<const std::string> values, std::string* out) {
  assert(types.size() == descending.size() && values.size() <= types.size());
  for (size_t i = 0; i < values.size(); ++i) {
    CASSETTE_RETURN_IF_ERROR(encode_key_component(types[i], values[i], descending[i], out));
  }
  return Status::ok();
}

Result<std::vector<std::string>> decode_clustering(std::span<const CqlType> types,
                                                   std::span<const bool> descending,
                                                   std::string_view encoded) {
  assert(types.size() == descending.size());
  std::vector<std::string> values;
  while (!encoded.empty()) {
    if (values.size() == types.size()) {
      return corrupt(fmt::format("more than {} clustering components", types.size()));
    }
    const size_t i = values.size();
    CASSETTE_ASSIGN_OR_RETURN(std::string value,
                              decode_key_component(types[i], descending[i], &encoded));
    values.push_back(std::move(value));
  }
  return values;
}

std::string prefix_end_bound(std::string_view encoded_prefix) {
  std::string bound(encoded_prefix);
  bound.push_back('\xFF');
  return bound;
}

Result<size_t> value_order_length(const CqlType& type, std::string_view encoded) {
  if (type.kind != TypeKind::kVarint && type.kind != TypeKind::kDecimal) return encoded.size();
  std::string_view in = encoded;
  Reader r(&in, 0);
  uint8_t header;
  if (!r.get(&header)) return corrupt("a component is truncated");
  if (header == kEmpty) return encoded.size();
  if (header != kValue) return corrupt(fmt::format("unexpected component header 0x{:02x}", header));
  if (type.kind == TypeKind::kVarint) {
    int64_t signed_length;
    CASSETTE_RETURN_IF_ERROR(get_ordinal(r, &signed_length));
    const uint64_t length = signed_length < 0 ? 0 - static_cast<uint64_t>(signed_length)
                                              : static_cast<uint64_t>(signed_length);
    if (length > in.size()) return corrupt("a varint is truncated");
    return encoded.size() - in.size() + static_cast<size_t>(length);
  }
  {
    uint8_t sign;
    if (!r.get(&sign) || sign < kDecimalNegative || sign > kDecimalPositive) {
      return corrupt("a decimal has no valid sign");
    }
    if (sign != kDecimalZero) {
      Reader value_reader = sign == kDecimalNegative ? r.inverted() : r;
      int64_t exponent;
      CASSETTE_RETURN_IF_ERROR(get_ordinal(value_reader, &exponent));
      const size_t digits = value_reader.span_until(0);
      if (digits == in.size()) return corrupt("a decimal's digits are truncated");
      in.remove_prefix(digits + 1);
    }
    return encoded.size() - in.size();
  }
}

}  // namespace cassette::types
