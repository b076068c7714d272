// SCHEMA_CHANGE events (native_protocol_v4.spec §4.2.6) from two versions of the schema: the
// server keeps the last schema it announced, and whenever the store's schema version moves - a
// statement through this server, another `cassette` shell, SQLite or PostgreSQL on the same
// store - it announces the difference to the connections that registered for it.
#pragma once

#include <vector>

#include "engine/schema/schema.h"
#include "ext/server/result_encoding.h"

namespace cassette::server {

// What changed from `before` to `after`, as Cassandra announces it: CREATED/UPDATED/DROPPED of
// a KEYSPACE (its replication or durable_writes), a TABLE (its definition or its indexes: an
// index is announced as UPDATED TABLE of its table) and a TYPE. A dropped keyspace is announced
// once, without its tables and types (drivers drop them with it); the tables and types of a
// created keyspace are announced after it. Keyspace by keyspace in name order: the keyspace,
// its tables, its types; dropped keyspaces last.
std::vector<SchemaChange> schema_changes_between(const schema::Schema& before,
                                                 const schema::Schema& after);

}  // namespace cassette::server
