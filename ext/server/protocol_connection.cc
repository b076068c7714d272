#include "ext/server/protocol_connection.h"

#include <fmt/format.h>

#include <cctype>
#include <exception>
#include <utility>

#include "engine/cql/parser.h"
#include "engine/cql/system_tables.h"
#include "ext/server/body.h"
#include "ext/server/consistency.h"
#include "ext/server/error_codes.h"
#include "ext/server/paging_state.h"
#include "ext/server/requests.h"
#include "ext/server/result_encoding.h"
#include "ext/server/statement_target.h"

namespace cassette::server {

namespace {

// What AUTHENTICATE names: drivers pick their SASL mechanism by it (PLAIN for this one).
constexpr std::string_view kPasswordAuthenticator =
    "org.apache.cassandra.auth.PasswordAuthenticator";

bool is_request_opcode(uint8_t opcode) {
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kStartup:
    case Opcode::kOptions:
    case Opcode::kQuery:
    case Opcode::kPrepare:
    case Opcode::kExecute:
    case Opcode::kRegister:
    case Opcode::kBatch:
    case Opcode::kAuthResponse:
      return true;
    default:
      return false;
  }
}

bool is_response_opcode(uint8_t opcode) {
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kError:
    case Opcode::kReady:
    case Opcode::kAuthenticate:
    case Opcode::kSupported:
    case Opcode::kResult:
    case Opcode::kEvent:
    case Opcode::kAuthChallenge:
    case Opcode::kAuthSuccess:
      return true;
    default:
      return false;
  }
}

std::string_view opcode_name(uint8_t opcode) {
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kError:
      return "ERROR";
    case Opcode::kStartup:
      return "STARTUP";
    case Opcode::kReady:
      return "READY";
    case Opcode::kAuthenticate:
      return "AUTHENTICATE";
    case Opcode::kOptions:
      return "OPTIONS";
    case Opcode::kSupported:
      return "SUPPORTED";
    case Opcode::kQuery:
      return "QUERY";
    case Opcode::kResult:
      return "RESULT";
    case Opcode::kPrepare:
      return "PREPARE";
    case Opcode::kExecute:
      return "EXECUTE";
    case Opcode::kRegister:
      return "REGISTER";
    case Opcode::kEvent:
      return "EVENT";
    case Opcode::kBatch:
      return "BATCH";
    case Opcode::kAuthChallenge:
      return "AUTH_CHALLENGE";
    case Opcode::kAuthResponse:
      return "AUTH_RESPONSE";
    case Opcode::kAuthSuccess:
      return "AUTH_SUCCESS";
  }
  return "UNKNOWN";
}

// Cassandra's StartupMessage check: a CQL version of 3 or later.
std::optional<std::string> cql_version_error(const std::map<std::string, std::string>& options) {
  auto version = options.find("CQL_VERSION");
  if (version == options.end()) return "Missing value CQL_VERSION in STARTUP message";
  const std::string& text = version->second;
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 4 || std::stoi(text.substr(0, digits)) < 3) {
    return fmt::format(
        "CQL version {} is not supported by the binary protocol (supported version are >= 3.0.0)",
        text);
  }
  return std::nullopt;
}

std::string protocol_error(std::string_view message) {
  return encode_error(ErrorCode::kProtocolError, message);
}

// Whether `query` is a USE statement: its first word, after blanks and comments, is USE.
bool is_use_statement(std::string_view query) {
  size_t i = 0;
  for (;;) {
    while (i < query.size() && std::isspace(static_cast<unsigned char>(query[i]))) ++i;
    if (query.substr(i, 2) == "--" || query.substr(i, 2) == "//") {
      i = query.find('\n', i);
      if (i == std::string_view::npos) return false;
    } else if (query.substr(i, 2) == "/*") {
      i = query.find("*/", i + 2);
      if (i == std::string_view::npos) return false;
      i += 2;
    } else {
      break;
    }
  }
  if (query.size() - i < 3) return false;
  for (size_t k = 0; k < 3; ++k) {
    if (std::tolower(static_cast<unsigned char>(query[i + k])) != "use"[k]) return false;
  }
  if (i + 3 == query.size()) return true;
  const unsigned char next = query[i + 3];
  return !std::isalnum(next) && next != '_';
}

}  // namespace

