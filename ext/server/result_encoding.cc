#include "ext/server/result_encoding.h"

#include <string>

#include "ext/server/md5.h"

namespace cassette::server {

using types::CqlType;
using types::TypeKind;

namespace {

// The [option] ids of native_protocol_v4.spec §4.2.5.2.
uint16_t simple_type_id(TypeKind kind) {
  switch (kind) {
    case TypeKind::kAscii:
      return 0x0001;
    case TypeKind::kBigint:
      return 0x0002;
    case TypeKind::kBlob:
      return 0x0003;
    case TypeKind::kBoolean:
      return 0x0004;
    case TypeKind::kCounter:
      return 0x0005;
    case TypeKind::kDecimal:
      return 0x0006;
    case TypeKind::kDouble:
      return 0x0007;
    case TypeKind::kFloat:
      return 0x0008;
    case TypeKind::kInt:
      return 0x0009;
    case TypeKind::kTimestamp:
      return 0x000B;
    case TypeKind::kUuid:
      return 0x000C;
    case TypeKind::kText:
      return 0x000D;
    case TypeKind::kVarint:
      return 0x000E;
    case TypeKind::kTimeuuid:
      return 0x000F;
    case TypeKind::kInet:
      return 0x0010;
    case TypeKind::kDate:
      return 0x0011;
    case TypeKind::kTime:
      return 0x0012;
    case TypeKind::kSmallint:
      return 0x0013;
    case TypeKind::kTinyint:
      return 0x0014;
    default:
      return 0x0000;  // composite types and duration: handled by the caller
  }
}

constexpr uint16_t kCustomId = 0x0000;
constexpr uint16_t kDurationId = 0x0015;  // from protocol v5
constexpr uint16_t kListId = 0x0020;
constexpr uint16_t kMapId = 0x0021;
constexpr uint16_t kSetId = 0x0022;
constexpr uint16_t kUdtId = 0x0030;
constexpr uint16_t kTupleId = 0x0031;

// The class of Cassandra's AbstractType for `type`, as AbstractType.toString() spells it: what a
// custom [option] names. Vectors are sent so (native protocol v5 has no vector id), e.g.
// org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3).
std::string marshal_class(const CqlType& type) {
  static const char* const kSimple[] = {
      "AsciiType",    "LongType",   "BytesType",    "BooleanType", "CounterColumnType",
      "DecimalType",  "DoubleType", "DurationType", "FloatType",   "InetAddressType",
      "Int32Type",    "ShortType",  "UTF8Type",     "TimeType",    "TimestampType",
      "TimeUUIDType", "ByteType",   "UUIDType",     "IntegerType"};
  const std::string prefix = "org.apache.cassandra.db.marshal.";
  std::string inner;
  switch (type.kind) {
    case TypeKind::kDate:
      return prefix + "SimpleDateType";
    case TypeKind::kList:
    case TypeKind::kSet:
      inner = prefix + (type.kind == TypeKind::kList ? "ListType(" : "SetType(") +
              marshal_class(type.params.at(0)) + ")";
      break;
    case TypeKind::kMap:
      inner = prefix + "MapType(" + marshal_class(type.params.at(0)) + "," +
              marshal_class(type.params.at(1)) + ")";
      break;
    case TypeKind::kVector:
      return prefix + "VectorType(" + marshal_class(type.params.at(0)) + " , " +
             std::to_string(type.dimension) + ")";
    case TypeKind::kTuple: {
      inner = prefix + "TupleType(";
      for (size_t i = 0; i < type.params.size(); ++i)
        inner += (i > 0 ? "," : "") + marshal_class(type.params[i]);
      inner += ")";
      break;
    }
    case TypeKind::kUdt:
      return prefix + "BytesType";  // never a vector element in practice; no UserType spelling
    default: {
      // kSimple follows TypeKind's order with kDate taken out
      auto i = static_cast<size_t>(type.kind);
      if (type.kind > TypeKind::kDate) --i;
      return prefix + (i < std::size(kSimple) ? kSimple[i] : "BytesType");
    }
  }
  return type.frozen ? prefix + "FrozenType(" + inner + ")" : inner;
}

void write_udt_option(BodyWriter& out, const CqlType& type, uint8_t version) {
  out.write_short(kUdtId);
  out.write_string(type.udt_keyspace);
  out.write_string(type.udt_name);
  out.write_short(static_cast<uint16_t>(type.params.size()));
  for (size_t i = 0; i < type.params.size(); ++i) {
    out.write_string(i < type.field_names.size() ? type.field_names[i] : std::string());
    write_type_option(out, type.params[i], version);
  }
}

}  // namespace

void write_type_option(BodyWriter& out, const CqlType& type, uint8_t version) {
  switch (type.kind) {
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kSmallint:
    case TypeKind::kTinyint:
      // Types of v4: a v3 client gets them as custom types, as Cassandra's DataType.fromType
      // names a type newer than the client's version.
      if (version >= 4) break;
      out.write_short(kCustomId);
      out.write_string(marshal_class(type));
      return;
    default:
      break;
  }
  switch (type.kind) {
    case TypeKind::kDuration:
      if (version >= 5) {
        out.write_short(kDurationId);
        return;
      }
      out.write_short(kCustomId);
      out.write_string("org.apache.cassandra.db.marshal.DurationType");
      return;
    case TypeKind::kList:
    case TypeKind::kSet:
      out.write_short(type.kind == TypeKind::kList ? kListId : kSetId);
      write_type_option(out, type.params.at(0), version);
      return;
    case TypeKind::kMap:
      out.write_short(kMapId);
      write_type_option(out, type.params.at(0), version);
      write_type_option(out, type.params.at(1), version);
      return;
    case TypeKind::kUdt:
      write_udt_option(out, type, version);
      return;
    case TypeKind::kVector:
      out.write_short(kCustomId);
      out.write_string(marshal_class(type));
      return;
    case TypeKind::kTuple:
      out.write_short(kTupleId);
      out.write_short(static_cast<uint16_t>(type.params.size()));
      for (const CqlType& component : type.params) write_type_option(out, component, version);
      return;
    default:
      out.write_short(simple_type_id(type.kind));
      return;
  }
}

namespace {

void write_rows_metadata(BodyWriter& out, const std::vector<cql::ResultColumn>& columns,
                         const RowsSource& source, bool skip_metadata,
                         const std::optional<std::string>& paging_state,
                         const std::optional<std::string>& new_metadata_id, uint8_t version) {
  int32_t flags = skip_metadata ? kRowsNoMetadata : kRowsGlobalTablesSpec;
  if (paging_state) flags |= kRowsHasMorePages;
  if (new_metadata_id) flags |= kRowsMetadataChanged;
  out.write_int(flags);
  out.write_int(static_cast<int32_t>(columns.size()));
  if (paging_state) out.write_bytes(paging_state);
  if (new_metadata_id) out.write_short_bytes(*new_metadata_id);
  if (skip_metadata) return;
  out.write_string(source.keyspace);
  out.write_string(source.table);
  for (const cql::ResultColumn& column : columns) {
    out.write_string(column.name);
    write_type_option(out, column.type, version);
  }
}

// The variables' partition key indexes: all of them, or none when a partition key column is not
// bound whole by one marker (the driver then routes without a token).
std::vector<uint16_t> routing_indexes(const cql::PreparedStatement& prepared) {
  std::vector<uint16_t> indexes;
  for (const std::optional<int>& index : prepared.partition_key_indexes) {
    if (!index) return {};
    indexes.push_back(static_cast<uint16_t>(*index));
  }
  return indexes;
}

void write_variables_metadata(BodyWriter& out, const cql::PreparedStatement& prepared,
                              uint8_t version) {
  const std::vector<cql::BindVariable>& variables = prepared.variables;
  bool one_table = true;
  for (const cql::BindVariable& v : variables) {
    one_table =
        one_table && v.keyspace == variables.front().keyspace && v.table == variables.front().table;
  }
  const bool global = !variables.empty() && one_table;
  out.write_int(global ? kRowsGlobalTablesSpec : 0);
  out.write_int(static_cast<int32_t>(variables.size()));
  if (version >= 4) {  // the partition key's variables: v4 on
    const std::vector<uint16_t> indexes = routing_indexes(prepared);
    out.write_int(static_cast<int32_t>(indexes.size()));
    for (uint16_t index : indexes) out.write_short(index);
  }
  if (global) {
    out.write_string(variables.front().keyspace);
    out.write_string(variables.front().table);
  }
  for (const cql::BindVariable& v : variables) {
    if (!global) {
      out.write_string(v.keyspace);
      out.write_string(v.table);
    }
    out.write_string(v.name);
    write_type_option(out, v.type, version);
  }
}

}  // namespace

std::string encode_rows_result(const cql::ResultSet& rows, const RowsSource& source,
                               bool skip_metadata, const std::optional<std::string>& paging_state,
                               const std::optional<std::string>& new_metadata_id, uint8_t version) {
  BodyWriter out;
  out.write_int(kResultRows);
  write_rows_metadata(out, rows.columns, source, skip_metadata, paging_state, new_metadata_id,
                      version);
  out.write_int(static_cast<int32_t>(rows.rows.size()));
  for (const auto& row : rows.rows) {
    for (const types::Value& value : row) out.write_bytes(value);
  }
  return out.take();
}

namespace {

void write_result_metadata(BodyWriter& out, const cql::PreparedStatement& prepared,
                           const RowsSource& source, uint8_t version) {
  if (prepared.result_columns.empty()) {
    out.write_int(kRowsNoMetadata);
    out.write_int(0);
  } else {
    write_rows_metadata(out, prepared.result_columns, source, false, std::nullopt, std::nullopt,
                        version);
  }
}

}  // namespace

std::string result_metadata_id(const cql::PreparedStatement& prepared, const RowsSource& source) {
  BodyWriter metadata;
  write_result_metadata(metadata, prepared, source, 5);  // the id is v5's
  return md5(metadata.body());
}

std::string encode_prepared_result(const std::string& id, const cql::PreparedStatement& prepared,
                                   const RowsSource& source, uint8_t version) {
  BodyWriter out;
  out.write_int(kResultPrepared);
  out.write_short_bytes(id);
  if (version >= 5) out.write_short_bytes(result_metadata_id(prepared, source));
  write_variables_metadata(out, prepared, version);
  write_result_metadata(out, prepared, source, version);
  return out.take();
}

std::string encode_void_result() {
  BodyWriter out;
  out.write_int(kResultVoid);
  return out.take();
}

std::string encode_set_keyspace_result(std::string_view keyspace) {
  BodyWriter out;
  out.write_int(kResultSetKeyspace);
  out.write_string(keyspace);
  return out.take();
}

void write_schema_change(BodyWriter& out, const SchemaChange& change) {
  out.write_string(change.change_type);
  out.write_string(change.target);
  out.write_string(change.keyspace);
  if (change.target != "KEYSPACE") out.write_string(change.name);
}

std::string encode_schema_change_result(const SchemaChange& change) {
  BodyWriter out;
  out.write_int(kResultSchemaChange);
  write_schema_change(out, change);
  return out.take();
}

}  // namespace cassette::server
