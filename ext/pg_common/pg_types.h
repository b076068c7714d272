// The CQL <-> PostgreSQL type mapping, in one place for the bridge (pg-export,
// pg-import) and the FDW's IMPORT FOREIGN SCHEMA (both link this library, ext/pg_common). It needs
// only the description of a CQL type (engine/types/cql_type.h): no store, no session, no libpq.
//
//   tinyint, smallint -> smallint        int -> integer           bigint, counter -> bigint
//   varint, decimal   -> numeric         float -> real            double -> double precision
//   boolean -> boolean                   text, ascii -> text      blob -> bytea
//   uuid, timeuuid -> uuid               timestamp -> timestamp with time zone
//   date -> date                         time -> time without time zone
//   duration -> interval                 inet -> inet
//   list/set of a scalar -> an array of the scalar's type (list<int> -> integer[])
//   map, tuple, UDT, and collections of anything but scalars -> jsonb
//
// Names are spelled as PostgreSQL's format_type() prints them, so a column of an existing table
// (read with format_type) can be compared with what the bridge would create.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/types/cql_type.h"
#include "engine/util/status.h"

namespace cassette::cli::pg {

// PostgreSQL's timestamptz range in Unix milliseconds (4714-11-24 BC to 294277-01-01,
// exclusive) and its date range in Unix days (4714-11-24 BC to 5874898-01-01, exclusive): CQL
// timestamps and dates reach far beyond both.
constexpr int64_t kPgMinTimestampMillis = -210'866'803'200'000;
constexpr int64_t kPgEndTimestampMillis = 9'224'318'016'000'000;
constexpr int64_t kPgMinDateDays = -2'440'588;
constexpr int64_t kPgEndDateDays = 2'145'042'906;

// CQL text may hold NUL characters, PostgreSQL text cannot: an error for such a text or ascii
// value (the bridge rejects its row, the FDW fails the read), ok for anything else.
Status check_pg_text(const types::CqlType& type, std::string_view bytes);

// The PostgreSQL type a CQL column maps to, as format_type() spells it: "integer",
// "timestamp with time zone", "text[]", "jsonb".
std::string pg_type_name(const types::CqlType& type);

// Whether the value maps to an array (a list or set of a scalar type).
bool maps_to_array(const types::CqlType& type);
// Whether the value maps to jsonb (a map, tuple, UDT, or a collection of non-scalars).
bool maps_to_jsonb(const types::CqlType& type);

// Whether an existing PostgreSQL column of type `actual` (format_type() output, with or without
// a type modifier such as "numeric(10,2)" or "character varying(20)") can take every value of a
// column mapped to `expected` (a pg_type_name() result): the same type, or a wider one
// (smallint -> integer -> bigint -> numeric, real -> double precision, jsonb -> json,
// timestamp with time zone -> timestamp without time zone), or text / character varying for
// any scalar.
bool pg_column_accepts(std::string_view actual, std::string_view expected);

// ---- PostgreSQL result columns (pg-import) ------------------------------------------------------

// What kind of value a PostgreSQL result column holds, from its type's oid (and, for types the
// bridge does not know by oid, its pg_type.typcategory / typtype).
enum class PgKind : uint8_t {
  kBool,
  kInteger,  // smallint, integer, bigint, oid
  kNumeric,
  kFloat,  // real, double precision
  kText,   // text, varchar, char, name, enums, and anything without a better kind
  kBytea,
  kUuid,
  kTimestamptz,
  kTimestamp,  // without time zone: read as UTC
  kDate,
  kTime,
  kInterval,
  kInet,   // inet, cidr
  kJson,   // json, jsonb
  kArray,  // one-dimensional arrays of a kind above (element in PgSourceType)
};

struct PgSourceType {
  uint32_t oid = 0;
  std::string name;  // format_type(), for messages
  PgKind kind = PgKind::kText;
  PgKind element = PgKind::kText;  // kArray only
};

// The kind of a built-in type oid, nullopt for an oid the bridge does not know (the caller
// then asks the catalog: typcategory 'A' with typelem, a domain's base type, else kText).
std::optional<PgKind> pg_kind_of_oid(uint32_t oid);

// Whether pg-import converts values of `source` into a column of CQL type `target`: numbers into
// numbers, text into anything (Cassandra's string forms), and each PostgreSQL type into its
// mapped CQL types (plus timestamp/date into timestamp, arrays and json into lists and sets,
// json into maps, tuples and UDTs, anything into text and ascii).
bool pg_kind_converts_to(const PgSourceType& source, const types::CqlType& target);

}  // namespace cassette::cli::pg
