// Uuids and inet addresses: their text forms, and the version-1 (time-based) uuids behind
// timeuuid, now(), minTimeuuid() and maxTimeuuid().
//
// A version-1 uuid holds a 60-bit count of 100 ns intervals since 1582-10-15 as time_low (bytes
// 0-3), time_mid (4-5) and the version nibble with time_hi (6-7); bytes 8-15 are the clock
// sequence (with the variant bits) and the node.
#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <random>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

namespace internal {

std::optional<std::string> parse_uuid_text(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  std::string hex;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      continue;
    }
    hex.push_back(text[i]);
  }
  return from_hex(hex);
}

}  // namespace internal

std::string uuid_to_text(std::string_view bytes) {
  const std::string hex = to_hex(bytes);
  if (hex.size() != 32) return hex;
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20));
}

namespace internal {

int uuid_version(std::string_view bytes) {
  return (static_cast<uint8_t>(bytes[6]) >> 4) & 0xF;
}

std::optional<std::string> parse_inet_text(std::string_view text) {
  if (text == "localhost") return std::string("\x7f\x00\x00\x01", 4);
  std::string s(text);
  if (s.size() > 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  unsigned char buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) return std::string(reinterpret_cast<char*>(buf), 4);
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1) {
    static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (std::equal(kMapped, kMapped + 12, buf))
      return std::string(reinterpret_cast<char*>(buf + 12), 4);
    return std::string(reinterpret_cast<char*>(buf), 16);
  }
  return std::nullopt;
}

}  // namespace internal

std::string inet_to_text(std::string_view bytes, bool java_style) {
  if (bytes.size() == 4) {
    return fmt::format("{}.{}.{}.{}", static_cast<uint8_t>(bytes[0]),
                       static_cast<uint8_t>(bytes[1]), static_cast<uint8_t>(bytes[2]),
                       static_cast<uint8_t>(bytes[3]));
  }
  if (bytes.size() != 16) return "0x" + to_hex(bytes);
  if (java_style) {
    std::string out;
    for (int i = 0; i < 8; ++i) {
      if (i > 0) out.push_back(':');
      out += fmt::format("{:x}", read_unsigned(bytes.substr(2 * i, 2)));
    }
    return out;
  }
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, bytes.data(), buf, sizeof buf);
  return buf;
}

namespace {

// 100 ns intervals between 1582-10-15 (the uuid epoch) and 1970-01-01.
constexpr int64_t kUuidEpochOffset = 0x01B21DD213814000LL;

std::string timeuuid_from_raw(uint64_t ts, uint64_t low) {
  const uint64_t msb = (ts << 32) | ((ts >> 16) & 0xFFFF0000ULL) | 0x1000 | ((ts >> 48) & 0x0FFF);
  return types::store_be(msb, 8) + types::store_be(low, 8);
}

std::mt19937_64& random_engine() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

}  // namespace

std::string make_timeuuid(int64_t micros, uint64_t clock_seq_and_node) {
  return timeuuid_from_raw(static_cast<uint64_t>(micros * 10 + kUuidEpochOffset),
                           clock_seq_and_node);
}

int64_t unique_timeuuid_micros(int64_t micros) {
  static std::atomic<int64_t> latest{std::numeric_limits<int64_t>::min()};
  int64_t seen = latest.load(std::memory_order_relaxed);
  int64_t taken;
  do {
    taken = std::max(micros, seen + 1);
  } while (!latest.compare_exchange_weak(seen, taken, std::memory_order_relaxed));
  return taken;
}

uint64_t process_clock_seq_and_node() {
  static const uint64_t kValue = [] {
    uint64_t v = random_engine()();
    // variant 10 in the top bits of the clock sequence; the node's multicast bit set, as for a
    // node id that is not a MAC address
    v = (v & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
    v |= 0x0000010000000000ULL;
    return v;
  }();
  return kValue;
}

std::string min_timeuuid(int64_t millis) {
  return timeuuid_from_raw(static_cast<uint64_t>(millis * 10000 + kUuidEpochOffset),
                           0x8080808080808080ULL);
}

std::string max_timeuuid(int64_t millis) {
  return timeuuid_from_raw(static_cast<uint64_t>(millis * 10000 + 9999 + kUuidEpochOffset),
                           0x7F7F7F7F7F7F7F7FULL);
}

int64_t timeuuid_micros(std::string_view bytes) {
  const uint64_t msb = types::read_unsigned(bytes.substr(0, 8));
  const uint64_t ts = ((msb & 0x0FFF) << 48) | (((msb >> 16) & 0xFFFF) << 32) | (msb >> 32);
  return (static_cast<int64_t>(ts) - kUuidEpochOffset) / 10;
}

std::string random_uuid() {
  std::string bytes = types::store_be(random_engine()(), 8) + types::store_be(random_engine()(), 8);
  bytes[6] = static_cast<char>((static_cast<uint8_t>(bytes[6]) & 0x0F) | 0x40);
  bytes[8] = static_cast<char>((static_cast<uint8_t>(bytes[8]) & 0x3F) | 0x80);
  return bytes;
}

}  // namespace cassette::types
