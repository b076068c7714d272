// The CQL native protocol's frames (protocol v4, Cassandra's doc/native_protocol_v4.spec §1-2;
// protocol v5 calls them envelopes and carries them in segments, segment.h):
// a 9-byte header - version (high bit set on responses), flags, stream id, opcode, body length -
// then the body. This file knows the header and the opcodes; body.h reads and writes bodies.
//
// Versions 1 and 2 have an 8-byte header with a one-byte stream id; the server speaks neither,
// but answers their STARTUP in their own header so the client can read why (see
// encode_frame_for_version).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cassette::server {

// The versions this server speaks, and how Cassandra names them in SUPPORTED and in the
// "Invalid or unsupported protocol version" message.
// v3 as Cassandra 5.0 still speaks it: no unset values, no warnings or custom payloads, and
// the v4 types (date, time, smallint, tinyint) named as custom types.
inline constexpr uint8_t kMinProtocolVersion = 3;
inline constexpr uint8_t kMaxProtocolVersion = 5;
inline constexpr std::string_view kProtocolVersionNames = "3/v3, 4/v4, 5/v5";

inline constexpr size_t kFrameHeaderSize = 9;
// Cassandra's native_transport_max_frame_size default.
inline constexpr uint32_t kDefaultMaxFrameBytes = uint32_t{16} << 20;

enum class Opcode : uint8_t {
  kError = 0x00,
  kStartup = 0x01,
  kReady = 0x02,
  kAuthenticate = 0x03,
  kOptions = 0x05,
  kSupported = 0x06,
  kQuery = 0x07,
  kResult = 0x08,
  kPrepare = 0x09,
  kExecute = 0x0A,
  kRegister = 0x0B,
  kEvent = 0x0C,
  kBatch = 0x0D,
  kAuthChallenge = 0x0E,
  kAuthResponse = 0x0F,
  kAuthSuccess = 0x10,
};

// Header flags (§2.2).
inline constexpr uint8_t kFlagCompression = 0x01;
inline constexpr uint8_t kFlagTracing = 0x02;
inline constexpr uint8_t kFlagCustomPayload = 0x04;
inline constexpr uint8_t kFlagWarning = 0x08;

struct FrameHeader {
  uint8_t version = 4;  // without the direction bit
  bool response = false;
  uint8_t flags = 0;
  int16_t stream = 0;
  uint8_t opcode = 0;  // not an Opcode: a client may send any byte
  uint32_t body_length = 0;
  // Not on the wire: the trace session (16 bytes) of a request the client asked to trace, which
  // its RESULT announces with kFlagTracing (set by the server, empty otherwise).
  std::string tracing_id;
};

// Decodes the first kFrameHeaderSize bytes of a frame in the v3+ layout. REQUIRES:
// bytes.size() >= kFrameHeaderSize.
FrameHeader decode_frame_header(std::span<const uint8_t> bytes);

// The header followed by `body`, with header.body_length set from it, in the v3+ layout.
std::string encode_frame(FrameHeader header, std::string_view body);

// As encode_frame, in the layout of header.version: 8 bytes with a one-byte stream id for
// versions 1 and 2 (to refuse them in a frame they can read), the v3+ layout otherwise.
std::string encode_frame_for_version(FrameHeader header, std::string_view body);

// The stream id a v1/v2 request carries (its third byte), for answering it.
int16_t legacy_stream_id(std::span<const uint8_t> header_bytes);

}  // namespace cassette::server
