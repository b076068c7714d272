// Fuzz target: `cassette serve`'s protocol state for one connection (ext/server), fed a byte
// stream as the network loop feeds it: a 9-byte header, check_header, the body, handle_frame,
// until the input ends or a reply closes the connection.
//
// Once a v5 connection switches to segments (uses_segments), the input is read as segment
// descriptions rather than raw segments, so that the fuzzer reaches the envelopes inside
// rather than stopping at the checksums: a control byte (bit 0 self-contained, bit 1 a wrong
// header CRC, bit 2 a wrong payload CRC, bit 3 LZ4-compress when the connection compresses), a
// 2-byte big-endian payload length, the payload; the target builds the segment with valid
// checksums (unless told otherwise) and feeds it through check_segment_header and
// handle_segment. (decode_segment_header and decode_segment_payload get the raw bytes.)
//
// Beyond "no crash, no exception", it checks that every reply is whole frames a client can
// read: each a response (high bit of the version byte), of version 4 or 5 (or, for a refused
// version, the client's own, in its layout), its length field equal to its body, on the
// request's stream id; in segment mode, that replies are segments with valid checksums holding
// whole response envelopes of version 5; and that a connection the server closes is closed by a
// protocol error (0x000A).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "ext/server/frame.h"
#include "ext/server/protocol_connection.h"
#include "ext/server/segment.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::server;

constexpr uint32_t kMaxFrameBytes = 1 << 16;
constexpr int kMaxFrames = 64;

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The reply to a request with `stream`: one frame, checked.
void check_reply(const Reply& reply, int16_t stream, bool refused_version) {
  const std::string& bytes = reply.bytes;
  if (refused_version && bytes.size() >= 1 && (bytes[0] & 0x7F) < 3) {
    FUZZ_CHECK(bytes.size() >= 8, "a short v1/v2 refusal");
    return;
  }
  FUZZ_CHECK(bytes.size() >= kFrameHeaderSize, "a reply shorter than a header");
  const FrameHeader header = decode_frame_header(as_bytes(bytes));
  FUZZ_CHECK(header.response, "a reply without the response bit");
  FUZZ_CHECK(refused_version ||
                 (header.version >= kMinProtocolVersion && header.version <= kMaxProtocolVersion),
             "a reply of another version");
  FUZZ_CHECK(header.body_length == bytes.size() - kFrameHeaderSize, "a wrong length field");
  FUZZ_CHECK(header.stream == stream, "a reply on another stream");
  if (reply.close) {
    FUZZ_CHECK(header.opcode == static_cast<uint8_t>(Opcode::kError), "a close without an error");
    FUZZ_CHECK((header.flags & kFlagCompression) == 0 || header.body_length > 0,
               "an empty compressed error");
  }
}

// A reply in segment mode: segments with valid checksums, their payloads whole v5 response
// envelopes (a large one over segments that are not self-contained).
void check_segment_reply(const Reply& reply, bool compressed) {
  std::string_view bytes = reply.bytes;
  const size_t header_size = compressed ? kCompressedSegmentHeaderSize : kSegmentHeaderSize;
  std::string envelopes;
  bool saw_error = false;
  while (!bytes.empty()) {
    FUZZ_CHECK(bytes.size() >= header_size, "a reply shorter than a segment header");
    auto header = decode_segment_header(as_bytes(bytes.substr(0, header_size)), compressed);
    FUZZ_CHECK(header.is_ok(), "a reply segment with a bad header CRC");
    bytes.remove_prefix(header_size);
    const size_t length = header->payload_length + kSegmentTrailerSize;
    FUZZ_CHECK(bytes.size() >= length, "a truncated reply segment");
    auto payload = decode_segment_payload(*header, bytes.substr(0, length), compressed);
    FUZZ_CHECK(payload.is_ok(), "a reply segment with a bad payload");
    bytes.remove_prefix(length);
    envelopes += *payload;
  }
  std::string_view rest = envelopes;
  while (!rest.empty()) {
    FUZZ_CHECK(rest.size() >= kFrameHeaderSize, "a reply envelope shorter than a header");
    const FrameHeader header = decode_frame_header(as_bytes(rest));
    FUZZ_CHECK(header.response, "a reply envelope without the response bit");
    FUZZ_CHECK(header.version == kMaxProtocolVersion, "a reply envelope of another version");
    FUZZ_CHECK(rest.size() - kFrameHeaderSize >= header.body_length, "a truncated envelope");
    saw_error = saw_error || header.opcode == static_cast<uint8_t>(Opcode::kError);
    rest.remove_prefix(kFrameHeaderSize + header.body_length);
  }
  FUZZ_CHECK(!reply.close || saw_error, "a close without an error");
}

