// Fuzz target: byte-comparable key decoding (engine/types/byte_comparable.h). The input is one
// to four clustering column types (fuzz_support.h's byte form, each followed by a byte whose
// low bit makes the column DESC) and then the bytes of an encoded key.
//
// Beyond "no crash", it checks:
//  - decode, encode: a key that decodes re-encodes to exactly the bytes it was decoded from
//    (only the encoder's output is well formed);
//  - compare: two components decoded one after the other from the key's bytes, with the first
//    column's type, encode in the order Cassandra's comparator puts their values in (memcmp of
//    the encodings has the sign of compare_values whenever that is not 0; DESC reverses it).
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/byte_comparable.h"
#include "engine/types/value.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::types;

int sign(int x) {
  return (x > 0) - (x < 0);
}

void check_round_trip(std::span<const CqlType> types, std::span<const bool> descending,
                      std::string_view key) {
  auto values = decode_clustering(types, descending, key);
  if (!values.is_ok()) {
    FUZZ_CHECK(values.status().is_corruption(), values.status().message());
    return;
  }
  std::string encoded;
  Status s = encode_clustering(types.first(values->size()), descending.first(values->size()),
                               *values, &encoded);
  FUZZ_CHECK(s.is_ok(), "a decoded key does not encode: " + s.message());
  FUZZ_CHECK(encoded == key, "a key does not re-encode to its bytes");
}

void check_order(const CqlType& type, bool descending, std::string_view bytes) {
  std::string_view in = bytes;
  const std::string_view first_bytes = in;
  auto a = decode_key_component(type, descending, &in);
  if (!a.is_ok()) return;
  const std::string_view a_encoding = first_bytes.substr(0, first_bytes.size() - in.size());
  const std::string_view second_bytes = in;
  auto b = decode_key_component(type, descending, &in);
  if (!b.is_ok()) return;
  const std::string_view b_encoding = second_bytes.substr(0, second_bytes.size() - in.size());
  const int by_value = sign(compare_values(type, *a, *b)) * (descending ? -1 : 1);
  if (by_value == 0) return;
  const int by_bytes = sign(a_encoding.compare(b_encoding));
  FUZZ_CHECK(by_bytes == by_value,
             "the encodings of two " + cql_type_name(type) + " values sort against compare_values");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  std::vector<CqlType> types(in.byte() % 4 + 1);
  bool descending[4] = {};
  for (size_t i = 0; i < types.size(); ++i) {
    types[i] = fuzz::read_type(in);
    // a clustering column's collection or UDT is frozen
    types[i].frozen =
        types[i].frozen || types[i].is_collection() || types[i].kind == TypeKind::kUdt;
    descending[i] = in.boolean();
  }
  const std::string_view key = in.take_rest();
  check_round_trip(types, std::span<const bool>(descending, types.size()), key);
  check_order(types[0], descending[0], key);
  return 0;
}
