#include "engine/storage/bloom_filter.h"

#include <algorithm>
#include <cstring>

namespace cassette::storage {
namespace {

inline uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

constexpr int kMaxProbes = 30;

}  // namespace

uint64_t bloom_hash(std::string_view key) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (key.size() * 0x87c37b91114253d5ULL);
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t chunk;
    std::memcpy(&chunk, key.data() + i, 8);
    h = (h ^ fmix64(chunk * 0x4cf5ad432745937fULL)) * 0x9e3779b97f4a7c15ULL;
  }
  uint64_t tail = 0;
  for (size_t j = 0; i + j < key.size(); ++j) tail |= uint64_t(uint8_t(key[i + j])) << (8 * j);
  h ^= fmix64(tail ^ 0x52dce729ULL);
  return fmix64(h);
}

std::string BloomFilterBuilder::finish() const {
  size_t bits = std::max<size_t>(64, hashes_.size() * static_cast<size_t>(bits_per_key_));
  size_t bytes = (bits + 7) / 8;
  bits = bytes * 8;
  int probes = std::clamp(static_cast<int>(bits_per_key_ * 0.69), 1, kMaxProbes);
  std::string filter(bytes, '\0');
  for (uint64_t h : hashes_) {
    uint64_t delta = (h >> 33) | (h << 31);
    for (int p = 0; p < probes; ++p) {
      uint64_t bit = h % bits;
      filter[bit / 8] = static_cast<char>(filter[bit / 8] | (1 << (bit % 8)));
      h += delta;
    }
  }
  filter.push_back(static_cast<char>(probes));
  return filter;
}

bool bloom_filter_is_valid(std::string_view filter) {
  return filter.size() >= 2 && static_cast<uint8_t>(filter.back()) >= 1 &&
         static_cast<uint8_t>(filter.back()) <= kMaxProbes;
}

bool bloom_may_contain(std::string_view filter, std::string_view key) {
  if (!bloom_filter_is_valid(filter)) return true;
  int probes = static_cast<uint8_t>(filter.back());
  uint64_t bits = (filter.size() - 1) * 8;
  uint64_t h = bloom_hash(key);
  uint64_t delta = (h >> 33) | (h << 31);
  for (int p = 0; p < probes; ++p) {
    uint64_t bit = h % bits;
    if ((static_cast<uint8_t>(filter[bit / 8]) & (1 << (bit % 8))) == 0) return false;
    h += delta;
  }
  return true;
}

}  // namespace cassette::storage
