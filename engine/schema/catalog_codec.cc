// The catalog's record encoding: tagged, length-prefixed fields (see catalog_codec.h and
// engine/schema/FORMAT.md). Nested values (columns, types, map entries) are records themselves,
// without the leading format byte.
#include "engine/schema/catalog_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/types/value.h"
#include "engine/util/coding.h"

namespace cassette::schema::codec {

namespace {

class RecordWriter {
 public:
  void bytes(uint32_t tag, std::string_view value) {
    coding::put_varint32(&out_, tag);
    coding::put_length_prefixed(&out_, value);
  }
  void integer(uint32_t tag, int64_t value) {
    std::string encoded;
    coding::put_signed_varint64(&encoded, value);
    bytes(tag, encoded);
  }
  void entries(uint32_t tag, const std::map<std::string, std::string>& map) {
    for (const auto& [key, value] : map) {
      RecordWriter entry;
      entry.bytes(1, key);
      entry.bytes(2, value);
      bytes(tag, entry.out_);
    }
  }
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

struct Field {
  uint32_t tag;
  std::string_view value;
};

class RecordReader {
 public:
  static Result<RecordReader> parse(std::string_view in, std::string_view what) {
    RecordReader reader;
    reader.what_ = what;
    while (!in.empty()) {
      uint32_t tag = 0;
      std::string_view value;
      if (!coding::get_varint32(&in, &tag) || !coding::get_length_prefixed(&in, &value)) {
        return Status::corruption(fmt::format("catalog: malformed {} record", what));
      }
      reader.fields_.push_back({tag, value});
    }
    return reader;
  }

  std::string string(uint32_t tag) const {
    for (const Field& f : fields_) {
      if (f.tag == tag) return std::string(f.value);
    }
    return {};
  }
  bool has(uint32_t tag) const {
    for (const Field& f : fields_) {
      if (f.tag == tag) return true;
    }
    return false;
  }
  std::vector<std::string_view> all(uint32_t tag) const {
    std::vector<std::string_view> out;
    for (const Field& f : fields_) {
      if (f.tag == tag) out.push_back(f.value);
    }
    return out;
  }
  Result<int64_t> integer(uint32_t tag, int64_t fallback) const {
    for (const Field& f : fields_) {
      if (f.tag != tag) continue;
      std::string_view in = f.value;
      int64_t v = 0;
      if (!coding::get_signed_varint64(&in, &v)) {
        return Status::corruption(fmt::format("catalog: malformed integer in {} record", what_));
      }
      return v;
    }
    return fallback;
  }
  Result<std::map<std::string, std::string>> entries(uint32_t tag) const {
    std::map<std::string, std::string> out;
    for (std::string_view entry : all(tag)) {
      CASSETTE_ASSIGN_OR_RETURN(RecordReader r, parse(entry, what_));
      out[r.string(1)] = r.string(2);
    }
    return out;
  }

