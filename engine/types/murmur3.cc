#include "engine/types/murmur3.h"

#include <limits>

namespace cassette::types {

namespace {

constexpr uint64_t kC1 = 0x87c37b91114253d5ull;
constexpr uint64_t kC2 = 0x4cf5ad432745937full;

inline uint64_t rotl64(uint64_t v, int n) {
  return (v << n) | (v >> (64 - n));
}

// The body blocks are read as little-endian unsigned 64-bit words.
inline uint64_t load_little_endian64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Cassandra's tail handling: a Java `(long) byte` cast, i.e. sign extension.
inline uint64_t sign_extended(uint8_t b) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(b)));
}

inline uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

inline uint64_t mix_k1(uint64_t k1) {
  return rotl64(k1 * kC1, 31) * kC2;
}
inline uint64_t mix_k2(uint64_t k2) {
  return rotl64(k2 * kC2, 33) * kC1;
}

}  // namespace

int64_t murmur3_token(std::string_view partition_key_bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(partition_key_bytes.data());
  const size_t length = partition_key_bytes.size();
  const size_t block_count = length / 16;

  uint64_t h1 = 0;  // seed 0
  uint64_t h2 = 0;
  for (size_t i = 0; i < block_count; ++i) {
    uint64_t k1 = load_little_endian64(data + i * 16);
    uint64_t k2 = load_little_endian64(data + i * 16 + 8);
    h1 ^= mix_k1(k1);
    h1 = rotl64(h1, 27) + h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= mix_k2(k2);
    h2 = rotl64(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  // Tail: bytes 8..14 feed k2, bytes 0..7 feed k1, each sign-extended before shifting.
  const uint8_t* tail = data + block_count * 16;
  const size_t rest = length & 15;
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  for (size_t i = rest; i > 8; --i) k2 ^= sign_extended(tail[i - 1]) << ((i - 9) * 8);
  if (rest > 8) h2 ^= mix_k2(k2);
  for (size_t i = rest < 8 ? rest : 8; i > 0; --i)
    k1 ^= sign_extended(tail[i - 1]) << ((i - 1) * 8);
  if (rest > 0) h1 ^= mix_k1(k1);

  h1 ^= length;
  h2 ^= length;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;

  const auto token = static_cast<int64_t>(h1);
  return token == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : token;
}

}  // namespace cassette::types
