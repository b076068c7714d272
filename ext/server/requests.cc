#include "ext/server/requests.h"

#include <fmt/format.h>

#include "ext/server/consistency.h"

namespace cassette::server {

namespace {

// [consistency]: a code that names no level is a protocol error (Cassandra's
// ConsistencyLevel.fromCode), before anything runs.
Result<uint16_t> read_consistency(BodyReader& in) {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t level, in.read_short());
  if (auto unknown = unknown_consistency(level)) return Status::invalid_argument(*unknown);
  return level;
}

// <n>[short] then n [value]s, each after its [string] name when `named`.
Status read_values(BodyReader& in, bool named, uint8_t version, std::vector<BoundValue>& values,
                   std::vector<std::string>& names) {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t count, in.read_short());
  for (uint16_t i = 0; i < count; ++i) {
    if (named) {
      CASSETTE_ASSIGN_OR_RETURN(std::string name, in.read_string());
      names.push_back(std::move(name));
    }
    CASSETTE_ASSIGN_OR_RETURN(BoundValue value, in.read_value(version));
    values.push_back(std::move(value));
  }
  return Status::ok();
}

Status read_values(BodyReader& in, uint8_t version, QueryParameters& parameters) {
  return read_values(in, (parameters.flags & kQueryValueNames) != 0, version, parameters.values,
                     parameters.value_names);
}

Result<BatchChild> read_batch_child(BodyReader& in, uint8_t version) {
  BatchChild child;
  CASSETTE_ASSIGN_OR_RETURN(uint8_t kind, in.read_byte());
  if (kind == 0) {
    CASSETTE_ASSIGN_OR_RETURN(child.query_or_id, in.read_long_string());
  } else if (kind == 1) {
    child.prepared = true;
    CASSETTE_ASSIGN_OR_RETURN(child.query_or_id, in.read_short_bytes());
  } else {
    return Status::invalid_argument(
        fmt::format("Invalid query kind in BATCH messages. Must be 0 or 1 but got {}", kind));
  }
  CASSETTE_RETURN_IF_ERROR(read_values(in, false, version, child.values, child.value_names));
  return child;
}

// The flags: one byte before v5, an [int] from v5 on.
Result<uint32_t> read_flags(BodyReader& in, uint8_t version) {
  if (version < 5) {
    CASSETTE_ASSIGN_OR_RETURN(uint8_t flags, in.read_byte());
    return uint32_t{flags};
  }
  CASSETTE_ASSIGN_OR_RETURN(int32_t flags, in.read_int());
  return static_cast<uint32_t>(flags);
}

// v5's [keyspace][now_in_seconds], as the flags say.
Status read_keyspace_and_now(BodyReader& in, uint32_t flags, std::optional<std::string>& keyspace,
                             std::optional<int32_t>& now_in_seconds) {
  if (flags & kQueryWithKeyspace) {
    CASSETTE_ASSIGN_OR_RETURN(std::string name, in.read_string());
    keyspace = std::move(name);
  }
  if (flags & kQueryNowInSeconds) {
    CASSETTE_ASSIGN_OR_RETURN(int32_t now, in.read_int());
    now_in_seconds = now;
  }
  return Status::ok();
}

// <consistency><flags>[values][page size][paging state][serial consistency][timestamp]
// (v5: [keyspace][now_in_seconds])
Result<QueryParameters> read_query_parameters(BodyReader& in, uint8_t version) {
  QueryParameters parameters;
  CASSETTE_ASSIGN_OR_RETURN(parameters.consistency, read_consistency(in));
  CASSETTE_ASSIGN_OR_RETURN(parameters.flags, read_flags(in, version));
  if (parameters.flags & kQueryValues)
    CASSETTE_RETURN_IF_ERROR(read_values(in, version, parameters));
  if (parameters.flags & kQueryPageSize) {
    CASSETTE_ASSIGN_OR_RETURN(int32_t page_size, in.read_int());
    parameters.page_size = page_size;
  }
  if (parameters.flags & kQueryPagingState) {
    CASSETTE_ASSIGN_OR_RETURN(std::optional<std::string> state, in.read_bytes());
    parameters.paging_state = std::move(state);
  }
  if (parameters.flags & kQuerySerialConsistency) {
    CASSETTE_ASSIGN_OR_RETURN(uint16_t serial, read_consistency(in));
    parameters.serial_consistency = serial;
  }
  if (parameters.flags & kQueryDefaultTimestamp) {
    CASSETTE_ASSIGN_OR_RETURN(int64_t timestamp, in.read_long());
    parameters.default_timestamp = timestamp;
  }
  if (version >= 5) {
    CASSETTE_RETURN_IF_ERROR(read_keyspace_and_now(in, parameters.flags, parameters.keyspace,
                                                   parameters.now_in_seconds));
  }
  return parameters;
}

}  // namespace

