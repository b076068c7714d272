// vector<T, n> values (value_vector.cc): Cassandra 5.0's serialized forms, their checks and
// messages, comparison, the byte-comparable key encoding, and the similarity scores.
#include <doctest/doctest.h>

#include "engine/cql/vector_similarity.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/value.h"
#include "engine/types/value_internal.h"

using namespace cassette;
using namespace cassette::types;

namespace {

CqlType vec(TypeKind element, int32_t n) {
  return CqlType::vector(CqlType::simple(element), n);
}

}  // namespace

TEST_CASE("a float vector is its elements back to back, big-endian") {
  const CqlType type = vec(TypeKind::kFloat, 2);
  const std::string bytes =
      serialize_vector(type, std::vector<std::string>{float_bytes(1.0f), float_bytes(-2.5f)});
  CHECK(bytes == std::string("\x3f\x80\x00\x00\xc0\x20\x00\x00", 8));
  CHECK(format_value(type, bytes, ValueStyle::kCqlsh) == "[1, -2.5]");
  CHECK(to_json(type, bytes) == "[1.0, -2.5]");
  CHECK(cql_type_name(type) == "vector<float, 2>");
  auto floats = vector_floats(bytes, 2);
  REQUIRE(floats.is_ok());
  CHECK((*floats)[1] == -2.5f);
}

TEST_CASE("a variable-width element carries a vint length") {
  const CqlType type = vec(TypeKind::kText, 2);
  const std::string bytes = serialize_vector(type, std::vector<std::string>{"a", "bc"});
  CHECK(bytes == std::string("\x01"
                             "a"
                             "\x02"
                             "bc",
                             5));
  auto elements = deserialize_vector(type, bytes);
  REQUIRE(elements.is_ok());
  CHECK(*elements == std::vector<std::string>{"a", "bc"});
  // a 200-byte element needs a two-byte vint (0x80 | high bits, low byte)
  const std::string long_text(200, 'x');
  const std::string two = serialize_vector(type, std::vector<std::string>{long_text, ""});
  CHECK(two.substr(0, 2) == std::string("\x80\xc8", 2));
  CHECK(deserialize_vector(type, two).is_ok());
}

TEST_CASE("malformed vectors get Cassandra's messages") {
  const CqlType ints = vec(TypeKind::kInt, 2);
  CHECK(deserialize_vector(ints, "").status().message() == "Invalid empty vector value");
  CHECK(deserialize_vector(ints, std::string(4, '\0')).status().message() ==
        "Not enough bytes to read a vector<int, 2>");
  CHECK(deserialize_vector(ints, std::string(12, '\0')).status().message() ==
        "Unexpected 4 extraneous bytes after vector<int, 2> value");
  const CqlType texts = vec(TypeKind::kText, 2);
  CHECK(validate_value(texts, std::string("\x01"
                                          "a"
                                          "\x01\xff",
                                          4))
            .message() == "String didn't validate.");
  CHECK(validate_value(ints, "").message() == "Invalid empty vector value");
}

TEST_CASE("vectors compare element by element and keep that order as keys") {
  const CqlType type = vec(TypeKind::kFloat, 2);
  auto v = [&](float a, float b) {
    return serialize_vector(type, std::vector<std::string>{float_bytes(a), float_bytes(b)});
  };
  CHECK(compare_values(type, v(-1, 5), v(0, -5)) < 0);
  CHECK(compare_values(type, v(1, 2), v(1, 2)) == 0);
  std::string low, high;
  REQUIRE(encode_key_component(type, v(-1, 5), false, &low).is_ok());
  REQUIRE(encode_key_component(type, v(0, -5), false, &high).is_ok());
  CHECK(low < high);
  std::string_view in = high;
  auto back = decode_key_component(type, false, &in);
  REQUIRE(back.is_ok());
  CHECK(*back == v(0, -5));
  CHECK(in.empty());
}

TEST_CASE("similarity scores are Cassandra's") {
  using cql::Similarity;
  const std::vector<float> a{1, 2}, b{3, -1};
  CHECK(cql::similarity_score(Similarity::kCosine, a, a) == doctest::Approx(1.0));
  // cos = (3 - 2) / (sqrt(5) sqrt(10)) = 0.1414..., score (1 + cos) / 2
  CHECK(cql::similarity_score(Similarity::kCosine, a, b) == doctest::Approx(0.5707107));
  // |a - b|^2 = 4 + 9 = 13
  CHECK(cql::similarity_score(Similarity::kEuclidean, a, b) == doctest::Approx(1.0 / 14));
  CHECK(cql::similarity_score(Similarity::kDotProduct, a, b) == doctest::Approx(1.0));
}
