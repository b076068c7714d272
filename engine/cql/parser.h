// The CQL parser: a hand-written recursive-descent parser over a lexer (lexer.h), producing the
// AST of ast.h. Keywords are case-insensitive; unquoted identifiers are lower-cased, "quoted"
// ones kept as written ("" unescaped); strings are '...' ('' escaped) or $$...$$; comments are
// -- and // to end of line and /* */.
//
// A syntax error is Status::syntax_error with a message that points at the token, in the form
// Cassandra's ANTLR parser gives, e.g.
//   line 1:14 no viable alternative at input 'FORM' (SELECT * [FORM]...)
//   line 1:22 mismatched input ';' expecting ')' (...VALUES (1, 2[;]...)
// (the exact wording of syntax errors is not something Cassandra users match on, but the line,
// column and offending token must be right).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/util/status.h"

namespace cassette::cql {

// The longest statement accepted, in bytes: Cassandra's native_transport_max_frame_size (16 MiB),
// the most a client can send in one request.
inline constexpr size_t kMaxStatementBytes = size_t{16} << 20;

// Parses one statement; a trailing ';' is allowed, anything after it is an error. A statement
// longer than kMaxStatementBytes is refused as Cassandra refuses the frame: "Request is too
// big: length N exceeds maximum allowed length 16777216." Its bind markers (? and :name) are
// numbered from 0 in the order they are written (Term::bind_index); `bind_marker_count`, when
// given, receives how many there are.
Result<Statement> parse_statement(std::string_view text, size_t* bind_marker_count = nullptr);

// One statement of a script, as split_statements finds it.
struct ScriptStatement {
  std::string text;  // without the terminating ';'
  int line = 1;      // where it starts in the script (1-based), for messages
};

// Splits a script at top-level semicolons, ignoring those in strings, quoted identifiers,
// $$ strings and comments. Statements that are only whitespace and comments are dropped. A
// final statement without ';' is returned too; `complete` (when given) says whether the script
// ended at a statement boundary (the interactive shell keeps reading lines until it does).
std::vector<ScriptStatement> split_statements(std::string_view script, bool* complete = nullptr);

}  // namespace cassette::cql
