// Bind markers (? and :name): what each one receives, and a statement with values bound to them.
//
// A marker takes its type from where it sits, as Cassandra's prepare does (the receiver's
// ColumnSpecification): a column gives its own name and type; a collection element, key or
// index gives "value(l)", "key(m)", "idx(l)"; a UDT field "u.f"; a tuple component "t[0]"; a
// function argument "arg0(system.blobasint)"; IN ? gives "in(k)" of type list<type>; token(?)
// gives "partition key token" (bigint); the synthetic ones are "[ttl]" int, "[timestamp]"
// bigint, "[limit]" and "[per_partition_limit]" int, "[json]" text. A :name marker is named
// after itself.
//
// Binding replaces every marker by its value (a Term of kind kBoundValue), so the executors run
// a bound statement as they run one written with literals. A value is the native protocol's
// serialized bytes, null, or (protocol v4) unset: an unset value leaves its column alone in
// INSERT and UPDATE, drops a USING TTL/TIMESTAMP or LIMIT, and is an error where a value is
// needed ("Invalid unset value for column k" in a WHERE restriction).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/util/status.h"

namespace cassette::cql {

// The receiver of one marker: the native protocol's column spec in prepared metadata.
struct BindVariable {
  std::string keyspace;
  std::string table;
  std::string name;
  types::CqlType type;
  // The partition key column the marker gives whole (k = ?, a value of INSERT's k), or -1:
  // its position in the partition key, for PreparedStatement::partition_key_indexes.
  int partition_key_position = -1;
};

// A value for one marker.
struct BoundValue {
  enum class Kind { kValue, kNull, kUnset };
  Kind kind = Kind::kNull;
  std::string bytes;  // kValue: the serialized value

  static BoundValue value(std::string bytes) { return {Kind::kValue, std::move(bytes)}; }
  static BoundValue null() { return {Kind::kNull, {}}; }
  static BoundValue unset() { return {Kind::kUnset, {}}; }
};

// The variables of `statement`'s `marker_count` markers, in marker order, checked against the
// schema of `context`. `statement` is rewritten with every table name qualified by its keyspace,
// so that it runs the same whatever the session's current keyspace is later. Errors as
// Cassandra's prepare gives them ("Undefined column name x", "Bind variables are not supported
// here: ?" for a marker whose type cannot be known, e.g. in a selector).
Result<std::vector<BindVariable>> bind_variables(Statement& statement, size_t marker_count,
                                                 const ExecutionContext& context);

// `statement` with `values` bound to its markers, whose receivers are `variables` (from
// bind_variables). REQUIRES: values.size() == variables.size(). Checks each value against its
// type (validate_value's messages, e.g. "Expected 4 or 0 byte int (3)") and where it may be
// unset. nullopt when unset values leave nothing to do (every assignment of an UPDATE, every
// target of a DELETE), which then is a no-op as in Cassandra.
Result<std::optional<Statement>> bind_values(const Statement& statement,
                                             std::span<const BindVariable> variables,
                                             std::span<const BoundValue> values,
                                             const ExecutionContext& context);

}  // namespace cassette::cql
