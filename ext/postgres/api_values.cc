// CQL values <-> PostgreSQL values (README.md, "Type mapping"). The type mapping:
//   tinyint/smallint -> smallint, int -> integer, bigint/counter -> bigint, varint/decimal ->
//   numeric, float -> real, double -> double precision, boolean, text/ascii/varchar -> text,
//   blob -> bytea, uuid/timeuuid -> uuid, timestamp -> timestamptz, date -> date, time -> time,
//   duration -> interval, inet -> inet, set/list of scalars -> arrays, maps, tuples, UDTs and
//   nested collections -> jsonb.
// Scalars with a fixed PostgreSQL representation travel as numbers or raw bytes (no text round
// trip on the scan path); the others travel as PostgreSQL's text input form.
#include <cmath>
#include <cstring>

#include "engine/types/scalar.h"
#include "engine/types/scalar_text.h"
#include "engine/types/temporal.h"
#include "engine/util/json.h"
#include "engine/util/message.h"
#include "ext/pg_common/pg_types.h"
#include "ext/postgres/api_internal.h"

namespace cassette::pg {

namespace {

using types::CqlType;
using types::TypeKind;

constexpr int64_t kPgEpochDays = 10'957;             // 2000-01-01 in Unix days
constexpr int64_t kCqlDateEpoch = int64_t{1} << 31;  // CQL dates: days + 2^31
constexpr int64_t kMicrosPerDay = 86'400'000'000;

bool is_scalar(const CqlType& t) {
  return !t.is_collection() && t.kind != TypeKind::kTuple && t.kind != TypeKind::kUdt &&
         t.kind != TypeKind::kVector;
}

// A PostgreSQL array carries a collection of scalars; everything else composite is jsonb.
bool is_array_type(const CqlType& t) {
  return cli::pg::maps_to_array(t);
}

std::string timestamp_text(int64_t millis) {
  int64_t days = millis >= 0 ? millis / 86'400'000 : -((-millis + 86'399'999) / 86'400'000);
  int64_t ms_of_day = millis - days * 86'400'000;
  int64_t y;
  unsigned m, d;
  types::civil_from_days(days, &y, &m, &d);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:03d}+00", y, m, d,
                     ms_of_day / 3'600'000, ms_of_day / 60'000 % 60, ms_of_day / 1000 % 60,
                     ms_of_day % 1000);
}

std::string date_text(uint32_t value) {
  int64_t y;
  unsigned m, d;
  types::civil_from_days(static_cast<int64_t>(value) - kCqlDateEpoch, &y, &m, &d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

std::string float_text(double v, bool single) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return single ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
}

// The PostgreSQL text input form of a scalar value.
std::string scalar_text(const CqlType& type, std::string_view bytes) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return std::to_string(types::read_signed(bytes));
    case TypeKind::kFloat:
      return float_text(types::read_float(bytes), true);
    case TypeKind::kDouble:
      return float_text(types::read_double(bytes), false);
    case TypeKind::kBoolean:
      return bytes[0] ? "true" : "false";
    case TypeKind::kText:
    case TypeKind::kAscii:
      return std::string(bytes);
    case TypeKind::kBlob:
      return "\\x" + types::to_hex(bytes);
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return types::uuid_to_text(bytes);
    case TypeKind::kTimestamp:
      return timestamp_text(types::read_signed(bytes));
    case TypeKind::kDate:
      return date_text(static_cast<uint32_t>(types::read_unsigned(bytes)));
    case TypeKind::kTime: {
      int64_t ns = types::read_signed(bytes);
      return fmt::format("{:02d}:{:02d}:{:02d}.{:06d}", ns / 3'600'000'000'000,
                         ns / 60'000'000'000 % 60, ns / 1'000'000'000 % 60, ns / 1000 % 1'000'000);
    }
    case TypeKind::kVarint:
      return types::varint_to_text(bytes);
    case TypeKind::kDecimal:
      return types::decimal_to_text(bytes);
    case TypeKind::kInet:
      return types::inet_to_text(bytes, false);
    case TypeKind::kDuration: {
      auto d = types::deserialize_duration(bytes);
      if (!d) return "0";
      return fmt::format("{} mons {} days {} microseconds", d->months, d->days,
                         d->nanoseconds / 1000);
    }
    default:
      return types::format_value(type, bytes, types::ValueStyle::kString);
  }
}

void append_array_element(std::string* out, std::string_view text) {
  *out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') *out += '\\';
    *out += c;
  }
  *out += '"';
}

