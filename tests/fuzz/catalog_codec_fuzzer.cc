// Fuzz target: the catalog's record codec (engine/schema/catalog_codec.h). The input's first
// byte chooses the kind of record the rest is: the version record, a keyspace, a table, a user
// type or an index.
//
// Beyond "no crash", it checks that decoding is a left inverse of encoding on everything it
// accepts: a record that decodes, encoded again, decodes to something that encodes to the same
// bytes (fields a reader does not know are skipped, so the first encoding may differ from the
// input, but no later one may differ from it); and a record that fails to decode fails with a
// status that is not an internal error.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/schema/catalog_codec.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
namespace codec = cassette::schema::codec;

template <typename Decode, typename Encode>
void check_round_trip(std::string_view bytes, Decode decode, Encode encode) {
  auto decoded = decode(bytes);
  if (!decoded.is_ok()) {
    FUZZ_CHECK(decoded.status().code() != StatusCode::kInternal, decoded.status().message());
    return;
  }
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
