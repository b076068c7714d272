// hash64: XXH64 (Yann Collet's xxHash, 64-bit variant), a fast hash with full avalanche. Used
// where a hash is stored on disk (SSTable bloom filters), so its values must never change: they
// equal the reference implementation's XXH64(data, size, seed).
#pragma once

#include <cstdint>
#include <string_view>

namespace cassette {

uint64_t hash64(std::string_view data, uint64_t seed = 0);

}  // namespace cassette
