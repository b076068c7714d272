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
// Protocol v4 and v5 (the version of the client's first frame; a later frame of another
// version is refused). A v5 connection switches to segments (segment.h) once STARTUP is
// answered: the network loop then asks uses_segments() and hands it segments instead of frames,
// and every reply is segments; compression (lz4 only) then applies to segments, not envelopes.
// A segment whose CRC does not match gets a protocol error and closes the connection.
//
// Frames the connection cannot continue after - a protocol version it does not speak, a body
// over the size limit, a response frame, a compressed frame before compression was agreed - get
// a protocol error (0x000A) and close the connection.
//
// Concurrency: the network loop may run a connection's QUERY, PREPARE, EXECUTE and BATCH
// requests (runs_concurrently), v4 frames and v5 envelopes alike (read_segment), at the same
// time, each on a fork of the connection (fork: the same negotiated state over another Session),
// and write their answers as they complete; the rest (the handshake, OPTIONS, REGISTER, a USE)
// runs on the connection itself, after the requests before it have completed.
//
// REQUIRES: external synchronization of each object; one request at a time on each.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/session.h"
#include "engine/cql/tracing.h"
#include "ext/server/compression.h"
#include "ext/server/connected_clients.h"
#include "ext/server/frame.h"
#include "ext/server/password_file.h"
#include "ext/server/prepared_cache.h"
#include "ext/server/requests.h"
#include "ext/server/result_encoding.h"
#include "ext/server/segment.h"

namespace cassette::server {

// What to write back, and whether to close the connection once it is written.
struct Reply {
  std::string bytes;  // whole frames; empty: nothing to write
  bool close = false;
  // The request changed the schema: the server tells registered connections at once, before
  // this reply is written.
  bool schema_changed = false;
};

// One request of a v5 segment (read_segment): an envelope to handle as handle_frame does, or the
// error to answer after the envelopes before it, then close (`refusal`, an envelope).
struct SegmentRequest {
  FrameHeader header;
  std::string body;
  std::optional<Reply> refusal;
};

class ProtocolConnection {
 public:
  // `passwords`: the users let in, or null to serve without authentication. `prepared`: the
  // server's statements, shared by its connections (nullptr: this connection's own cache).
  ProtocolConnection(std::unique_ptr<cql::Session> session, uint32_t max_frame_bytes,
                     std::shared_ptr<const PasswordFile> passwords = nullptr,
                     std::shared_ptr<PreparedCache> prepared = nullptr);

  // The client's address, for the traces of its requests (system_traces.sessions.client).
  void set_client_address(std::string address) { client_address_ = std::move(address); }
  // Where this connection (and its forks) shows itself in system_views.clients.
  void set_client_record(std::shared_ptr<ClientRecord> record) { client_ = std::move(record); }

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

  // Whether the request of `header` (checked by check_header) may run on a fork while the
  // connection's other requests run: a QUERY (but a USE), PREPARE, EXECUTE or BATCH of protocol
  // v4 or older once the connection is ready. A USE waits for the requests before it and holds
  // back the ones after it, so that each runs in the keyspace its order gives it.
  bool runs_concurrently(const FrameHeader& header, std::string_view body) const;
  // Whether the request (one runs_concurrently allows) is an EXECUTE of a prepared SELECT: a
  // read, which never waits for the store's write lock.
  bool is_prepared_read(const FrameHeader& header, std::string_view body) const;
  // A connection in this one's negotiated state (version, compression, authenticated) over
  // `session`, for requests that runs_concurrently allows; its session gets this one's node info.
  std::unique_ptr<ProtocolConnection> fork(std::unique_ptr<cql::Session> session) const;
  // Before a fork runs a request: the fork takes this connection's current keyspace. After: a
  // keyspace the request changed (a prepared USE) becomes this connection's.
  void lend_keyspace(ProtocolConnection& fork) const;
  void take_keyspace(const ProtocolConnection& fork);

  // v5, once STARTUP is answered: the network loop reads segments, not frames.
  bool uses_segments() const { return version_ >= 5 && stage_ != Stage::kEstablished; }
  // The size of the segment headers to read: kSegmentHeaderSize, or kCompressedSegmentHeaderSize
  // with LZ4.
  size_t segment_header_size() const;
  // Checks a segment header (segment_header_size() bytes): nullopt, with `*payload_bytes` set to
  // the bytes to read next (payload and CRC32), or the error to write before closing.
  std::optional<Reply> check_segment_header(std::span<const uint8_t> header_bytes,
                                            size_t* payload_bytes);
  // Handles the payload and CRC32 of the segment whose header check_segment_header accepted:
  // the envelopes it completes are handled as handle_frame does, their replies returned as
  // segments (nothing while a large envelope is still incomplete). Never throws.
  Reply handle_segment(std::string_view payload_and_crc);
  // handle_segment's first half, for a network loop that runs the envelopes itself: the requests
  // of the segment, in order (none while a large envelope is still incomplete). Their answers
  // (handle_frame's, or a refusal's) go out through as_segments.
  std::vector<SegmentRequest> read_segment(std::string_view payload_and_crc);
  // Envelopes wrapped in this connection's segments (v5, once STARTUP is answered).
  std::string as_segments(std::string_view envelopes) const;
  // The ERROR answering `request` with `status` (a commit whose sync failed after its request
  // ran: durability.h).
  Reply error_for(const FrameHeader& request, const Status& status) const;

