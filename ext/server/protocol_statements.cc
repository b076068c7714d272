// PREPARE, EXECUTE and BATCH, and the statements of QUERY that carry bound values: the part of
// ProtocolConnection that runs prepared statements (protocol_connection.h).
//
// A statement whose table was altered or dropped since PREPARE answers UNPREPARED with its id
// rather than being prepared again here: the driver then prepares it again itself and so learns
// the new variable and result metadata, which it needs to decode rows it asked to receive
// without metadata (the skip_metadata flag).
#include <fmt/format.h>

#include <type_traits>
#include <variant>

#include "engine/cql/parser.h"
#include "ext/server/body.h"
#include "ext/server/consistency.h"
#include "ext/server/error_codes.h"
#include "ext/server/paging_state.h"
#include "ext/server/protocol_connection.h"
#include "ext/server/statement_target.h"

namespace cassette::server {

namespace {

std::string protocol_error_body(std::string_view message) {
  return encode_error(ErrorCode::kProtocolError, message);
}

std::string error_body(const Status& status) {
  return encode_error(error_code_for(status.code()), status.message());
}

// Whether every table `statement` uses is named with its keyspace (then the connection's
// keyspace is no part of its prepared id).
bool names_its_keyspaces(const cql::Statement& statement) {
  bool any = false, all = true;
  auto check = [&](const cql::QualifiedName& table) {
    any = true;
    all = all && !table.keyspace.empty();
  };
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, cql::BatchStatement>) {
          for (const auto& child : s.statements) {
            std::visit([&](const auto& c) { check(c.table); }, child);
          }
        } else if constexpr (std::is_same_v<S, cql::SelectStatement> ||
                             std::is_same_v<S, cql::InsertStatement> ||
                             std::is_same_v<S, cql::UpdateStatement> ||
                             std::is_same_v<S, cql::DeleteStatement>) {
          check(s.table);
        }
      },
      statement);
  return any && all;
}

std::string unknown_id_message(std::string_view id) {
  std::string hex;
  for (unsigned char c : id) hex += fmt::format("{:02x}", c);
  return fmt::format(
      "Prepared query with ID {} not found (either the query was not prepared on "
      "this host (maybe the host has been restarted?) or you have prepared too "
      "many queries and it has been evicted from the internal cache)",
      hex);
}

using BatchMember = std::variant<cql::InsertStatement, cql::UpdateStatement, cql::DeleteStatement>;

// A BATCH's statement: modifications only, as BatchStatement.Parsed checks them.
Result<BatchMember> batch_member(cql::Statement statement) {
  if (auto* insert = std::get_if<cql::InsertStatement>(&statement)) {
    return BatchMember(std::move(*insert));
  }
  if (auto* update = std::get_if<cql::UpdateStatement>(&statement)) {
    return BatchMember(std::move(*update));
  }
  if (auto* del = std::get_if<cql::DeleteStatement>(&statement))
    return BatchMember(std::move(*del));
  return Status::invalid_argument(
      "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.");
}

}  // namespace

Status ProtocolConnection::consistency_refusal(const cql::Statement& statement,
                                               uint16_t consistency,
                                               std::optional<uint16_t> serial) const {
  return check_consistency(statement, consistency, serial, [&](const cql::QualifiedName& name) {
    auto schema = session_->catalog().current();
    if (!schema.is_ok()) return false;
    auto table = (*schema)->find_table(name.keyspace.empty() ? session_->keyspace() : name.keyspace,
                                       name.name);
    return table != nullptr && table->is_counter_table();
  });
}

Reply ProtocolConnection::prepare(const FrameHeader& header, std::string_view body) {
  auto request = decode_prepare(body, header.version);
  if (!request.is_ok()) {
    return error_reply(header, protocol_error_body(request.status().message()));
  }
  return in_keyspace(request->keyspace,
                     [&] { return prepare_in_keyspace(header, request->query); });
}

Reply ProtocolConnection::prepare_in_keyspace(const FrameHeader& header, const std::string& query) {
  auto prepared = session_->prepare(query);
  if (!prepared.is_ok()) return error_reply(header, error_body(prepared.status()));
  // The statement as written (the prepared one has every name qualified).
  auto written = cql::parse_statement(query);
  const bool qualified = written.is_ok() && names_its_keyspaces(*written);
  const std::string id = PreparedCache::id_of(query, session_->keyspace(), qualified);
  prepared_->put(id, *prepared);
  const std::string result = encode_prepared_result(
      id, **prepared, rows_source((*prepared)->statement, session_->keyspace()), header.version);
  return Reply{response(header, Opcode::kResult, result), false};
}

