// The type mapping (value_mapping.h). Reading is on the hot path of every scan: integers go
// straight from the stored bytes to sqlite3_result_*, text through a NUL-terminating stack copy
// (result_text below says why), without a heap allocation.
#include "ext/sqlite/value_mapping.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/util/message.h"

namespace cassette::sqlite {

namespace {

using types::CqlType;
using types::TypeKind;

// The shortest two's complement big-endian bytes of v (varint).
std::string varint_bytes(int64_t v) {
  std::string out = types::store_be(v, 8);
  size_t skip = 0;
  while (skip < 7) {
    unsigned char b = static_cast<unsigned char>(out[skip]);
    unsigned char next = static_cast<unsigned char>(out[skip + 1]);
    if ((b == 0 && !(next & 0x80)) || (b == 0xff && (next & 0x80))) {
      ++skip;
    } else {
      break;
    }
  }
  return out.substr(skip);
}

// The values an integer type holds, and its width in bytes; booleans read as 0 and 1.
struct IntegerRange {
  int64_t lo;
  int64_t hi;
  size_t width;
};
IntegerRange integer_range(TypeKind k) {
  if (k == TypeKind::kBoolean) return {0, 1, 1};
  const size_t width = types::fixed_width(k);
  if (width == 8)
    return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 8};
  const int64_t half = int64_t{1} << (8 * width - 1);
  return {-half, half - 1, width};
}

// The text SQL shows for a value of a text-mapped type (uuid, inet, timestamp, ...).
std::string sql_text(const CqlType& type, std::string_view bytes) {
  std::string text = types::format_value(type, bytes, types::ValueStyle::kString);
  // ...THH:MM:SS.mmmZ -> ... HH:MM:SS.mmm, whatever the year's width (10000, -0001).
  const size_t t = text.size() >= 14 ? text.size() - 14 : 0;
  if (type.kind == TypeKind::kTimestamp && text.size() >= 24 && text[t] == 'T' &&
      text.back() == 'Z') {
    text[t] = ' ';
    text.pop_back();
  }
  return text;
}

std::string_view value_text(sqlite3_value* value) {
  const unsigned char* text = sqlite3_value_text(value);
  return {reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_value_bytes(value))};
}

Status invalid(const CqlType& type, sqlite3_value* value, std::string_view column,
               std::string_view reason = {}) {
  std::string shown;
  switch (sqlite3_value_type(value)) {
    case SQLITE_BLOB:
      shown = fmt::format("a blob of {} bytes", sqlite3_value_bytes(value));
      break;
    default:
      shown = fmt::format("'{}'", message_value(value_text(value)));
      break;
  }
  std::string message = fmt::format("Invalid value for column \"{}\" of type {}: {}", column,
                                    types::cql_type_name(type), shown);
  if (!reason.empty()) message += fmt::format(" ({})", reason);
  return Status::invalid_argument(std::move(message));
}

// An exact integer from an SQL value (INTEGER, integral REAL, or integer TEXT).
std::optional<int64_t> exact_integer(sqlite3_value* value) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
      return sqlite3_value_int64(value);
    case SQLITE_FLOAT: {
      double d = sqlite3_value_double(value);
      if (std::floor(d) != d || d < -9.2233720368547758e18 || d >= 9.2233720368547758e18)
        return std::nullopt;
      return static_cast<int64_t>(d);
    }
    case SQLITE_TEXT: {
      std::string text(value_text(value));
      if (text.empty()) return std::nullopt;
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno != 0 || *end != '\0' || std::isspace(static_cast<unsigned char>(text[0])))
        return std::nullopt;
      return static_cast<int64_t>(v);
    }
    default:
      return std::nullopt;
  }
}

std::optional<double> real_value(sqlite3_value* value) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
      return sqlite3_value_double(value);
    case SQLITE_TEXT: {
      std::string text(value_text(value));
      char* end = nullptr;
      double d = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') return std::nullopt;
      return d;
    }
    default:
      return std::nullopt;
  }
}

