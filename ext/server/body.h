// Reading and writing the bodies of native protocol messages: the notations of
// native_protocol_v4.spec §3 ([int], [short], [string], [long string], [bytes], [value],
// [string list], [string map], [string multimap], [consistency]). Big-endian throughout.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/cql/bind_markers.h"
#include "engine/util/status.h"

namespace cassette::server {

// A [value]: bytes, null (length -1) or "not set" (length -2, EXECUTE/BATCH/QUERY values only),
// as the engine binds it to a marker.
using BoundValue = cql::BoundValue;

// Reads a body front to back. Every read fails with InvalidArgument ("Not enough bytes to read
// a [string]") when the body is shorter than the notation says; the caller answers that with a
// protocol error. The reader does not own the body.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : rest_(body) {}

  Result<uint8_t> read_byte();
  Result<uint16_t> read_short();
  Result<int32_t> read_int();
  Result<int64_t> read_long();
  Result<std::string> read_string();                // [string]
  Result<std::string> read_long_string();           // [long string]
  Result<std::optional<std::string>> read_bytes();  // [bytes]: nullopt for null
  // [value]: -1 is null, -2 unset (v4 on); before v4 every negative length is null, as
  // Cassandra's CBUtil.readBoundValue reads them.
  Result<BoundValue> read_value(uint8_t version = 4);
  Result<std::string> read_short_bytes();  // [short bytes]
  Result<std::vector<std::string>> read_string_list();
  Result<std::map<std::string, std::string>> read_string_map();
  // [bytes map]: a custom payload (§2.2); a null value is kept as nullopt.
  Result<std::map<std::string, std::optional<std::string>>> read_bytes_map();

  size_t remaining() const { return rest_.size(); }
  std::string_view rest() const { return rest_; }

 private:
  Result<std::string_view> take(size_t n, std::string_view what);
  std::string_view rest_;
};

// Appends to a body.
class BodyWriter {
 public:
  void write_byte(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void write_short(uint16_t v);
  void write_int(int32_t v);
  void write_long(int64_t v);
  void write_string(std::string_view s);                  // [string]; REQUIRES: s.size() <= 65535
  void write_long_string(std::string_view s);             // [long string]
  void write_bytes(const std::optional<std::string>& b);  // [bytes]; nullopt is null
  void write_short_bytes(std::string_view b);             // REQUIRES: b.size() <= 65535
  void write_string_list(const std::vector<std::string>& list);
  void write_string_multimap(
      const std::vector<std::pair<std::string, std::vector<std::string>>>& multimap);

  const std::string& body() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace cassette::server
