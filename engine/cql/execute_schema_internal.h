// Helpers shared by the schema statement executors (execute_schema*.cc): running a catalog change,
// resolving the types a statement names, and Cassandra's quoting of identifiers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/cql/execution_context.h"
#include "engine/schema/schema.h"

namespace cassette::cql::schema_internal {

// Changes the catalog. `change` gets the latest schema and returns the next one, or nullopt for
// "nothing to do" (an IF [NOT] EXISTS that did not apply), in which case the result is Void.
// Otherwise the result is a schema change and `context.schema` is the new schema.
using Change = std::function<Result<std::optional<schema::Schema>>(const schema::Schema&)>;
Result<ExecutionResult> run_change(ExecutionContext& context, const Change& change);
// run_change, with `writes` committed in the same transaction as the change (when it changed
// something): Catalog::change's ExtraWrites.
Result<ExecutionResult> run_change(ExecutionContext& context, const Change& change,
                                   const schema::Catalog::ExtraWrites& writes);

// A copy of keyspace `name` of `schema` to modify. REQUIRES: it exists.
std::shared_ptr<schema::KeyspaceDef> copy_keyspace(const schema::Schema& schema,
                                                   const std::string& name);

// Turns a type as the parser wrote it (UDTs named only) into a full type, in `keyspace`, with
// Cassandra's checks on nesting: "Unknown type ks.foo", "Non-frozen collections are not allowed
// inside collections: list<list<int>>", "Counters are not allowed inside collections: ...", ...
Result<types::CqlType> resolve_type(const types::CqlType& raw, const std::string& keyspace,
                                    const schema::KeyspaceDef& definitions);

// Builds the table a CREATE TABLE describes in keyspace `keyspace_name`, checked against
// `keyspace`'s types (which need not be in a schema: the system tables' empty keyspaces).
Result<schema::TableDef> build_table(const CreateTableStatement& statement,
                                     const std::string& keyspace_name,
                                     const schema::KeyspaceDef& keyspace);

// An index's target as Cassandra writes it (DESCRIBE, system_schema.indexes' 'target'): the
// column, or keys(m), values(m), entries(m), full(m).
std::string index_target(const schema::TableDef& table, const schema::IndexDef& index);

// Whether `type` (or anything in it) is, or refers to, the user type ks.name.
bool references_type(const types::CqlType& type, std::string_view keyspace, std::string_view name);
// Replaces every use of user type ks.name inside `type` by `replacement` (keeping frozenness).
types::CqlType replace_type(const types::CqlType& type, const schema::UserTypeDef& replacement);
bool references_duration(const types::CqlType& type);

// The identifier as CQL must write it: bare when it is lower-case alphanumeric and not a reserved
// word, else double-quoted with quotes doubled (Cassandra's ColumnIdentifier.maybeQuote).
std::string maybe_quote(std::string_view identifier);
// The CQL spelling of a type, as in messages and DESCRIBE.
std::string type_name(const types::CqlType& type, std::string_view keyspace = {});

// A random (version 4) uuid in its text form, for table ids.
std::string random_uuid_text();

// Cassandra's check of keyspace/table/type names ("\w+", at most 48 characters).
bool is_valid_name(std::string_view name);

// Puts the columns in Cassandra's select order: partition key and clustering columns by
// position, then static and then regular columns, each with simple columns before complex
// (multi-cell) ones and by name.
void sort_columns(std::vector<schema::ColumnDef>& columns);

}  // namespace cassette::cql::schema_internal