 private:
  Reply dispatch(const FrameHeader& header, std::string_view body);
  // QUERY, PREPARE, EXECUTE, BATCH and REGISTER once the connection is ready.
  Reply run_request(const FrameHeader& header, Opcode op, std::string_view body);
  // run_request for a request the client asked to trace (tracing.h): its RESULT carries the
  // trace's session id.
  Reply traced(const FrameHeader& header, Opcode op, std::string_view body);
  cql::TraceSession trace_session_for(const FrameHeader& header, Opcode op, std::string_view body);
  Reply startup(const FrameHeader& header, std::string_view body);
  Reply authenticate(const FrameHeader& header, std::string_view body);
  Reply options(const FrameHeader& header);
  Reply register_events(const FrameHeader& header, std::string_view body);
  Reply query(const FrameHeader& header, std::string_view body);
  Reply run_statement(const FrameHeader& header, const QueryRequest& request);
  // protocol_statements.cc: PREPARE, EXECUTE, BATCH, and statements with bound values.
  Reply prepare(const FrameHeader& header, std::string_view body);
  Reply prepare_in_keyspace(const FrameHeader& header, const std::string& query);
  Reply execute(const FrameHeader& header, std::string_view body);
  Reply batch(const FrameHeader& header, std::string_view body);
  Reply run_batch(const FrameHeader& header, const BatchRequest& request);
  // Cassandra's refusal of `statement` at these consistency levels (consistency.h), or ok.
  Status consistency_refusal(const cql::Statement& statement, uint16_t consistency,
                             std::optional<uint16_t> serial) const;
  // Runs `prepared` with the parameters' values; `id` (empty for a QUERY's statement) goes into
  // an UNPREPARED error when the statement is out of date.
  Reply run_prepared(const FrameHeader& header, const cql::PreparedStatement& prepared,
                     const QueryParameters& parameters, const std::string& id,
                     const std::optional<std::string>& new_metadata_id = std::nullopt);
  // The RESULT of a statement run (or its ERROR): `statement` names what the result's metadata
  // and a Schema_change say.
  // `new_metadata_id` (v5): the rows' metadata changed since the client's EXECUTE learned it, so
  // the Rows carry their metadata and this id (the metadata_changed flag).
  Reply result_reply(const FrameHeader& header, const cql::Statement& statement,
                     const std::optional<SchemaChange>& change,
                     const Result<cql::ExecutionResult>& result, bool skip_metadata,
                     const std::optional<std::string>& new_metadata_id = std::nullopt);
  // The envelopes of one self-contained segment, or one reassembled envelope, appended to `out`
  // (ending with a refusal when one is cut short or refused).
  void split_envelopes(std::string_view envelopes, std::vector<SegmentRequest>* out) const;
  // A protocol error on stream 0: the envelope, and as a segment closing the connection.
  std::string error_envelope(std::string_view message) const;
  Reply segment_error(std::string_view message) const;
  SegmentRequest segment_refusal(std::string_view message) const;
  // Runs `run` with the session's keyspace set to `keyspace` (v5's per-request keyspace), then
  // puts the connection's keyspace back (unless the request was a USE).
  template <typename Run>
  Reply in_keyspace(const std::optional<std::string>& keyspace, Run run);

  // A response frame on the request's stream, compressed once STARTUP agreed on compression.
  std::string response(const FrameHeader& request, Opcode opcode, std::string_view body,
                       uint8_t extra_flags = 0) const;
  Reply error_reply(const FrameHeader& request, std::string body, bool close = false) const;

  std::unique_ptr<cql::Session> session_;
  uint32_t max_frame_bytes_;
  std::shared_ptr<const PasswordFile> passwords_;
  std::shared_ptr<PreparedCache> prepared_;
  std::string client_address_;
  std::shared_ptr<ClientRecord> client_;  // null: not listed (unit tests)
  bool unmask_ = false;  // the authenticated user may see masked columns in clear (UNMASK)
  // The authenticated user when they hold neither UNMASK nor SELECT_MASKED (Session's
  // set_masked_query_user); empty otherwise.
  std::string masked_query_user_;
  // Cassandra's connection stages: before STARTUP, between AUTHENTICATE and AUTH_SUCCESS,
  // serving.
  enum class Stage { kEstablished, kAuthenticating, kReady };
  Stage stage_ = Stage::kEstablished;
  Compression compression_ = Compression::kNone;
  bool schema_events_ = false;
  // The protocol version of the client's frames, set by its first frame (0 before it).
  uint8_t version_ = 0;
  // v5: the header of the segment whose payload is read next, and the start of an envelope
  // spanning segments that are not self-contained.
  SegmentHeader segment_header_;
  std::string partial_envelope_;
};

template <typename Run>
Reply ProtocolConnection::in_keyspace(const std::optional<std::string>& keyspace, Run run) {
  if (!keyspace) return run();
  const std::string connection_keyspace = session_->keyspace();
  session_->set_keyspace(*keyspace);
  Reply reply = run();
  if (session_->keyspace() == *keyspace) session_->set_keyspace(connection_keyspace);
  return reply;
}

}  // namespace cassette::server
