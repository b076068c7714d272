// Values between CQL's serialized form and PostgreSQL's text forms, for the bridge.
//
// pg-export writes each value in the text input form of its mapped PostgreSQL type (pg_types.h),
// exactly: integers and numerics in full, floats in their shortest round-trip form, timestamps
// as "2024-01-02 03:04:05.123+00", blobs as "\x0102", sets and lists as array literals, maps,
// tuples and UDTs as Cassandra's toJson() for jsonb.
//
// pg-import reads PostgreSQL's output forms (the session runs with DateStyle ISO, TimeZone UTC
// and IntervalStyle iso_8601, see pg_connection.h) and converts them with Cassandra's rules:
// Cassandra's string parser (AbstractType.fromString) for numbers, uuids, dates, times and text,
// fromJson for json into collections, tuples and UDTs, and the bridge's own readers for the
// PostgreSQL forms Cassandra has no parser for (bytea, timestamptz, interval, arrays). Errors
// carry Cassandra's message where Cassandra has one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/types/cql_type.h"
#include "engine/types/value.h"
#include "engine/util/status.h"
#include "ext/pg_common/pg_types.h"

namespace cassette::cli::pg {

// Appends to `out` the PostgreSQL text input form of a (non-null) CQL value for a column of
// pg_type_name(type). Returns false, appending nothing, for an empty value of a non-string type,
// which PostgreSQL cannot hold (exported as NULL); an error for a value PostgreSQL cannot
// represent (text holding a NUL character).
Result<bool> append_pg_text(const types::CqlType& type, std::string_view bytes, std::string& out);
// Whether a value's text form may hold a tab, newline or backslash (text, blobs, arrays, json),
// which COPY's text format must escape; the others are plain ASCII.
bool pg_text_may_need_escaping(const types::CqlType& type);

// The CQL value of a (non-null) PostgreSQL value `text`, of a column of kind `source`, for a
// CQL column of type `target` (null for a json null). REQUIRES: pg_kind_converts_to(source,
// target). `column` names the CQL column in messages (fromJson's "Error decoding JSON value for
// v").
Result<types::Value> cql_value_from_pg(const types::CqlType& target, const PgSourceType& source,
                                       std::string_view text, std::string_view column);

}  // namespace cassette::cli::pg