// Sets a text result NUL-terminated (length -1), so SQLite marks it MEM_Term. With an explicit
// length SQLite stores it unterminated, and every sqlite3_column_text() (Python's sqlite3 calls
// it for each text value) then reallocates the value to append a terminator, after which the next
// row's copy no longer fits the register and is allocated again: allocator calls that each take
// SQLite's memstatus mutex. Text with an embedded NUL keeps its explicit length (strlen would
// cut it short). `terminated`: a NUL follows the text already (it views a std::string), so
// SQLite can take it as it is instead of a terminated copy of it (result_terminated_text).
void result_text(sqlite3_context* context, std::string_view text, bool terminated = false) {
  if (terminated) return result_terminated_text(context, text);
  if (!text.empty() && std::memchr(text.data(), '\0', text.size()) != nullptr) {
    sqlite3_result_text(context, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return;
  }
  char small[256];  // most values; SQLite copies the text before we return
  if (text.size() < sizeof(small)) {
    std::memcpy(small, text.data(), text.size());
    small[text.size()] = '\0';
    sqlite3_result_text(context, small, -1, SQLITE_TRANSIENT);
    return;
  }
  std::string copy(text);
  sqlite3_result_text(context, copy.c_str(), -1, SQLITE_TRANSIENT);
}

// The same for a string of our own, which is terminated already.
void result_text(sqlite3_context* context, const std::string& text) {
  result_text(context, std::string_view(text), /*terminated=*/true);
}

}  // namespace

std::string sql_quote(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string cql_identifier(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      out += text[i];
      if (text[i] == '"' && i + 2 < text.size() && text[i + 1] == '"') ++i;
    }
    return out;
  }
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A vector<float, n> written as sqlite-vec stores one: n little-endian IEEE 754 singles.
static Status vector_from_float32_blob(const CqlType& type, sqlite3_value* value,
                                       std::string_view column, std::string* out) {
  const size_t size = static_cast<size_t>(sqlite3_value_bytes(value));
  const size_t dimension = static_cast<size_t>(type.dimension);
  if (type.params.at(0).kind != TypeKind::kFloat || size != dimension * 4) {
    return invalid(type, value, column,
                   fmt::format("a BLOB for a {} holds {} float32 values ({} bytes), not {} bytes",
                               types::cql_type_name(type), dimension, dimension * 4, size));
  }
  const auto* bytes = static_cast<const unsigned char*>(sqlite3_value_blob(value));
  std::vector<float> floats(dimension);
  for (size_t i = 0; i < dimension; ++i) {
    uint32_t bits = 0;
    for (int b = 3; b >= 0; --b) bits = (bits << 8) | bytes[i * 4 + static_cast<size_t>(b)];
    std::memcpy(&floats[i], &bits, 4);
  }
  *out = types::vector_from_floats(floats);
  return Status::ok();
}

const char* declared_sql_type(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kVarint:
    case TypeKind::kBoolean:
      return "INTEGER";
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      return "REAL";
    case TypeKind::kBlob:
      return "BLOB";
    default:
      return "TEXT";
  }
}

void result_value_of(sqlite3_context* context, const CqlType& type, std::string_view bytes,
                     bool terminated) {
  TypeKind k = type.kind;
  if (bytes.empty() && empty_reads_as_blob(k)) {
    // Cassandra's "empty" value of a non-string type: shown as an empty blob.
    sqlite3_result_zeroblob(context, 0);
    return;
  }
  switch (k) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      sqlite3_result_int64(context, types::read_signed(bytes));
      return;
    case TypeKind::kVarint:
      if (bytes.size() <= 8) {
        sqlite3_result_int64(context, types::read_signed(bytes));
      } else {
        result_text(context, sql_text(type, bytes));
      }
      return;
    case TypeKind::kBoolean:
      sqlite3_result_int(context, bytes[0] != 0);
      return;
    case TypeKind::kFloat:
      sqlite3_result_double(context, types::read_float(bytes));
      return;
    case TypeKind::kDouble:
      sqlite3_result_double(context, types::read_double(bytes));
      return;
    case TypeKind::kText:
    case TypeKind::kAscii:
      result_text(context, bytes, terminated);
      return;
    case TypeKind::kBlob:
      sqlite3_result_blob(context, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
      return;
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
    case TypeKind::kTuple:
    case TypeKind::kUdt:
    case TypeKind::kVector: {
      result_text(context, types::to_json(type, std::string(bytes)));
      return;
    }
    default: {
      result_text(context, sql_text(type, bytes));
      return;
    }
  }
}

Result<types::Value> cql_value(const CqlType& type, sqlite3_value* value, std::string_view column) {
  std::string out;
  bool is_null = false;
  CASSETTE_RETURN_IF_ERROR(cql_value_into(type, value, column, &out, &is_null));
  if (is_null) return types::Value();
  return types::Value(std::move(out));
}