 private:
  std::string_view what_;
  std::vector<Field> fields_;
};

// Strips and checks the leading format byte (`newest`: the highest version this kind of record
// has).
Result<RecordReader> open_record(std::string_view bytes, std::string_view what,
                                 uint8_t newest = kFormatVersion) {
  if (bytes.empty() || static_cast<uint8_t>(bytes[0]) < kFormatVersion ||
      static_cast<uint8_t>(bytes[0]) > newest) {
    return Status::corruption(
        fmt::format("catalog: {} record has an unknown format version", what));
  }
  return RecordReader::parse(bytes.substr(1), what);
}

std::string with_format(const RecordWriter& w, uint8_t version = kFormatVersion) {
  std::string out(1, static_cast<char>(version));
  out += w.str();
  return out;
}

// ---- types ----
// kind(1) frozen(2) param(3, repeated) udt_keyspace(4) udt_name(5) field_name(6, repeated)
// dimension(7, vectors only)

std::string encode_cql_type(const types::CqlType& type) {
  RecordWriter w;
  w.integer(1, static_cast<int64_t>(type.kind));
  w.integer(2, type.frozen ? 1 : 0);
  for (const types::CqlType& param : type.params) w.bytes(3, encode_cql_type(param));
  if (!type.udt_keyspace.empty()) w.bytes(4, type.udt_keyspace);
  if (!type.udt_name.empty()) w.bytes(5, type.udt_name);
  for (const std::string& name : type.field_names) w.bytes(6, name);
  if (type.kind == types::TypeKind::kVector) w.integer(7, type.dimension);
  return w.take();
}

// The number of type parameters a kind has (cql_type.h), or nullopt where it varies (a tuple's
// components, a user type's fields).
std::optional<size_t> parameter_count(types::TypeKind kind) {
  switch (kind) {
    case types::TypeKind::kList:
    case types::TypeKind::kSet:
    case types::TypeKind::kVector:
      return 1;
    case types::TypeKind::kMap:
      return 2;
    case types::TypeKind::kTuple:
    case types::TypeKind::kUdt:
      return std::nullopt;
    default:
      return 0;
  }
}

// The kind's name in CQL, for messages ("list", "int"); "user-defined" for a UDT.
std::string kind_name(types::TypeKind kind) {
  switch (kind) {
    case types::TypeKind::kList:
      return "list";
    case types::TypeKind::kSet:
      return "set";
    case types::TypeKind::kMap:
      return "map";
    case types::TypeKind::kTuple:
      return "tuple";
    case types::TypeKind::kUdt:
      return "user-defined";
    case types::TypeKind::kVector:
      return "vector";
    default:
      return types::cql_type_name(types::CqlType::simple(kind));
  }
}

// The value code indexes a type's parameters as its kind promises (a list's element is
// params[0], a user type's field i is named field_names[i]); a record that breaks the promise is
// corrupt, and is refused here rather than failing as an out-of-range index in some statement.
Status check_type_shape(const types::CqlType& type) {
  std::optional<size_t> expected = parameter_count(type.kind);
  if (expected && type.params.size() != *expected) {
    return Status::corruption(fmt::format("catalog: {} type with {} type parameters instead of {}",
                                          kind_name(type.kind), type.params.size(), *expected));
  }
  const size_t names = type.kind == types::TypeKind::kUdt ? type.params.size() : 0;
  if (type.field_names.size() != names) {
    return Status::corruption(fmt::format("catalog: {} type with {} field names for {} fields",
                                          kind_name(type.kind), type.field_names.size(), names));
  }
  return Status::ok();
}

Result<types::CqlType> decode_cql_type(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, RecordReader::parse(bytes, "type"));
  types::CqlType type;
  CASSETTE_ASSIGN_OR_RETURN(int64_t kind, r.integer(1, -1));
  if (kind < 0 || kind > static_cast<int64_t>(types::TypeKind::kVector)) {
    return Status::corruption("catalog: unknown type kind");
  }
  type.kind = static_cast<types::TypeKind>(kind);
  CASSETTE_ASSIGN_OR_RETURN(int64_t frozen, r.integer(2, 0));
  type.frozen = frozen != 0;
  for (std::string_view param : r.all(3)) {
    CASSETTE_ASSIGN_OR_RETURN(types::CqlType p, decode_cql_type(param));
    type.params.push_back(std::move(p));
  }
  type.udt_keyspace = r.string(4);
  type.udt_name = r.string(5);
  for (std::string_view name : r.all(6)) type.field_names.emplace_back(name);
  if (type.kind == types::TypeKind::kVector) {
    CASSETTE_ASSIGN_OR_RETURN(int64_t dimension, r.integer(7, 0));
    if (dimension < 1 || dimension > INT32_MAX)
      return Status::corruption("catalog: vector type with a dimension below 1");
    type.dimension = static_cast<int32_t>(dimension);
  }
  CASSETTE_RETURN_IF_ERROR(check_type_shape(type));
  return type;
}

// ---- columns ----
// name(1) type(2) kind(3) position(4) descending(5) id(6) mask(7); dropped: name(1) type(2)
// at(3) id(4); mask: function(1) argument(2, repeated: type(1), value(2) unless null)

std::string encode_mask(const ColumnMask& mask) {
  RecordWriter w;
  w.bytes(1, mask.function);
  for (size_t i = 0; i < mask.argument_types.size(); ++i) {
    RecordWriter argument;
    argument.bytes(1, encode_cql_type(mask.argument_types[i]));
    if (i < mask.argument_values.size() && mask.argument_values[i])
      argument.bytes(2, *mask.argument_values[i]);
    w.bytes(2, argument.str());
  }
  return w.take();
}

Result<ColumnMask> decode_mask(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, RecordReader::parse(bytes, "column mask"));
  ColumnMask mask;
  mask.function = r.string(1);
  if (mask.function.empty()) return Status::corruption("catalog: column mask without a function");
  for (std::string_view bytes_of_argument : r.all(2)) {
    CASSETTE_ASSIGN_OR_RETURN(RecordReader argument,
                              RecordReader::parse(bytes_of_argument, "column mask"));
    CASSETTE_ASSIGN_OR_RETURN(types::CqlType type, decode_cql_type(argument.string(1)));
    mask.argument_types.push_back(std::move(type));
    mask.argument_values.push_back(argument.has(2) ? std::optional(argument.string(2))
                                                   : std::nullopt);
  }
  return mask;
}

std::string encode_column(const ColumnDef& column) {
  RecordWriter w;
  w.bytes(1, column.name);
  w.bytes(2, encode_cql_type(column.type));
  w.integer(3, static_cast<int64_t>(column.kind));
  w.integer(4, column.position);
  w.integer(5, column.descending ? 1 : 0);
  w.integer(6, column.id);
  if (column.mask) w.bytes(7, encode_mask(*column.mask));
  return w.take();
}

Result<ColumnDef> decode_column(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, RecordReader::parse(bytes, "column"));
  ColumnDef column;
  column.name = r.string(1);
  CASSETTE_ASSIGN_OR_RETURN(column.type, decode_cql_type(r.string(2)));
  CASSETTE_ASSIGN_OR_RETURN(int64_t kind, r.integer(3, 3));
  if (kind < 0 || kind > 3) return Status::corruption("catalog: unknown column kind");
  column.kind = static_cast<ColumnKind>(kind);
  CASSETTE_ASSIGN_OR_RETURN(int64_t position, r.integer(4, 0));
  column.position = static_cast<int>(position);
  CASSETTE_ASSIGN_OR_RETURN(int64_t descending, r.integer(5, 0));
  column.descending = descending != 0;
  CASSETTE_ASSIGN_OR_RETURN(int64_t id, r.integer(6, 0));
  column.id = static_cast<storage::ColumnId>(id);
  if (r.has(7)) {
    CASSETTE_ASSIGN_OR_RETURN(ColumnMask mask, decode_mask(r.string(7)));
    column.mask = std::move(mask);
  }
  return column;
}

