// A bloom filter over partition prefixes: "certainly absent" or "maybe present". With 10 bits a
// key and 7 probes the false-positive rate is about 1%.
//
//   stored filter = bit array (ceil(bits / 8) bytes)  u8 probe count
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cassette::storage {

// A 64-bit hash with good mixing (murmur-style finalizers); stable across versions (on disk).
uint64_t bloom_hash(std::string_view key);

class BloomFilterBuilder {
 public:
  explicit BloomFilterBuilder(int bits_per_key) : bits_per_key_(bits_per_key) {}
  void add(std::string_view key) { hashes_.push_back(bloom_hash(key)); }
  std::string finish() const;

 private:
  int bits_per_key_;
  std::vector<uint64_t> hashes_;
};

// Reads a stored filter; a malformed one (empty) matches everything.
bool bloom_may_contain(std::string_view filter, std::string_view key);
bool bloom_filter_is_valid(std::string_view filter);

}  // namespace cassette::storage
