// pg-import's side of pg_values.h: PostgreSQL output forms into CQL values.
#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <vector>

#include "engine/types/scalar.h"
#include "engine/types/temporal.h"
#include "engine/util/message.h"
#include "ext/pg_common/pg_values.h"

namespace cassette::cli::pg {

namespace {

using types::CqlType;
using types::TypeKind;

Status invalid(std::string message) {
  return Status::invalid_argument(std::move(message));
}

std::string store_signed(int64_t value, size_t width) {
  return types::store_be(static_cast<uint64_t>(value), width);
}

using types::days_from_civil;

// Reads an unsigned decimal number of at least one digit.
bool read_digits(std::string_view text, size_t& pos, int64_t* out, size_t* count = nullptr) {
  size_t start = pos;
  int64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) &&
         pos - start < 18) {
    value = value * 10 + (text[pos++] - '0');
  }
  if (count) *count = pos - start;
  *out = value;
  return pos > start;
}

// PostgreSQL's ISO timestamp (DateStyle ISO, TimeZone UTC): "2024-01-02 03:04:05.123456+00",
// with an optional offset "+05:30", a " BC" suffix, and no time part for a date. Microseconds
// since the epoch, UTC.
std::optional<int64_t> parse_pg_timestamp_micros(std::string_view text) {
  bool bc = false;
  if (text.ends_with(" BC")) {
    bc = true;
    text.remove_suffix(3);
  }
  size_t pos = 0;
  int64_t year, month, day, hour = 0, minute = 0, second = 0, micros = 0, offset = 0;
  if (!read_digits(text, pos, &year) || pos >= text.size() || text[pos++] != '-' ||
      !read_digits(text, pos, &month) || pos >= text.size() || text[pos++] != '-' ||
      !read_digits(text, pos, &day) || month < 1 || month > 12 || day < 1 || day > 31) {
    return std::nullopt;
  }
  if (pos < text.size()) {
    if (text[pos++] != ' ' || !read_digits(text, pos, &hour) || pos >= text.size() ||
        text[pos++] != ':' || !read_digits(text, pos, &minute) || pos >= text.size() ||
        text[pos++] != ':' || !read_digits(text, pos, &second)) {
      return std::nullopt;
    }
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      size_t digits = 0;
      if (!read_digits(text, pos, &micros, &digits) || digits > 6) return std::nullopt;
      for (; digits < 6; ++digits) micros *= 10;
    }
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
      int64_t sign = text[pos++] == '-' ? -1 : 1;
      int64_t hours = 0, minutes = 0, seconds = 0;
      if (!read_digits(text, pos, &hours)) return std::nullopt;
      if (pos < text.size() && text[pos] == ':') {
        ++pos;
        if (!read_digits(text, pos, &minutes)) return std::nullopt;
        if (pos < text.size() && text[pos] == ':') {
          ++pos;
          if (!read_digits(text, pos, &seconds)) return std::nullopt;
        }
      }
      offset = sign * (hours * 3600 + minutes * 60 + seconds);
    }
  }
  if (pos != text.size()) return std::nullopt;
  if (bc) year = 1 - year;
  int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset;
  return seconds * 1'000'000 + micros;
}

Result<std::string> timestamp_from_pg(std::string_view text) {
  std::optional<int64_t> micros = parse_pg_timestamp_micros(text);
  if (!micros)
    return invalid(
        fmt::format("Unable to coerce '{}' to a formatted date (long)", message_value(text)));
  if (*micros % 1000 != 0) {
    return invalid(fmt::format(
        "timestamp '{}' has sub-millisecond digits, but CQL timestamps hold milliseconds "
        "(use date_trunc('milliseconds', ...) in the query)",
        text));
  }
  return store_signed(*micros / 1000, 8);
}

// PostgreSQL's ISO date ("2024-01-02", "0044-03-15 BC" for year -43) as a CQL date, whose day
// number counts from 2^31 at the epoch. Other text (infinity) is left to CQL's own date rules.
std::optional<std::string> date_from_pg(std::string_view text) {
  if (text.find(':') != std::string_view::npos) return std::nullopt;
  std::optional<int64_t> micros = parse_pg_timestamp_micros(text);
  if (!micros) return std::nullopt;
  const int64_t days = *micros / 86'400'000'000;
  return types::store_be(static_cast<uint32_t>(days + (int64_t{1} << 31)), 4);
}