Status cql_value_into(const CqlType& type, sqlite3_value* value, std::string_view column,
                      std::string* dest, bool* is_null) {
  std::string& out = *dest;
  out.clear();
  int sql_type = sqlite3_value_type(value);
  *is_null = sql_type == SQLITE_NULL;
  if (*is_null) return Status::ok();
  TypeKind k = type.kind;
  if (is_integer_kind(k)) {
    std::optional<int64_t> v = exact_integer(value);
    size_t width = types::fixed_width(k);
    if (!v || (width < 8 &&
               (*v < -(int64_t{1} << (8 * width - 1)) || *v >= (int64_t{1} << (8 * width - 1))))) {
      return invalid(type, value, column);
    }
    out = types::store_be(*v, width);
  } else if (k == TypeKind::kVarint && sql_type != SQLITE_TEXT) {
    std::optional<int64_t> v = exact_integer(value);
    if (!v) return invalid(type, value, column);
    out = varint_bytes(*v);
  } else if (k == TypeKind::kFloat || k == TypeKind::kDouble) {
    std::optional<double> d = real_value(value);
    if (!d) return invalid(type, value, column);
    out = k == TypeKind::kFloat ? types::float_bytes(static_cast<float>(*d))
                                : types::double_bytes(*d);
  } else if (k == TypeKind::kBoolean) {
    std::optional<int64_t> v = exact_integer(value);
    if (v && (*v == 0 || *v == 1)) {
      out = std::string(1, static_cast<char>(*v));
    } else if (const char* text = reinterpret_cast<const char*>(sqlite3_value_text(value));
               sql_type == SQLITE_TEXT &&
               (sqlite3_stricmp(text, "true") == 0 || sqlite3_stricmp(text, "false") == 0)) {
      // CQL's boolean literals, in any case (as CQL reads them)
      out = std::string(1, static_cast<char>(sqlite3_stricmp(text, "true") == 0));
    } else {
      return invalid(type, value, column);
    }
  } else if (k == TypeKind::kBlob) {
    const void* blob = sqlite3_value_blob(value);
    const size_t size = static_cast<size_t>(sqlite3_value_bytes(value));
    if (size > 0) out.assign(static_cast<const char*>(blob), size);
  } else if (k == TypeKind::kText || k == TypeKind::kAscii) {
    if (sql_type == SQLITE_BLOB) return invalid(type, value, column);
    out.assign(value_text(value));
  } else if (k == TypeKind::kTimestamp && sql_type == SQLITE_INTEGER) {
    out = types::store_be(sqlite3_value_int64(value), 8);
  } else if (k == TypeKind::kTime && sql_type == SQLITE_INTEGER) {
    int64_t nanos = sqlite3_value_int64(value);
    if (nanos < 0 || nanos >= 86'400'000'000'000) return invalid(type, value, column);
    out = types::store_be(nanos, 8);
  } else if (k == TypeKind::kVector && sql_type == SQLITE_BLOB) {
    CASSETTE_RETURN_IF_ERROR(vector_from_float32_blob(type, value, column, &out));
  } else if (type.is_collection() || k == TypeKind::kTuple || k == TypeKind::kUdt ||
             k == TypeKind::kVector) {
    if (sql_type != SQLITE_TEXT) return invalid(type, value, column);
    Result<types::Value> v = types::from_json(type, value_text(value), column);
    if (!v.is_ok()) return invalid(type, value, column, v.status().message());
    if (!*v) return invalid(type, value, column);
    out = std::move(**v);
  } else {
    // uuid, timeuuid, inet, decimal, duration, date, time, timestamp, varint as text.
    if (sql_type == SQLITE_BLOB) return invalid(type, value, column);
    Result<std::string> v = types::parse_value_string(type, value_text(value));
    if (!v.is_ok()) return invalid(type, value, column, v.status().message());
    out = std::move(v).value();
  }
  Status valid = types::validate_value(type, out);
  if (!valid.is_ok()) return invalid(type, value, column, valid.message());
  return Status::ok();
}

bool sql_sort_matches_cql(const CqlType& type) {
  // Not floats: SQL reads NaN as NULL, which sorts first, where the store orders NaN last.
  return sql_order_matches_cql(type) && type.kind != TypeKind::kFloat &&
         type.kind != TypeKind::kDouble;
}

bool has_two_zeros(const CqlType& type) {
  return type.kind == TypeKind::kFloat || type.kind == TypeKind::kDouble;
}

