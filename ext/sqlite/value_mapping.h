// The type mapping between CQL values (serialized, engine/types) and SQLite values (README.md,
// "Type mapping"): reading a CQL value into an SQL result, and turning an SQL value back into the
// CQL value of a column's type, exactly round-tripping what was read.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/types/cql_type.h"
#include "engine/types/scalar.h"
#include "engine/types/value.h"
#include "ext/sqlite/sqlite_api.h"

namespace cassette::sqlite {

// The SQL type a column is declared with: INTEGER, REAL, TEXT or BLOB.
const char* declared_sql_type(const types::CqlType& type);
// A column name as an SQL identifier in a declaration: "name", inner quotes doubled.
std::string sql_quote(std::string_view name);
// An identifier as CQL resolves it: unquoted ones lower-cased, "quoted" ones as written.
std::string cql_identifier(std::string_view text);

// The integer types: read as SQL INTEGER from their big-endian bytes.
inline bool is_integer_kind(types::TypeKind k) {
  return k == types::TypeKind::kTinyint || k == types::TypeKind::kSmallint ||
         k == types::TypeKind::kInt || k == types::TypeKind::kBigint ||
         k == types::TypeKind::kCounter;
}
// Whether a type's empty value (zero bytes, Cassandra's "empty") reads as an empty blob: every
// type but the strings, whose empty value is just ''.
inline bool empty_reads_as_blob(types::TypeKind k) {
  return k != types::TypeKind::kText && k != types::TypeKind::kAscii && k != types::TypeKind::kBlob;
}

// Sets the result of `context` to the SQL form of `bytes` (a serialized value of `type`).
// Sets a text result from text a NUL byte follows already (it views a std::string): SQLite
// takes it NUL-terminated (length -1; value_mapping.cc's result_text() says why), unless it
// holds a NUL of its own, which strlen would cut it short at: then with its explicit length.
inline void result_terminated_text(sqlite3_context* context, std::string_view text) {
  // strlen, not memchr: the same answer here (a NUL follows the text), and glibc's strlen needs
  // no length bookkeeping, which shows at three short text values a row (perf: memchr ~1.5% of
  // a 50-row slice).
  const bool inner_nul = std::strlen(text.data()) != text.size();
  sqlite3_result_text(context, text.data(), inner_nul ? static_cast<int>(text.size()) : -1,
                      SQLITE_TRANSIENT);
}

// `terminated`: a NUL byte follows `bytes` (they view a std::string), so text needs no
// terminated copy of its own.
void result_value_of(sqlite3_context* context, const types::CqlType& type, std::string_view bytes,
                     bool terminated);
// The same, with its commonest cases inline: xColumn sets a result per value per row, and the
// calls down to sqlite3_result_* cost as much as the work.
// (`k` is type.kind, for a caller that keeps it at hand.)
inline void result_value(sqlite3_context* context, types::TypeKind k, const types::CqlType& type,
                         std::string_view bytes, bool terminated) {
  if (is_integer_kind(k) && !bytes.empty()) {
    sqlite3_result_int64(context, types::read_signed(bytes));
  } else if (terminated && (k == types::TypeKind::kText || k == types::TypeKind::kAscii)) {
    result_terminated_text(context, bytes);
  } else {
    result_value_of(context, type, bytes, terminated);
  }
}
inline void result_value(sqlite3_context* context, const types::CqlType& type,
                         std::string_view bytes, bool terminated = false) {
  result_value(context, type.kind, type, bytes, terminated);
}

// The CQL value for an SQL value written to a column (NULL gives nullopt). `column` names it in
// the message: Invalid value for column "hour" of type int: 'abc' (Unable to make int from 'abc')
Result<types::Value> cql_value(const types::CqlType& type, sqlite3_value* value,
                               std::string_view column);
// cql_value() into `*out` (replaced; its capacity is reused, so a caller converting row after
// row allocates nothing per value), setting `*is_null` for an SQL NULL (then `*out` is empty).
Status cql_value_into(const types::CqlType& type, sqlite3_value* value, std::string_view column,
                      std::string* out, bool* is_null);

// Whether SQLite's comparison of the mapped SQL values agrees with CQL's order for the type (so
// range constraints can be pushed down, and ORDER BY given by the clustering order): integers,
// floats, text, blob, boolean, timestamp, date, time. (Timestamps and dates only for years 0000
// to 9999, formatted_text_bound says why.)
bool sql_order_matches_cql(const types::CqlType& type);

// Whether SQL sorts the mapped values as CQL orders the type, so that an ORDER BY on the column
// can be the store's order: sql_order_matches_cql's types but floats (NaN reads as NULL).
bool sql_sort_matches_cql(const types::CqlType& type);

// Float and double: SQL's one zero is two values in the store, -0.0 and 0.0. other_zero() is
// the other one of a zero (serialized), nullopt for any other value.
bool has_two_zeros(const types::CqlType& type);
types::Value other_zero(const types::CqlType& type, std::string_view bytes);

// The CQL value a constraint compares with, or nullopt when no value of the column can equal
// it (a value of another type, a text other than the one the column shows), for EQ/IN and for
// ranges on the types whose SQL values are numbers, text or blobs themselves. As SQL compares:
// a number with a TEXT-mapped column as its text; an integer with a float or double column
// exactly. For ranges a bound between two values of the column is rounded so that the
// comparison keeps its meaning: `round_up` asks for the smallest value above (GE, LT),
// otherwise the largest below (GT, LE).
types::Value constraint_value(const types::CqlType& type, sqlite3_value* value, bool is_range,
                              bool round_up);

// Whether a type's SQL value is a formatted text that SQL compares as text, and that range
// constraints are pushed for by formatted_text_bound: timestamp, date, time.
bool compares_as_formatted_text(const types::CqlType& type);

// A range constraint on a timestamp, date or time column as the store applies it: SQL compares
// the column's text ('2024-01-01 05:00:00.000') with the value's text, so `ts >
// '2024-01-01T05:00:00'` keeps every row of 2024-01-01 and later ('T' sorts after ' ') and
// `ts > 1704085200000` compares with the text '1704085200000'. The bound is the first value
// whose text is above (or not below) the given text, found by binary search over the values
// whose text order is their order (years 0000 to 9999; every time). Beyond those years text
// order is not value order ('10000-01-01' sorts before '2024-01-01'), so the bound may keep
// rows SQL would not, and the host must check these constraints again itself. An upper bound
// that a year past 9999 passes by its text (`ts < '2030'` keeps '10000-01-01 ...' and dates'
// '+10000-01-01') keeps every row, since the store reads one range per side and those years
// lie above the span (README "Reads"). A numeric value keeps every row for a lower bound (with
// a numeric-affinity column on the other side, SQL puts every text above every number).
// `upper`: < or <=.
struct FormattedTextBound {
  enum Kind : uint8_t { kFrom, kBefore, kEveryRow } kind;
  types::Value value;  // kFrom: column >= value; kBefore: column < value
};
FormattedTextBound formatted_text_bound(const types::CqlType& type, sqlite3_value* value,
                                        bool upper, bool inclusive);

// Where a constraint's value sits among all values of a column by SQLite's storage classes alone
// (NULL < INTEGER/REAL < TEXT < BLOB), after the column's affinity was applied to it: a TEXT
// 'abc' compared with an INTEGER column is above every value of it, a BLOB above every TEXT,
// an INTEGER below every BLOB; so is a number beyond an integer type's range (booleans: 0..1).
// kSameClass: the values themselves must be compared.
enum class ClassOrder : uint8_t { kSameClass, kAboveAll, kBelowAll };
ClassOrder class_order(const types::CqlType& type, sqlite3_value* value);

// The smallest (`greatest` false) or greatest value of a type whose range constraints are
// pushed down, so that `column >= smallest` / `column <= greatest` keeps every row; nullopt
// for a type without one (text has no greatest value).
types::Value extreme_value(const types::CqlType& type, bool greatest);

// Whether SQLite gives the column NUMERIC affinity in comparisons (declared INTEGER or REAL):
// then a TEXT value that looks like a number is compared as that number ('2.0' = 2).
bool has_numeric_affinity(const types::CqlType& type);

}  // namespace cassette::sqlite
