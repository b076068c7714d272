// The mapping between CQL values and the storage engine's partitions, rows and cells for one
// table: serialized partition keys, byte-comparable clustering keys, cells for each kind of
// column (simple, counter, frozen or non-frozen collection, UDT), and back.
//
// Non-frozen collections are one cell per element (docs/ARCHITECTURE.md §2): a set element is
// the cell path with an empty value; a map entry has the key as path; a list element has a
// version-1 timeuuid as path (so list order is cell order), and a non-frozen UDT has the field
// index (2-byte big-endian) as path.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/row.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::cql {

// The name of a column as Cassandra prints it in messages (quoted when it needs quotes).
std::string column_name_for_message(std::string_view name);

// The partition key bytes Cassandra would hash: one component as is, several as a compound key.
// `components` are in partition key order.
std::string partition_key_bytes(std::span<const std::string> components);
// Cassandra's checks of a written row's partition key values before partition_key_bytes:
// "Key may not be empty" (a single empty component), "Key length of N is longer than maximum of
// 65535" (a component too long for the key's length prefixes).
Status validate_partition_key_values(std::span<const std::string> components);
// Cassandra's check of a written row's clustering values (ModificationStatement
// .validateClustering): one over 65535 bytes fails with "Key length of N is longer than maximum
// of 65535", N the size of all of them together (as Cassandra's clustering.dataSize()).
Status validate_clustering_values(std::span<const std::string> values);
// The components of a stored partition key, in partition key order.
Result<std::vector<std::string>> partition_key_values(const schema::TableDef& table,
                                                      std::string_view key);

// The encoded clustering key of a full clustering or a prefix of it (the first values.size()
// clustering columns), with each column's ASC/DESC folded in.
Result<std::string> clustering_key_bytes(const schema::TableDef& table,
                                         std::span<const std::string> values);
// The clustering values of an encoded clustering key.
Result<std::vector<std::string>> clustering_values(const schema::TableDef& table,
                                                   std::string_view encoded);

// The cell path of field `index` of a non-frozen UDT: 2 bytes, big-endian.
std::string udt_field_path(size_t index);

// The value a reader sees for column `column` of a row (nullopt when it has no live data): a
// simple cell's value; for a counter the sum as a bigint; for a non-frozen collection or UDT the
// serialized whole assembled from its live element cells.
types::Value read_column(const schema::ColumnDef& column, const storage::Row& row);

// The cells of a non-frozen collection or UDT value (for INSERT and for `c = literal`), to go
// with a complex deletion just below the write timestamp. `list_base_micros` seeds the list
// element timeuuids (each element gets the next one, so the written order is kept).
Result<std::vector<storage::Cell>> element_cells(const schema::ColumnDef& column,
                                                 std::string_view serialized, int64_t timestamp,
                                                 int64_t ttl, int64_t now_seconds,
                                                 int64_t list_base_micros);

// writetime() and ttl() of a simple column (nullopt when it has no live cell).
std::optional<int64_t> column_writetime(const schema::ColumnDef& column, const storage::Row& row);
std::optional<int64_t> column_ttl(const schema::ColumnDef& column, const storage::Row& row,
                                  int64_t now_seconds);

// writetime() and ttl() of a non-frozen collection or UDT (Cassandra 5.0): one entry per element
// in the order of its value (per field for a UDT, nullopt for a field without a cell); a ttl()
// entry is nullopt for an element written without TTL. nullopt when the column has no live cell.
std::optional<std::vector<std::optional<int64_t>>> element_times(const schema::ColumnDef& column,
                                                                 const storage::Row& row,
                                                                 bool writetime,
                                                                 int64_t now_seconds);

}  // namespace cassette::cql
