// Errors as cqlsh prints them. cqlsh shows a failed statement as the Python driver renders the
// server's error, prefixed in batch mode (-e, -f, piped input) with "<source>:<line>:":
//
//   <stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message="..."
//   <stdin>:1:SyntaxException: line 1:14 no viable alternative at input 'FORM' (...)
//   <stdin>:1:ConfigurationException: ...
//   <stdin>:1:AlreadyExists: Table 'ks.t' already exists
//
// Errors that are not CQL errors (I/O, corruption, a busy store) print as "cassette: <message>".
#pragma once

#include <string>
#include <string_view>

#include "engine/util/status.h"

namespace cassette::cli {

// Where a statement came from, for the "<source>:<line>:" prefix. An empty source (the
// interactive prompt) prints no prefix, as cqlsh in tty mode.
struct SourceLocation {
  std::string source;  // "<stdin>" or a file name; empty: no prefix
  int line = 1;
};

// The error line (without its newline) cqlsh would print for a failed statement.
std::string format_statement_error(const Status& status, const SourceLocation& where);

// A message from the shell itself (a bad COPY option, CLOCK without --clock, ...), with the
// same prefix: "<stdin>:1:<message>".
std::string format_shell_error(std::string_view message, const SourceLocation& where);

// Whether the Status is one of CQL's error classes (and so prints in the cqlsh form).
bool is_cql_error(const Status& status);

}  // namespace cassette::cli