cql::StatementOptions statement_options(const QueryParameters& parameters) {
  cql::StatementOptions options;
  options.default_timestamp = parameters.default_timestamp;
  options.page_size = parameters.page_size;
  options.paging_state = parameters.paging_state;
  return options;
}

std::string_view now_in_seconds_refusal() {
  return "The now_in_seconds flag (0x100) is not supported by this server: every statement runs "
         "at the server's current time";
}

Result<QueryRequest> decode_query(std::string_view body, uint8_t version) {
  BodyReader in(body);
  QueryRequest request;
  CASSETTE_ASSIGN_OR_RETURN(request.query, in.read_long_string());
  CASSETTE_ASSIGN_OR_RETURN(request.parameters, read_query_parameters(in, version));
  return request;
}

Result<PrepareRequest> decode_prepare(std::string_view body, uint8_t version) {
  BodyReader in(body);
  PrepareRequest request;
  CASSETTE_ASSIGN_OR_RETURN(request.query, in.read_long_string());
  if (version < 5) return request;
  CASSETTE_ASSIGN_OR_RETURN(uint32_t flags, read_flags(in, version));
  if (flags & kPrepareWithKeyspace) {
    CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, in.read_string());
    request.keyspace = std::move(keyspace);
  }
  return request;
}

Result<ExecuteRequest> decode_execute(std::string_view body, uint8_t version) {
  BodyReader in(body);
  ExecuteRequest request;
  CASSETTE_ASSIGN_OR_RETURN(request.id, in.read_short_bytes());
  if (version >= 5) {
    CASSETTE_ASSIGN_OR_RETURN(std::string metadata_id, in.read_short_bytes());
    request.result_metadata_id = std::move(metadata_id);
  }
  CASSETTE_ASSIGN_OR_RETURN(request.parameters, read_query_parameters(in, version));
  return request;
}

Result<BatchRequest> decode_batch(std::string_view body, uint8_t version) {
  BodyReader in(body);
  BatchRequest request;
  CASSETTE_ASSIGN_OR_RETURN(request.type, in.read_byte());
  if (request.type > 2) {
    return Status::invalid_argument(fmt::format("Unknown batch type {}", request.type));
  }
  CASSETTE_ASSIGN_OR_RETURN(uint16_t count, in.read_short());
  // Values in a BATCH are never named: the flag 0x40 "is not functional in v4" (the spec,
  // CASSANDRA-10246), and Cassandra reads plain value lists.
  for (uint16_t i = 0; i < count; ++i) {
    CASSETTE_ASSIGN_OR_RETURN(BatchChild child, read_batch_child(in, version));
    request.children.push_back(std::move(child));
  }
  CASSETTE_ASSIGN_OR_RETURN(request.consistency, read_consistency(in));
  CASSETTE_ASSIGN_OR_RETURN(request.flags, read_flags(in, version));
  if (request.flags & kQuerySerialConsistency) {
    CASSETTE_ASSIGN_OR_RETURN(uint16_t serial, read_consistency(in));
    request.serial_consistency = serial;
  }
  if (request.flags & kQueryDefaultTimestamp) {
    CASSETTE_ASSIGN_OR_RETURN(int64_t timestamp, in.read_long());
    request.default_timestamp = timestamp;
  }
  if (version >= 5) {
    CASSETTE_RETURN_IF_ERROR(
        read_keyspace_and_now(in, request.flags, request.keyspace, request.now_in_seconds));
  }
  return request;
}

Result<std::map<std::string, std::string>> decode_startup(std::string_view body) {
  BodyReader in(body);
  return in.read_string_map();
}

Result<std::vector<std::string>> decode_register(std::string_view body) {
  BodyReader in(body);
  return in.read_string_list();
}

}  // namespace cassette::server
