// ERROR messages (native_protocol_v4.spec §4.2.1 and §9): the engine's Status codes mapped to
// the protocol's error codes in one table, and the error bodies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/util/status.h"

namespace cassette::server {

enum class ErrorCode : int32_t {
  kServerError = 0x0000,
  kProtocolError = 0x000A,
  kBadCredentials = 0x0100,
  kUnavailable = 0x1000,
  kOverloaded = 0x1001,
  kSyntaxError = 0x2000,
  kUnauthorized = 0x2100,
  kInvalid = 0x2200,
  kConfigError = 0x2300,
  kAlreadyExists = 0x2400,
  kUnprepared = 0x2500,
};

// The protocol error for an engine status (REQUIRES: !status.is_ok()):
//   InvalidArgument, NotFound, Unsupported -> Invalid (0x2200)
//   SyntaxError -> Syntax_error (0x2000)       AlreadyExists -> Already_exists (0x2400)
//   Configuration -> Config_error (0x2300)     Unauthorized -> Unauthorized (0x2100)
//   Busy (the store's write lock was not had in time) -> Overloaded (0x1001): drivers retry it
//   Corruption, IOError, Internal, Cancelled -> Server_error (0x0000)
ErrorCode error_code_for(StatusCode code);

// An ERROR body with no extra fields: [int] code, [string] message.
std::string encode_error(ErrorCode code, std::string_view message);
// Already_exists (0x2400): the message, then the keyspace and the table (empty for a keyspace).
std::string encode_already_exists(std::string_view message, std::string_view keyspace,
                                  std::string_view table);

// Unprepared (0x2500): the message, then the [short bytes] id of the statement the server does
// not know (or knows only out of date): drivers prepare it again and retry.
std::string encode_unprepared(std::string_view message, std::string_view id);

// Cassandra's message for a version the server does not speak (ProtocolVersion
// .invalidVersionMessage); drivers look for "unsupported protocol version" in it, lower their
// version and connect again.
std::string unsupported_version_message(int version);

}  // namespace cassette::server
