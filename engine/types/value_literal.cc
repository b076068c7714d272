// Literals: which lexical constants a CQL type accepts (Cassandra's Constants.Literal
// .testAssignment) and how a value is parsed from its string form (each AbstractType.fromString),
// with Cassandra's messages.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"
#include "engine/util/message.h"

namespace cassette::types {

using namespace internal;

namespace {

Status invalid(std::string msg) {
  return Status::invalid_argument(std::move(msg));
}

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<uint8_t>(c) >= 0x80) return false;
  return true;
}

// Constants.Literal.testAssignment for a native receiver type.
bool assignable(TypeKind type, ConstantKind kind) {
  switch (kind) {
    case ConstantKind::kString:
      return type == TypeKind::kAscii || type == TypeKind::kText || type == TypeKind::kInet ||
             type == TypeKind::kDate || type == TypeKind::kTime || type == TypeKind::kTimestamp;
    case ConstantKind::kInteger:
      return type == TypeKind::kBigint || type == TypeKind::kCounter || type == TypeKind::kDate ||
             type == TypeKind::kDecimal || type == TypeKind::kDouble ||
             type == TypeKind::kDuration || type == TypeKind::kFloat || type == TypeKind::kInt ||
             type == TypeKind::kSmallint || type == TypeKind::kTime ||
             type == TypeKind::kTimestamp || type == TypeKind::kTinyint ||
             type == TypeKind::kVarint;
    case ConstantKind::kUuid:
      return type == TypeKind::kUuid || type == TypeKind::kTimeuuid;
    case ConstantKind::kFloat:
      return type == TypeKind::kDecimal || type == TypeKind::kDouble || type == TypeKind::kFloat;
    case ConstantKind::kBoolean:
      return type == TypeKind::kBoolean;
    // HEX's "preferred type" is ByteType, so Cassandra also takes it (as raw bytes) for tinyint
    case ConstantKind::kHex:
      return type == TypeKind::kBlob || type == TypeKind::kTinyint;
    case ConstantKind::kDuration:
      return type == TypeKind::kDuration;
  }
  return false;
}

// Java's Integer.parseInt / Long.parseLong family: optional sign, ASCII digits, in range.
std::optional<int64_t> parse_java_integer(std::string_view s, int64_t min, int64_t max) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > (static_cast<__int128>(INT64_MAX) + 1)) return std::nullopt;
  }
  if (negative) v = -v;
  if (v < min || v > max) return std::nullopt;
  return static_cast<int64_t>(v);
}

// Java's Float.parseFloat / Double.parseDouble syntax (decimal forms, NaN, Infinity, an optional
// f/F/d/D suffix, surrounding whitespace).
std::optional<double> parse_java_floating(std::string_view s, bool single) {
  while (!s.empty() && static_cast<uint8_t>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<uint8_t>(s.back()) <= ' ') s.remove_suffix(1);
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN") return std::nan("");
  if (body == "Infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (!body.empty() && std::strchr("fFdD", body.back())) body.remove_suffix(1);
  size_t i = 0, mantissa_digits = 0;
  while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i])))
    ++i, ++mantissa_digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i])))
      ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    const size_t start = i;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i;
    if (i == start) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  const std::string number = (negative ? "-" : "") + std::string(body);
  if (single) return static_cast<double>(std::strtof(number.c_str(), nullptr));
  return std::strtod(number.c_str(), nullptr);
}

Result<std::string> parse_integer_type(std::string_view text, int64_t min, int64_t max,
                                       size_t width, std::string_view java_name) {
  if (text.empty()) return std::string();
  auto v = parse_java_integer(text, min, max);
  if (!v)
    return invalid(fmt::format("Unable to make {} from '{}'", java_name, message_value(text)));
  return store_be(static_cast<uint64_t>(*v), width);
}

// The "Input length" of Java's UnmappableCharacterException: the UTF-16 length of the first
// non-ASCII character.
int utf16_length_of_first_non_ascii(std::string_view s) {
  for (char c : s) {
    const uint8_t b = static_cast<uint8_t>(c);
    if (b >= 0x80) return b >= 0xF0 ? 2 : 1;
  }
  return 1;
}

}  // namespace

