// The CQL <-> PostgreSQL type mapping (see pg_types.h for the table).
#include "ext/pg_common/pg_types.h"

#include <array>
#include <utility>

namespace cassette::cli::pg {

namespace {

using types::CqlType;
using types::TypeKind;

bool is_scalar(const CqlType& type) {
  return !type.is_collection() && type.kind != TypeKind::kTuple && type.kind != TypeKind::kUdt &&
         type.kind != TypeKind::kVector;
}

std::string scalar_name(TypeKind kind) {
  switch (kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
      return "smallint";
    case TypeKind::kInt:
      return "integer";
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return "bigint";
    case TypeKind::kVarint:
    case TypeKind::kDecimal:
      return "numeric";
    case TypeKind::kFloat:
      return "real";
    case TypeKind::kDouble:
      return "double precision";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kAscii:
    case TypeKind::kText:
      return "text";
    case TypeKind::kBlob:
      return "bytea";
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return "uuid";
    case TypeKind::kTimestamp:
      return "timestamp with time zone";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kTime:
      return "time without time zone";
    case TypeKind::kDuration:
      return "interval";
    case TypeKind::kInet:
      return "inet";
    default:
      return "jsonb";
  }
}

// "numeric(10,2)" -> "numeric", "timestamp(3) with time zone" -> "timestamp with time zone",
// "character varying(20)[]" -> "character varying[]".
std::string without_modifier(std::string_view name) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

// Pairs (narrow, wide): a column of the wide type takes every value of the narrow one.
constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kWidenings{{
    {"smallint", "integer"},
    {"smallint", "bigint"},
    {"smallint", "numeric"},
    {"integer", "bigint"},
    {"integer", "numeric"},
    {"bigint", "numeric"},
    {"real", "double precision"},
    {"jsonb", "json"},
    {"timestamp with time zone", "timestamp without time zone"},
    {"text", "character varying"},
}};

}  // namespace

bool maps_to_array(const CqlType& type) {
  return (type.kind == TypeKind::kList || type.kind == TypeKind::kSet ||
          type.kind == TypeKind::kVector) &&
         is_scalar(type.params.at(0));
}

bool maps_to_jsonb(const CqlType& type) {
  return !is_scalar(type) && !maps_to_array(type);
}

std::string pg_type_name(const CqlType& type) {
  if (is_scalar(type)) return scalar_name(type.kind);
  if (maps_to_array(type)) return scalar_name(type.params[0].kind) + "[]";
  return "jsonb";
}

bool pg_column_accepts(std::string_view actual_spelling, std::string_view expected) {
  std::string actual = without_modifier(actual_spelling);
  if (actual == expected) return true;
  bool actual_array = actual.ends_with("[]");
  bool expected_array = expected.ends_with("[]");
  if (actual_array != expected_array) return false;
  if (actual_array) {
    actual.resize(actual.size() - 2);
    expected.remove_suffix(2);
  }
  for (const auto& [narrow, wide] : kWidenings) {
    if (expected == narrow && actual == wide) return true;
  }
  // Any scalar's text form fits a text column.
  return !expected_array && expected != "jsonb" &&
         (actual == "text" || actual == "character varying");
}

std::optional<PgKind> pg_kind_of_oid(uint32_t oid) {
  switch (oid) {
    case 16:
      return PgKind::kBool;
    case 17:
      return PgKind::kBytea;
    case 18:    // "char"
    case 19:    // name
    case 25:    // text
    case 1042:  // character
    case 1043:  // character varying
      return PgKind::kText;
    case 20:  // bigint
    case 21:  // smallint
    case 23:  // integer
    case 26:  // oid
      return PgKind::kInteger;
    case 114:   // json
    case 3802:  // jsonb
      return PgKind::kJson;
    case 650:  // cidr
    case 869:  // inet
      return PgKind::kInet;
    case 700:
    case 701:
      return PgKind::kFloat;
    case 1082:
      return PgKind::kDate;
    case 1083:
      return PgKind::kTime;
    case 1114:
      return PgKind::kTimestamp;
    case 1184:
      return PgKind::kTimestamptz;
    case 1186:
      return PgKind::kInterval;
    case 1700:
      return PgKind::kNumeric;
    case 2950:
      return PgKind::kUuid;
    default:
      return std::nullopt;
  }
}

namespace {

bool scalar_converts(PgKind kind, const CqlType& target) {
  if (kind == PgKind::kText) return true;  // Cassandra's string form of anything
  switch (target.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
      return true;
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kVarint:
    case TypeKind::kDecimal:
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      return kind == PgKind::kInteger || kind == PgKind::kNumeric || kind == PgKind::kFloat;
    case TypeKind::kBoolean:
      return kind == PgKind::kBool;
    case TypeKind::kBlob:
      return kind == PgKind::kBytea;
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return kind == PgKind::kUuid;
    case TypeKind::kTimestamp:
      return kind == PgKind::kTimestamptz || kind == PgKind::kTimestamp || kind == PgKind::kDate;
    case TypeKind::kDate:
      return kind == PgKind::kDate;
    case TypeKind::kTime:
      return kind == PgKind::kTime;
    case TypeKind::kDuration:
      return kind == PgKind::kInterval;
    case TypeKind::kInet:
      return kind == PgKind::kInet;
    default:
      return false;
  }
}

}  // namespace

bool pg_kind_converts_to(const PgSourceType& source, const CqlType& target) {
  if (source.kind == PgKind::kText) return true;
  if (target.kind == TypeKind::kText || target.kind == TypeKind::kAscii) return true;
  if (!is_scalar(target)) {
    if (source.kind == PgKind::kJson) return true;
    return source.kind == PgKind::kArray && maps_to_array(target) &&
           scalar_converts(source.element, target.params[0]);
  }
  return scalar_converts(source.kind, target);
}

Status check_pg_text(const types::CqlType& type, std::string_view bytes) {
  if ((type.kind == types::TypeKind::kText || type.kind == types::TypeKind::kAscii) &&
      bytes.find('\0') != std::string_view::npos) {
    return Status::invalid_argument(
        "a text value holds a NUL character, which PostgreSQL text cannot store");
  }
  return Status::ok();
}

}  // namespace cassette::cli::pg
