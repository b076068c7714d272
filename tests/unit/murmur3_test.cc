#include "engine/types/murmur3.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/types/partition_key.h"

using namespace cassette;
using namespace cassette::types;

namespace {

std::string int_bytes(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  return {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
          static_cast<char>(u)};
}

std::string bigint_bytes(int64_t v) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>(static_cast<uint64_t>(v) >> shift));
  }
  return out;
}

}  // namespace

TEST_CASE("murmur3 tokens match Cassandra's Murmur3Partitioner") {
  CHECK(murmur3_token(int_bytes(1)) == -4069959284402364209);
  CHECK(murmur3_token(bigint_bytes(1)) == 6292367497774912474);
  CHECK(murmur3_token("a") == -8839064797231613815);

  const std::vector<std::string> compound = {int_bytes(1), int_bytes(2)};
  CHECK(murmur3_token(serialize_partition_key(compound)) == 4881097376275569167);
}

TEST_CASE("int partition keys 0..9 sort by token in Cassandra's order") {
  std::vector<int32_t> keys = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::sort(keys.begin(), keys.end(), [](int32_t a, int32_t b) {
    return murmur3_token(int_bytes(a)) < murmur3_token(int_bytes(b));
  });
  CHECK(keys == std::vector<int32_t>{5, 1, 8, 0, 2, 4, 7, 6, 9, 3});
}

TEST_CASE("murmur3 sign-extends tail bytes like Cassandra for every block/tail split") {
  // Keys of bytes (0x80 + 7 * i) & 0xff, mostly >= 0x80 so the sign-extension quirk shows.
  // Expected tokens from an independent (Python) port of Cassandra's
  // MurmurHash.hash3_x64_128, which also reproduces the required vectors above.
  const std::pair<size_t, int64_t> expected[] = {
      {1, -5284281814142962636}, {7, -5968304505574019857},  {8, 512842628024960352},
      {9, 683171345539645642},   {15, 3052317648445578018},  {16, -2954592189485143609},
      {17, 5211886051089384206}, {23, -8925955735606023974}, {24, 860463995639002433},
      {31, 1870246301362292004}, {32, -8273940428225357516}, {33, -5068544799612549991},
      {40, 7174760491778422837},
  };
  for (const auto& [length_of_key, token] : expected) {
    const size_t length = length_of_key;  // (CAPTURE cannot take a structured binding in clang 14)
    std::string key;
    for (size_t i = 0; i < length; ++i) key.push_back(static_cast<char>((0x80 + i * 7) & 0xff));
    CAPTURE(length);
    CHECK(murmur3_token(key) == token);
  }
}

TEST_CASE("murmur3 handles every tail length and high bytes without INT64_MIN") {
  // Exercise 0..40 byte keys made of bytes >= 0x80, where the sign-extension quirk matters;
  // the tokens must be deterministic and distinct.
  std::vector<int64_t> tokens;
  std::string key;
  for (int len = 0; len <= 40; ++len) {
    const int64_t token = murmur3_token(key);
    CHECK(token != std::numeric_limits<int64_t>::min());
    CHECK(token == murmur3_token(key));
    tokens.push_back(token);
    key.push_back(static_cast<char>(0x80 + len));
  }
  std::sort(tokens.begin(), tokens.end());
  CHECK(std::adjacent_find(tokens.begin(), tokens.end()) == tokens.end());
}

TEST_CASE("compound partition keys use CompositeType's layout and split back") {
  const std::vector<std::string> components = {int_bytes(1), std::string(),
                                               std::string("te\0x", 4)};
  const std::string key = serialize_partition_key(components);
  CHECK(key == std::string("\x00\x04\x00\x00\x00\x01\x00"  // int 1
                           "\x00\x00\x00"                  // empty
                           "\x00\x04te\x00x\x00",          // te\0x
                           17));
  auto split = split_partition_key(key, 3);
  REQUIRE(split.is_ok());
  CHECK(*split == components);

  // Into a buffer: the same bytes, whatever the buffer held (a longer key, then a shorter one).
  std::string into = "a previous key, longer than this one";
  serialize_partition_key(components, &into);
  CHECK(into == key);
  serialize_partition_key(std::vector<std::string>{"a", "b"}, &into);
  CHECK(into == std::string{'\0', '\1', 'a', '\0', '\0', '\1', 'b', '\0'});

  const std::vector<std::string> single = {"just one"};
  CHECK(serialize_partition_key(single) == "just one");
  serialize_partition_key(single, &into);
  CHECK(into == "just one");
  auto single_split = split_partition_key("just one", 1);
  REQUIRE(single_split.is_ok());
  CHECK(*single_split == single);
}

TEST_CASE("split_partition_key rejects malformed keys") {
  const std::vector<std::string> components = {"ab", "c"};
  const std::string key = serialize_partition_key(components);
  CHECK(split_partition_key(key, 0).status().is_invalid_argument());
  CHECK(split_partition_key(key, 3).status().is_corruption());               // too few
  CHECK(split_partition_key(key + "x", 2).status().is_corruption());         // trailing bytes
  CHECK(split_partition_key(key.substr(0, 4), 2).status().is_corruption());  // truncated
  std::string bad_end = key;
  bad_end[4] = 'z';  // the first component's end-of-component byte
  CHECK(split_partition_key(bad_end, 2).status().is_corruption());
  CHECK(split_partition_key(std::string_view("\x00", 1), 2).status().is_corruption());
  CHECK(split_partition_key("", 2).status().is_corruption());
  // A length that runs past the end of the key.
  CHECK(split_partition_key(std::string_view("\x00\x09"
                                             "ab\x00",
                                             5),
                            2)
            .status()
            .is_corruption());
}

TEST_CASE("compound partition keys hold components up to 64 KiB") {
  const std::vector<std::string> components = {std::string(kMaxPartitionKeyComponentSize, 'x'),
                                               std::string(1, '\xff')};
  const std::string key = serialize_partition_key(components);
  CHECK(key.size() == 2 + kMaxPartitionKeyComponentSize + 1 + 2 + 1 + 1);
  CHECK(key.substr(0, 2) == "\xff\xff");
  auto split = split_partition_key(key, 2);
  REQUIRE(split.is_ok());
  CHECK(*split == components);
}
