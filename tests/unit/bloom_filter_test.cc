// Bloom filters over partition prefixes, and the hash under them.
#include "engine/storage/bloom_filter.h"

#include <doctest/doctest.h>

#include <string>

#include "engine/storage/internal_key.h"
#include "engine/util/hash64.h"

using namespace cassette;
using namespace cassette::storage;

TEST_CASE("hash64 is XXH64, bit for bit (its values are on disk)") {
  CHECK(hash64("") == 0xef46db3751d8e999ULL);
  CHECK(hash64("abc") == 0x44bc2cf5ad770999ULL);
  CHECK(hash64("the quick brown fox jumps over the lazy dog") == 0xed714233c5a9a792ULL);
  CHECK(hash64("abc", 1) != hash64("abc"));
}

TEST_CASE("a bloom filter has no false negatives and at most 2% false positives") {
  BloomFilterBuilder builder(10);
  for (int i = 0; i < 10'000; ++i)
    builder.add(partition_prefix(i * 7919, "present-" + std::to_string(i)));
  CHECK(builder.keys() == 10'000);
  BloomFilter filter;
  REQUIRE(filter.load(builder.finish()));
  CHECK(filter.memory_bytes() == 10'000 * 10 / 8 + 1);
  for (int i = 0; i < 10'000; ++i) {
    REQUIRE(filter.may_contain(partition_prefix(i * 7919, "present-" + std::to_string(i))));
  }
  int false_positives = 0;
  for (int i = 0; i < 100'000; ++i) {
    false_positives +=
        filter.may_contain(partition_prefix(i * 7919, "absent-" + std::to_string(i)));
  }
  const double rate = false_positives / 100'000.0;
  MESSAGE("bloom false-positive rate at 10 bits a key: ", rate);
  CHECK(rate <= 0.02);
}

TEST_CASE("bloom filters: sizes, tiny and empty filters, malformed input") {
  BloomFilterBuilder empty(10);
  BloomFilter filter;
  REQUIRE(filter.load(empty.finish()));
  CHECK_FALSE(filter.may_contain("anything"));

  BloomFilterBuilder one(10, 1'000);
  one.add("k");
  REQUIRE(filter.load(one.finish()));
  CHECK(filter.may_contain("k"));
  CHECK(filter.memory_bytes() == 9);  // 64 bits at least, and the probe count

  BloomFilterBuilder fewer(4);
  for (int i = 0; i < 1000; ++i) fewer.add(std::to_string(i));
  REQUIRE(filter.load(fewer.finish()));
  for (int i = 0; i < 1000; ++i) CHECK(filter.may_contain(std::to_string(i)));

  CHECK_FALSE(filter.load(""));
  CHECK_FALSE(filter.load(std::string(1, '\x07')));
  CHECK_FALSE(filter.load(std::string(8, '\0') + '\0'));    // zero probes
  CHECK_FALSE(filter.load(std::string(8, '\0') + '\x40'));  // too many probes
  CHECK_FALSE(filter.may_contain("k"));  // a failed load leaves a filter that matches nothing
}