std::string encode_dropped(const DroppedColumn& dropped) {
  RecordWriter w;
  w.bytes(1, dropped.name);
  w.bytes(2, encode_cql_type(dropped.type));
  w.integer(3, dropped.dropped_at_micros);
  w.integer(4, dropped.id);
  if (dropped.is_static) w.integer(5, 1);
  return w.take();
}

Result<DroppedColumn> decode_dropped(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, RecordReader::parse(bytes, "dropped column"));
  DroppedColumn dropped;
  dropped.name = r.string(1);
  CASSETTE_ASSIGN_OR_RETURN(dropped.type, decode_cql_type(r.string(2)));
  CASSETTE_ASSIGN_OR_RETURN(dropped.dropped_at_micros, r.integer(3, 0));
  CASSETTE_ASSIGN_OR_RETURN(int64_t id, r.integer(4, 0));
  dropped.id = static_cast<storage::ColumnId>(id);
  CASSETTE_ASSIGN_OR_RETURN(int64_t is_static, r.integer(5, 0));
  dropped.is_static = is_static != 0;
  return dropped;
}

}  // namespace

std::string object_key(ObjectKind kind, std::string_view keyspace, std::string_view name) {
  std::string key(1, static_cast<char>(kind));
  coding::put_length_prefixed(&key, keyspace);
  key.append(name);
  return key;
}

