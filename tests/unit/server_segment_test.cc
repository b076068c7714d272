// Protocol v5's segments (ext/server/segment.h), without the network. The checksums' expected
// values are those the DataStax Python driver computes (cassandra.segment.compute_crc24 /
// compute_crc32).
#include <doctest/doctest.h>

#include <span>
#include <string>
#include <vector>

#include "ext/server/frame.h"
#include "ext/server/segment.h"

namespace cassette::server {
namespace {

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A v5 envelope of `size` bytes in all (a QUERY-looking body of 'x's).
std::string envelope(size_t size, int16_t stream = 1) {
  FrameHeader header;
  header.version = 5;
  header.stream = stream;
  header.opcode = static_cast<uint8_t>(Opcode::kQuery);
  return encode_frame(header, std::string(size - kFrameHeaderSize, 'x'));
}

struct Segment {
  SegmentHeader header;
  std::string payload;
};

// Decodes every segment of `bytes`, checking their checksums.
std::vector<Segment> decode_all(std::string_view bytes, bool compressed) {
  std::vector<Segment> out;
  const size_t header_size = compressed ? kCompressedSegmentHeaderSize : kSegmentHeaderSize;
  while (!bytes.empty()) {
    REQUIRE(bytes.size() >= header_size);
    auto header = decode_segment_header(as_bytes(bytes), compressed);
    REQUIRE(header.is_ok());
    bytes.remove_prefix(header_size);
    const size_t length = header->payload_length + kSegmentTrailerSize;
    REQUIRE(bytes.size() >= length);
    auto payload = decode_segment_payload(*header, bytes.substr(0, length), compressed);
    REQUIRE(payload.is_ok());
    out.push_back({*header, *payload});
    bytes.remove_prefix(length);
  }
  return out;
}

TEST_CASE("server segment: the checksums are Cassandra's") {
  CHECK(segment_crc24(5 | (1 << 17), 3) == 0x9a9919);
  CHECK(segment_crc32("hello") == 0xb60e8074);
  CHECK(segment_crc32("") == 0x44777ed3);  // the seed: the CRC32 of FA 2D 55 CA
}

TEST_CASE("server segment: small envelopes share self-contained segments, a large one is split") {
  for (bool compressed : {false, true}) {
    const std::string small = envelope(100, 1) + envelope(200, 2) + envelope(300, 3);
    std::vector<Segment> one = decode_all(encode_segments(small, compressed), compressed);
    REQUIRE(one.size() == 1);
    CHECK(one[0].header.self_contained);
    CHECK(one[0].payload == small);
    // Two envelopes of 100 KiB do not fit together: one self-contained segment each.
    const std::string two = envelope(100 << 10, 1) + envelope(100 << 10, 2);
    std::vector<Segment> apart = decode_all(encode_segments(two, compressed), compressed);
    REQUIRE(apart.size() == 2);
    CHECK((apart[0].header.self_contained && apart[1].header.self_contained));
    CHECK(apart[0].payload + apart[1].payload == two);
    // 300 KiB: three segments that are not self-contained, then the small ones together.
    const std::string large = envelope(300 << 10, 4);
    std::vector<Segment> split = decode_all(encode_segments(large + small, compressed), compressed);
    REQUIRE(split.size() == 4);
    std::string joined;
    for (size_t i = 0; i < 3; ++i) {
      CHECK(!split[i].header.self_contained);
      CHECK(split[i].payload.size() <= kMaxSegmentPayload);
      joined += split[i].payload;
    }
    CHECK(joined == large);
    CHECK(split[3].header.self_contained);
    CHECK(split[3].payload == small);
    if (compressed) CHECK(split[0].header.uncompressed_length == kMaxSegmentPayload);
  }
}

TEST_CASE("server segment: a wrong CRC is refused") {
  std::string bytes = encode_segments(envelope(50), false);
  std::string bad_header = bytes;
  bad_header[3] = static_cast<char>(bad_header[3] ^ 1);
  CHECK(decode_segment_header(as_bytes(bad_header), false)
            .status()
            .message()
            .starts_with("CRC mismatch on segment header: read "));
  std::string bad_payload = bytes;
  bad_payload.back() = static_cast<char>(bad_payload.back() ^ 1);
  auto header = decode_segment_header(as_bytes(bad_payload), false);
  REQUIRE(header.is_ok());
  CHECK(decode_segment_payload(*header, std::string_view(bad_payload).substr(kSegmentHeaderSize),
                               false)
            .status()
            .message()
            .starts_with("CRC mismatch on segment payload: read "));
}

}  // namespace
}  // namespace cassette::server