Reply ProtocolConnection::execute(const FrameHeader& header, std::string_view body) {
  auto request = decode_execute(body, header.version);
  if (!request.is_ok()) {
    return error_reply(header, protocol_error_body(request.status().message()));
  }
  if (request->parameters.now_in_seconds) {
    return error_reply(header, protocol_error_body(now_in_seconds_refusal()));
  }
  std::shared_ptr<const cql::PreparedStatement> prepared = prepared_->find(request->id);
  if (prepared == nullptr) {
    return error_reply(header, encode_unprepared(unknown_id_message(request->id), request->id));
  }
  // v5: a client that knows other result metadata than the statement's gets it again, with its
  // id. (The rows' source keyspace is the statement's own: its names are all qualified.)
  std::optional<std::string> new_metadata_id;
  if (request->result_metadata_id) {
    std::string current =
        result_metadata_id(*prepared, rows_source(prepared->statement, session_->keyspace()));
    if (current != *request->result_metadata_id) new_metadata_id = std::move(current);
  }
  return in_keyspace(request->parameters.keyspace, [&] {
    return run_prepared(header, *prepared, request->parameters, request->id, new_metadata_id);
  });
}

Reply ProtocolConnection::run_prepared(const FrameHeader& header,
                                       const cql::PreparedStatement& prepared,
                                       const QueryParameters& parameters, const std::string& id,
                                       const std::optional<std::string>& new_metadata_id) {
  std::vector<std::pair<std::string, BoundValue>> named;
  std::span<const BoundValue> values = parameters.values;
  std::vector<BoundValue> by_name;
  if (parameters.flags & kQueryValueNames) {
    for (size_t i = 0; i < parameters.values.size(); ++i) {
      named.emplace_back(parameters.value_names[i], parameters.values[i]);
    }
    by_name = cql::Session::values_by_name(prepared, named);
    values = by_name;
  }
  // A paging state belongs to this statement with these values (paging_state.h); a prepared
  // id already stands for the keyspace its statement depends on.
  cql::StatementOptions options = statement_options(parameters);
  const std::string paged_query =
      id.empty() ? paged_query_identity(prepared.query, session_->keyspace(), parameters.values,
                                        parameters.value_names)
                 : paged_query_identity("id:" + id, "", parameters.values, parameters.value_names);
  if (!open_paging_state(options, paged_query)) {
    return error_reply(header, protocol_error_body(kInvalidPagingState));
  }
  if (Status refused = consistency_refusal(prepared.statement, parameters.consistency,
                                           parameters.serial_consistency);
      !refused.is_ok()) {
    return error_reply(header, error_body(refused));
  }
  auto result = session_->execute(prepared, values, options);
  seal_paging_state(result, paged_query);
  if (!result.is_ok() && result.status().code() == StatusCode::kUnprepared && !id.empty()) {
    return error_reply(header, encode_unprepared(result.status().message(), id));
  }
  return result_reply(header, prepared.statement, std::nullopt, result,
                      (parameters.flags & kQuerySkipMetadata) != 0, new_metadata_id);
}

Reply ProtocolConnection::batch(const FrameHeader& header, std::string_view body) {
  auto request = decode_batch(body, header.version);
  if (!request.is_ok()) {
    return error_reply(header, protocol_error_body(request.status().message()));
  }
  if (request->now_in_seconds) {
    return error_reply(header, protocol_error_body(now_in_seconds_refusal()));
  }
  return in_keyspace(request->keyspace, [&] { return run_batch(header, *request); });
}

Reply ProtocolConnection::run_batch(const FrameHeader& header, const BatchRequest& request) {
  cql::BatchStatement batch;
  batch.type = static_cast<cql::BatchStatement::Type>(request.type);
  for (const BatchChild& child : request.children) {
    std::shared_ptr<const cql::PreparedStatement> prepared;
    if (child.prepared) {
      prepared = prepared_->find(child.query_or_id);
      if (prepared == nullptr) {
        return error_reply(
            header, encode_unprepared(unknown_id_message(child.query_or_id), child.query_or_id));
      }
    } else {
      auto parsed = session_->prepare(child.query_or_id);
      if (!parsed.is_ok()) return error_reply(header, error_body(parsed.status()));
      prepared = std::move(*parsed);
    }
    auto bound = session_->bind(*prepared, child.values);
    if (!bound.is_ok()) {
      if (bound.status().code() == StatusCode::kUnprepared && child.prepared) {
        return error_reply(header, encode_unprepared(bound.status().message(), child.query_or_id));
      }
      return error_reply(header, error_body(bound.status()));
    }
    if (!*bound) continue;  // unset values left nothing to do
    auto member = batch_member(std::move(**bound));
    if (!member.is_ok()) return error_reply(header, error_body(member.status()));
    batch.statements.push_back(std::move(*member));
  }
  cql::StatementOptions options;
  options.default_timestamp = request.default_timestamp;
  const cql::Statement statement = std::move(batch);
  if (Status refused =
          consistency_refusal(statement, request.consistency, request.serial_consistency);
      !refused.is_ok()) {
    return error_reply(header, error_body(refused));
  }
  return result_reply(header, statement, std::nullopt, session_->execute(statement, options),
                      false);
}

}  // namespace cassette::server