ProtocolConnection::ProtocolConnection(std::unique_ptr<cql::Session> session,
                                       uint32_t max_frame_bytes,
                                       std::shared_ptr<const PasswordFile> passwords,
                                       std::shared_ptr<PreparedCache> prepared)
    : session_(std::move(session)),
      max_frame_bytes_(max_frame_bytes),
      passwords_(std::move(passwords)),
      prepared_(prepared ? std::move(prepared) : std::make_shared<PreparedCache>()) {}

std::optional<Reply> ProtocolConnection::check_header(std::span<const uint8_t> header_bytes) const {
  const FrameHeader header = decode_frame_header(header_bytes);
  FrameHeader reply_header;
  reply_header.response = true;
  reply_header.opcode = static_cast<uint8_t>(Opcode::kError);
  reply_header.stream = header.stream;
  reply_header.version = version_ != 0 ? version_ : kMaxProtocolVersion;
  // Inside v5's segments an envelope of any other version is answered in v5 (a reply in
  // another envelope layout would be unreadable there); before, as Cassandra answers frames.
  const bool other_version = version_ != 0 && header.version != version_;
  if (!(other_version && uses_segments()) &&
      (header.version < kMinProtocolVersion || header.version > kMaxProtocolVersion)) {
    // As Cassandra: an older version is answered in its own frame layout, so that its client
    // can read the refusal; a newer one in the newest version the server speaks.
    if (header.version < kMinProtocolVersion) {
      reply_header.version = header.version;
      if (header.version < 3) reply_header.stream = legacy_stream_id(header_bytes);
    }
    const std::string body = protocol_error(unsupported_version_message(header.version));
    return Reply{encode_frame_for_version(reply_header, body), true};
  }
  if (version_ == 0) reply_header.version = header.version;
  std::string message;
  if (other_version) {
    message = fmt::format(
        "Invalid message version. Got {} but previous messages on this connection had version {}",
        header.version, version_);
  } else if (header.response) {
    message = "Wrong protocol direction (expected REQUEST, got RESPONSE)";
  } else if (header.body_length > max_frame_bytes_) {
    message = fmt::format("Request is too big: length {} exceeds maximum allowed length {}.",
                          header.body_length, max_frame_bytes_);
  } else if ((header.flags & kFlagCompression) &&
             (compression_ == Compression::kNone || uses_segments())) {
    message = uses_segments()
                  ? "Received a compressed envelope: protocol v5 compresses segments, not envelopes"
                  : "Received a compressed frame, but no compression was agreed at STARTUP";
  } else {
    return std::nullopt;
  }
  return Reply{encode_frame(reply_header, protocol_error(message)), true};
}

Reply ProtocolConnection::handle_frame(const FrameHeader& header, std::string_view body) {
  if (version_ == 0) version_ = header.version;
  if (client_) client_->count_request();
  try {
    if (!(header.flags & kFlagCompression)) return dispatch(header, body);
    auto plain = decompress_body(compression_, body, max_frame_bytes_);
    if (!plain.is_ok()) return error_reply(header, protocol_error(plain.status().message()), true);
    return dispatch(header, *plain);
  } catch (const std::exception& e) {
    return error_reply(header, encode_error(ErrorCode::kServerError, e.what()));
  } catch (...) {
    return error_reply(header, encode_error(ErrorCode::kServerError, "Unexpected exception"));
  }
}

