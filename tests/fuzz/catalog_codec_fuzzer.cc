// Fuzz target: the catalog's record codec (engine/schema/catalog_codec.h). The input's first
// byte chooses the kind of record the rest is: the version record, a keyspace, a table, a user
// type or an index.
//
// Beyond "no crash", it checks that decoding is a left inverse of encoding on everything it
// accepts: a record that decodes, encoded again, decodes to something that encodes to the same
// bytes (fields a reader does not know are skipped, so the first encoding may differ from the
// input, but no later one may differ from it); that every type a table or user type decodes to
// can be used: named, and an empty or all-null value of it formatted (a type whose parameters
// break its kind's shape used to decode, then throw out_of_range in the first statement that
// touched it); and a record that fails to decode fails with a status that is not an internal
// error.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/schema/catalog_codec.h"
#include "engine/types/value.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
namespace codec = cassette::schema::codec;

// Names the type and formats a value of it whose elements or fields are none or all null: what
// the value code does with a type, through its parameters and field names, without a value to
// fuzz. An exception here is a crash.
void use_type(const types::CqlType& type) {
  (void)types::cql_type_name(type);
  std::string value;
  if (type.is_collection()) {
    value.assign(4, '\0');  // no elements
  } else if (type.kind == types::TypeKind::kTuple || type.kind == types::TypeKind::kUdt) {
    for (size_t i = 0; i < type.params.size(); ++i) value.append(4, '\xff');  // null fields
  } else {
    return;
  }
  (void)types::format_value(type, value, types::ValueStyle::kCqlsh);
}

void use_types(const schema::TableDef& table) {
  for (const schema::ColumnDef& column : table.columns) use_type(column.type);
}
void use_types(const schema::UserTypeDef& type) {
  for (const types::CqlType& field : type.field_types) use_type(field);
}
template <typename T>
void use_types(const T&) {}

template <typename Decode, typename Encode>
void check_round_trip(std::string_view bytes, Decode decode, Encode encode) {
  auto decoded = decode(bytes);
  if (!decoded.is_ok()) {
    FUZZ_CHECK(decoded.status().code() != StatusCode::kInternal, decoded.status().message());
    return;
  }
  use_types(*decoded);
  const std::string once = encode(*decoded);
  auto again = decode(once);
  FUZZ_CHECK(again.is_ok(), "an encoded record does not decode: " + again.status().message());
  FUZZ_CHECK(encode(*again) == once, "a record encodes differently after a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const uint8_t kind = in.byte() % 5;
  const std::string_view bytes = in.take_rest();
  switch (kind) {
    case 0:
      check_round_trip(bytes, codec::decode_version, codec::encode_version);
      break;
    case 1:
      check_round_trip(bytes, codec::decode_keyspace, codec::encode_keyspace);
      break;
    case 2:
      check_round_trip(bytes, codec::decode_table, codec::encode_table);
      break;
    case 3:
      check_round_trip(bytes, codec::decode_type, codec::encode_type);
      break;
    default:
      check_round_trip(bytes, codec::decode_index, codec::encode_index);
      break;
  }
  return 0;
}