Result<std::string> array_text(const CqlType& type, std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                            types::deserialize_elements(type, bytes));
  std::string out = "{";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) out += ',';
    CASSETTE_RETURN_IF_ERROR(cli::pg::check_pg_text(type.params[0], elements[i]));
    append_array_element(&out, scalar_text(type.params[0], elements[i]));
  }
  out += '}';
  return out;
}

// ---- PostgreSQL text -> CQL ----

// Splits a one-dimensional PostgreSQL array literal into its elements (nullopt for NULL).
Result<std::vector<types::Value>> split_array_literal(std::string_view text,
                                                      std::string_view column) {
  auto bad = [&] {
    return Status::invalid_argument(
        fmt::format("malformed array literal for column {}: {}", column, message_value(text)));
  };
  size_t i = 0;
  if (!text.empty() && text[0] == '[') {  // explicit bounds "[1:2]={...}"
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) return bad();
    i = eq + 1;
  }
  if (i >= text.size() || text[i] != '{' || text.back() != '}') return bad();
  ++i;
  std::vector<types::Value> out;
  size_t end = text.size() - 1;
  if (i == end) return out;
  while (i <= end) {
    std::string element;
    bool quoted = false;
    if (text[i] == '"') {
      quoted = true;
      ++i;
      while (i < end && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < end) ++i;
        element += text[i++];
      }
      if (i >= end) return bad();
      ++i;
    } else {
      while (i < end && text[i] != ',') {
        if (text[i] == '{') {
          return Status::invalid_argument(fmt::format(
              "column {} holds a one-dimensional array; got a multi-dimensional one", column));
        }
        element += text[i++];
      }
    }
    if (!quoted && element == "NULL") {
      out.emplace_back();
    } else {
      out.emplace_back(element);
    }
    if (i == end) break;
    if (text[i] != ',') return bad();
    ++i;
  }
  return out;
}