Result<std::string> parse_value_string(const CqlType& type, std::string_view text) {
  switch (type.kind) {
    case TypeKind::kAscii:
      if (!is_ascii(text))
        return invalid(
            fmt::format("Invalid ASCII character in string literal: "
                        "java.nio.charset.UnmappableCharacterException: Input length = {}",
                        utf16_length_of_first_non_ascii(text)));
      return std::string(text);
    case TypeKind::kText:
      if (!is_valid_utf8(text)) return invalid("String didn't validate.");
      return std::string(text);
    case TypeKind::kTinyint:
      return parse_integer_type(text, INT8_MIN, INT8_MAX, 1, "byte");
    case TypeKind::kSmallint:
      return parse_integer_type(text, INT16_MIN, INT16_MAX, 2, "short");
    case TypeKind::kInt:
      return parse_integer_type(text, INT32_MIN, INT32_MAX, 4, "int");
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return parse_integer_type(text, INT64_MIN, INT64_MAX, 8, "long");
    case TypeKind::kVarint: {
      if (text.empty()) return std::string();
      auto v = varint_from_text(text);
      if (!v) return invalid(fmt::format("unable to make int from '{}'", message_value(text)));
      return *v;
    }
    case TypeKind::kDecimal: {
      if (text.empty()) return std::string();
      auto v = decimal_from_text(text);
      if (!v)
        return invalid(fmt::format("unable to make BigDecimal from '{}'", message_value(text)));
      return *v;
    }
    case TypeKind::kFloat: {
      if (text.empty()) return std::string();
      auto v = parse_java_floating(text, true);
      if (!v) return invalid(fmt::format("Unable to make float from '{}'", message_value(text)));
      return float_bytes(static_cast<float>(*v));
    }
    case TypeKind::kDouble: {
      if (text.empty()) return std::string();
      auto v = parse_java_floating(text, false);
      if (!v) return invalid(fmt::format("Unable to make double from '{}'", message_value(text)));
      return double_bytes(*v);
    }
    case TypeKind::kBoolean: {
      std::string lower(text);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.empty() || lower == "false") return std::string(1, '\0');
      if (lower == "true") return std::string(1, '\1');
      return invalid(fmt::format("Unable to make boolean from '{}'", message_value(text)));
    }
    case TypeKind::kBlob: {
      // BytesType.fromString takes bare hex; the 0x form is accepted too, as COPY writes it
      std::string_view hex =
          text.starts_with("0x") || text.starts_with("0X") ? text.substr(2) : text;
      auto v = from_hex(hex);
      if (!v) return invalid(fmt::format("cannot parse '{}' as hex bytes", message_value(hex)));
      return *v;
    }
    case TypeKind::kUuid: {
      if (text.empty()) return std::string();
      auto v = parse_uuid_text(text);
      if (!v) return invalid(fmt::format("Unable to make UUID from '{}'", message_value(text)));
      return *v;
    }
    case TypeKind::kTimeuuid: {
      if (text.empty()) return std::string();
      auto v = parse_uuid_text(text);
      if (!v)
        return invalid(fmt::format("Unknown timeuuid representation: {}", message_value(text)));
      if (uuid_version(*v) != 1) return invalid("TimeUUID supports only version 1 UUIDs");
      return *v;
    }
    case TypeKind::kTimestamp: {
      if (text.empty()) return std::string();
      CASSETTE_ASSIGN_OR_RETURN(int64_t millis, parse_timestamp_millis(text));
      return store_be(static_cast<uint64_t>(millis), 8);
    }
    case TypeKind::kDate: {
      CASSETTE_ASSIGN_OR_RETURN(uint32_t days, parse_date(text));
      return store_be(days, 4);
    }
    case TypeKind::kTime: {
      CASSETTE_ASSIGN_OR_RETURN(int64_t nanos, parse_time_nanos(text));
      return store_be(static_cast<uint64_t>(nanos), 8);
    }
    case TypeKind::kInet: {
      if (text.empty()) return std::string();
      auto v = parse_inet_text(text);
      if (!v)
        return invalid(fmt::format("Unable to make inet address from '{}'", message_value(text)));
      return *v;
    }
    case TypeKind::kDuration: {
      if (text.empty()) return std::string();
      CASSETTE_ASSIGN_OR_RETURN(Duration d, parse_duration(text));
      return serialize_duration(d);
    }
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
    case TypeKind::kTuple:
    case TypeKind::kUdt:
    case TypeKind::kVector:
      return parse_collection_literal(type, text);
  }
  return invalid(fmt::format("Unable to parse '{}'", message_value(text)));
}

std::optional<std::string> constant_error(const CqlType& type, ConstantKind kind,
                                          std::string_view text, std::string_view receiver) {
  auto v = parse_constant(type, kind, text, receiver);
  if (v.is_ok()) return std::nullopt;
  return v.status().message();
}

Result<std::string> parse_constant(const CqlType& type, ConstantKind kind, std::string_view text,
                                   std::string_view receiver) {
  if (type.is_collection() || type.kind == TypeKind::kUdt || type.kind == TypeKind::kTuple ||
      type.kind == TypeKind::kVector || !assignable(type.kind, kind)) {
    return invalid(fmt::format("Invalid {} constant ({}) for \"{}\" of type {}",
                               constant_kind_name(kind), message_value(text), receiver,
                               cql_type_name(type)));
  }
  if (kind == ConstantKind::kHex) {
    std::string_view hex = text.substr(std::min<size_t>(2, text.size()));
    auto v = from_hex(hex);
    if (!v) return invalid(fmt::format("cannot parse '{}' as hex bytes", message_value(hex)));
    // raw bytes for a tinyint must still be one byte (the validator's message, as Cassandra's)
    CASSETTE_RETURN_IF_ERROR(validate_value(type, *v));
    return *v;
  }
  return parse_value_string(type, text);
}

}  // namespace cassette::types
