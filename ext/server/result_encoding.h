// The bodies of RESULT messages (native_protocol_v4.spec §4.2.5): Void, Rows with their
// metadata, Set_keyspace and Schema_change, built from what the engine's Session returns.
//
// Values need no conversion: the engine keeps every value in Cassandra's serialization, which is
// the protocol's <value> encoding of its type (engine/types/value.h). Only types' descriptions
// are written here ([option]s, §4.2.5.2).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/cql/result.h"
#include "engine/cql/session.h"
#include "engine/types/cql_type.h"
#include "ext/server/body.h"

namespace cassette::server {

// RESULT kinds (§4.2.5).
inline constexpr int32_t kResultVoid = 0x0001;
inline constexpr int32_t kResultRows = 0x0002;
inline constexpr int32_t kResultSetKeyspace = 0x0003;
inline constexpr int32_t kResultPrepared = 0x0004;
inline constexpr int32_t kResultSchemaChange = 0x0005;

// Rows metadata flags (§4.2.5.2).
inline constexpr int32_t kRowsGlobalTablesSpec = 0x0001;
inline constexpr int32_t kRowsHasMorePages = 0x0002;
inline constexpr int32_t kRowsNoMetadata = 0x0004;
inline constexpr int32_t kRowsMetadataChanged = 0x0008;  // v5

// The [option] describing `type`: its id, then for list/set the element, for map key and value,
// for a UDT its keyspace, name and fields, for a tuple its components, as protocol `version`
// has it. Duration is id 0x0015 from v5 on; v4 has no id for it: there it is the custom type
// org.apache.cassandra.db.marshal.DurationType, as Cassandra 4 sends it to v4 clients
// (DataType.DURATION needs ProtocolVersion.V5).
void write_type_option(BodyWriter& out, const types::CqlType& type, uint8_t version = 4);

// Where the rows come from, for the metadata's global table spec.
struct RowsSource {
  std::string keyspace;
  std::string table;
};

// A Rows result: metadata (or only the column count when `skip_metadata`, the QUERY/EXECUTE
// flag), then the rows. With `paging_state` the metadata says more pages follow and carries it;
// with `new_metadata_id` (v5) it says the metadata changed (flag Metadata_changed) and carries
// the id after the paging state.
std::string encode_rows_result(const cql::ResultSet& rows, const RowsSource& source,
                               bool skip_metadata,
                               const std::optional<std::string>& paging_state = std::nullopt,
                               const std::optional<std::string>& new_metadata_id = std::nullopt,
                               uint8_t version = 4);

// v5's result metadata id of a prepared statement: the MD5 digest of its result metadata, as a
// Prepared result writes it (Cassandra digests the columns' names and types likewise). A driver
// sends it back with EXECUTE; a different one gets the metadata again with the new id.
std::string result_metadata_id(const cql::PreparedStatement& prepared, const RowsSource& source);

// A Prepared result (§4.2.5.4) for protocol v4: the id, the variables' metadata with the
// partition key indexes (every partition key column bound whole by a marker, else none), and the
// result metadata (the SELECT's columns; none, flag No_metadata, for other statements). v4 has
// no result metadata id: a driver skips metadata on EXECUTE only while the statement is
// unchanged, and a table altered since PREPARE answers UNPREPARED, so it never decodes rows
// with stale metadata.
// From protocol v5 (`version`) the result metadata id follows the id.
std::string encode_prepared_result(const std::string& id, const cql::PreparedStatement& prepared,
                                   const RowsSource& source, uint8_t version = 4);
std::string encode_void_result();
std::string encode_set_keyspace_result(std::string_view keyspace);

// What a schema change did, as a Schema_change result and a SCHEMA_CHANGE event carry it.
struct SchemaChange {
  std::string change_type;  // CREATED, UPDATED, DROPPED
  std::string target;       // KEYSPACE, TABLE, TYPE
  std::string keyspace;
  std::string name;  // the table or type; empty for KEYSPACE
};
std::string encode_schema_change_result(const SchemaChange& change);
// <change_type><target><options>, the part a Schema_change result and an event share.
void write_schema_change(BodyWriter& out, const SchemaChange& change);

}  // namespace cassette::server
