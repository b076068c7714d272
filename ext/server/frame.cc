#include "ext/server/frame.h"

namespace cassette::server {

namespace {

void put_u16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v & 0xFF));
}

void put_u32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

uint8_t version_byte(const FrameHeader& header) {
  return static_cast<uint8_t>((header.response ? 0x80 : 0x00) | (header.version & 0x7F));
}

}  // namespace

FrameHeader decode_frame_header(std::span<const uint8_t> bytes) {
  FrameHeader header;
  header.version = bytes[0] & 0x7F;
  header.response = (bytes[0] & 0x80) != 0;
  header.flags = bytes[1];
  header.stream = static_cast<int16_t>((uint16_t{bytes[2]} << 8) | bytes[3]);
  header.opcode = bytes[4];
  header.body_length = (uint32_t{bytes[5]} << 24) | (uint32_t{bytes[6]} << 16) |
                       (uint32_t{bytes[7]} << 8) | uint32_t{bytes[8]};
  return header;
}

std::string encode_frame(FrameHeader header, std::string_view body) {
  std::string out;
  out.reserve(kFrameHeaderSize + body.size());
  out.push_back(static_cast<char>(version_byte(header)));
  out.push_back(static_cast<char>(header.flags));
  put_u16(&out, static_cast<uint16_t>(header.stream));
  out.push_back(static_cast<char>(header.opcode));
  put_u32(&out, static_cast<uint32_t>(body.size()));
  out.append(body);
  return out;
}

std::string encode_frame_for_version(FrameHeader header, std::string_view body) {
  if (header.version >= 3) return encode_frame(header, body);
  std::string out;
  out.push_back(static_cast<char>(version_byte(header)));
  out.push_back(static_cast<char>(header.flags));
  out.push_back(static_cast<char>(header.stream));
  out.push_back(static_cast<char>(header.opcode));
  put_u32(&out, static_cast<uint32_t>(body.size()));
  out.append(body);
  return out;
}

int16_t legacy_stream_id(std::span<const uint8_t> header_bytes) {
  return static_cast<int8_t>(header_bytes[2]);
}

}  // namespace cassette::server
