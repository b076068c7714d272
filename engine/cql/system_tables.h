// System tables: Cassandra 4.1's `system`, `system_schema` and `system_traces` keyspaces, as
// drivers and tools read them (the node in system.local, the schema in system_schema.*, the
// traces of this process's traced requests in system_traces.*, tracing.h), generated from the
// store's schema at each read and never stored. They are read-only: a SELECT on them is an ordinary
// SELECT (WHERE on their keys, selectors, functions, ORDER BY, LIMIT), run over the rows
// generated for the one table it reads; writes, TRUNCATE and schema changes are refused.
//
//   SELECT release_version, schema_version FROM system.local;
//   SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks';
//   SELECT column_name, kind, position, type FROM system_schema.columns
//     WHERE keyspace_name = 'ks' AND table_name = 't';
//
// How the executors meet them: ExecutionContext::resolve_table finds their TableDefs here (a
// Schema of their own, beside the store's), execute_select reads the snapshot
// system_table_snapshot() makes (the generated rows in an overlay, storage/overlay.h), and
// ExecutionContext::resolve_writable_table refuses them to INSERT, UPDATE, DELETE and TRUNCATE.
//
// What is fixed, and why:
// - The node is one Cassandra 4.1 node (release_version kReleaseVersion), datacenter1/rack1,
//   Murmur3Partitioner, one token (kToken): a single node owns the whole ring, so drivers' token
//   maps send every partition to it. system.peers and system.peers_v2 exist and are empty.
// - host_id is derived from the store's canonical path: stable for as long as the store stays
//   where it is, the same in every process that opens it, without writing anything (read-only
//   stores have one too). A store moved elsewhere is another node.
// - schema_version is derived from the schema's content (every keyspace, table, type and index
//   as the catalog encodes it): every process reading the same schema computes the same uuid,
//   and any schema change (a new table has a new random id) gives a new one.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/schema/schema.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::cql {

struct ExecutionContext;  // execution_context.h

// What system.local says about the node: a host that listens (the CQL server) sets where.
struct NodeInfo {
  std::string address = "127.0.0.1";          // rpc_address, listen_address, broadcast_address
  int port = 9042;                            // rpc_port (the native protocol's)
  std::string native_protocol_version = "5";  // Cassandra 5.0's current version
};

inline constexpr std::string_view kClusterName = "Cassette";
inline constexpr std::string_view kReleaseVersion = "5.0.0";
inline constexpr std::string_view kCqlVersion = "3.4.7";  // Cassandra 5.0's
inline constexpr std::string_view kToken = "0";

// Whether `keyspace` is one of the generated keyspaces (system, system_schema, system_traces; exact
// case, as Cassandra's names are lower-case identifiers).
bool is_system_keyspace(std::string_view keyspace);
// The generated keyspaces' definitions: a Schema holding only them.
const schema::Schema& system_keyspaces();
// Whether `table` is one of their tables.
bool is_system_table(const schema::TableDef& table);

// A snapshot of the store in which `table` (REQUIRES: is_system_table) holds the rows generated
// now from `context` (its schema, as the statement sees it, and its node).
Result<std::shared_ptr<const storage::Snapshot>> system_table_snapshot(
    const schema::TableDef& table, const ExecutionContext& context);

// The uuid (text form) system.local gives as schema_version for `schema`.
std::string schema_version_uuid(const schema::Schema& schema);

}  // namespace cassette::cql
