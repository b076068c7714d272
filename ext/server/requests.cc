#include "ext/server/requests.h"

namespace cassette::server {

namespace {

Status read_values(BodyReader& in, QueryParameters& parameters) {
  CASSETTE_ASSIGN_OR_RETURN(uint16_t count, in.read_short());
  for (uint16_t i = 0; i < count; ++i) {
    if (parameters.flags & kQueryValueNames) {
      CASSETTE_ASSIGN_OR_RETURN(std::string name, in.read_string());
      parameters.value_names.push_back(std::move(name));
    }
    CASSETTE_ASSIGN_OR_RETURN(BoundValue value, in.read_value());
    parameters.values.push_back(std::move(value));
  }
  return Status::ok();
}

// <consistency><flags>[values][page size][paging state][serial consistency][timestamp]
Result<QueryParameters> read_query_parameters(BodyReader& in) {
  QueryParameters parameters;
  CASSETTE_ASSIGN_OR_RETURN(parameters.consistency, in.read_short());
  CASSETTE_ASSIGN_OR_RETURN(parameters.flags, in.read_byte());
  if (parameters.flags & kQueryValues) CASSETTE_RETURN_IF_ERROR(read_values(in, parameters));
  if (parameters.flags & kQueryPageSize) {
    CASSETTE_ASSIGN_OR_RETURN(int32_t page_size, in.read_int());
    parameters.page_size = page_size;
  }
  if (parameters.flags & kQueryPagingState) {
    CASSETTE_ASSIGN_OR_RETURN(std::optional<std::string> state, in.read_bytes());
    parameters.paging_state = std::move(state);
  }
  if (parameters.flags & kQuerySerialConsistency) {
    CASSETTE_ASSIGN_OR_RETURN(uint16_t serial, in.read_short());
    parameters.serial_consistency = serial;
  }
  if (parameters.flags & kQueryDefaultTimestamp) {
    CASSETTE_ASSIGN_OR_RETURN(int64_t timestamp, in.read_long());
    parameters.default_timestamp = timestamp;
  }
  return parameters;
}

}  // namespace

Result<QueryRequest> decode_query(std::string_view body) {
  BodyReader in(body);
  QueryRequest request;
  CASSETTE_ASSIGN_OR_RETURN(request.query, in.read_long_string());
  CASSETTE_ASSIGN_OR_RETURN(request.parameters, read_query_parameters(in));
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