std::optional<int64_t> parse_digits(std::string_view digits) {
  if (digits.empty() || digits.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// PostgreSQL's interval output in IntervalStyle postgres, "1 year 2 mons -3 days -04:05:06.5"
// (the glue prints interval array elements in that style): months, days and microseconds.
std::optional<types::Duration> parse_pg_interval(std::string_view text) {
  int64_t months = 0, days = 0, micros = 0;
  bool any = false;
  size_t i = 0;
  auto next_token = [&]() {
    while (i < text.size() && text[i] == ' ') ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    return text.substr(start, i - start);
  };
  for (std::string_view token = next_token(); !token.empty(); token = next_token()) {
    bool negative = token[0] == '-';
    if (token[0] == '-' || token[0] == '+') token.remove_prefix(1);
    if (token.find(':') != std::string_view::npos) {  // [-]H:MM:SS[.ffffff]
      size_t c1 = token.find(':'), c2 = token.find(':', c1 + 1);
      if (c2 == std::string_view::npos) return std::nullopt;
      std::string_view sec = token.substr(c2 + 1), frac;
      if (size_t dot = sec.find('.'); dot != std::string_view::npos) {
        frac = sec.substr(dot + 1);
        sec = sec.substr(0, dot);
      }
      auto h = parse_digits(token.substr(0, c1)),
           m = parse_digits(token.substr(c1 + 1, c2 - c1 - 1));
      auto s = parse_digits(sec);
      if (!h || !m || !s || *m >= 60 || *s >= 60 || frac.size() > 6 ||
          (!frac.empty() && !parse_digits(frac))) {
        return std::nullopt;
      }
      int64_t f = frac.empty() ? 0 : *parse_digits(frac);
      for (size_t k = frac.size(); k < 6; ++k) f *= 10;
      int64_t t;
      if (__builtin_mul_overflow(*h, int64_t{3'600'000'000}, &t) ||
          __builtin_add_overflow(t, *m * 60'000'000 + *s * 1'000'000 + f, &t)) {
        return std::nullopt;
      }
      if (__builtin_add_overflow(micros, negative ? -t : t, &micros)) return std::nullopt;
      any = true;
      continue;
    }
    auto n = parse_digits(token);
    std::string_view unit = next_token();
    if (!n || *n > INT32_MAX) return std::nullopt;  // PostgreSQL's fields are 32-bit
    int64_t v = negative ? -*n : *n;
    if (unit == "year" || unit == "years") {
      months += v * 12;
    } else if (unit == "mon" || unit == "mons") {
      months += v;
    } else if (unit == "day" || unit == "days") {
      days += v;
    } else {
      return std::nullopt;
    }
    any = true;
  }
  if (!any || months < INT32_MIN || months > INT32_MAX || days < INT32_MIN || days > INT32_MAX) {
    return std::nullopt;
  }
  int64_t nanos;
  if (__builtin_mul_overflow(micros, int64_t{1000}, &nanos)) return std::nullopt;
  return types::Duration{static_cast<int32_t>(months), static_cast<int32_t>(days), nanos};
}

Result<types::Value> scalar_from_text(const CqlType& type, std::string_view text,
                                      std::string_view column) {
  switch (type.kind) {
    case TypeKind::kDuration:
      if (auto d = parse_pg_interval(text)) {
        std::string bytes = types::serialize_duration(*d);
        Status valid = types::validate_value(type, bytes);
        if (!valid) {
          return Status::invalid_argument(
              fmt::format("invalid value \"{}\" for column {} of CQL type duration: {}", text,
                          column, valid.message()));
        }
        return types::Value(std::move(bytes));
      }
      break;
    case TypeKind::kBoolean:
      if (text == "t" || text == "true") return types::Value(std::string(1, '\1'));
      if (text == "f" || text == "false") return types::Value(std::string(1, '\0'));
      break;
    case TypeKind::kBlob:
      if (text.starts_with("\\x")) {
        auto bytes = types::from_hex(text.substr(2));
        if (!bytes) break;
        return types::Value(*bytes);
      }
      break;
    case TypeKind::kTimestamp: {
      // PostgreSQL prints "2024-01-02 03:04:05.123+00" (or +05:30); CQL wants +0000 forms.
      std::string t(text);
      size_t sign = t.find_last_of("+-");
      if (sign != std::string::npos && sign > 10) {
        std::string zone = t.substr(sign + 1);
        zone.erase(std::remove(zone.begin(), zone.end(), ':'), zone.end());
        if (zone.size() == 2) zone += "00";
        t = t.substr(0, sign + 1) + zone;
        // CQL accepts at most milliseconds: a fraction before the zone is cut to three digits
        // (a '.' after the sign is left to the timestamp parser to refuse).
        size_t dot = t.find('.');
        if (dot < sign && sign - dot > 4) t.erase(dot + 4, sign - dot - 4);
      }
      auto millis = types::parse_timestamp_millis(t);
      if (!millis) return millis.status();
      return types::Value(types::store_be(static_cast<uint64_t>(*millis), 8));
    }
    default:
      break;
  }
  auto parsed = types::parse_value_string(type, text);
  if (!parsed) {
    return Status::invalid_argument(
        fmt::format("invalid value \"{}\" for column {} of CQL type {}: {}", message_value(text),
                    column, types::cql_type_name(type), parsed.status().message()));
  }
  return types::Value(*parsed);
}

Result<types::Value> from_text(const CqlType& type, std::string_view text,
                               std::string_view column) {
  if (is_array_type(type)) {
    CASSETTE_ASSIGN_OR_RETURN(std::vector<types::Value> elements,
                              split_array_literal(text, column));
    std::vector<std::string> values;
    for (const types::Value& e : elements) {
      if (!e) {
        return Status::invalid_argument(
            fmt::format("null elements are not allowed in column {} of CQL type {}", column,
                        types::cql_type_name(type)));
      }
      CASSETTE_ASSIGN_OR_RETURN(types::Value v, scalar_from_text(type.params[0], *e, column));
      values.push_back(std::move(*v));
    }
    CASSETTE_ASSIGN_OR_RETURN(std::string value,
                              types::serialize_elements(type, std::move(values), column));
    return types::Value(std::move(value));
  }
  if (!is_scalar(type)) {
    auto value = types::from_json(type, text, column);
    if (!value) {
      return Status::invalid_argument(fmt::format("invalid value for column {} of CQL type {}: {}",
                                                  column, types::cql_type_name(type),
                                                  value.status().message()));
    }
    return value;
  }
  return scalar_from_text(type, text, column);
}

Status out_of_range(const CqlType& type, int64_t v, std::string_view column) {
  return Status::invalid_argument(
      fmt::format("value {} is out of range for column {} of CQL type {}", v, column,
                  types::cql_type_name(type)));
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> integer_range(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
      return std::pair<int64_t, int64_t>{-128, 127};
    case TypeKind::kSmallint:
      return std::pair<int64_t, int64_t>{-32768, 32767};
    case TypeKind::kInt:
      return std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
    default:
      return std::nullopt;
  }
}

cas_repr natural_repr(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
      return CAS_REPR_INT2;
    case TypeKind::kInt:
      return CAS_REPR_INT4;
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return CAS_REPR_INT8;
    case TypeKind::kFloat:
      return CAS_REPR_FLOAT4;
    case TypeKind::kDouble:
      return CAS_REPR_FLOAT8;
    case TypeKind::kBoolean:
      return CAS_REPR_BOOL;
    case TypeKind::kText:
    case TypeKind::kAscii:
    case TypeKind::kBlob:
      return CAS_REPR_VARLENA;
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return CAS_REPR_UUID;
    case TypeKind::kTimestamp:
      return CAS_REPR_TIMESTAMPTZ;
    case TypeKind::kDate:
      return CAS_REPR_DATE;
    case TypeKind::kTime:
      return CAS_REPR_TIME;
    case TypeKind::kDuration:
      return CAS_REPR_INTERVAL;
    default:
      return CAS_REPR_TEXT;
  }
}

bool pg_order_matches(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kVarint:
    case TypeKind::kDecimal:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kBoolean:
    case TypeKind::kText:  // under a C collation; the glue checks the collation
    case TypeKind::kAscii:
    case TypeKind::kBlob:
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kTimeuuid:  // as cassette_fdw's timeuuid type, not as a uuid
      return true;
    default:
      return false;  // uuids, inet, composites: PostgreSQL orders them differently
  }
}

Status to_pg_value(const CqlType& type, const std::string_view* value, cas_repr repr,
                   cas_value* out, std::string* buffer) {
  out->isnull = 0;
  // An empty value of a fixed-width type (Cassandra allows it) has no PostgreSQL equivalent.
  if (!value ||
      (value->empty() && repr != CAS_REPR_VARLENA &&
       !(repr == CAS_REPR_TEXT && (type.kind == TypeKind::kText || type.kind == TypeKind::kAscii ||
                                   type.kind == TypeKind::kBlob)))) {
    out->isnull = 1;
    return Status::ok();
  }
  std::string_view bytes = *value;
  CASSETTE_RETURN_IF_ERROR(cli::pg::check_pg_text(type, bytes));
  switch (repr) {
    case CAS_REPR_INT2:
    case CAS_REPR_INT4:
    case CAS_REPR_INT8:
      out->i = types::read_signed(bytes);
      return Status::ok();
    case CAS_REPR_FLOAT4:
      out->d = types::read_float(bytes);
      return Status::ok();
    case CAS_REPR_FLOAT8:
      out->d = types::read_double(bytes);
      return Status::ok();
    case CAS_REPR_BOOL:
      out->i = bytes[0] ? 1 : 0;
      return Status::ok();
    case CAS_REPR_VARLENA:
    case CAS_REPR_UUID:
      out->data = value->data();
      out->len = value->size();
      return Status::ok();
    case CAS_REPR_TIMESTAMPTZ: {
      int64_t millis = types::read_signed(bytes);
      if (millis < kPgMinTimestampMillis || millis >= kPgEndTimestampMillis) {
        return Status::invalid_argument(
            fmt::format("timestamp out of range: CQL timestamp {}",
                        types::format_value(type, bytes, types::ValueStyle::kCqlsh)));
      }
      out->i = pg_micros_from_cql_millis(millis);
      return Status::ok();
    }
    case CAS_REPR_DATE: {
      int64_t unix_days = static_cast<int64_t>(types::read_unsigned(bytes)) - kCqlDateEpoch;
      if (unix_days < cli::pg::kPgMinDateDays || unix_days >= cli::pg::kPgEndDateDays) {
        return Status::invalid_argument(
            fmt::format("date out of range: CQL date {}",
                        types::format_value(type, bytes, types::ValueStyle::kCqlsh)));
      }
      out->i = unix_days - kPgEpochDays;
      return Status::ok();
    }
    case CAS_REPR_TIME:
      out->i = types::read_signed(bytes) / 1000;
      return Status::ok();
    case CAS_REPR_INTERVAL: {
      auto d = types::deserialize_duration(bytes);
      if (!d) return Status::corruption("malformed duration value");
      out->months = d->months;
      out->days = d->days;
      out->i = d->nanoseconds / 1000;
      return Status::ok();
    }
    case CAS_REPR_TEXT:
      break;
  }
  if (is_array_type(type)) {
    CASSETTE_ASSIGN_OR_RETURN(*buffer, array_text(type, bytes));
  } else if (!is_scalar(type)) {
    *buffer = types::to_json(type, types::Value(std::string(bytes)));
  } else {
    *buffer = scalar_text(type, bytes);
  }
  out->data = buffer->data();
  out->len = buffer->size();
  return Status::ok();
}

Result<types::Value> from_pg_value(const CqlType& type, const cas_value& v, cas_repr repr,
                                   std::string_view column) {
  if (v.isnull) return types::Value();
  std::string bytes;
  switch (repr) {
    case CAS_REPR_INT2:
    case CAS_REPR_INT4:
    case CAS_REPR_INT8:
      switch (type.kind) {
        case TypeKind::kTinyint:
        case TypeKind::kSmallint:
        case TypeKind::kInt: {
          auto [min, max] = *integer_range(type);
          if (v.i < min || v.i > max) return out_of_range(type, v.i, column);
          bytes =
              types::store_be(static_cast<uint64_t>(v.i), type.kind == TypeKind::kInt        ? 4
                                                          : type.kind == TypeKind::kSmallint ? 2
                                                                                             : 1);
          break;
        }
        case TypeKind::kBigint:
        case TypeKind::kCounter:
          bytes = types::store_be(static_cast<uint64_t>(v.i), 8);
          break;
        case TypeKind::kVarint:
          bytes = types::varint_from_int64(v.i);
          break;
        default:
          return from_text(type, std::to_string(v.i), column);
      }
      break;
    case CAS_REPR_FLOAT4:
    case CAS_REPR_FLOAT8:
      if (type.kind == TypeKind::kFloat) {
        bytes = types::float_bytes(static_cast<float>(v.d));
      } else if (type.kind == TypeKind::kDouble) {
        bytes = types::double_bytes(v.d);
      } else {
        return from_text(type, float_text(v.d, repr == CAS_REPR_FLOAT4), column);
      }
      break;
    case CAS_REPR_BOOL:
      bytes = std::string(1, v.i ? '\1' : '\0');
      break;
    case CAS_REPR_VARLENA:
      if (type.kind != TypeKind::kText && type.kind != TypeKind::kAscii &&
          type.kind != TypeKind::kBlob) {
        return from_text(type, std::string_view(v.data, v.len), column);
      }
      bytes.assign(v.data, v.len);
      break;
    case CAS_REPR_UUID:
      bytes.assign(v.data, v.len);
      break;
    case CAS_REPR_TIMESTAMPTZ: {
      // Truncated to milliseconds (floor) before the epoch shift: near PostgreSQL's upper limit
      // the shifted microseconds would not fit in 64 bits.
      int64_t pg_millis = v.i >= 0 ? v.i / 1000 : -((-(v.i + 1)) / 1000) - 1;
      bytes = types::store_be(static_cast<uint64_t>(pg_millis + kPgEpochMicros / 1000), 8);
      break;
    }
    case CAS_REPR_DATE:
      bytes = types::store_be(static_cast<uint64_t>(v.i + kPgEpochDays + kCqlDateEpoch), 4);
      break;
    case CAS_REPR_TIME:
      // PostgreSQL's time goes up to 24:00:00; CQL's stops before it (Cassandra: "Hour out
      // of bounds").
      if (v.i < 0 || v.i >= kMicrosPerDay) {
        return Status::invalid_argument(
            fmt::format("invalid value for column {} of CQL type time: 24:00:00 is out of range "
                        "(CQL times run from 00:00:00 to 23:59:59.999999999)",
                        column));
      }
      bytes = types::store_be(static_cast<uint64_t>(v.i * 1000), 8);
      break;
    case CAS_REPR_INTERVAL: {
      int64_t nanos;
      if (__builtin_mul_overflow(v.i, int64_t{1000}, &nanos)) {
        return Status::invalid_argument(fmt::format(
            "invalid value for column {} of CQL type duration: its time part does not fit in "
            "64-bit nanoseconds",
            column));
      }
      bytes = types::serialize_duration(types::Duration{v.months, v.days, nanos});
      break;
    }
    case CAS_REPR_TEXT:
      return from_text(type, std::string_view(v.data, v.len), column);
  }
  Status valid = types::validate_value(type, bytes);
  if (!valid) {
    return Status::invalid_argument(fmt::format("invalid value for column {} of CQL type {}: {}",
                                                column, types::cql_type_name(type),
                                                valid.message()));
  }
  return types::Value(std::move(bytes));
}

}  // namespace cassette::pg
