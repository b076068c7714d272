// CQL durations: Cassandra's Duration.from() parser (the "1h30m" unit form and the three ISO 8601
// forms), its serialized form (three signed vints: months, days, nanoseconds) and toString().
#include <cctype>
#include <vector>

#include "engine/types/value_internal.h"
#include "engine/util/message.h"

namespace cassette::types::internal {

namespace {

constexpr int64_t kNanosPerMicro = 1000;
constexpr int64_t kNanosPerMilli = 1000 * kNanosPerMicro;
constexpr int64_t kNanosPerSecond = 1000 * kNanosPerMilli;
constexpr int64_t kNanosPerMinute = 60 * kNanosPerSecond;
constexpr int64_t kNanosPerHour = 60 * kNanosPerMinute;

Status unable(std::string_view source) {
  return Status::invalid_argument(
      fmt::format("Unable to convert '{}' to a duration", message_value(source)));
}

// Duration.Builder: units must come in decreasing order, each at most once, and the totals
// must fit their fields.
class Builder {
 public:
  explicit Builder(bool negative) : negative_(negative) {}

  // unit: 1 years, 2 months, 3 weeks, 4 days, 5 hours, 6 minutes, 7 seconds, 8 millis,
  // 9 micros, 10 nanos
  Status add(int unit, int64_t n) {
    CASSETTE_RETURN_IF_ERROR(validate_order(unit));
    switch (unit) {
      case 1:
        return add_months(n, 12);
      case 2:
        return add_months(n, 1);
      case 3:
        return add_days(n, 7);
      case 4:
        return add_days(n, 1);
      case 5:
        return add_nanos(n, kNanosPerHour);
      case 6:
        return add_nanos(n, kNanosPerMinute);
      case 7:
        return add_nanos(n, kNanosPerSecond);
      case 8:
        return add_nanos(n, kNanosPerMilli);
      case 9:
        return add_nanos(n, kNanosPerMicro);
      default:
        return add_nanos(n, 1);
    }
  }

  Duration build() const {
    return negative_ ? Duration{-months_, -days_, -nanos_} : Duration{months_, days_, nanos_};
  }

 private:
  static std::string_view unit_name(int unit) {
    static constexpr std::string_view kNames[] = {
        "",        "years",   "months",       "weeks",        "days",       "hours",
        "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"};
    return kNames[unit];
  }

  Status validate_order(int unit) {
    if (unit == current_)
      return Status::invalid_argument(
          fmt::format("Invalid duration. The {} are specified multiple times", unit_name(unit)));
    if (unit <= current_)
      return Status::invalid_argument(fmt::format("Invalid duration. The {} should be after {}",
                                                  unit_name(current_), unit_name(unit)));
    current_ = unit;
    return Status::ok();
  }
  Status add_months(int64_t n, int64_t per) {
    if (n > (INT32_MAX - months_) / per)
      return Status::invalid_argument(fmt::format(
          "Invalid duration. The total number of months must be less or equal to {}", INT32_MAX));
    months_ += static_cast<int32_t>(n * per);
    return Status::ok();
  }
  Status add_days(int64_t n, int64_t per) {
    if (n > (INT32_MAX - days_) / per)
      return Status::invalid_argument(fmt::format(
          "Invalid duration. The total number of days must be less or equal to {}", INT32_MAX));
    days_ += static_cast<int32_t>(n * per);
    return Status::ok();
  }
  Status add_nanos(int64_t n, int64_t per) {
    if (n > (INT64_MAX - nanos_) / per)
      return Status::invalid_argument(fmt::format(
          "Invalid duration. The total number of nanoseconds must be less or equal to {}",
          INT32_MAX));  // sic: Cassandra prints Integer.MAX_VALUE for every unit
    nanos_ += n * per;
    return Status::ok();
  }

