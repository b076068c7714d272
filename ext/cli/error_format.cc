// cqlsh prints `<ExceptionClassName>: <message>` where the Python driver decides both: an
// InvalidRequest's message is the driver's summary line ('Error from server: code=2200 [Invalid
// query] message="..."'), a SyntaxException and a ConfigurationException carry the server's
// message as is, and AlreadyExists is rebuilt by the driver from the keyspace and table names the
// server sends ("Keyspace 'ks' already exists" / "Table 'ks.t' already exists").
#include "ext/cli/error_format.h"

#include <fmt/format.h>

#include <optional>

namespace cassette::cli {

namespace {

std::string with_prefix(std::string_view text, const SourceLocation& where) {
  if (where.source.empty()) return std::string(text);
  return fmt::format("{}:{}:{}", where.source, where.line, text);
}

// The quoted names in Cassandra's AlreadyExistsException messages:
//   Cannot add existing keyspace "ks"
//   Cannot add already existing table "t" to keyspace "ks"
// (also accepted: "column family" for older wordings).
std::optional<std::string> quoted_after(std::string_view message, std::string_view marker) {
  size_t at = message.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  size_t open = at + marker.size();
  if (open >= message.size() || message[open] != '"') return std::nullopt;
  size_t close = message.find('"', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return std::string(message.substr(open + 1, close - open - 1));
}

std::string already_exists_message(std::string_view message) {
  std::optional<std::string> keyspace = quoted_after(message, "keyspace ");
  std::optional<std::string> table = quoted_after(message, "table ");
  if (!table) table = quoted_after(message, "column family ");
  if (keyspace && table) return fmt::format("Table '{}.{}' already exists", *keyspace, *table);
  if (keyspace) return fmt::format("Keyspace '{}' already exists", *keyspace);
  return std::string(message);  // some other wording: keep the server's text
}

}  // namespace

bool is_cql_error(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kSyntaxError:
    case StatusCode::kAlreadyExists:
    case StatusCode::kConfiguration:
    case StatusCode::kUnauthorized:
      return true;
    default:
      return false;
  }
}

std::string format_statement_error(const Status& status, const SourceLocation& where) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
      return with_prefix(fmt::format("InvalidRequest: Error from server: code=2200 [Invalid query] "
                                     "message=\"{}\"",
                                     status.message()),
                         where);
    case StatusCode::kSyntaxError:
      return with_prefix(fmt::format("SyntaxException: {}", status.message()), where);
    case StatusCode::kUnauthorized:
      return with_prefix(fmt::format("Unauthorized: Error from server: code=2100 [Unauthorized] "
                                     "message=\"{}\"",
                                     status.message()),
                         where);
    case StatusCode::kConfiguration:
      return with_prefix(fmt::format("ConfigurationException: {}", status.message()), where);
    case StatusCode::kAlreadyExists:
      return with_prefix(fmt::format("AlreadyExists: {}", already_exists_message(status.message())),
                         where);
    case StatusCode::kCancelled:  // Ctrl-C: the user knows why; say only what happened
      return with_prefix(status.message(), where);
    case StatusCode::kSerializationFailure:  // a commit to retry; the shell's own commits are
                                             // blind writes and never fail so
    default:
      return fmt::format("cassette: {}", status.message());
  }
}

std::string format_shell_error(std::string_view message, const SourceLocation& where) {
  return with_prefix(message, where);
}

}  // namespace cassette::cli
