// Protocol v5's segments (ext/server/segment.h) and a v5 connection's switch to them, without
// the network. The checksums' expected values are those the DataStax Python driver computes
// (cassandra.segment.compute_crc24 / compute_crc32).
#include <doctest/doctest.h>

#include <span>
#include <string>
#include <vector>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "ext/server/body.h"
#include "ext/server/frame.h"
#include "ext/server/protocol_connection.h"
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

struct V5Connection {
  V5Connection() {
    storage::StoreOptions options;
    options.background_threads = false;
    store = storage::Store::open(":memory:", options).value();
    connection = std::make_unique<ProtocolConnection>(cql::Session::open(store).value(), 1 << 20);
  }

  Reply send_segments(std::string_view bytes) {
    Reply last;
    while (!bytes.empty()) {
      size_t payload_bytes = 0;
      const size_t header_size = connection->segment_header_size();
      if (auto refusal = connection->check_segment_header(as_bytes(bytes), &payload_bytes)) {
        return *refusal;
      }
      bytes.remove_prefix(header_size);
      last = connection->handle_segment(bytes.substr(0, payload_bytes));
      bytes.remove_prefix(payload_bytes);
    }
    return last;
  }

  std::shared_ptr<storage::Store> store;
  std::unique_ptr<ProtocolConnection> connection;
};

std::string v5_query(std::string_view text, int16_t stream) {
  BodyWriter body;
  body.write_long_string(text);
  body.write_short(1);
  body.write_int(0);  // v5's [int] flags
  FrameHeader header;
  header.version = 5;
  header.stream = stream;
  header.opcode = static_cast<uint8_t>(Opcode::kQuery);
  return encode_frame(header, body.body());
}

TEST_CASE("server connection v5: STARTUP in a frame, then envelopes in segments") {
  V5Connection f;
  BodyWriter startup;
  startup.write_short(1);
  startup.write_string("CQL_VERSION");
  startup.write_string("3.0.0");
  FrameHeader header;
  header.version = 5;
  header.opcode = static_cast<uint8_t>(Opcode::kStartup);
  CHECK(!f.connection->uses_segments());
  Reply ready = f.connection->handle_frame(header, startup.body());
  const FrameHeader ready_header = decode_frame_header(as_bytes(ready.bytes));
  CHECK(ready_header.version == 5);
  CHECK(ready_header.opcode == static_cast<uint8_t>(Opcode::kReady));
  CHECK(f.connection->uses_segments());

  const std::string two = v5_query("SELECT release_version FROM system.local", 1) +
                          v5_query("SELECT release_version FROM system.local", 2);
  Reply answers = f.send_segments(encode_segments(two, false));
  CHECK(!answers.close);
  std::vector<Segment> segments = decode_all(answers.bytes, false);
  REQUIRE(segments.size() == 1);
  std::string_view payload = segments[0].payload;
  for (int16_t stream : {1, 2}) {
    const FrameHeader answer = decode_frame_header(as_bytes(payload));
    CHECK(answer.version == 5);
    CHECK(answer.response);
    CHECK(answer.stream == stream);
    CHECK(answer.opcode == static_cast<uint8_t>(Opcode::kResult));
    payload.remove_prefix(kFrameHeaderSize + answer.body_length);
  }
  CHECK(payload.empty());

  // A query split over segments that are not self-contained: answered once it is whole.
  const std::string query = v5_query("SELECT release_version FROM system.local", 3);
  std::string parts;
  append_segment(&parts, std::string_view(query).substr(0, 5), false, false);
  CHECK(f.send_segments(parts).bytes.empty());
  parts.clear();
  append_segment(&parts, std::string_view(query).substr(5), false, false);
  std::vector<Segment> third = decode_all(f.send_segments(parts).bytes, false);
  REQUIRE(third.size() == 1);
  CHECK(decode_frame_header(as_bytes(third[0].payload)).stream == 3);

  // Statements before an envelope cut short are answered, then a protocol error closes.
  {
    V5Connection g;
    REQUIRE(g.connection->handle_frame(header, startup.body()).bytes.size() > 0);
    const std::string cut = v5_query("SELECT release_version FROM system.local", 5) +
                            v5_query("SELECT 1", 6).substr(0, 12);
    Reply answered = g.send_segments(encode_segments(cut, false));
    CHECK(answered.close);
    std::vector<Segment> both = decode_all(answered.bytes, false);
    REQUIRE(both.size() == 1);
    std::string_view rest = both[0].payload;
    const FrameHeader first = decode_frame_header(as_bytes(rest));
    CHECK(first.stream == 5);
    CHECK(first.opcode == static_cast<uint8_t>(Opcode::kResult));
    rest.remove_prefix(kFrameHeaderSize + first.body_length);
    const FrameHeader second = decode_frame_header(as_bytes(rest));
    CHECK(second.stream == 0);
    CHECK(second.opcode == static_cast<uint8_t>(Opcode::kError));
    BodyReader why(rest.substr(kFrameHeaderSize));
    CHECK(why.read_int().value() == 0x000A);
    CHECK(why.read_string().value() == "Received a segment that ends inside an envelope");
  }

  // A bad payload CRC: a protocol error on stream 0, and the connection closes.
  std::string bad = encode_segments(v5_query("SELECT 1", 4), false);
  bad.back() = static_cast<char>(bad.back() ^ 1);
  Reply refused = f.send_segments(bad);
  CHECK(refused.close);
  std::vector<Segment> error = decode_all(refused.bytes, false);
  REQUIRE(error.size() == 1);
  const FrameHeader error_header = decode_frame_header(as_bytes(error[0].payload));
  CHECK(error_header.stream == 0);
  CHECK(error_header.opcode == static_cast<uint8_t>(Opcode::kError));
  BodyReader in(std::string_view(error[0].payload).substr(kFrameHeaderSize));
  CHECK(in.read_int().value() == 0x000A);
  CHECK(in.read_string().value().starts_with("CRC mismatch on segment payload: read "));
}

}  // namespace
}  // namespace cassette::server
