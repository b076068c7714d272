// Dates and times: parsing Cassandra's timestamp, date and time literals (TimestampSerializer,
// SimpleDateSerializer, TimeSerializer of Cassandra 4.1/5.0) and printing them the ways Java
// (getString, toJson) and cqlsh do. The server's time zone is taken to be UTC.
#include <cctype>
#include <chrono>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"
#include "engine/util/message.h"

namespace cassette::types {

// Howard Hinnant's days_from_civil / civil_from_days.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

namespace internal {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

struct Civil {
  int64_t year;
  unsigned month, day, hour, minute, second, millis;
};

Civil civil_from_millis(int64_t millis) {
  const int64_t days = floor_div(millis, 86400000);
  // The remainder taken directly: days * 86400000 overflows for the lowest timestamps.
  int64_t rem = millis % 86400000;
  if (rem < 0) rem += 86400000;
  Civil c;
  civil_from_days(days, &c.year, &c.month, &c.day);
  c.hour = static_cast<unsigned>(rem / 3600000);
  rem %= 3600000;
  c.minute = static_cast<unsigned>(rem / 60000);
  rem %= 60000;
  c.second = static_cast<unsigned>(rem / 1000);
  c.millis = static_cast<unsigned>(rem % 1000);
  return c;
}

bool is_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}
unsigned days_in_month(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[m - 1];
}

}  // namespace

std::string format_timestamp_java(int64_t millis, char separator) {
  const Civil c = civil_from_millis(millis);
  return fmt::format("{:04d}-{:02d}-{:02d}{}{:02d}:{:02d}:{:02d}.{:03d}Z", c.year, c.month, c.day,
                     separator, c.hour, c.minute, c.second, c.millis);
}

std::string format_timestamp_cqlsh(int64_t millis) {
  const Civil c = civil_from_millis(millis);
  if (c.year < 1 || c.year > 9999) return fmt::format("{}", millis);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:06d}+0000", c.year, c.month,
                     c.day, c.hour, c.minute, c.second, c.millis * 1000);
}

std::string format_timestamp_copy(int64_t millis) {
  const Civil c = civil_from_millis(millis);
  if (c.year < 1 || c.year > 9999) return fmt::format("{}", millis);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:03d}+0000", c.year, c.month,
                     c.day, c.hour, c.minute, c.second, c.millis);
}

