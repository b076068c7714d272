// One client connection's protocol state, without the network: the server's network loop
// (server.h) hands it each frame read from the socket and writes back what it returns. Unit
// tests drive it with frames directly.
//
// It answers STARTUP (CQL_VERSION required; COMPRESSION lz4 or snappy), OPTIONS (SUPPORTED),
// AUTH_RESPONSE when the server has a password file (PasswordAuthenticator: STARTUP is answered
// AUTHENTICATE, the client's SASL PLAIN token AUTH_SUCCESS or Bad credentials, and nothing but
// OPTIONS and AUTH_RESPONSE is served before that),
// REGISTER (READY; the server pushes SCHEMA_CHANGE events through schema_change_event), QUERY,
// PREPARE, EXECUTE and BATCH (run on the connection's own Session, prepared statements kept in
// the server's PreparedCache; paging, bound values and default timestamps as protocol v4 has
// them), and refuses the rest with Cassandra's errors.
//
// Frames the connection cannot continue after - a protocol version it does not speak, a body
// over the size limit, a response frame, a compressed frame before compression was agreed - get
// a protocol error (0x000A) and close the connection.
//
// REQUIRES: external synchronization; the requests of one connection are handled one at a time,
// in order of arrival.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/session.h"
#include "ext/server/compression.h"
#include "ext/server/frame.h"
#include "ext/server/password_file.h"
#include "ext/server/prepared_cache.h"
#include "ext/server/requests.h"
#include "ext/server/result_encoding.h"

namespace cassette::server {

// What to write back, and whether to close the connection once it is written.
struct Reply {
  std::string bytes;  // whole frames; empty: nothing to write
  bool close = false;
};

class ProtocolConnection {
 public:
  // `passwords`: the users let in, or null to serve without authentication. `prepared`: the
  // server's statements, shared by its connections (nullptr: this connection's own cache).
  ProtocolConnection(std::unique_ptr<cql::Session> session, uint32_t max_frame_bytes,
                     std::shared_ptr<const PasswordFile> passwords = nullptr,
                     std::shared_ptr<PreparedCache> prepared = nullptr);

  // Checks a frame's header before its body is read: nullopt when the body should be read, else
  // the error to write before closing. `header_bytes` holds the first kFrameHeaderSize bytes.
  std::optional<Reply> check_header(std::span<const uint8_t> header_bytes) const;

  // Whether the client registered for SCHEMA_CHANGE events (REGISTER).
  bool wants_schema_events() const { return schema_events_; }

  // An EVENT frame (stream -1) announcing `change`, compressed as this connection's responses
  // are.
  std::string schema_change_event(const SchemaChange& change) const;

  // Handles one frame whose header passed check_header. Never throws.
  Reply handle_frame(const FrameHeader& header, std::string_view body);

 private:
  Reply dispatch(const FrameHeader& header, std::string_view body);
  Reply startup(const FrameHeader& header, std::string_view body);
  Reply authenticate(const FrameHeader& header, std::string_view body);
  Reply options(const FrameHeader& header);
  Reply register_events(const FrameHeader& header, std::string_view body);
  Reply query(const FrameHeader& header, std::string_view body);
  Reply run_statement(const FrameHeader& header, const QueryRequest& request);
  // protocol_statements.cc: PREPARE, EXECUTE, BATCH, and statements with bound values.
  Reply prepare(const FrameHeader& header, std::string_view body);
  Reply execute(const FrameHeader& header, std::string_view body);
  Reply batch(const FrameHeader& header, std::string_view body);
  // Runs `prepared` with the parameters' values; `id` (empty for a QUERY's statement) goes into
  // an UNPREPARED error when the statement is out of date.
  Reply run_prepared(const FrameHeader& header, const cql::PreparedStatement& prepared,
                     const QueryParameters& parameters, const std::string& id);
  // The RESULT of a statement run (or its ERROR): `statement` names what the result's metadata
  // and a Schema_change say.
  Reply result_reply(const FrameHeader& header, const cql::Statement& statement,
                     const std::optional<SchemaChange>& change,
                     const Result<cql::ExecutionResult>& result, bool skip_metadata);

  // A response frame on the request's stream, compressed once STARTUP agreed on compression.
  std::string response(const FrameHeader& request, Opcode opcode, std::string_view body,
                       uint8_t extra_flags = 0) const;
  Reply error_reply(const FrameHeader& request, std::string body, bool close = false) const;

  std::unique_ptr<cql::Session> session_;
  uint32_t max_frame_bytes_;
  std::shared_ptr<const PasswordFile> passwords_;
  std::shared_ptr<PreparedCache> prepared_;
  // Cassandra's connection stages: before STARTUP, between AUTHENTICATE and AUTH_SUCCESS,
  // serving.
  enum class Stage { kEstablished, kAuthenticating, kReady };
  Stage stage_ = Stage::kEstablished;
  Compression compression_ = Compression::kNone;
  bool schema_events_ = false;
};

}  // namespace cassette::server
