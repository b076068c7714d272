#include "engine/storage/bloom_filter.h"

#include <algorithm>
#include <bit>

#include "engine/util/hash64.h"

namespace cassette::storage {
namespace {

constexpr int kMaxProbes = 30;

// floor(h · bits / 2^64): maps a 64-bit hash onto [0, bits) without a division.
inline uint64_t bit_of(uint64_t h, uint64_t bits) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(h) * bits) >> 64);
}

}  // namespace

BloomFilterBuilder::BloomFilterBuilder(int bits_per_key, uint64_t expected_keys)
    : bits_per_key_(std::clamp(bits_per_key, 1, 100)) {
  hashes_.reserve(std::min<uint64_t>(expected_keys, 1 << 24));
}

void BloomFilterBuilder::add(std::string_view key) {
  hashes_.push_back(hash64(key));
}

std::string BloomFilterBuilder::finish() const {
  // k = bits_per_key · ln 2 minimises the false-positive rate.
  const int probes = std::clamp(static_cast<int>(bits_per_key_ * 0.69 + 0.5), 1, kMaxProbes);
  const uint64_t bytes = (std::max<uint64_t>(64, hashes_.size() * bits_per_key_) + 7) / 8;
  const uint64_t bits = bytes * 8;
  std::string filter(bytes, '\0');
  for (uint64_t h : hashes_) {
    const uint64_t delta = std::rotl(h, 32);
    for (int i = 0; i < probes; ++i, h += delta) {
      const uint64_t bit = bit_of(h, bits);
      filter[bit / 8] = static_cast<char>(filter[bit / 8] | (1 << (bit % 8)));
    }
  }
  filter.push_back(static_cast<char>(probes));
  return filter;
}

bool BloomFilter::load(std::string stored) {
  stored_.clear();
  bits_ = 0;
  probes_ = 0;
  if (stored.size() < 2) return false;
  const int probes = static_cast<uint8_t>(stored.back());
  if (probes < 1 || probes > kMaxProbes) return false;
  stored_ = std::move(stored);
  bits_ = (stored_.size() - 1) * 8;
  probes_ = probes;
  return true;
}

bool BloomFilter::may_contain(std::string_view key) const {
  if (bits_ == 0) return false;
  uint64_t h = hash64(key);
  const uint64_t delta = std::rotl(h, 32);
  for (int i = 0; i < probes_; ++i, h += delta) {
    const uint64_t bit = bit_of(h, bits_);
    if ((static_cast<uint8_t>(stored_[bit / 8]) & (1 << (bit % 8))) == 0) return false;
  }
  return true;
}

}  // namespace cassette::storage
