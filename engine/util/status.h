// Errors as values. Every engine function that can fail returns a Status or a Result<T>; no
// exception crosses a module boundary. Messages are full sentences a user can act on, and every
// I/O or corruption error names the file (and the offset, where there is one).
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace cassette {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller's input is wrong (bad CQL, bad value, ...)
  kNotFound,
  kCorruption,  // a file's bytes fail their checksum or do not parse
  kIOError,     // the operating system said no
  kBusy,        // the store lock could not be had within the busy timeout
  kUnsupported,
  kInternal,  // a bug: an invariant did not hold
  // CQL's own error classes, so a shell can print them as cqlsh does:
  kSyntaxError,    // the statement does not parse (SyntaxException)
  kAlreadyExists,  // CREATE of a keyspace/table/type/index that exists (AlreadyExistsException)
  kConfiguration,  // a schema change Cassandra rejects as ConfigurationException
  kUnauthorized,   // a statement no user may run, such as a system keyspace's schema change
                   // (UnauthorizedException)
  kCancelled,      // the caller interrupted the operation (the shell's Ctrl-C)
  // A transaction's commit found a row it read and then wrote changed by another commit since its
  // snapshot (snapshot isolation's first-committer-wins): nothing was written, retry it. SQLite
  // reports it as SQLITE_BUSY_SNAPSHOT, PostgreSQL as SQLSTATE 40001 (serialization_failure).
  kSerializationFailure,
  kUnprepared,  // a prepared statement's table changed or went since it was prepared: the
                // client must prepare it again (the native protocol's UNPREPARED)
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK

  static Status ok() { return Status(); }
  static Status invalid_argument(std::string msg) {
    return {StatusCode::kInvalidArgument, std::move(msg)};
  }
  static Status not_found(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status io_error(std::string msg) { return {StatusCode::kIOError, std::move(msg)}; }
  static Status busy(std::string msg) { return {StatusCode::kBusy, std::move(msg)}; }
  static Status unsupported(std::string msg) { return {StatusCode::kUnsupported, std::move(msg)}; }
  static Status internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }
  static Status syntax_error(std::string msg) { return {StatusCode::kSyntaxError, std::move(msg)}; }
  static Status already_exists(std::string msg) {
    return {StatusCode::kAlreadyExists, std::move(msg)};
  }
  static Status configuration(std::string msg) {
    return {StatusCode::kConfiguration, std::move(msg)};
  }
  static Status unauthorized(std::string msg) {
    return {StatusCode::kUnauthorized, std::move(msg)};
  }
  static Status cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
  static Status serialization_failure(std::string msg) {
    return {StatusCode::kSerializationFailure, std::move(msg)};
  }
  static Status unprepared(std::string msg) { return {StatusCode::kUnprepared, std::move(msg)}; }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  bool is_corruption() const { return code_ == StatusCode::kCorruption; }
  bool is_not_found() const { return code_ == StatusCode::kNotFound; }
  bool is_busy() const { return code_ == StatusCode::kBusy; }
  bool is_invalid_argument() const { return code_ == StatusCode::kInvalidArgument; }
  bool is_serialization_failure() const { return code_ == StatusCode::kSerializationFailure; }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}        // NOLINT: implicit on purpose
  Result(Status status) : state_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(state_).is_ok() && "a Result built from a Status must be an error");
  }

  bool is_ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return is_ok(); }

  const Status& status() const {
    static const Status kOk;
    return is_ok() ? kOk : std::get<Status>(state_);
  }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace cassette

// Return early from the enclosing function when a Status is not OK.
#define CASSETTE_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::cassette::Status _st = (expr);   \
    if (!_st.is_ok()) return _st;      \
  } while (0)

#define CASSETTE_CONCAT_INNER(a, b) a##b
#define CASSETTE_CONCAT(a, b) CASSETTE_CONCAT_INNER(a, b)
// `CASSETTE_ASSIGN_OR_RETURN(auto x, f());` binds x to f()'s value or returns its Status.
#define CASSETTE_ASSIGN_OR_RETURN(lhs, expr)                                                       \
  auto CASSETTE_CONCAT(_res_, __LINE__) = (expr);                                                  \
  if (!CASSETTE_CONCAT(_res_, __LINE__).is_ok()) return CASSETTE_CONCAT(_res_, __LINE__).status(); \
  lhs = std::move(CASSETTE_CONCAT(_res_, __LINE__)).value()
