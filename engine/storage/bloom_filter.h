// A bloom filter over partition prefixes (internal_key.h): "certainly absent" or "maybe present",
// so a read of one partition skips the SSTables that cannot hold it. With 10 bits a key and 7
// probes about 0.8% of absent keys are let through.
//
//   stored filter = bit array (m bytes)  u8 probe count k (1..30)
//
// A key's probes are double hashing over h = XXH64(key) (engine/util/hash64.h): with
// delta = rotl64(h, 32), probe i sets bit floor((h + i·delta mod 2^64) · 8m / 2^64) — the high
// half of a 128-bit product, so no division — where bit b is (byte b/8) >> (b%8) & 1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cassette::storage {

class BloomFilterBuilder {
 public:
  // `expected_keys` only sizes the buffer; any number of keys may be added.
  explicit BloomFilterBuilder(int bits_per_key, uint64_t expected_keys = 0);

  // Adds a key. Adding one twice is harmless but wastes space.
  void add(std::string_view key);
  uint64_t keys() const { return hashes_.size(); }
  // The stored filter, sized for the keys added (at least 64 bits).
  std::string finish() const;

 private:
  int bits_per_key_;
  std::vector<uint64_t> hashes_;
};

class BloomFilter {
 public:
  // Takes a stored filter; false (and the filter matches nothing) when it is malformed.
  bool load(std::string stored);
  // False when `key` was certainly not added.
  bool may_contain(std::string_view key) const;
  size_t memory_bytes() const { return stored_.size(); }

 private:
  std::string stored_;
  uint64_t bits_ = 0;
  int probes_ = 0;
};

}  // namespace cassette::storage