bool ProtocolConnection::runs_concurrently(const FrameHeader& header, std::string_view body) const {
  if (stage_ != Stage::kReady || header.version != version_) return false;
  switch (static_cast<Opcode>(header.opcode)) {
    case Opcode::kPrepare:
    case Opcode::kExecute:
    case Opcode::kBatch:
      return true;
    case Opcode::kQuery: {
      std::string plain;
      if (header.flags & kFlagCompression) {
        auto decompressed = decompress_body(compression_, body, max_frame_bytes_);
        if (!decompressed.is_ok()) return false;  // the connection's own run refuses it
        plain = std::move(*decompressed);
        body = plain;
      }
      BodyReader in(body);
      auto query = in.read_long_string();
      return query.is_ok() && !is_use_statement(*query);
    }
    default:
      return false;
  }
}

bool ProtocolConnection::is_prepared_read(const FrameHeader& header, std::string_view body) const {
  if (static_cast<Opcode>(header.opcode) != Opcode::kExecute || (header.flags & kFlagCompression)) {
    return false;
  }
  BodyReader in(body);
  auto id = in.read_short_bytes();
  if (!id.is_ok()) return false;
  std::shared_ptr<const cql::PreparedStatement> prepared = prepared_->find(*id);
  return prepared != nullptr && std::holds_alternative<cql::SelectStatement>(prepared->statement);
}

std::unique_ptr<ProtocolConnection> ProtocolConnection::fork(
    std::unique_ptr<cql::Session> session) const {
  session->set_node_info(session_->node_info());
  session->set_unmask(unmask_);
  session->set_masked_query_user(masked_query_user_);
  auto forked = std::make_unique<ProtocolConnection>(std::move(session), max_frame_bytes_,
                                                     passwords_, prepared_);
  forked->stage_ = stage_;
  forked->compression_ = compression_;
  forked->version_ = version_;
  forked->client_address_ = client_address_;
  forked->client_ = client_;
  forked->unmask_ = unmask_;
  forked->masked_query_user_ = masked_query_user_;
  return forked;
}

void ProtocolConnection::lend_keyspace(ProtocolConnection& fork) const {
  if (fork.session_->keyspace() != session_->keyspace()) {
    fork.session_->set_keyspace(session_->keyspace());
  }
}

void ProtocolConnection::take_keyspace(const ProtocolConnection& fork) {
  if (fork.session_->keyspace() != session_->keyspace()) {
    session_->set_keyspace(fork.session_->keyspace());
  }
}

size_t ProtocolConnection::segment_header_size() const {
  return compression_ == Compression::kLz4 ? kCompressedSegmentHeaderSize : kSegmentHeaderSize;
}

std::optional<Reply> ProtocolConnection::check_segment_header(std::span<const uint8_t> header_bytes,
                                                              size_t* payload_bytes) {
  auto header = decode_segment_header(header_bytes, compression_ == Compression::kLz4);
  if (!header.is_ok()) return segment_error(header.status().message());
  segment_header_ = *header;
  *payload_bytes = header->payload_length + kSegmentTrailerSize;
  return std::nullopt;
}

Reply ProtocolConnection::handle_segment(std::string_view payload_and_crc) {
  Reply reply;
  for (SegmentRequest& request : read_segment(payload_and_crc)) {
    Reply one =
        request.refusal ? std::move(*request.refusal) : handle_frame(request.header, request.body);
    reply.bytes += one.bytes;
    reply.close = one.close;
    reply.schema_changed |= one.schema_changed;
    if (reply.close) break;
  }
  if (!reply.bytes.empty()) reply.bytes = as_segments(reply.bytes);
  return reply;
}

