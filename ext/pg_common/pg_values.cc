// Values between CQL and PostgreSQL text forms (see pg_values.h).
#include "ext/pg_common/pg_values.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/types/scalar.h"
#include "engine/types/temporal.h"

namespace cassette::cli::pg {

namespace {

using types::CqlType;
using types::TypeKind;

// ---- small helpers ------------------------------------------------------------------------------

using types::civil_from_days;
using types::read_signed;

// PostgreSQL's ISO date: "2024-01-02", "0044-03-15 BC" for year -43 (there is no year 0).
std::string pg_date(int64_t days) {
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  if (y <= 0) return fmt::format("{:04}-{:02}-{:02} BC", 1 - y, m, d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

// Appends `value` as exactly `width` digits (value < 10^width).
void append_digits(std::string& out, uint64_t value, int width) {
  char buffer[20];
  for (int i = width - 1; i >= 0; --i) {
    buffer[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out.append(buffer, static_cast<size_t>(width));
}

// "2024-01-02 03:04:05.678+00" (" BC" after it before year 1), written by hand: exports spend
// much of their time here.
void append_pg_timestamp(std::string& out, int64_t millis) {
  int64_t days = floor_div(millis, 86'400'000);
  auto rest = static_cast<uint64_t>(millis - days * 86'400'000);
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  int64_t shown_year = y <= 0 ? 1 - y : y;
  if (shown_year < 10000) {
    append_digits(out, static_cast<uint64_t>(shown_year), 4);
  } else {
    out += std::to_string(shown_year);
  }
  out += '-';
  append_digits(out, m, 2);
  out += '-';
  append_digits(out, d, 2);
  out += ' ';
  append_digits(out, rest / 3'600'000, 2);
  out += ':';
  append_digits(out, rest / 60'000 % 60, 2);
  out += ':';
  append_digits(out, rest / 1000 % 60, 2);
  out += '.';
  append_digits(out, rest % 1000, 3);
  out += "+00";
  if (y <= 0) out += " BC";
}

std::string pg_interval(std::string_view bytes) {
  const std::optional<types::Duration> duration = types::deserialize_duration(bytes);
  if (!duration) return {};
  const int64_t nanos = duration->nanoseconds;
  // A duration's parts share one sign; PostgreSQL keeps the seconds to the microsecond.
  std::string sign = nanos < 0 ? "-" : "";
  uint64_t magnitude = nanos < 0 ? 0 - static_cast<uint64_t>(nanos) : static_cast<uint64_t>(nanos);
  return fmt::format("{} mons {} days {}{}.{:09} secs", duration->months, duration->days, sign,
                     magnitude / 1'000'000'000, magnitude % 1'000'000'000);
}

template <typename Float>
void append_pg_float(std::string& out, Float value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "Infinity" : "-Infinity";
  } else {
    char buffer[64];  // the shortest form that reads back to the same value
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    out.append(buffer, result.ptr);
  }
}

constexpr char kHex[] = "0123456789abcdef";

// Appends the text form of a non-null scalar; false (nothing appended) for a value PostgreSQL
// has no form for.
Result<bool> append_scalar(const CqlType& type, std::string_view bytes, std::string& out) {
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
      CASSETTE_RETURN_IF_ERROR(check_pg_text(type, bytes));
      out.append(bytes);
      return true;
    case TypeKind::kBlob:
      out += "\\x";
      for (unsigned char b : bytes) {
        out += kHex[b >> 4];
        out += kHex[b & 15];
      }
      return true;
    default:
      break;
  }
  if (bytes.empty()) return false;  // PostgreSQL has no empty number, date, ...
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter: {
      char buffer[24];
      auto result = std::to_chars(buffer, buffer + sizeof(buffer), read_signed(bytes));
      out.append(buffer, result.ptr);
      return true;
    }
    case TypeKind::kBoolean:
      out += bytes[0] != 0 ? 't' : 'f';
      return true;
    case TypeKind::kFloat:
      append_pg_float(out, types::read_float(bytes));
      return true;
    case TypeKind::kDouble:
      append_pg_float(out, types::read_double(bytes));
      return true;
    case TypeKind::kTimestamp: {
      int64_t millis = read_signed(bytes);
      if (millis < kPgMinTimestampMillis || millis >= kPgEndTimestampMillis) {
        return Status::invalid_argument(
            fmt::format("timestamp {} is outside PostgreSQL's range",
                        types::format_value(type, bytes, types::ValueStyle::kCqlsh)));
      }
      append_pg_timestamp(out, millis);
      return true;
    }
    case TypeKind::kDate: {
      auto days = static_cast<int64_t>(types::read_unsigned(bytes)) - (int64_t{1} << 31);
      if (days < kPgMinDateDays || days >= kPgEndDateDays) {
        return Status::invalid_argument(
            fmt::format("date {} is outside PostgreSQL's range",
                        types::format_value(type, bytes, types::ValueStyle::kCqlsh)));
      }
      out += pg_date(days);
      return true;
    }
    case TypeKind::kTime: {
      int64_t nanos = read_signed(bytes);
      int64_t seconds = nanos / 1'000'000'000;
      out += fmt::format("{:02}:{:02}:{:02}.{:09}", seconds / 3600, seconds / 60 % 60, seconds % 60,
                         nanos % 1'000'000'000);
      return true;
    }
    case TypeKind::kDuration:
      out += pg_interval(bytes);
      return true;
    default:  // varint, decimal, uuid, timeuuid, inet: Cassandra's string form is PostgreSQL's
      out += types::format_value(type, bytes, types::ValueStyle::kString);
      return true;
  }
}

// An element of an array literal: double-quoted, with '"' and '\' escaped.
void append_array_element(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

}  // namespace

Result<bool> append_pg_text(const CqlType& type, std::string_view bytes, std::string& out) {
  if (maps_to_array(type)) {
    CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                              types::deserialize_elements(type, bytes));
    out += '{';
    std::string text;
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out += ',';
      text.clear();
      CASSETTE_ASSIGN_OR_RETURN(bool has_text, append_scalar(type.params[0], elements[i], text));
      if (has_text) {
        append_array_element(out, text);
      } else {
        out += "NULL";
      }
    }
    out += '}';
    return true;
  }
  if (maps_to_jsonb(type)) {
    out += types::to_json(type, std::string(bytes));
    return true;
  }
  return append_scalar(type, bytes, out);
}

bool pg_text_may_need_escaping(const CqlType& type) {
  return type.kind == TypeKind::kText || type.kind == TypeKind::kAscii ||
         type.kind == TypeKind::kBlob || maps_to_array(type) || maps_to_jsonb(type);
}

}  // namespace cassette::cli::pg
