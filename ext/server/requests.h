// Decoding request bodies (native_protocol_v4.spec and native_protocol_v5.spec §4.1) into plain
// structs. Each decoder takes the envelope's protocol version: v5 widens the QUERY, EXECUTE and
// BATCH flags to an [int], adds their keyspace and now_in_seconds, PREPARE's flags and keyspace,
// and EXECUTE's result metadata id.
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

// QUERY flags (§4.1.4); the last two are v5's (a v4 client's flags are one byte).
inline constexpr uint32_t kQueryValues = 0x01;
inline constexpr uint32_t kQuerySkipMetadata = 0x02;
inline constexpr uint32_t kQueryPageSize = 0x04;
inline constexpr uint32_t kQueryPagingState = 0x08;
inline constexpr uint32_t kQuerySerialConsistency = 0x10;
inline constexpr uint32_t kQueryDefaultTimestamp = 0x20;
inline constexpr uint32_t kQueryValueNames = 0x40;
inline constexpr uint32_t kQueryWithKeyspace = 0x80;
inline constexpr uint32_t kQueryNowInSeconds = 0x100;
// PREPARE's flags (v5).
inline constexpr uint32_t kPrepareWithKeyspace = 0x01;

struct QueryParameters {
  uint16_t consistency = 0;
  uint32_t flags = 0;
  std::vector<BoundValue> values;
  std::vector<std::string> value_names;  // parallel to values, with kQueryValueNames
  std::optional<int32_t> page_size;
  std::optional<std::string> paging_state;
  std::optional<uint16_t> serial_consistency;
  std::optional<int64_t> default_timestamp;  // microseconds
  std::optional<std::string> keyspace;       // v5: the keyspace to run in (not the USE'd one)
  std::optional<int32_t> now_in_seconds;     // v5
};

struct QueryRequest {
  std::string query;
  QueryParameters parameters;
};

// The engine's options for a statement run with these parameters: default timestamp, page size
// and paging state. (The consistency levels are accepted and mean nothing on one node.)
cql::StatementOptions statement_options(const QueryParameters& parameters);

// The protocol error for a v5 request with now_in_seconds: the engine runs every statement at
// the current time, so the flag is refused rather than ignored.
std::string_view now_in_seconds_refusal();

// InvalidArgument when the body is shorter than its flags say ("Not enough bytes to read ...").
Result<QueryRequest> decode_query(std::string_view body, uint8_t version);

// PREPARE: <query>[long string], in v5 then <flags>[int] and, with kPrepareWithKeyspace, the
// keyspace [string].
struct PrepareRequest {
  std::string query;
  std::optional<std::string> keyspace;
};
Result<PrepareRequest> decode_prepare(std::string_view body, uint8_t version);

// EXECUTE: <id>[short bytes], in v5 <result_metadata_id>[short bytes], then the QUERY
// parameters.
struct ExecuteRequest {
  std::string id;
  std::optional<std::string> result_metadata_id;  // v5
  QueryParameters parameters;
};
Result<ExecuteRequest> decode_execute(std::string_view body, uint8_t version);

// BATCH (§4.1.7): <type><n><query_1>...<query_n><consistency><flags>[<serial>][<timestamp>]
// (v5: [<keyspace>][<now_in_seconds>] too), each query a kind (0: a query string, 1: a prepared
// id) with its values.
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
  uint32_t flags = 0;
  std::optional<uint16_t> serial_consistency;
  std::optional<int64_t> default_timestamp;
  std::optional<std::string> keyspace;    // v5
  std::optional<int32_t> now_in_seconds;  // v5
};
Result<BatchRequest> decode_batch(std::string_view body, uint8_t version);

// STARTUP's [string map] of options.
Result<std::map<std::string, std::string>> decode_startup(std::string_view body);

// REGISTER's [string list] of event types.
Result<std::vector<std::string>> decode_register(std::string_view body);

}  // namespace cassette::server
