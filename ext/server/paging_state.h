// The paging states `cassette serve` hands to clients are bound to the query they page: the
// engine's state (where the read stopped) followed by a digest of that state and of the query
// (its text or prepared id, the keyspace it runs in, its bound values and their names). A state
// passed with another statement, other values, or with altered bytes does not match, and is
// refused with Cassandra's error (a protocol error, "Invalid value for the paging state", as
// PagingState.deserialize refuses what it cannot read) instead of resuming somewhere else.
//
//   std::string query = paged_query_identity("SELECT * FROM t", "ks", values, names);
//   std::string client_state = seal_paging_state(engine_state, query);
//   std::optional<std::string> engine_state = open_paging_state(client_state, query);
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/bind_markers.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/result.h"
#include "engine/util/status.h"

namespace cassette::server {

inline constexpr std::string_view kInvalidPagingState = "Invalid value for the paging state";

// What a paging state is bound to. `statement`: the query text of a QUERY, or "id:" and the
// prepared id of an EXECUTE; `keyspace`: the one it runs in.
std::string paged_query_identity(std::string_view statement, std::string_view keyspace,
                                 std::span<const cql::BoundValue> values,
                                 std::span<const std::string> value_names);

// The client's paging state for the engine's `state` of the query `identity`.
std::string seal_paging_state(std::string_view state, std::string_view identity);

// The engine's state inside `sealed`, or nullopt when it is not a state of the query
// `identity` (another query's, or altered).
std::optional<std::string> open_paging_state(std::string_view sealed, std::string_view identity);

// The same on a statement's options and result: the client's paging state in `options` becomes
// the engine's (false when it is not one of the query `identity`: refuse the request with
// kInvalidPagingState), and the engine's in `result` the client's.
bool open_paging_state(cql::StatementOptions& options, std::string_view identity);
void seal_paging_state(Result<cql::ExecutionResult>& result, std::string_view identity);

}  // namespace cassette::server