std::vector<SegmentRequest> ProtocolConnection::read_segment(std::string_view payload_and_crc) {
  std::vector<SegmentRequest> requests;
  auto payload =
      decode_segment_payload(segment_header_, payload_and_crc, compression_ == Compression::kLz4);
  if (!payload.is_ok()) {
    requests.push_back(segment_refusal(payload.status().message()));
    return requests;
  }
  if (segment_header_.self_contained) {
    if (!partial_envelope_.empty()) {
      requests.push_back(
          segment_refusal("Received a self-contained segment before the end of a large envelope"));
    } else {
      split_envelopes(*payload, &requests);
    }
    return requests;
  }
  // A part of one large envelope: its header is checked as soon as it is whole, so that no more
  // than the size limit is ever kept.
  partial_envelope_ += *payload;
  if (partial_envelope_.size() < kFrameHeaderSize) return requests;
  const auto* bytes = reinterpret_cast<const uint8_t*>(partial_envelope_.data());
  const std::span<const uint8_t> header_bytes(bytes, kFrameHeaderSize);
  if (auto refusal = check_header(header_bytes)) {
    requests.push_back(SegmentRequest{{}, {}, std::move(*refusal)});
    return requests;
  }
  const size_t length = kFrameHeaderSize + decode_frame_header(header_bytes).body_length;
  if (partial_envelope_.size() < length) return requests;
  if (partial_envelope_.size() > length) {
    requests.push_back(
        segment_refusal("A segment that is not self-contained holds more than one envelope"));
    return requests;
  }
  const std::string envelope = std::move(partial_envelope_);
  partial_envelope_.clear();
  split_envelopes(envelope, &requests);
  return requests;
}

