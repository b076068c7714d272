// How the catalog's rows are encoded (the layout is written down in engine/schema/FORMAT.md).
//
// Every schema object (keyspace, table, user type, index) is one row of the store's table 0, in
// one partition; the schema's version and the next table id are one row of another partition,
// so a process can tell cheaply whether the schema changed. A row's value is a record:
//   [u8 format version = 1] then fields [varint tag][varint length][bytes], repeatable,
// which readers skip when they do not know the tag, so later versions can add fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/schema/schema.h"
#include "engine/util/status.h"

namespace cassette::schema::codec {

// The partition keys of the catalog table.
inline constexpr std::string_view kObjectsPartition = "cassette.schema.objects";
inline constexpr std::string_view kVersionPartition = "cassette.schema.version";
// The column of a catalog row that holds its record.
inline constexpr uint32_t kRecordColumn = 1;
inline constexpr uint8_t kFormatVersion = 1;
// The format of a table record with a masked column (FORMAT.md): a reader that knows only
// version 1 refuses it, rather than skip the mask and show the clear values.
inline constexpr uint8_t kMaskedTableFormatVersion = 2;

enum class ObjectKind : uint8_t { kKeyspace = 1, kTable = 2, kType = 3, kIndex = 4 };

// The clustering key of an object's row: [kind][varint len][keyspace][name] (keyspaces: no name).
std::string object_key(ObjectKind kind, std::string_view keyspace, std::string_view name = {});
ObjectKind object_kind_of_key(std::string_view key);

struct VersionRecord {
  uint64_t version = 0;
  uint64_t next_table_id = 1;
};

std::string encode_version(const VersionRecord& record);
std::string encode_keyspace(const KeyspaceDef& keyspace);  // without its tables, types, indexes
std::string encode_table(const TableDef& table);
std::string encode_type(const UserTypeDef& type);
std::string encode_index(const IndexDef& index);

Result<VersionRecord> decode_version(std::string_view bytes);
Result<KeyspaceDef> decode_keyspace(std::string_view bytes);
Result<TableDef> decode_table(std::string_view bytes);
Result<UserTypeDef> decode_type(std::string_view bytes);
Result<IndexDef> decode_index(std::string_view bytes);

}  // namespace cassette::schema::codec