ObjectKind object_kind_of_key(std::string_view key) {
  return key.empty() ? ObjectKind::kKeyspace : static_cast<ObjectKind>(key[0]);
}

// version: version(1) next_table_id(2)
std::string encode_version(const VersionRecord& record) {
  RecordWriter w;
  w.integer(1, static_cast<int64_t>(record.version));
  w.integer(2, static_cast<int64_t>(record.next_table_id));
  return with_format(w);
}

Result<VersionRecord> decode_version(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, open_record(bytes, "version"));
  VersionRecord record;
  CASSETTE_ASSIGN_OR_RETURN(int64_t version, r.integer(1, 0));
  CASSETTE_ASSIGN_OR_RETURN(int64_t next, r.integer(2, 1));
  record.version = static_cast<uint64_t>(version);
  record.next_table_id = static_cast<uint64_t>(next);
  return record;
}

// keyspace: name(1) replication entry(2, repeated) durable_writes(3)
std::string encode_keyspace(const KeyspaceDef& keyspace) {
  RecordWriter w;
  w.bytes(1, keyspace.name);
  w.entries(2, keyspace.replication);
  w.integer(3, keyspace.durable_writes ? 1 : 0);
  return with_format(w);
}

Result<KeyspaceDef> decode_keyspace(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, open_record(bytes, "keyspace"));
  KeyspaceDef keyspace;
  keyspace.name = r.string(1);
  CASSETTE_ASSIGN_OR_RETURN(keyspace.replication, r.entries(2));
  CASSETTE_ASSIGN_OR_RETURN(int64_t durable, r.integer(3, 1));
  keyspace.durable_writes = durable != 0;
  return keyspace;
}

// table: keyspace(1) name(2) id(3) table_id(4) column(5, repeated) dropped(6, repeated)
//        default_time_to_live(7) gc_grace_seconds(8) comment(9) compression entry(10, repeated)
//        other option entry(11, repeated) next_column_id(12); a materialized view also has
//        view_base_table(13) view_base_table_id(14) view_include_all_columns(15)
//        view_where_clause(16)
std::string encode_table(const TableDef& table) {
  RecordWriter w;
  w.bytes(1, table.keyspace);
  w.bytes(2, table.name);
  w.bytes(3, table.id);
  w.integer(4, static_cast<int64_t>(table.table_id));
  for (const ColumnDef& column : table.columns) w.bytes(5, encode_column(column));
  for (const DroppedColumn& dropped : table.dropped) w.bytes(6, encode_dropped(dropped));
  w.integer(7, table.params.default_time_to_live);
  w.integer(8, table.params.gc_grace_seconds);
  w.bytes(9, table.params.comment);
  w.entries(10, table.params.compression);
  w.entries(11, table.params.other);
  w.integer(12, table.next_column_id);
  if (table.view) {
    w.bytes(13, table.view->base_table);
    w.bytes(14, table.view->base_table_id);
    w.integer(15, table.view->include_all_columns ? 1 : 0);
    w.bytes(16, table.view->where_clause);
  }
  const bool masked = std::any_of(table.columns.begin(), table.columns.end(),
                                  [](const ColumnDef& c) { return c.mask.has_value(); });
  return with_format(w, masked ? kMaskedTableFormatVersion : kFormatVersion);
}

