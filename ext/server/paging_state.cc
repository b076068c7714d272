#include "ext/server/paging_state.h"

#include "ext/server/md5.h"

namespace cassette::server {

namespace {

constexpr size_t kDigestBytes = 8;

void append_with_length(std::string* out, std::string_view part) {
  const auto n = static_cast<uint32_t>(part.size());
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(n >> shift));
  out->append(part);
}

std::string digest(std::string_view state, std::string_view identity) {
  std::string input;
  append_with_length(&input, state);
  append_with_length(&input, identity);
  return md5(input).substr(0, kDigestBytes);
}

}  // namespace

std::string paged_query_identity(std::string_view statement, std::string_view keyspace,
                                 std::span<const cql::BoundValue> values,
                                 std::span<const std::string> value_names) {
  std::string identity;
  append_with_length(&identity, statement);
  append_with_length(&identity, keyspace);
  for (const cql::BoundValue& value : values) {
    identity.push_back(static_cast<char>(value.kind));
    append_with_length(&identity, value.bytes);
  }
  for (const std::string& name : value_names) append_with_length(&identity, name);
  return identity;
}

std::string seal_paging_state(std::string_view state, std::string_view identity) {
  std::string sealed(state);
  sealed += digest(state, identity);
  return sealed;
}

std::optional<std::string> open_paging_state(std::string_view sealed, std::string_view identity) {
  if (sealed.size() < kDigestBytes) return std::nullopt;
  const std::string_view state = sealed.substr(0, sealed.size() - kDigestBytes);
  if (digest(state, identity) != sealed.substr(state.size())) return std::nullopt;
  return std::string(state);
}

bool open_paging_state(cql::StatementOptions& options, std::string_view identity) {
  if (!options.paging_state) return true;
  options.paging_state = open_paging_state(*options.paging_state, identity);
  return options.paging_state.has_value();
}

void seal_paging_state(Result<cql::ExecutionResult>& result, std::string_view identity) {
  if (result.is_ok() && result->paging_state) {
    result->paging_state = seal_paging_state(*result->paging_state, identity);
  }
}

}  // namespace cassette::server
