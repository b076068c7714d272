#include "ext/server/error_codes.h"

#include <fmt/format.h>

#include "ext/server/body.h"
#include "ext/server/frame.h"

namespace cassette::server {

ErrorCode error_code_for(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kUnsupported:
    case StatusCode::kUnprepared:  // EXECUTE and BATCH answer encode_unprepared, with the id
      return ErrorCode::kInvalid;
    case StatusCode::kSyntaxError:
      return ErrorCode::kSyntaxError;
    case StatusCode::kAlreadyExists:
      return ErrorCode::kAlreadyExists;
    case StatusCode::kConfiguration:
      return ErrorCode::kConfigError;
    case StatusCode::kUnauthorized:
      return ErrorCode::kUnauthorized;
    case StatusCode::kBusy:
    case StatusCode::kSerializationFailure:  // try again, as for a busy store
      return ErrorCode::kOverloaded;
    case StatusCode::kOk:
    case StatusCode::kCorruption:
    case StatusCode::kIOError:
    case StatusCode::kInternal:
    case StatusCode::kCancelled:
      break;
  }
  return ErrorCode::kServerError;
}

std::string encode_error(ErrorCode code, std::string_view message) {
  BodyWriter out;
  out.write_int(static_cast<int32_t>(code));
  // A [string] holds at most 65535 bytes; a longer message is cut (at a byte: it is read as
  // UTF-8 by drivers, which replace a cut sequence).
  out.write_string(message.substr(0, 65535));
  return out.take();
}

std::string encode_already_exists(std::string_view message, std::string_view keyspace,
                                  std::string_view table) {
  BodyWriter out;
  out.write_int(static_cast<int32_t>(ErrorCode::kAlreadyExists));
  out.write_string(message.substr(0, 65535));
  out.write_string(keyspace);
  out.write_string(table);
  return out.take();
}

std::string encode_unprepared(std::string_view message, std::string_view id) {
  BodyWriter out;
  out.write_int(static_cast<int32_t>(ErrorCode::kUnprepared));
  out.write_string(message.substr(0, 65535));
  out.write_short_bytes(id);
  return out.take();
}

std::string unsupported_version_message(int version) {
  return fmt::format("Invalid or unsupported protocol version ({}); supported versions are ({})",
                     version, kProtocolVersionNames);
}

}  // namespace cassette::server