// An interval in IntervalStyle iso_8601: "P1Y2M3DT4H5M6.5S", "P-1M", "PT0S". Each part may have
// its own sign in PostgreSQL; a CQL duration's months, days and nanoseconds share one.
Result<std::string> duration_from_pg(std::string_view text) {
  auto bad = [&] {
    return invalid(fmt::format("Unable to convert '{}' to a duration", message_value(text)));
  };
  if (text.empty() || text[0] != 'P') return bad();
  size_t pos = 1;
  bool in_time = false;
  int64_t months = 0, days = 0, nanos = 0;
  while (pos < text.size()) {
    if (text[pos] == 'T') {
      in_time = true;
      ++pos;
      continue;
    }
    int64_t sign = 1;
    if (text[pos] == '-' || text[pos] == '+') sign = text[pos++] == '-' ? -1 : 1;
    int64_t whole = 0, fraction = 0;
    size_t fraction_digits = 0;
    if (!read_digits(text, pos, &whole)) return bad();
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      if (!read_digits(text, pos, &fraction, &fraction_digits) || fraction_digits > 9) return bad();
      for (size_t i = fraction_digits; i < 9; ++i) fraction *= 10;
    }
    if (pos >= text.size()) return bad();
    char unit = text[pos++];
    if (fraction_digits > 0 && !(in_time && unit == 'S')) return bad();
    if (!in_time && unit == 'Y') {
      months += sign * whole * 12;
    } else if (!in_time && unit == 'M') {
      months += sign * whole;
    } else if (!in_time && unit == 'W') {
      days += sign * whole * 7;
    } else if (!in_time && unit == 'D') {
      days += sign * whole;
    } else if (in_time && unit == 'H') {
      nanos += sign * whole * 3'600'000'000'000;
    } else if (in_time && unit == 'M') {
      nanos += sign * whole * 60'000'000'000;
    } else if (in_time && unit == 'S') {
      nanos += sign * (whole * 1'000'000'000 + fraction);
    } else {
      return bad();
    }
  }
  bool negative = months < 0 || days < 0 || nanos < 0;
  bool positive = months > 0 || days > 0 || nanos > 0;
  if (negative && positive) {
    return invalid(fmt::format(
        "The duration months, days and nanoseconds must be all of the same sign ({}, {}, {})",
        months, days, nanos));
  }
  auto abs = [](int64_t v) { return v < 0 ? -v : v; };
  std::string cql =
      fmt::format("{}{}mo{}d{}ns", negative ? "-" : "", abs(months), abs(days), abs(nanos));
  return types::parse_value_string(CqlType::simple(TypeKind::kDuration), cql);
}

Result<std::string> blob_from_bytea(std::string_view text) {
  if (!text.starts_with("\\x"))
    return invalid(fmt::format("cannot read bytea '{}'", message_value(text)));
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 2; i + 1 < text.size(); i += 2) {
    int high = digit(text[i]), low = digit(text[i + 1]);
    if (high < 0 || low < 0)
      return invalid(fmt::format("cannot read bytea '{}'", message_value(text)));
    out += static_cast<char>(high * 16 + low);
  }
  if (text.size() % 2 != 0)
    return invalid(fmt::format("cannot read bytea '{}'", message_value(text)));
  return out;
}

// The elements of a one-dimensional array literal ("{1,NULL,\"a b\"}", maybe with bounds
// "[0:1]={1,2}"), unquoted and unescaped; nullopt elements are NULLs.
Result<std::vector<std::optional<std::string>>> parse_pg_array(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return invalid(fmt::format("cannot read array '{}': {}", message_value(text), why));
  };
  if (!text.empty() && text[0] == '[') {
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) return bad("malformed bounds");
    text = text.substr(eq + 1);
  }
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return bad("not an array");
  std::string_view body = text.substr(1, text.size() - 2);
  std::vector<std::optional<std::string>> elements;
  if (body.empty()) return elements;
  size_t pos = 0;
  while (true) {
    if (pos < body.size() && body[pos] == '{') {
      return bad("multi-dimensional arrays have no CQL list or set form");
    }
    std::string element;
    bool quoted = false;
    if (pos < body.size() && body[pos] == '"') {
      quoted = true;
      ++pos;
      while (pos < body.size() && body[pos] != '"') {
        if (body[pos] == '\\' && pos + 1 < body.size()) ++pos;
        element += body[pos++];
      }
      if (pos >= body.size()) return bad("unterminated quoted element");
      ++pos;
    } else {
      while (pos < body.size() && body[pos] != ',') element += body[pos++];
    }
    if (!quoted && (element == "NULL" || element == "null")) {
      elements.emplace_back(std::nullopt);
    } else {
      elements.emplace_back(std::move(element));
    }
    if (pos >= body.size()) break;
    if (body[pos] != ',') return bad("expected ','");
    ++pos;
  }
  return elements;
}

