// Protocol v5's outer framing (native_protocol_v5.spec §2): once a v5 connection's STARTUP is
// answered (READY or AUTHENTICATE), both sides wrap their envelopes - v4's frames, with version
// 5 - in segments:
//
//   header   3 bytes little-endian: payload length (17 bits), self-contained flag (bit 17)
//            or, with LZ4 compression, 5 bytes: compressed length (17 bits), uncompressed
//            length (17 bits; 0: the payload is stored uncompressed), self-contained (bit 34)
//   CRC24    3 bytes little-endian, of the header bytes
//   payload  at most 128 KiB - 1 bytes (a raw LZ4 block when compressed)
//   CRC32    4 bytes little-endian, of the payload as sent, seeded with FA 2D 55 CA
//
// A self-contained segment holds one or more whole envelopes; an envelope larger than one
// segment is sent as the payloads of consecutive segments that are not self-contained.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/util/status.h"

namespace cassette::server {

inline constexpr size_t kSegmentHeaderSize = 6;            // 3 bytes and their CRC24
inline constexpr size_t kCompressedSegmentHeaderSize = 8;  // 5 bytes and their CRC24
inline constexpr size_t kSegmentTrailerSize = 4;           // the payload's CRC32
inline constexpr uint32_t kMaxSegmentPayload = (uint32_t{1} << 17) - 1;

// The CRC24 of the low `length` bytes of `bytes`, taken little-endian (the header's check).
uint32_t segment_crc24(uint64_t bytes, size_t length);
// The CRC32 of a payload (the trailer's check).
uint32_t segment_crc32(std::string_view payload);

struct SegmentHeader {
  uint32_t payload_length = 0;
  uint32_t uncompressed_length = 0;  // compressed segments only; 0: stored uncompressed
  bool self_contained = false;
};

// Decodes a segment header of kSegmentHeaderSize bytes, or kCompressedSegmentHeaderSize when
// `compressed`. InvalidArgument when its CRC24 does not match.
Result<SegmentHeader> decode_segment_header(std::span<const uint8_t> bytes, bool compressed);

// The payload of a segment from the header's payload_length bytes and the CRC32 after them.
// InvalidArgument when the CRC32 does not match or the LZ4 block is corrupt.
Result<std::string> decode_segment_payload(const SegmentHeader& header,
                                           std::string_view payload_and_crc, bool compressed);

// One segment carrying `payload` (at most kMaxSegmentPayload bytes), appended to `out`.
void append_segment(std::string* out, std::string_view payload, bool self_contained,
                    bool compressed);

// `envelopes` (whole envelopes, one after another) as segments: runs of envelopes that fit
// together in one self-contained segment each, an envelope larger than a segment split over
// segments that are not. LZ4-compressed when `compressed` (a payload that does not shrink is
// stored as it is).
std::string encode_segments(std::string_view envelopes, bool compressed);

}  // namespace cassette::server
