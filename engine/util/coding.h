// Byte coding shared by every on-disk format: fixed-width little- and big-endian integers and
// LEB128 varints (unsigned, and zigzag for signed). Decoders take a string_view by pointer and
// consume what they read; they return false when the input is too short or malformed, so a
// caller can turn that into a Corruption status that names its file.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cassette::coding {

inline void put_fixed32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);  // little-endian host (x86_64, aarch64)
  out->append(b, 4);
}
inline void put_fixed64(std::string* out, uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}
inline uint32_t decode_fixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t decode_fixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Big-endian: memcmp order equals numeric order for unsigned values.
inline void put_big_endian64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 7; i >= 0; --i) {
    b[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  out->append(b, 8);
}
inline uint64_t decode_big_endian64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// Writes `v` as a varint into buf (room for kMaxVarint64Bytes); returns the byte count.
constexpr size_t kMaxVarint64Bytes = 10;
inline size_t encode_varint64(char* buf, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  return n;
}

inline void put_varint64(std::string* out, uint64_t v) {
  char buf[kMaxVarint64Bytes];
  out->append(buf, encode_varint64(buf, v));
}
inline void put_varint32(std::string* out, uint32_t v) {
  put_varint64(out, v);
}

inline uint64_t zigzag_encode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t zigzag_decode(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}
inline void put_signed_varint64(std::string* out, int64_t v) {
  put_varint64(out, zigzag_encode(v));
}

// Length-prefixed bytes: varint length, then the bytes.
inline void put_length_prefixed(std::string* out, std::string_view bytes) {
  put_varint64(out, bytes.size());
  out->append(bytes.data(), bytes.size());
}

inline bool get_varint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint8_t byte = static_cast<uint8_t>((*in)[0]);
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}
inline bool get_varint32(std::string_view* in, uint32_t* v) {
  uint64_t wide;
  if (!get_varint64(in, &wide) || wide > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(wide);
  return true;
}
inline bool get_signed_varint64(std::string_view* in, int64_t* v) {
  uint64_t raw;
  if (!get_varint64(in, &raw)) return false;
  *v = zigzag_decode(raw);
  return true;
}
inline bool get_fixed32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  *v = decode_fixed32(in->data());
  in->remove_prefix(4);
  return true;
}
inline bool get_fixed64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = decode_fixed64(in->data());
  in->remove_prefix(8);
  return true;
}
inline bool get_length_prefixed(std::string_view* in, std::string_view* bytes) {
  uint64_t len;
  if (!get_varint64(in, &len) || len > in->size()) return false;
  *bytes = in->substr(0, len);
  in->remove_prefix(len);
  return true;
}
inline bool get_byte(std::string_view* in, uint8_t* b) {
  if (in->empty()) return false;
  *b = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return true;
}

}  // namespace cassette::coding
