// CRC-32C (Castagnoli), the checksum of every record and block Cassette writes. Uses the SSE4.2
// instruction where the CPU has it and a table otherwise; both give the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cassette::crc32c {

// Extends `crc` (the CRC of some earlier bytes, 0 to start) over `data`.
uint32_t extend(uint32_t crc, const char* data, size_t n);
inline uint32_t value(std::string_view data) {
  return extend(0, data.data(), data.size());
}

// Stored checksums are masked, as LevelDB does, so that a CRC computed over bytes that
// themselves contain CRCs does not degenerate.
inline uint32_t mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace cassette::crc32c
