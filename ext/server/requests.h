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

// The engine's options for a statement run with these parameters: default timestamp, page size
// and paging state. (The consistency levels are accepted and mean nothing on one node.)
cql::StatementOptions statement_options(const QueryParameters& parameters);

// InvalidArgument when the body is shorter than its flags say ("Not enough bytes to read ...").
Result<QueryRequest> decode_query(std::string_view body);

// PREPARE: <query>[long string] (v4 has no flags).
Result<std::string> decode_prepare(std::string_view body);

// EXECUTE: <id>[short bytes] then the QUERY parameters.
struct ExecuteRequest {
  std::string id;
  QueryParameters parameters;
};
Result<ExecuteRequest> decode_execute(std::string_view body);

// BATCH (§4.1.7): <type><n><query_1>...<query_n><consistency><flags>[<serial>][<timestamp>],
// each query a kind (0: a query string, 1: a prepared id) with its values.
struct BatchChild {
  bool prepared = false;
  std::string query_or_id;
  std::vector<BoundValue> values;
  std::vector<std::string> value_names;  // always empty: v4 batches have no named values
};
struct BatchRequest {
  uint8_t type = 0;  // 0 LOGGED, 1 UNLOGGED, 2 COUNTER
  std::vector<BatchChild> children;
  uint16_t consistency = 0;
  uint8_t flags = 0;
  std::optional<uint16_t> serial_consistency;
  std::optional<int64_t> default_timestamp;
};
Result<BatchRequest> decode_batch(std::string_view body);

// STARTUP's [string map] of options.
Result<std::map<std::string, std::string>> decode_startup(std::string_view body);

// REGISTER's [string list] of event types.
Result<std::vector<std::string>> decode_register(std::string_view body);

}  // namespace cassette::server