types::Value other_zero(const CqlType& type, std::string_view bytes) {
  if (type.kind == TypeKind::kDouble && bytes.size() == 8) {
    const auto bits = static_cast<uint64_t>(types::read_int64(bytes));
    if ((bits << 1) == 0) return types::store_be(bits ^ (uint64_t{1} << 63), 8);
  }
  if (type.kind == TypeKind::kFloat && bytes.size() == 4) {
    const auto bits = static_cast<uint32_t>(types::read_int32(bytes));
    if ((bits << 1) == 0) return types::store_be(bits ^ (uint32_t{1} << 31), 4);
  }
  return std::nullopt;
}

bool sql_order_matches_cql(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
    case TypeKind::kText:
    case TypeKind::kAscii:
    case TypeKind::kBlob:
    case TypeKind::kBoolean:
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
      return true;
    default:
      return false;
  }
}

namespace {

// The value of an integer or floating type nearest `exact` (an SQL value, exact in a long double:
// every int64_t and double is) for a column compared with it as SQL compares numbers: exact, or
// for EQ nothing (nullopt), or for a range the neighbour on the side that keeps the comparison's
// meaning (`round_up`: the smallest value above, for >= and <; else the largest below).
template <typename Floating>
std::optional<Floating> nearest_floating(long double exact, bool is_range, bool round_up) {
  auto value = static_cast<Floating>(exact);  // nearest; may be on either side, or infinite
  if (static_cast<long double>(value) == exact) return value;
  if (!is_range) return std::nullopt;
  const bool above = static_cast<long double>(value) > exact;
  if (round_up != above) {
    value = std::nextafter(value, round_up ? std::numeric_limits<Floating>::infinity()
                                           : -std::numeric_limits<Floating>::infinity());
  }
  return value;
}

// What SQL compares a float or double column with: the number, exactly (an INTEGER is not
// rounded to a double first: SQLite compares 2^53 + 1 with 2^53 as different).
std::optional<long double> exact_number(sqlite3_value* value) {
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
      return static_cast<long double>(sqlite3_value_int64(value));
    case SQLITE_FLOAT: {
      const double d = sqlite3_value_double(value);
      if (std::isnan(d)) return std::nullopt;
      return static_cast<long double>(d);
    }
    default:
      return std::nullopt;
  }
}

// Whether a type reads as TEXT whose comparison SQL makes on that text (every TEXT-mapped type
// but text and ascii themselves).
bool reads_as_formatted_text(const CqlType& type) {
  return std::string_view(declared_sql_type(type)) == "TEXT" && type.kind != TypeKind::kText &&
         type.kind != TypeKind::kAscii;
}

}  // namespace

types::Value constraint_value(const CqlType& type, sqlite3_value* value, bool is_range,
                              bool round_up) {
  int sql_type = sqlite3_value_type(value);
  if (sql_type == SQLITE_NULL) return std::nullopt;
  TypeKind k = type.kind;
  if ((is_integer_kind(k) || k == TypeKind::kBoolean) && is_range && sql_type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(value);
    if (std::isnan(d)) return std::nullopt;
    d = round_up ? std::ceil(d) : std::floor(d);
    const IntegerRange r = integer_range(k);
    // Clamped in double, where a bigint's upper limit rounds up to 2^63 (not an int64_t).
    const double lo = static_cast<double>(r.lo), hi = static_cast<double>(r.hi);
    const int64_t n = d >= hi ? r.hi : d <= lo ? r.lo : static_cast<int64_t>(d);
    return types::store_be(n, r.width);
  }
  if ((k == TypeKind::kText || k == TypeKind::kAscii) &&
      (sql_type == SQLITE_INTEGER || sql_type == SQLITE_FLOAT)) {
    return std::string(value_text(value));  // TEXT affinity: the number's text
  }
  if (k == TypeKind::kBlob && sql_type != SQLITE_BLOB) return std::nullopt;
  if (k == TypeKind::kFloat || k == TypeKind::kDouble) {
    // SQL compares the float widened to a double (a double as it is) with the number exactly:
    // only a value equal to it matches, and a range bound between two values rounds as for
    // integers above.
    std::optional<long double> exact = exact_number(value);
    if (!exact) return std::nullopt;
    if (*exact == 0 && is_range) {
      // SQL has one zero; the store orders -0.0 below 0.0: a bound keeps both or neither.
      return round_up
                 ? (k == TypeKind::kFloat ? types::float_bytes(-0.0f) : types::double_bytes(-0.0))
                 : (k == TypeKind::kFloat ? types::float_bytes(0.0f) : types::double_bytes(0.0));
    }
    if (k == TypeKind::kFloat) {
      std::optional<float> f = nearest_floating<float>(*exact, is_range, round_up);
      return f ? types::Value(types::float_bytes(*f)) : std::nullopt;
    }
    std::optional<double> d = nearest_floating<double>(*exact, is_range, round_up);
    return d ? types::Value(types::double_bytes(*d)) : std::nullopt;
  }
  if (reads_as_formatted_text(type)) {
    // TEXT affinity: the value is compared as text (a number as its text) with the column's
    // text, so only the text the column shows for a value matches that value.
    const std::string_view given = value_text(value);
    const bool json = type.is_collection() || k == TypeKind::kTuple || k == TypeKind::kUdt ||
                      k == TypeKind::kVector;
    types::Value parsed;
    if (json) {
      Result<types::Value> v = types::from_json(type, given, "");
      if (!v.is_ok() || !*v) return std::nullopt;
      parsed = std::move(v).value();
    } else {
      Result<std::string> v = types::parse_value_string(type, given);
      if (!v.is_ok()) return std::nullopt;
      parsed = std::move(v).value();
    }
    if (!types::validate_value(type, *parsed).is_ok()) return std::nullopt;
    const std::string shown = json ? types::to_json(type, parsed) : sql_text(type, *parsed);
    if (shown != given) return std::nullopt;
    return parsed;
  }
  Result<types::Value> v = cql_value(type, value, "");
  if (!v.is_ok() || !*v) return std::nullopt;
  if (sql_type == SQLITE_TEXT && k == TypeKind::kBoolean) {
    return std::nullopt;  // SQL compares INTEGER 0/1 with text as different
  }
  return std::move(v).value();
}