Result<TableDef> decode_table(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, open_record(bytes, "table", kMaskedTableFormatVersion));
  TableDef table;
  table.keyspace = r.string(1);
  table.name = r.string(2);
  table.id = r.string(3);
  CASSETTE_ASSIGN_OR_RETURN(int64_t table_id, r.integer(4, 0));
  table.table_id = static_cast<storage::TableId>(table_id);
  for (std::string_view column : r.all(5)) {
    CASSETTE_ASSIGN_OR_RETURN(ColumnDef def, decode_column(column));
    table.columns.push_back(std::move(def));
  }
  for (std::string_view dropped : r.all(6)) {
    CASSETTE_ASSIGN_OR_RETURN(DroppedColumn def, decode_dropped(dropped));
    table.dropped.push_back(std::move(def));
  }
  CASSETTE_ASSIGN_OR_RETURN(table.params.default_time_to_live, r.integer(7, 0));
  CASSETTE_ASSIGN_OR_RETURN(table.params.gc_grace_seconds, r.integer(8, 864000));
  table.params.comment = r.string(9);
  CASSETTE_ASSIGN_OR_RETURN(table.params.compression, r.entries(10));
  CASSETTE_ASSIGN_OR_RETURN(table.params.other, r.entries(11));
  CASSETTE_ASSIGN_OR_RETURN(int64_t next_column_id, r.integer(12, 0));
  table.next_column_id = static_cast<storage::ColumnId>(next_column_id);
  if (r.has(13)) {
    schema::ViewDef view;
    view.base_table = r.string(13);
    view.base_table_id = r.string(14);
    CASSETTE_ASSIGN_OR_RETURN(int64_t all_columns, r.integer(15, 0));
    view.include_all_columns = all_columns != 0;
    view.where_clause = r.string(16);
    table.view = std::move(view);
  }
  table.finalize();
  return table;
}

// type: keyspace(1) name(2) field(3, repeated: name(1) type(2))
std::string encode_type(const UserTypeDef& type) {
  RecordWriter w;
  w.bytes(1, type.keyspace);
  w.bytes(2, type.name);
  for (size_t i = 0; i < type.field_names.size(); ++i) {
    RecordWriter field;
    field.bytes(1, type.field_names[i]);
    field.bytes(2, encode_cql_type(type.field_types[i]));
    w.bytes(3, field.str());
  }
  return with_format(w);
}

Result<UserTypeDef> decode_type(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, open_record(bytes, "type"));
  UserTypeDef type;
  type.keyspace = r.string(1);
  type.name = r.string(2);
  for (std::string_view field : r.all(3)) {
    CASSETTE_ASSIGN_OR_RETURN(RecordReader f, RecordReader::parse(field, "type field"));
    type.field_names.push_back(f.string(1));
    CASSETTE_ASSIGN_OR_RETURN(types::CqlType field_type, decode_cql_type(f.string(2)));
    type.field_types.push_back(std::move(field_type));
  }
  return type;
}

// index: keyspace(1) name(2) table(3) column(4) target(5) custom_class(6) option entry(7, rep.)
std::string encode_index(const IndexDef& index) {
  RecordWriter w;
  w.bytes(1, index.keyspace);
  w.bytes(2, index.name);
  w.bytes(3, index.table);
  w.bytes(4, index.column);
  w.integer(5, static_cast<int64_t>(index.target));
  w.bytes(6, index.custom_class);
  w.entries(7, index.options);
  return with_format(w);
}

Result<IndexDef> decode_index(std::string_view bytes) {
  CASSETTE_ASSIGN_OR_RETURN(RecordReader r, open_record(bytes, "index"));
  IndexDef index;
  index.keyspace = r.string(1);
  index.name = r.string(2);
  index.table = r.string(3);
  index.column = r.string(4);
  CASSETTE_ASSIGN_OR_RETURN(int64_t target, r.integer(5, 0));
  if (target < 0 || target > 3) return Status::corruption("catalog: unknown index target");
  index.target = static_cast<IndexDef::Target>(target);
  index.custom_class = r.string(6);
  CASSETTE_ASSIGN_OR_RETURN(index.options, r.entries(7));
  return index;
}

}  // namespace cassette::schema::codec