std::string format_date_java(uint32_t days) {
  const int64_t epoch_days = static_cast<int64_t>(days) - (int64_t{1} << 31);
  int64_t y;
  unsigned m, d;
  civil_from_days(epoch_days, &y, &m, &d);
  // LocalDate.toString(): four-digit years, a sign beyond 9999 or before year 0
  if (y > 9999) return fmt::format("+{}-{:02d}-{:02d}", y, m, d);
  if (y < 0) return fmt::format("-{:04d}-{:02d}-{:02d}", -y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

std::string format_date_cqlsh(uint32_t days) {
  const int64_t epoch_days = static_cast<int64_t>(days) - (int64_t{1} << 31);
  int64_t y;
  unsigned m, d;
  civil_from_days(epoch_days, &y, &m, &d);
  if (y < 1 || y > 9999) return fmt::format("{}", epoch_days);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

std::string format_date_copy(uint32_t days) {
  const int64_t epoch_days = static_cast<int64_t>(days) - (int64_t{1} << 31);
  int64_t y;
  unsigned m, d;
  civil_from_days(epoch_days, &y, &m, &d);
  if (y < 1 || y > 9999) return fmt::format("{}", days);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

std::string format_time(int64_t nanos) {
  const int64_t ns = nanos % 1000000000;
  int64_t seconds = nanos / 1000000000;
  return fmt::format("{:02d}:{:02d}:{:02d}.{:09d}", seconds / 3600, seconds / 60 % 60, seconds % 60,
                     ns);
}

}  // namespace internal

using namespace internal;

namespace {

// A cursor over a literal, for the hand-written equivalents of Java's date/time formatters.
struct Cursor {
  std::string_view s;
  size_t pos = 0;

  bool at_end() const { return pos >= s.size(); }
  bool peek(char c) const { return pos < s.size() && s[pos] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos;
    return true;
  }
  // min..max decimal digits
  bool digits(size_t min, size_t max, int64_t* out, size_t* count = nullptr) {
    size_t n = 0;
    int64_t v = 0;
    while (pos < s.size() && n < max && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      v = v * 10 + (s[pos] - '0');
      ++pos;
      ++n;
    }
    if (count) *count = n;
    *out = v;
    return n >= min;
  }
};

// Offsets Java's formatters accept after the time: "Z", "+HH", "+HHmm", "+HH:mm" and, after a
// space, zone names (UTC, GMT, Z) or the same numeric forms. Returns the offset in minutes.
bool parse_offset(Cursor* c, bool* has_offset, int64_t* minutes) {
  *has_offset = false;
  *minutes = 0;
  if (c->at_end()) return true;
  const bool spaced = c->eat(' ');
  std::string_view rest = c->s.substr(c->pos);
  if (rest == "Z" ||
      (spaced && (rest == "UTC" || rest == "GMT" || rest == "Coordinated Universal Time" ||
                  rest == "Greenwich Mean Time"))) {
    c->pos = c->s.size();
    *has_offset = true;
    return true;
  }
  if (!c->peek('+') && !c->peek('-')) return false;
  const bool negative = c->s[c->pos] == '-';
  ++c->pos;
  int64_t hh, mm = 0;
  if (!c->digits(2, 2, &hh)) return false;
  if (c->eat(':')) {
    if (!c->digits(2, 2, &mm)) return false;
  } else if (!c->at_end()) {
    if (!c->digits(2, 2, &mm)) return false;
  }
  if (hh > 18 || mm > 59) return false;
  *minutes = (negative ? -1 : 1) * (hh * 60 + mm);
  *has_offset = true;
  return c->at_end();
}

std::optional<int64_t> parse_timestamp_text(std::string_view text) {
  Cursor c{text};
  int64_t year, month, day;
  size_t year_digits;
  const bool negative_year = c.eat('-');
  if (!c.digits(1, 10, &year, &year_digits) || !c.eat('-')) return std::nullopt;
  if (negative_year) year = -year;
  size_t month_digits, day_digits;
  if (!c.digits(1, 2, &month, &month_digits) || !c.eat('-') || !c.digits(1, 2, &day, &day_digits))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  // The resolver is SMART: a day past the month's end becomes its last day.
  if (day > days_in_month(year, static_cast<unsigned>(month)))
    day = days_in_month(year, static_cast<unsigned>(month));
  int64_t hour = 0, minute = 0, second = 0, millis = 0;
  if (c.peek('T') || (c.peek(' ') && c.pos + 1 < text.size() &&
                      std::isdigit(static_cast<unsigned char>(text[c.pos + 1])))) {
    ++c.pos;
    if (!c.digits(1, 2, &hour) || !c.eat(':') || !c.digits(1, 2, &minute)) return std::nullopt;
    if (c.eat(':') && !c.digits(1, 2, &second)) return std::nullopt;
    if (c.eat('.')) {
      int64_t fraction;
      size_t n;
      c.digits(0, 9, &fraction, &n);
      for (size_t i = n; i < 3; ++i) fraction *= 10;
      for (size_t i = 3; i < n; ++i) fraction /= 10;
      millis = fraction;
    }
    // The SMART resolver takes 24:00 as the end of the day (the next day's midnight).
    const bool end_of_day = hour == 24 && minute == 0 && second == 0 && millis == 0;
    if ((hour > 23 && !end_of_day) || minute > 59 || second > 59) return std::nullopt;
  } else if (year_digits < 4 || month_digits != 2 || day_digits != 2) {
    return std::nullopt;  // a date alone is yyyy-MM-dd
  }
  bool has_offset;
  int64_t offset_minutes;
  if (!parse_offset(&c, &has_offset, &offset_minutes) || !c.at_end()) return std::nullopt;
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  // In 128 bits: a 10-digit year overflows 64, and so does the lowest timestamp's day before
  // its time of day is added back. A value outside a long is not a timestamp.
  const __int128 total =
      ((static_cast<__int128>(days) * 24 + hour) * 60 + minute - offset_minutes) * 60000 +
      second * 1000 + millis;
  if (total < INT64_MIN || total > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(total);
}

bool all_digits(std::string_view s, bool allow_minus) {
  if (allow_minus && s.starts_with("-")) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char ch : s)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

std::optional<int64_t> parse_long(std::string_view s) {
  int64_t v = 0;
  bool negative = s.starts_with("-");
  if (negative) s.remove_prefix(1);
  for (char ch : s) {
    const int d = ch - '0';
    if (v > (INT64_MAX - d) / 10) {
      // Long.MIN_VALUE is the only value whose magnitude does not fit
      if (negative && s == "9223372036854775808") return INT64_MIN;
      return std::nullopt;
    }
    v = v * 10 + d;
  }
  return negative ? -v : v;
}

}  // namespace

Result<int64_t> parse_timestamp_millis(std::string_view text) {
  if (text.size() == 3 && (text[0] | 0x20) == 'n' && (text[1] | 0x20) == 'o' &&
      (text[2] | 0x20) == 'w') {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  if (all_digits(text, true)) {
    auto v = parse_long(text);
    if (!v)
      return Status::invalid_argument(
          fmt::format("Unable to make long (for date) from: '{}'", message_value(text)));
    return *v;
  }
  auto millis = parse_timestamp_text(text);
  if (!millis)
    return Status::invalid_argument(
        fmt::format("Unable to parse a date/time from '{}'", message_value(text)));
  return *millis;
}

Result<uint32_t> parse_date(std::string_view text) {
  if (all_digits(text, true)) {
    auto v = parse_long(text);
    if (!v || *v < 0 || *v > int64_t{0xFFFFFFFF})
      return Status::invalid_argument(
          fmt::format("Unable to make unsigned int (for date) from: '{}'", message_value(text)));
    return static_cast<uint32_t>(*v);
  }
  Status unable = Status::invalid_argument(
      fmt::format("Unable to coerce '{}' to a formatted date (long)", message_value(text)));
  Cursor c{text};
  const bool negative = c.eat('-');
  if (!negative) c.eat('+');  // as Java's formatter writes a year past 9999 (format_date_java)
  int64_t year, month, day;
  if (!c.digits(1, 10, &year) || !c.eat('-') || !c.digits(1, 2, &month) || !c.eat('-') ||
      !c.digits(1, 2, &day) || !c.at_end())
    return unable;
  if (negative) year = -year;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, static_cast<unsigned>(month)))
    return unable;
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t shifted = days + (int64_t{1} << 31);
  if (shifted < 0)
    return Status::invalid_argument(fmt::format("Input date {} is less than min supported date {}",
                                                message_value(text), format_date_java(0)));
  if (shifted > int64_t{0xFFFFFFFF})
    return Status::invalid_argument(
        fmt::format("Input date {} is greater than max supported date {}", message_value(text),
                    format_date_java(0xFFFFFFFF)));
  return static_cast<uint32_t>(shifted);
}

Result<int64_t> parse_time_nanos(std::string_view text) {
  constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;
  if (all_digits(text, true)) {
    auto v = parse_long(text);
    if (!v || *v < 0 || *v >= kNanosPerDay)
      return Status::invalid_argument(
          fmt::format("Unable to make long (for time) from: '{}'", message_value(text)));
    return *v;
  }
  Status unable = Status::invalid_argument(fmt::format(
      "(TimeType) Unable to coerce '{}' to a formatted time (long)", message_value(text)));
  // hh:mm:ss[.fffffffff], surrounding spaces ignored (TimeSerializer trims)
  std::string_view s = text;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  Cursor c{s};
  int64_t h, m, sec, nanos = 0;
  if (!c.digits(1, 9, &h) || !c.eat(':') || !c.digits(1, 9, &m) || !c.eat(':') ||
      !c.digits(1, 9, &sec))
    return unable;
  if (c.eat('.')) {
    size_t n;
    if (!c.digits(1, 9, &nanos, &n)) return unable;
    for (size_t i = n; i < 9; ++i) nanos *= 10;
  }
  if (!c.at_end() || h > 23 || m > 59 || sec > 59) return unable;
  return ((h * 60 + m) * 60 + sec) * 1000000000 + nanos;
}

}  // namespace cassette::types
