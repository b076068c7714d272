// Decoding request bodies (native_protocol_v4.spec §4.1) into plain structs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/status.h"
#include "ext/server/body.h"

namespace cassette::server {

// QUERY flags (§4.1.4).
inline constexpr uint8_t kQueryValues = 0x01;
inline constexpr uint8_t kQuerySkipMetadata = 0x02;
inline constexpr uint8_t kQueryPageSize = 0x04;
inline constexpr uint8_t kQueryPagingState = 0x08;
inline constexpr uint8_t kQuerySerialConsistency = 0x10;
inline constexpr uint8_t kQueryDefaultTimestamp = 0x20;
inline constexpr uint8_t kQueryValueNames = 0x40;

struct QueryParameters {
  uint16_t consistency = 0;
  uint8_t flags = 0;
  std::vector<BoundValue> values;
  std::vector<std::string> value_names;  // parallel to values, with kQueryValueNames
  std::optional<int32_t> page_size;
  std::optional<std::string> paging_state;
  std::optional<uint16_t> serial_consistency;
  std::optional<int64_t> default_timestamp;  // microseconds
};

struct QueryRequest {
  std::string query;
  QueryParameters parameters;
};

// InvalidArgument when the body is shorter than its flags say ("Not enough bytes to read ...").
Result<QueryRequest> decode_query(std::string_view body);

// STARTUP's [string map] of options.
Result<std::map<std::string, std::string>> decode_startup(std::string_view body);

// REGISTER's [string list] of event types.
Result<std::vector<std::string>> decode_register(std::string_view body);

}  // namespace cassette::server
