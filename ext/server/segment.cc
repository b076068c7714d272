#include "ext/server/segment.h"

#include <fmt/format.h>
#include <lz4.h>

#include <array>

namespace cassette::server {

namespace {

// CRC-32 (the zlib/IEEE polynomial, reflected), one table entry per byte value.
constexpr std::array<uint32_t, 256> make_crc32_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrc32Table = make_crc32_table();

uint32_t crc32_extend(uint32_t crc, std::string_view data) {
  crc = ~crc;
  for (unsigned char byte : data) crc = kCrc32Table[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

// Cassandra's checksums start from the CRC32 of these four bytes.
const uint32_t kCrc32Seed = crc32_extend(0, std::string_view("\xFA\x2D\x55\xCA", 4));

constexpr uint32_t kCrc24Init = 0x875060;
constexpr uint32_t kCrc24Polynomial = 0x1974F0B;

uint64_t read_little_endian(std::span<const uint8_t> bytes, size_t length) {
  uint64_t value = 0;
  for (size_t i = 0; i < length; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return value;
}

void put_little_endian(std::string* out, uint64_t value, size_t length) {
  for (size_t i = 0; i < length; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

// The length of the envelope at the front of `envelopes` (its 9-byte header's body length).
size_t envelope_length(std::string_view envelopes) {
  if (envelopes.size() < 9) return envelopes.size();
  uint32_t body = 0;
  for (size_t i = 5; i < 9; ++i) body = (body << 8) | static_cast<uint8_t>(envelopes[i]);
  return std::min(envelopes.size(), size_t{9} + body);
}

}  // namespace

uint32_t segment_crc24(uint64_t bytes, size_t length) {
  uint32_t crc = kCrc24Init;
  for (size_t i = 0; i < length; ++i) {
    crc ^= static_cast<uint32_t>(bytes & 0xFF) << 16;
    bytes >>= 8;
    for (int bit = 0; bit < 8; ++bit) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= kCrc24Polynomial;
    }
  }
  return crc & 0xFFFFFF;
}

uint32_t segment_crc32(std::string_view payload) {
  return crc32_extend(kCrc32Seed, payload);
}

void append_segment(std::string* out, std::string_view payload, bool self_contained,
                    bool compressed) {
  std::string packed;
  uint64_t header = 0;
  size_t header_length = 3;
  std::string_view sent = payload;
  if (compressed) {
    header_length = 5;
    const int bound = LZ4_compressBound(static_cast<int>(payload.size()));
    packed.resize(static_cast<size_t>(bound));
    const int written = LZ4_compress_default(payload.data(), packed.data(),
                                             static_cast<int>(payload.size()), bound);
    if (written > 0 && static_cast<size_t>(written) < payload.size()) {
      sent = std::string_view(packed.data(), static_cast<size_t>(written));
      header |= uint64_t{payload.size()} << 17;
    }  // else stored as it is, with an uncompressed length of 0
    if (self_contained) header |= uint64_t{1} << 34;
  } else if (self_contained) {
    header |= uint64_t{1} << 17;
  }
  header |= sent.size();
  put_little_endian(out, header, header_length);
  put_little_endian(out, segment_crc24(header, header_length), 3);
  out->append(sent);
  put_little_endian(out, segment_crc32(sent), 4);
}

Result<SegmentHeader> decode_segment_header(std::span<const uint8_t> bytes, bool compressed) {
  const size_t length = compressed ? 5 : 3;
  const uint64_t header = read_little_endian(bytes, length);
  const auto received = static_cast<uint32_t>(read_little_endian(bytes.subspan(length), 3));
  const uint32_t computed = segment_crc24(header, length);
  if (received != computed) {
    return Status::invalid_argument(fmt::format(
        "CRC mismatch on segment header: read {:06x}, computed {:06x}", received, computed));
  }
  SegmentHeader decoded;
  decoded.payload_length = static_cast<uint32_t>(header & kMaxSegmentPayload);
  if (compressed) {
    decoded.uncompressed_length = static_cast<uint32_t>((header >> 17) & kMaxSegmentPayload);
    decoded.self_contained = (header >> 34) & 1;
  } else {
    decoded.self_contained = (header >> 17) & 1;
  }
  return decoded;
}

Result<std::string> decode_segment_payload(const SegmentHeader& header,
                                           std::string_view payload_and_crc, bool compressed) {
  const std::string_view payload = payload_and_crc.substr(0, header.payload_length);
  const std::span<const uint8_t> trailer(
      reinterpret_cast<const uint8_t*>(payload_and_crc.data()) + payload.size(),
      payload_and_crc.size() - payload.size());
  if (payload.size() != header.payload_length || trailer.size() != kSegmentTrailerSize) {
    return Status::invalid_argument("Truncated segment");
  }
  const auto received = static_cast<uint32_t>(read_little_endian(trailer, 4));
  const uint32_t computed = segment_crc32(payload);
  if (received != computed) {
    return Status::invalid_argument(fmt::format(
        "CRC mismatch on segment payload: read {:08x}, computed {:08x}", received, computed));
  }
  if (!compressed || header.uncompressed_length == 0) return std::string(payload);
  std::string out(header.uncompressed_length, '\0');
  const int got = LZ4_decompress_safe(payload.data(), out.data(), static_cast<int>(payload.size()),
                                      static_cast<int>(out.size()));
  if (got < 0 || static_cast<uint32_t>(got) != header.uncompressed_length) {
    return Status::invalid_argument("Invalid LZ4 segment payload: corrupt block");
  }
  return out;
}

std::string encode_segments(std::string_view envelopes, bool compressed) {
  std::string out;
  while (!envelopes.empty()) {
    size_t run = envelope_length(envelopes);
    if (run > kMaxSegmentPayload) {
      // One large envelope: segments that are not self-contained.
      for (size_t offset = 0; offset < run; offset += kMaxSegmentPayload) {
        append_segment(&out,
                       envelopes.substr(offset, std::min<size_t>(kMaxSegmentPayload, run - offset)),
                       false, compressed);
      }
    } else {
      // As many whole envelopes as fit.
      while (run < envelopes.size()) {
        const size_t next = envelope_length(envelopes.substr(run));
        if (run + next > kMaxSegmentPayload) break;
        run += next;
      }
      append_segment(&out, envelopes.substr(0, run), true, compressed);
    }
    envelopes.remove_prefix(run);
  }
  return out;
}

}  // namespace cassette::server