// Segment mode: builds each described segment and feeds it, until the input ends or a reply
// closes the connection.
void feed_segments(ProtocolConnection& connection, std::string_view input, int frames) {
  for (; frames < kMaxFrames && input.size() >= 3; ++frames) {
    const auto control = static_cast<uint8_t>(input[0]);
    const size_t length =
        (size_t{static_cast<uint8_t>(input[1])} << 8) | static_cast<uint8_t>(input[2]);
    input.remove_prefix(3);
    const std::string_view payload = input.substr(0, std::min(length, input.size()));
    input.remove_prefix(payload.size());
    const bool compressed = connection.segment_header_size() == kCompressedSegmentHeaderSize;
    std::string segment;
    append_segment(&segment, payload, control & 1, compressed && (control & 8));
    if (compressed && !(control & 8)) {
      // Stored uncompressed in the compressed layout: rebuild with a 5-byte header.
      segment.clear();
      uint64_t header = payload.size() | ((control & 1) ? uint64_t{1} << 34 : 0);
      for (size_t i = 0; i < 5; ++i) segment.push_back(static_cast<char>(header >> (8 * i)));
      const uint32_t crc24 = segment_crc24(header, 5);
      for (size_t i = 0; i < 3; ++i) segment.push_back(static_cast<char>(crc24 >> (8 * i)));
      segment.append(payload);
      const uint32_t crc32 = segment_crc32(payload);
      for (size_t i = 0; i < 4; ++i) segment.push_back(static_cast<char>(crc32 >> (8 * i)));
    }
    const size_t header_size = connection.segment_header_size();
    if (control & 2) segment[header_size - 1] = static_cast<char>(segment[header_size - 1] ^ 1);
    if (control & 4) segment.back() = static_cast<char>(segment.back() ^ 1);
    size_t payload_bytes = 0;
    if (auto refusal =
            connection.check_segment_header(as_bytes(segment).first(header_size), &payload_bytes)) {
      FUZZ_CHECK(refusal->close, "a refused segment header that keeps the connection");
      check_segment_reply(*refusal, compressed);
      return;
    }
    FUZZ_CHECK(payload_bytes == segment.size() - header_size, "a wrong segment length");
    const Reply reply = connection.handle_segment(std::string_view(segment).substr(header_size));
    check_segment_reply(reply, compressed);
    if (reply.close) return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  storage::StoreOptions options;
  options.background_threads = false;
  auto store = storage::Store::open(":memory:", options);
  FUZZ_CHECK(store.is_ok(), store.status().message());
  auto session = cql::Session::open(*store);
  FUZZ_CHECK(session.is_ok(), session.status().message());
  ProtocolConnection connection(std::move(*session), kMaxFrameBytes);
  // The segment decoder on the raw bytes too.
  if (input.size() > kCompressedSegmentHeaderSize) {
    const bool compressed = input[0] & 1;
    auto header = decode_segment_header(as_bytes(input.substr(1)), compressed);
    if (header.is_ok()) {
      (void)decode_segment_payload(*header, input.substr(1 + kCompressedSegmentHeaderSize),
                                   compressed);
    }
  }
  int frames = 0;
  for (; frames < kMaxFrames && input.size() >= kFrameHeaderSize; ++frames) {
    if (connection.uses_segments()) break;  // a v5 STARTUP was answered
    const std::span<const uint8_t> header_bytes = as_bytes(input.substr(0, kFrameHeaderSize));
    const FrameHeader header = decode_frame_header(header_bytes);
    if (auto refusal = connection.check_header(header_bytes)) {
      const bool refused_version =
          header.version < kMinProtocolVersion || header.version > kMaxProtocolVersion;
      const int16_t stream =
          refused_version && header.version < 3 ? legacy_stream_id(header_bytes) : header.stream;
      FUZZ_CHECK(refusal->close, "a refused header that keeps the connection");
      check_reply(*refusal, stream, refused_version);
      return 0;
    }
    input.remove_prefix(kFrameHeaderSize);
    if (input.size() < header.body_length) return 0;  // the client vanished mid-frame
    const Reply reply = connection.handle_frame(header, input.substr(0, header.body_length));
    input.remove_prefix(header.body_length);
    check_reply(reply, header.stream, false);
    if (reply.close) return 0;
  }
  if (connection.uses_segments()) feed_segments(connection, input, frames);
  return 0;
}
