// Fuzz target: `cassette serve`'s protocol state for one connection (ext/server), fed a byte
// stream as the network loop feeds it: a 9-byte header, check_header, the body, handle_frame,
// until the input ends or a reply closes the connection.
//
// Beyond "no crash, no exception", it checks that every reply is whole frames a client can
// read: each a response (high bit of the version byte), of version 4 (or, for a refused
// version, the client's own, in its layout), its length field equal to its body, on the
// request's stream id; and that a connection the server closes is closed by a protocol error
// (0x000A).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "ext/server/frame.h"
#include "ext/server/protocol_connection.h"
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
  FUZZ_CHECK(refused_version || header.version == kProtocolVersion, "a reply of another version");
  FUZZ_CHECK(header.body_length == bytes.size() - kFrameHeaderSize, "a wrong length field");
  FUZZ_CHECK(header.stream == stream, "a reply on another stream");
  if (reply.close) {
    FUZZ_CHECK(header.opcode == static_cast<uint8_t>(Opcode::kError), "a close without an error");
    FUZZ_CHECK((header.flags & kFlagCompression) == 0 || header.body_length > 0,
               "an empty compressed error");
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
  for (int frames = 0; frames < kMaxFrames && input.size() >= kFrameHeaderSize; ++frames) {
    const std::span<const uint8_t> header_bytes = as_bytes(input.substr(0, kFrameHeaderSize));
    const FrameHeader header = decode_frame_header(header_bytes);
    if (auto refusal = connection.check_header(header_bytes)) {
      const bool refused_version = header.version != kProtocolVersion;
      const int16_t stream =
          refused_version && header.version < 3 ? legacy_stream_id(header_bytes) : header.stream;
      FUZZ_CHECK(refusal->close, "a refused header that keeps the connection");
      check_reply(*refusal, stream, refused_version);
      break;
    }
    input.remove_prefix(kFrameHeaderSize);
    if (input.size() < header.body_length) break;  // the client vanished mid-frame
    const Reply reply = connection.handle_frame(header, input.substr(0, header.body_length));
    input.remove_prefix(header.body_length);
    check_reply(reply, header.stream, false);
    if (reply.close) break;
  }
  return 0;
}