  bool negative_;
  int current_ = 0;
  int32_t months_ = 0;
  int32_t days_ = 0;
  int64_t nanos_ = 0;
};

// Reads digits at *pos; false (and the whole input unparseable) when there are none or too many.
bool read_number(std::string_view s, size_t* pos, int64_t* out) {
  const size_t start = *pos;
  int64_t v = 0;
  while (*pos < s.size() && std::isdigit(static_cast<unsigned char>(s[*pos]))) {
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
  }
  *out = v;
  return *pos > start;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<Duration> parse_standard(bool negative, std::string_view source) {
  Builder builder(negative);
  size_t pos = 0;
  if (source.empty()) return unable(source);
  while (pos < source.size()) {
    int64_t n;
    if (!read_number(source, &pos, &n)) return unable(source);
    // The longest unit symbol that follows (mo before m, ms/us/ns before m/s).
    const std::string rest = lower(source.substr(pos, 3));
    int unit = 0;
    size_t len = 0;
    if (rest.starts_with("mo"))
      unit = 2, len = 2;
    else if (rest.starts_with("ms"))
      unit = 8, len = 2;
    else if (rest.starts_with("us"))
      unit = 9, len = 2;
    else if (rest.starts_with("\xC2\xB5s"))
      unit = 9, len = 3;  // µs
    else if (rest.starts_with("ns"))
      unit = 10, len = 2;
    else if (rest.starts_with("y"))
      unit = 1, len = 1;
    else if (rest.starts_with("w"))
      unit = 3, len = 1;
    else if (rest.starts_with("d"))
      unit = 4, len = 1;
    else if (rest.starts_with("h"))
      unit = 5, len = 1;
    else if (rest.starts_with("m"))
      unit = 6, len = 1;
    else if (rest.starts_with("s"))
      unit = 7, len = 1;
    else
      return unable(source);
    pos += len;
    CASSETTE_RETURN_IF_ERROR(builder.add(unit, n));
  }
  return builder.build();
}

// P[nY][nM][nD][T[nH][nM][nS]]
Result<Duration> parse_iso(bool negative, std::string_view source) {
  Builder builder(negative);
  size_t pos = 1;  // after P
  bool time_part = false;
  int last_unit = 0;
  static constexpr std::string_view kDateUnits = "YMD";
  static constexpr std::string_view kTimeUnits = "HMS";
  while (pos < source.size()) {
    if (source[pos] == 'T') {
      if (time_part) return unable(source);
      time_part = true;
      last_unit = 0;
      ++pos;
      continue;
    }
    int64_t n;
    if (!read_number(source, &pos, &n) || pos >= source.size()) return unable(source);
    const std::string_view units = time_part ? kTimeUnits : kDateUnits;
    const size_t idx = units.find(source[pos]);
    if (idx == std::string_view::npos || static_cast<int>(idx) + 1 <= last_unit)
      return unable(source);
    last_unit = static_cast<int>(idx) + 1;
    ++pos;
    static constexpr int kDateCodes[] = {1, 2, 4};
    static constexpr int kTimeCodes[] = {5, 6, 7};
    CASSETTE_RETURN_IF_ERROR(builder.add(time_part ? kTimeCodes[idx] : kDateCodes[idx], n));
  }
  if (source.size() == 1 || source.back() == 'T') return unable(source);
  return builder.build();
}

// P[YYYY]-[MM]-[DD]T[hh]:[mm]:[ss]
Result<Duration> parse_iso_alternative(bool negative, std::string_view source) {
  static constexpr std::string_view kShape = "P####-##-##T##:##:##";
  if (source.size() != kShape.size()) return unable(source);
  for (size_t i = 0; i < kShape.size(); ++i) {
    if (kShape[i] == '#' ? !std::isdigit(static_cast<unsigned char>(source[i]))
                         : source[i] != kShape[i])
      return unable(source);
  }
  auto num = [&](size_t at, size_t len) {
    int64_t v = 0;
    for (size_t i = at; i < at + len; ++i) v = v * 10 + (source[i] - '0');
    return v;
  };
  Builder builder(negative);
  CASSETTE_RETURN_IF_ERROR(builder.add(1, num(1, 4)));
  CASSETTE_RETURN_IF_ERROR(builder.add(2, num(6, 2)));
  CASSETTE_RETURN_IF_ERROR(builder.add(4, num(9, 2)));
  CASSETTE_RETURN_IF_ERROR(builder.add(5, num(12, 2)));
  CASSETTE_RETURN_IF_ERROR(builder.add(6, num(15, 2)));
  CASSETTE_RETURN_IF_ERROR(builder.add(7, num(18, 2)));
  return builder.build();
}

// P[n]W
Result<Duration> parse_iso_week(bool negative, std::string_view source) {
  size_t pos = 1;
  int64_t n;
  if (!read_number(source, &pos, &n) || pos != source.size() - 1) return unable(source);
  Builder builder(negative);
  CASSETTE_RETURN_IF_ERROR(builder.add(3, n));
  return builder.build();
}

void put_vint(std::string* out, int64_t signed_value) {
  // zig-zag: small magnitudes of either sign take few bytes
  internal::put_unsigned_vint(
      out, (static_cast<uint64_t>(signed_value) << 1) ^ static_cast<uint64_t>(signed_value >> 63));
}

bool get_vint(std::string_view* in, int64_t* out) {
  uint64_t v;
  if (!internal::get_unsigned_vint(in, &v)) return false;
  *out = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  return true;
}

int64_t append_unit(std::string* out, int64_t dividend, int64_t divisor, std::string_view unit) {
  if (dividend == 0 || dividend < divisor) return dividend;
  *out += fmt::format("{}{}", dividend / divisor, unit);
  return dividend % divisor;
}

}  // namespace

Result<Duration> parse_duration(std::string_view input) {
  const bool negative = input.starts_with("-");
  const std::string_view source = negative ? input.substr(1) : input;
  if (source.starts_with("P")) {
    if (source.ends_with("W")) return parse_iso_week(negative, source);
    if (source.find('-') != std::string_view::npos) return parse_iso_alternative(negative, source);
    return parse_iso(negative, source);
  }
  return parse_standard(negative, source);
}

}  // namespace cassette::types::internal

namespace cassette::types {

std::string serialize_duration(const Duration& d) {
  std::string out;
  internal::put_vint(&out, d.months);
  internal::put_vint(&out, d.days);
  internal::put_vint(&out, d.nanoseconds);
  return out;
}

std::optional<Duration> deserialize_duration(std::string_view bytes) {
  int64_t months, days, nanos;
  if (!internal::get_vint(&bytes, &months) || !internal::get_vint(&bytes, &days) ||
      !internal::get_vint(&bytes, &nanos) || !bytes.empty())
    return std::nullopt;
  if (months < INT32_MIN || months > INT32_MAX || days < INT32_MIN || days > INT32_MAX)
    return std::nullopt;
  return Duration{static_cast<int32_t>(months), static_cast<int32_t>(days), nanos};
}

}  // namespace cassette::types

namespace cassette::types::internal {

std::string duration_to_string(const Duration& d) {
  std::string out;
  if (d.months < 0 || d.days < 0 || d.nanoseconds < 0) out.push_back('-');
  const int64_t remainder = append_unit(&out, std::abs(static_cast<int64_t>(d.months)), 12, "y");
  append_unit(&out, remainder, 1, "mo");
  append_unit(&out, std::abs(static_cast<int64_t>(d.days)), 1, "d");
  if (d.nanoseconds != 0) {
    int64_t r =
        append_unit(&out, d.nanoseconds < 0 ? -d.nanoseconds : d.nanoseconds, kNanosPerHour, "h");
    r = append_unit(&out, r, kNanosPerMinute, "m");
    r = append_unit(&out, r, kNanosPerSecond, "s");
    r = append_unit(&out, r, kNanosPerMilli, "ms");
    r = append_unit(&out, r, kNanosPerMicro, "us");
    append_unit(&out, r, 1, "ns");
  }
  return out;
}

void put_unsigned_vint(std::string* out, uint64_t v) {
  // Cassandra's VIntCoding: the number of extra bytes as leading 1 bits of the first byte, the
  // value big-endian.
  int bits = 64 - __builtin_clzll(v | 1);
  int extra = bits <= 7 ? 0 : (bits - 1) / 7;
  if (extra > 8) extra = 8;
  if (extra == 0) {
    out->push_back(static_cast<char>(v));
    return;
  }
  if (extra == 8) {
    out->push_back(static_cast<char>(0xFF));
    out->append(store_be(v, 8));
    return;
  }
  const uint8_t mask = static_cast<uint8_t>(0xFF << (8 - extra));
  std::string bytes = store_be(v, extra + 1);
  bytes[0] = static_cast<char>(static_cast<uint8_t>(bytes[0]) | mask);
  out->append(bytes);
}

bool get_unsigned_vint(std::string_view* in, uint64_t* out) {
  if (in->empty()) return false;
  const uint8_t first = static_cast<uint8_t>((*in)[0]);
  int extra = 0;
  while (extra < 8 && (first & (0x80 >> extra))) ++extra;
  if (in->size() < static_cast<size_t>(extra) + 1) return false;
  uint64_t v = extra == 8 ? 0 : (first & (0xFF >> (extra + 1)));
  for (int i = 1; i <= extra; ++i) v = (v << 8) | static_cast<uint8_t>((*in)[i]);
  in->remove_prefix(extra + 1);
  *out = v;
  return true;
}

}  // namespace cassette::types::internal
