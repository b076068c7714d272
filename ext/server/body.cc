#include "ext/server/body.h"

#include <fmt/format.h>

namespace cassette::server {

Result<std::string_view> BodyReader::take(size_t n, std::string_view what) {
  if (rest_.size() < n) {
    return Status::invalid_argument(fmt::format("Not enough bytes to read {}", what));
  }
  std::string_view taken = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return taken;
}

namespace {

uint64_t big_endian(std::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

}  // namespace

Result<uint8_t> BodyReader::read_byte() {
  CASSETTE_ASSIGN_OR_RETURN(std::string_view b, take(1, "a [byte]"));
  return static_cast<uint8_t>(b[0]);
}

Result<uint16_t> BodyReader::read_short() {
  CASSETTE_ASSIGN_OR_RETURN(std::string_view b, take(2, "a [short]"));
  return static_cast<uint16_t>(big_endian(b));
}

Result<int32_t> BodyReader::read_int() {
  CASSETTE_ASSIGN_OR_RETURN(std::string_view b, take(4, "an [int]"));
  return static_cast<int32_t>(static_cast<uint32_t>(big_endian(b)));
}

Result<int64_t> BodyReader::read_long() {
  CASSETTE_ASSIGN_OR_RETURN(std::string_view b, take(8, "a [long]"));
  return static_cast<int64_t>(big_endian(b));
}

Result<std::string> BodyReader::read_string() {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t n, read_short());
  CASSETTE_ASSIGN_OR_RETURN(std::string_view s, take(n, "a [string]"));
  return std::string(s);
}

Result<std::string> BodyReader::read_long_string() {
  CASSETTE_ASSIGN_OR_RETURN(int32_t n, read_int());
  if (n < 0) return Status::invalid_argument("Invalid [long string] length " + std::to_string(n));
  CASSETTE_ASSIGN_OR_RETURN(std::string_view s, take(static_cast<size_t>(n), "a [long string]"));
  return std::string(s);
}

Result<std::optional<std::string>> BodyReader::read_bytes() {
  CASSETTE_ASSIGN_OR_RETURN(int32_t n, read_int());
  if (n < 0) return std::optional<std::string>();
  CASSETTE_ASSIGN_OR_RETURN(std::string_view s, take(static_cast<size_t>(n), "a [bytes]"));
  return std::optional<std::string>(std::string(s));
}

Result<BoundValue> BodyReader::read_value(uint8_t version) {
  CASSETTE_ASSIGN_OR_RETURN(int32_t n, read_int());
  if (n == -1 || (n < 0 && version < 4)) return BoundValue::null();
  if (n == -2) return BoundValue::unset();
  if (n < 0) return Status::invalid_argument(fmt::format("Invalid [value] length {}", n));
  CASSETTE_ASSIGN_OR_RETURN(std::string_view s, take(static_cast<size_t>(n), "a [value]"));
  return BoundValue::value(std::string(s));
}

Result<std::string> BodyReader::read_short_bytes() {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t n, read_short());
  CASSETTE_ASSIGN_OR_RETURN(std::string_view s, take(n, "a [short bytes]"));
  return std::string(s);
}

Result<std::vector<std::string>> BodyReader::read_string_list() {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t n, read_short());
  std::vector<std::string> list;
  for (uint16_t i = 0; i < n; ++i) {
    CASSETTE_ASSIGN_OR_RETURN(std::string s, read_string());
    list.push_back(std::move(s));
  }
  return list;
}

Result<std::map<std::string, std::optional<std::string>>> BodyReader::read_bytes_map() {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t n, read_short());
  std::map<std::string, std::optional<std::string>> map;
  for (uint16_t i = 0; i < n; ++i) {
    CASSETTE_ASSIGN_OR_RETURN(std::string key, read_string());
    CASSETTE_ASSIGN_OR_RETURN(std::optional<std::string> value, read_bytes());
    map[std::move(key)] = std::move(value);
  }
  return map;
}

Result<std::map<std::string, std::string>> BodyReader::read_string_map() {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t n, read_short());
  std::map<std::string, std::string> map;
  for (uint16_t i = 0; i < n; ++i) {
    CASSETTE_ASSIGN_OR_RETURN(std::string key, read_string());
    CASSETTE_ASSIGN_OR_RETURN(std::string value, read_string());
    map[std::move(key)] = std::move(value);
  }
  return map;
}

void BodyWriter::write_short(uint16_t v) {
  out_.push_back(static_cast<char>(v >> 8));
  out_.push_back(static_cast<char>(v & 0xFF));
}

void BodyWriter::write_int(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>(u >> shift));
}

void BodyWriter::write_long(int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) out_.push_back(static_cast<char>(u >> shift));
}

void BodyWriter::write_string(std::string_view s) {
  write_short(static_cast<uint16_t>(s.size()));
  out_.append(s);
}

void BodyWriter::write_long_string(std::string_view s) {
  write_int(static_cast<int32_t>(s.size()));
  out_.append(s);
}

void BodyWriter::write_bytes(const std::optional<std::string>& b) {
  if (!b) {
    write_int(-1);
    return;
  }
  write_int(static_cast<int32_t>(b->size()));
  out_.append(*b);
}

void BodyWriter::write_short_bytes(std::string_view b) {
  write_short(static_cast<uint16_t>(b.size()));
  out_.append(b);
}

void BodyWriter::write_string_list(const std::vector<std::string>& list) {
  write_short(static_cast<uint16_t>(list.size()));
  for (const std::string& s : list) write_string(s);
}

void BodyWriter::write_string_multimap(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& multimap) {
  write_short(static_cast<uint16_t>(multimap.size()));
  for (const auto& [key, values] : multimap) {
    write_string(key);
    write_string_list(values);
  }
}

}  // namespace cassette::server