bool compares_as_formatted_text(const CqlType& type) {
  return type.kind == TypeKind::kTimestamp || type.kind == TypeKind::kDate ||
         type.kind == TypeKind::kTime;
}

namespace {

// The values of a timestamp, date or time column as big-endian integers of their stored form
// (timestamp, time: signed 8 bytes; date: unsigned 4 bytes, days + 2^31), over the span where
// the order of their SQL text is the order of the values: years 0000 to 9999, SQLite's own date
// range (a longer or negative year's text sorts elsewhere: '10000-01-01' before '2024-01-01').
struct TextOrderedSpan {
  int64_t lo;
  int64_t hi;
  size_t width;
  bool values_above = true;  // whether the type has values above hi (years past 9999)
};

TextOrderedSpan text_ordered_span(const CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTimestamp:
      return {-62'167'219'200'000, 253'402'300'799'999, 8};  // 0000-01-01 .. 9999-12-31
    case TypeKind::kDate:
      return {(int64_t{1} << 31) - 719'528, (int64_t{1} << 31) + 2'932'896, 4};
    default:
      return {0, 86'399'999'999'999, 8, false};  // time: every value
  }
}

// Whether an upper bound `< given` (`<= given` when `inclusive`) keeps some value above the
// span by its text. Those values' texts are longer years ('10000-01-01 00:00:00.000',
// '+10000-01-01'), which SQL sorts among the early years; the smallest of them is the text of
// the first value above the span (a later date of year 10000 is a larger text, and so is a
// longer year, whose fifth digit sorts above the '-' after "10000").
bool upper_bound_keeps_values_above(const CqlType& type, const TextOrderedSpan& span,
                                    std::string_view given, bool inclusive) {
  if (!span.values_above) return false;
  const int c = sql_text(type, types::store_be(span.hi + 1, span.width)).compare(given);
  return c < 0 || (inclusive && c == 0);
}

// The first value of the span whose SQL text compares above `given` (or, `or_equal`, not below
// it); span.hi + 1 when none does. Binary search: the texts grow with the values there.
int64_t first_text_above(const CqlType& type, const TextOrderedSpan& span, std::string_view given,
                         bool or_equal) {
  int64_t lo = span.lo, hi = span.hi + 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const int c = sql_text(type, types::store_be(mid, span.width)).compare(given);
    if (c > 0 || (or_equal && c == 0)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace

FormattedTextBound formatted_text_bound(const CqlType& type, sqlite3_value* value, bool upper,
                                        bool inclusive) {
  const TextOrderedSpan span = text_ordered_span(type);
  const int sql_type = sqlite3_value_type(value);
  // A number compared with the column is compared as its text (TEXT affinity), unless the
  // other side of the comparison has a numeric affinity (a column of a joined table), when the
  // column's text is above every number. Both must be kept: a lower bound keeps every row.
  if (!upper && (sql_type == SQLITE_INTEGER || sql_type == SQLITE_FLOAT)) {
    return {FormattedTextBound::kEveryRow, {}};
  }
  // Lower bounds: `> g` from the first text above g; `>= g` from the first not below g. Upper
  // bounds: `< g` to the first not below g, `<= g` to the first above g, excluded. When no value
  // of the span is kept, the bound keeps the values beyond it on that side (negative years, for
  // an upper bound; years past 9999, for a lower one), for the host's own check to decide.
  const int64_t first =
      first_text_above(type, span, value_text(value), upper ? !inclusive : inclusive);
  if (!upper) {
    if (first <= span.lo) return {FormattedTextBound::kEveryRow, {}};
    return {FormattedTextBound::kFrom, types::store_be(first, span.width)};
  }
  // The store reads one range per side: an upper bound that must keep some later years besides
  // the span's first values keeps every row, for SQLite's own check to decide.
  if (first > span.hi || upper_bound_keeps_values_above(type, span, value_text(value), inclusive)) {
    return {FormattedTextBound::kEveryRow, {}};
  }
  return {FormattedTextBound::kBefore, types::store_be(first, span.width)};
}

bool has_numeric_affinity(const CqlType& type) {
  std::string_view declared = declared_sql_type(type);
  return declared == "INTEGER" || declared == "REAL";
}

ClassOrder class_order(const CqlType& type, sqlite3_value* value) {
  auto rank = [](int sql_type) {
    switch (sql_type) {
      case SQLITE_INTEGER:
      case SQLITE_FLOAT:
        return 1;
      case SQLITE_TEXT:
        return 2;
      case SQLITE_BLOB:
        return 3;
      default:
        return 0;
    }
  };
  std::string_view declared = declared_sql_type(type);
  int column = declared == "BLOB" ? 3 : declared == "TEXT" ? 2 : 1;
  int given = rank(sqlite3_value_type(value));
  // TEXT affinity turns a number into its text; BLOB columns (no affinity) and numeric ones
  // (the caller applied numeric affinity) keep the value's class.
  if (column == 2 && given == 1) given = 2;
  if (given == 0) return ClassOrder::kSameClass;
  if (given == column) {
    // A number beyond an integer type's range (booleans read as 0 and 1) is above or below
    // every value of it too.
    TypeKind k = type.kind;
    if (column != 1 || (!is_integer_kind(k) && k != TypeKind::kBoolean))
      return ClassOrder::kSameClass;
    const IntegerRange r = integer_range(k);
    if (sqlite3_value_type(value) == SQLITE_INTEGER && r.width == 8) return ClassOrder::kSameClass;
    const double d = sqlite3_value_double(value);  // exact for every INTEGER of a narrower type
    if (d > static_cast<double>(r.hi)) return ClassOrder::kAboveAll;
    if (d < static_cast<double>(r.lo)) return ClassOrder::kBelowAll;
    return ClassOrder::kSameClass;
  }
  // A varint too big for 64 bits reads as TEXT: its class is not the declared one.
  if (type.kind == TypeKind::kVarint) return ClassOrder::kSameClass;
  return given > column ? ClassOrder::kAboveAll : ClassOrder::kBelowAll;
}

types::Value extreme_value(const CqlType& type, bool greatest) {
  TypeKind k = type.kind;
  if (is_integer_kind(k) || k == TypeKind::kBoolean) {
    const IntegerRange r = integer_range(k);
    return types::store_be(greatest ? r.hi : r.lo, r.width);
  }
  const double infinity = std::numeric_limits<double>::infinity();
  switch (k) {
    case TypeKind::kDouble:
      return types::double_bytes(greatest ? infinity : -infinity);
    case TypeKind::kFloat:
      return types::float_bytes(greatest ? std::numeric_limits<float>::infinity()
                                         : -std::numeric_limits<float>::infinity());
    case TypeKind::kTimestamp:
      return types::store_be(
          greatest ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min(), 8);
    case TypeKind::kDate:
      return types::store_be(greatest ? 0xffffffff : 0, 4);  // days + 2^31, unsigned
    case TypeKind::kTime:
      return types::store_be(greatest ? 86'399'999'999'999 : 0, 8);
    case TypeKind::kBlob:
    case TypeKind::kText:
    case TypeKind::kAscii:
      if (!greatest) return std::string();
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace cassette::sqlite