// The common numbers and uuids in PostgreSQL's output form, read without the general parser:
// nullopt for anything else (a value out of range, "NaN", an unusual form), which then goes to
// parse_value_string() and gets its exact result or message. Each fast result equals what
// parse_value_string() gives for the same text (pg_import_test.cc checks it).
std::optional<std::string> fast_scalar(const CqlType& target, PgKind kind, std::string_view text) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string_view digits_and_rest = text.substr(negative ? 1 : 0);
  if (digits_and_rest.empty() || digits_and_rest[0] < '0' || digits_and_rest[0] > '9') {
    if (kind != PgKind::kUuid) return std::nullopt;
  }
  switch (target.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint: {
      if (kind != PgKind::kInteger) return std::nullopt;
      int64_t value = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
      const size_t width = target.kind == TypeKind::kTinyint    ? 1
                           : target.kind == TypeKind::kSmallint ? 2
                           : target.kind == TypeKind::kInt      ? 4
                                                                : 8;
      if (width < 8) {
        const int64_t limit = int64_t{1} << (8 * width - 1);
        if (value < -limit || value >= limit) return std::nullopt;
      }
      return store_signed(value, width);
    }
    case TypeKind::kDouble: {
      if (kind != PgKind::kFloat && kind != PgKind::kNumeric && kind != PgKind::kInteger) {
        return std::nullopt;
      }
      double value = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
      return store_signed(static_cast<int64_t>(std::bit_cast<uint64_t>(value)), 8);
    }
    case TypeKind::kDecimal: {
      if (kind != PgKind::kNumeric && kind != PgKind::kInteger) return std::nullopt;
      // [-]digits[.digits] with at most 18 digits: the unscaled value fits an int64.
      int64_t unscaled = 0;
      int32_t scale = 0;
      size_t count = 0;
      bool point = false;
      for (char c : digits_and_rest) {
        if (c == '.' && !point) {
          point = true;
        } else if (c >= '0' && c <= '9' && ++count <= 18) {
          unscaled = unscaled * 10 + (c - '0');
          scale += point ? 1 : 0;
        } else {
          return std::nullopt;
        }
      }
      if (point && (digits_and_rest.back() == '.' || digits_and_rest[0] == '.'))
        return std::nullopt;
      if (negative) unscaled = -unscaled;
      // BigDecimal's serialized form: the scale, then the unscaled value's minimal two's
      // complement bytes.
      std::string out = store_signed(scale, 4);
      size_t width = 1;
      while (width < 8) {
        const int64_t limit = int64_t{1} << (8 * width - 1);
        if (unscaled >= -limit && unscaled < limit) break;
        ++width;
      }
      out += store_signed(unscaled, width);
      return out;
    }
    case TypeKind::kUuid: {
      if (kind != PgKind::kUuid || text.size() != 36) return std::nullopt;
      std::string out(16, '\0');
      size_t n = 0;
      for (size_t i = 0; i < 36; ++i) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
          if (text[i] != '-') return std::nullopt;
          continue;
        }
        const char c = text[i];
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return std::nullopt;
        out[n / 2] = static_cast<char>(out[n / 2] | (n % 2 == 0 ? digit << 4 : digit));
        ++n;
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

Result<std::string> scalar_from_pg(const CqlType& target, PgKind kind, std::string_view text) {
  if (std::optional<std::string> fast = fast_scalar(target, kind, text)) return std::move(*fast);
  switch (kind) {
    case PgKind::kBool:
      if (target.kind == TypeKind::kBoolean) return std::string(1, text == "t" ? '\1' : '\0');
      break;
    case PgKind::kBytea:
      if (target.kind == TypeKind::kBlob) return blob_from_bytea(text);
      break;
    case PgKind::kTimestamptz:
    case PgKind::kTimestamp:
    case PgKind::kDate:
      if (target.kind == TypeKind::kTimestamp) return timestamp_from_pg(text);
      if (target.kind == TypeKind::kDate) {
        if (std::optional<std::string> date = date_from_pg(text)) return std::move(*date);
      }
      break;
    case PgKind::kInterval:
      if (target.kind == TypeKind::kDuration) return duration_from_pg(text);
      break;
    case PgKind::kInet:
      // A host address prints without its netmask; cidr always shows one.
      if (target.kind == TypeKind::kInet) {
        if (text.ends_with("/32") && text.find(':') == std::string_view::npos)
          text.remove_suffix(3);
        if (text.ends_with("/128") && text.find(':') != std::string_view::npos)
          text.remove_suffix(4);
      }
      break;
    default:
      break;
  }
  // Everything else is read the way Cassandra reads a value's string form.
  return types::parse_value_string(target, text);
}

}  // namespace

Result<types::Value> cql_value_from_pg(const CqlType& target, const PgSourceType& source,
                                       std::string_view text, std::string_view column) {
  if (target.kind == TypeKind::kText || target.kind == TypeKind::kAscii) {
    CASSETTE_ASSIGN_OR_RETURN(std::string value, types::parse_value_string(target, text));
    return types::Value(std::move(value));
  }
  if (source.kind == PgKind::kJson) {
    return types::from_json(target, text, column);
  }
  if (source.kind == PgKind::kArray) {
    CASSETTE_ASSIGN_OR_RETURN(auto elements, parse_pg_array(text));
    const CqlType& element_type = target.params.at(0);
    std::vector<std::string> values;
    values.reserve(elements.size());
    for (auto& element : elements) {
      if (!element) return invalid("null is not supported inside collections");
      CASSETTE_ASSIGN_OR_RETURN(std::string value,
                                scalar_from_pg(element_type, source.element, *element));
      values.push_back(std::move(value));
    }
    CASSETTE_ASSIGN_OR_RETURN(std::string value,
                              types::serialize_elements(target, std::move(values), column));
    return types::Value(std::move(value));
  }
  CASSETTE_ASSIGN_OR_RETURN(std::string value, scalar_from_pg(target, source.kind, text));
  return types::Value(std::move(value));
}

}  // namespace cassette::cli::pg