void ProtocolConnection::split_envelopes(std::string_view envelopes,
                                         std::vector<SegmentRequest>* out) const {
  while (!envelopes.empty()) {
    if (envelopes.size() < kFrameHeaderSize) {
      out->push_back(segment_refusal("Received a segment that ends inside an envelope's header"));
      return;
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(envelopes.data());
    const std::span<const uint8_t> header_bytes(bytes, kFrameHeaderSize);
    if (auto refusal = check_header(header_bytes)) {
      out->push_back(SegmentRequest{{}, {}, std::move(*refusal)});
      return;
    }
    const FrameHeader header = decode_frame_header(header_bytes);
    if (envelopes.size() - kFrameHeaderSize < header.body_length) {
      out->push_back(segment_refusal("Received a segment that ends inside an envelope"));
      return;
    }
    out->push_back(SegmentRequest{
        header, std::string(envelopes.substr(kFrameHeaderSize, header.body_length)), {}});
    envelopes.remove_prefix(kFrameHeaderSize + header.body_length);
  }
}

std::string ProtocolConnection::as_segments(std::string_view envelopes) const {
  return encode_segments(envelopes, compression_ == Compression::kLz4);
}

Reply ProtocolConnection::error_for(const FrameHeader& request, const Status& status) const {
  return error_reply(request, encode_error(error_code_for(status.code()), status.message()));
}

SegmentRequest ProtocolConnection::segment_refusal(std::string_view message) const {
  return SegmentRequest{{}, {}, Reply{error_envelope(message), true}};
}

std::string ProtocolConnection::error_envelope(std::string_view message) const {
  FrameHeader header;
  header.version = version_;
  header.response = true;
  header.stream = 0;
  header.opcode = static_cast<uint8_t>(Opcode::kError);
  return encode_frame(header, protocol_error(message));
}

Reply ProtocolConnection::segment_error(std::string_view message) const {
  return Reply{encode_segments(error_envelope(message), compression_ == Compression::kLz4), true};
}

Reply ProtocolConnection::dispatch(const FrameHeader& header, std::string_view body) {
  const uint8_t opcode = header.opcode;
  if (is_response_opcode(opcode)) {
    return error_reply(header,
                       protocol_error(fmt::format("Wrong protocol direction (expected REQUEST, got "
                                                  "RESPONSE) for opcode {} ({})",
                                                  opcode, opcode_name(opcode))));
  }
  if (!is_request_opcode(opcode)) {
    return error_reply(header, protocol_error(fmt::format("Unknown opcode {}", opcode)));
  }
  const auto op = static_cast<Opcode>(opcode);
  // A custom payload (v4 on, §2.2) opens the body. Cassandra hands it to a custom QueryHandler,
  // and its default handler ignores it; this server has no other, so it is read and set aside.
  if ((header.flags & kFlagCustomPayload) && header.version >= 4) {
    BodyReader reader(body);
    auto payload = reader.read_bytes_map();
    if (!payload.is_ok()) return error_reply(header, protocol_error(payload.status().message()));
    body = reader.rest();
  }
  if (op == Opcode::kOptions) return options(header);
  if (stage_ == Stage::kEstablished) {
    if (op == Opcode::kStartup) return startup(header, body);
    return error_reply(
        header, protocol_error(fmt::format("Unexpected message {}, expecting STARTUP or OPTIONS",
                                           opcode_name(opcode))));
  }
  if (stage_ == Stage::kAuthenticating) {
    if (op == Opcode::kAuthResponse) return authenticate(header, body);
    return error_reply(header,
                       protocol_error(fmt::format("Unexpected message {}, expecting SASL_RESPONSE",
                                                  opcode_name(opcode))));
  }
  if ((header.flags & kFlagTracing) && op != Opcode::kStartup && op != Opcode::kRegister &&
      op != Opcode::kAuthResponse) {
    return traced(header, op, body);
  }
  return run_request(header, op, body);
}

Reply ProtocolConnection::run_request(const FrameHeader& header, Opcode op, std::string_view body) {
  const auto opcode = static_cast<uint8_t>(op);
  switch (op) {
    case Opcode::kStartup:
      return error_reply(header, protocol_error("Unexpected message STARTUP, the connection is "
                                                "already initialized"));
    case Opcode::kQuery:
      return query(header, body);
    case Opcode::kPrepare:
      return prepare(header, body);
    case Opcode::kExecute:
      return execute(header, body);
    case Opcode::kBatch:
      return batch(header, body);
    case Opcode::kRegister:
      return register_events(header, body);
    case Opcode::kAuthResponse:
      return error_reply(header, protocol_error(passwords_ ? "Unexpected message AUTH_RESPONSE: "
                                                             "the connection is already "
                                                             "authenticated"
                                                           : "Unexpected message AUTH_RESPONSE: "
                                                             "this server does not authenticate"));
    default:
      return error_reply(header, protocol_error(fmt::format("Unknown opcode {}", opcode)));
  }
}

cql::TraceSession ProtocolConnection::trace_session_for(const FrameHeader& header, Opcode op,
                                                        std::string_view body) {
  // What Cassandra's QueryMessage, ExecuteMessage, PrepareMessage and BatchMessage record.
  cql::TraceSession session;
  session.command = "QUERY";
  session.client = client_address_;
  session.coordinator = session_->node_info().address;
  session.coordinator_port = session_->node_info().port;
  auto& parameters = session.parameters;
  auto add_query_parameters = [&](const QueryParameters& query) {
    parameters["consistency_level"] = consistency_name(query.consistency);
    if (query.page_size) parameters["page_size"] = std::to_string(*query.page_size);
    if (query.serial_consistency) {
      parameters["serial_consistency_level"] = consistency_name(*query.serial_consistency);
    }
  };
  // A request that does not decode keeps what is known: its error is answered when it runs.
  if (op == Opcode::kQuery) {
    session.request = "Execute CQL3 query";
    if (auto request = decode_query(body, header.version); request.is_ok()) {
      parameters["query"] = request->query;
      add_query_parameters(request->parameters);
    }
  } else if (op == Opcode::kExecute) {
    session.request = "Execute CQL3 prepared query";
    if (auto request = decode_execute(body, header.version); request.is_ok()) {
      if (auto prepared = prepared_->find(request->id)) parameters["query"] = prepared->query;
      add_query_parameters(request->parameters);
    }
  } else if (op == Opcode::kPrepare) {
    session.request = "Preparing CQL3 query";
    if (auto request = decode_prepare(body, header.version); request.is_ok()) {
      parameters["query"] = request->query;
    }
  } else if (op == Opcode::kBatch) {
    session.request = "Execute batch of CQL3 queries";
    if (auto request = decode_batch(body, header.version); request.is_ok()) {
      parameters["consistency_level"] = consistency_name(request->consistency);
      if (request->serial_consistency) {
        parameters["serial_consistency_level"] = consistency_name(*request->serial_consistency);
      }
    }
  } else {
    session.request = fmt::format("Execute {}", opcode_name(static_cast<uint8_t>(op)));
  }
  return session;
}

Reply ProtocolConnection::traced(const FrameHeader& header, Opcode op, std::string_view body) {
  cql::TraceSession session = trace_session_for(header, op, body);
  auto query = session.parameters.find("query");
  const std::string first_step = query == session.parameters.end() ? session.request
                                 : op == Opcode::kPrepare          ? "Preparing " + query->second
                                 : op == Opcode::kExecute
                                     ? "Executing prepared statement " + query->second
                                     : "Parsing " + query->second;
  const cql::Trace trace = cql::Trace::start(std::move(session));
  FrameHeader traced_header = header;
  traced_header.tracing_id = trace.session_id();
  trace.event(first_step);
  Reply reply = run_request(traced_header, op, body);
  // The trace is complete before the client can ask for it.
  trace.event("Request complete");
  trace.finish();
  return reply;
}

Reply ProtocolConnection::startup(const FrameHeader& header, std::string_view body) {
  auto options = decode_startup(body);
  if (!options.is_ok()) return error_reply(header, protocol_error(options.status().message()));
  if (auto error = cql_version_error(*options)) return error_reply(header, protocol_error(*error));
  Compression compression = Compression::kNone;
  if (auto name = options->find("COMPRESSION"); name != options->end()) {
    auto algorithm = compression_by_name(name->second);
    if (!algorithm) {
      return error_reply(
          header, protocol_error(fmt::format("Unknown compression algorithm: {}", name->second)));
    }
    compression = *algorithm;
    if (header.version >= 5 && compression != Compression::kLz4) {
      return error_reply(header, protocol_error(fmt::format(
                                     "Unsupported compression algorithm for protocol version {}: "
                                     "{} (v5 compresses segments with lz4 only)",
                                     header.version, name->second)));
    }
  }
  // READY or AUTHENTICATE itself goes uncompressed: the client turns compression on when it
  // reads it.
  Reply reply;
  if (passwords_) {
    BodyWriter out;
    out.write_string(kPasswordAuthenticator);
    reply.bytes = response(header, Opcode::kAuthenticate, out.body());
    stage_ = Stage::kAuthenticating;
  } else {
    reply.bytes = response(header, Opcode::kReady, {});
    stage_ = Stage::kReady;
  }
  compression_ = compression;
  if (client_) client_->started(header.version, *options);
  return reply;
}

// AUTH_RESPONSE's token is SASL PLAIN (RFC 4616): [authzid] NUL authcid NUL password. As
// Cassandra's PlainTextSaslAuthenticator, the authzid is ignored, and a failure leaves the
// connection authenticating, so the client may try again.
Reply ProtocolConnection::authenticate(const FrameHeader& header, std::string_view body) {
  BodyReader in(body);
  auto token = in.read_bytes();
  if (!token.is_ok()) return error_reply(header, protocol_error(token.status().message()));
  const std::string_view plain = token->has_value() ? std::string_view(**token) : "";
  const size_t password_start = plain.rfind('\0');
  std::string_view message;
  if (password_start == std::string_view::npos || password_start + 1 == plain.size()) {
    message = "Password must not be null";
  } else {
    const std::string_view front = plain.substr(0, password_start);
    const std::string_view user = front.substr(front.rfind('\0') + 1);  // npos + 1 == 0
    const std::string_view password = plain.substr(password_start + 1);
    if (user.empty()) {
      message = "Authentication ID must not be null";
    } else if (passwords_->check(user, password)) {
      stage_ = Stage::kReady;
      if (client_) client_->authenticated(std::string(user));
      unmask_ = passwords_->can_unmask(user);
      session_->set_unmask(unmask_);
      masked_query_user_ = passwords_->can_select_masked(user) ? "" : std::string(user);
      session_->set_masked_query_user(masked_query_user_);
      BodyWriter out;
      out.write_bytes(std::nullopt);  // PLAIN has no final challenge
      return Reply{response(header, Opcode::kAuthSuccess, out.body()), false};
    } else {
      return error_reply(
          header,
          encode_error(ErrorCode::kBadCredentials,
                       fmt::format("Provided username {} and/or password are incorrect", user)));
    }
  }
  return error_reply(header, encode_error(ErrorCode::kBadCredentials, message));
}

Reply ProtocolConnection::options(const FrameHeader& header) {
  BodyWriter out;
  out.write_string_multimap({{"CQL_VERSION", {std::string(cql::kCqlVersion)}},
                             {"COMPRESSION", {"lz4", "snappy"}},
                             {"PROTOCOL_VERSIONS", {"3/v3", "4/v4", "5/v5"}}});
  return Reply{response(header, Opcode::kSupported, out.body()), false};
}

Reply ProtocolConnection::register_events(const FrameHeader& header, std::string_view body) {
  auto events = decode_register(body);
  if (!events.is_ok()) return error_reply(header, protocol_error(events.status().message()));
  for (const std::string& event : *events) {
    if (event != "TOPOLOGY_CHANGE" && event != "STATUS_CHANGE" && event != "SCHEMA_CHANGE") {
      return error_reply(header,
                         protocol_error(fmt::format("Invalid value '{}' for Event.Type", event)));
    }
  }
  // TOPOLOGY_CHANGE and STATUS_CHANGE are accepted and never fire: one node, always up.
  for (const std::string& event : *events) schema_events_ |= event == "SCHEMA_CHANGE";
  return Reply{response(header, Opcode::kReady, {}), false};
}

std::string ProtocolConnection::schema_change_event(const SchemaChange& change) const {
  BodyWriter out;
  out.write_string("SCHEMA_CHANGE");
  write_schema_change(out, change);
  FrameHeader event_stream;
  event_stream.version = version_ != 0 ? version_ : kMinProtocolVersion;
  event_stream.stream = -1;  // events are not answers: stream -1 (§4.2.6)
  const std::string event = response(event_stream, Opcode::kEvent, out.body());
  return uses_segments() ? encode_segments(event, compression_ == Compression::kLz4) : event;
}

Reply ProtocolConnection::query(const FrameHeader& header, std::string_view body) {
  auto request = decode_query(body, header.version);
  if (!request.is_ok()) return error_reply(header, protocol_error(request.status().message()));
  if (request->parameters.now_in_seconds) {
    return error_reply(header, protocol_error(now_in_seconds_refusal()));
  }
  return in_keyspace(request->parameters.keyspace, [&] { return run_statement(header, *request); });
}

Reply ProtocolConnection::run_statement(const FrameHeader& header, const QueryRequest& request) {
  const QueryParameters& parameters = request.parameters;
  if (!parameters.values.empty()) {
    // Cassandra prepares a QUERY with values for this one execution: so does the session.
    auto prepared = session_->prepare(request.query);
    if (!prepared.is_ok()) {
      const Status& status = prepared.status();
      return error_reply(header, encode_error(error_code_for(status.code()), status.message()));
    }
    return run_prepared(header, **prepared, parameters, "");
  }
  auto statement = cql::parse_statement(request.query);
  if (!statement.is_ok()) {
    const Status& status = statement.status();
    return error_reply(header, encode_error(error_code_for(status.code()), status.message()));
  }
  const std::string keyspace = session_->keyspace();
  auto schema = session_->catalog().current();
  if (!schema.is_ok()) {
    const Status& status = schema.status();
    return error_reply(header, encode_error(error_code_for(status.code()), status.message()));
  }
  const std::optional<SchemaChange> change = schema_change_of(*statement, keyspace, **schema);
  if (Status refused =
          consistency_refusal(*statement, parameters.consistency, parameters.serial_consistency);
      !refused.is_ok()) {
    return error_reply(header, encode_error(error_code_for(refused.code()), refused.message()));
  }
  cql::StatementOptions options = statement_options(parameters);
  const std::string paged_query =
      paged_query_identity(request.query, keyspace, parameters.values, parameters.value_names);
  if (!open_paging_state(options, paged_query)) {
    return error_reply(header, protocol_error(kInvalidPagingState));
  }
  auto result = session_->execute(*statement, options);
  seal_paging_state(result, paged_query);
  return result_reply(header, *statement, change, result,
                      (parameters.flags & kQuerySkipMetadata) != 0);
}

Reply ProtocolConnection::result_reply(const FrameHeader& header, const cql::Statement& statement,
                                       const std::optional<SchemaChange>& change,
                                       const Result<cql::ExecutionResult>& result,
                                       bool skip_metadata,
                                       const std::optional<std::string>& new_metadata_id) {
  if (!result.is_ok()) {
    const Status& status = result.status();
    if (status.code() == StatusCode::kAlreadyExists && change) {
      return error_reply(header,
                         encode_already_exists(status.message(), change->keyspace,
                                               change->target == "KEYSPACE" ? "" : change->name));
    }
    return error_reply(header, encode_error(error_code_for(status.code()), status.message()));
  }
  std::string result_body;
  switch (result->kind) {
    case cql::ExecutionResult::Kind::kVoid:
      result_body = encode_void_result();
      break;
    case cql::ExecutionResult::Kind::kRows:
      result_body = encode_rows_result(result->rows, rows_source(statement, session_->keyspace()),
                                       skip_metadata && !new_metadata_id, result->paging_state,
                                       new_metadata_id, header.version);
      break;
    case cql::ExecutionResult::Kind::kSetKeyspace:
      result_body = encode_set_keyspace_result(result->keyspace);
      break;
    case cql::ExecutionResult::Kind::kSchemaChange:
      result_body = change ? encode_schema_change_result(*change) : encode_void_result();
      break;
  }
  const bool schema_changed = result->kind == cql::ExecutionResult::Kind::kSchemaChange;
  // v3 has no warnings (Cassandra drops them for a v3 client).
  if (result->warnings.empty() || header.version < 4) {
    return Reply{response(header, Opcode::kResult, result_body), false, schema_changed};
  }
  // The warning flag puts a [string list] of warnings before the body (§2.2).
  BodyWriter warned;
  warned.write_string_list(result->warnings);
  return Reply{response(header, Opcode::kResult, warned.body() + result_body, kFlagWarning), false,
               schema_changed};
}

std::string ProtocolConnection::response(const FrameHeader& request, Opcode opcode,
                                         std::string_view body, uint8_t extra_flags) const {
  FrameHeader header;
  header.version = request.version;
  header.response = true;
  header.stream = request.stream;
  header.opcode = static_cast<uint8_t>(opcode);
  header.flags = extra_flags;
  std::string traced_body;
  if (!request.tracing_id.empty() && opcode == Opcode::kResult) {
    // §2.2: the tracing id comes first in the body, before warnings.
    header.flags |= kFlagTracing;
    traced_body = request.tracing_id;
    traced_body += body;
    body = traced_body;
  }
  // An empty body stays uncompressed: some clients cannot decompress an empty block. v5
  // compresses segments, never envelopes.
  if (compression_ == Compression::kNone || body.empty() || request.version >= 5) {
    return encode_frame(header, body);
  }
  header.flags |= kFlagCompression;
  return encode_frame(header, compress_body(compression_, body));
}

Reply ProtocolConnection::error_reply(const FrameHeader& request, std::string body,
                                      bool close) const {
  return Reply{response(request, Opcode::kError, body), close};
}

}  // namespace cassette::server
