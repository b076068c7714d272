// The CQL lexer: turns a statement's text into tokens, following the token rules of Cassandra's
// Lexer.g. Keywords are not told apart here (an unquoted word is a kIdent; the parser decides,
// case-insensitively, whether it is a keyword), but every other lexical choice Cassandra's lexer
// makes is made here too, so that "x - 3" lexes as [x, -3] and "1h30m" as one duration.
//
// Whitespace and comments are kept as hidden tokens: Cassandra's syntax errors quote a snippet
// of about ten tokens (hidden ones included) before the offending one, so the parser needs them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cassette::cql {

enum class TokenKind {
  kIdent,            // unquoted word (keyword or identifier); text as written
  kQuotedName,       // "Name": text without quotes, "" unescaped
  kEmptyQuotedName,  // ""
  kString,           // '...' or $$...$$: text without quotes, '' unescaped
  kInteger,          // 42, -7
  kFloat,            // 1.5, 1e10, -2.5E-3; NaN / -NaN / Infinity / -Infinity (text normalized)
  kBoolean,          // true / false (any case), text as written
  kDuration,         // 1h30m, -2d, P1DT2H, P2W, P0001-02-03T04:05:06
  kUuid,             // unquoted uuid
  kHex,              // 0xcafe (text includes the 0x)
  kQmark,            // ?
  kRange,            // ..
  kSymbol,           // punctuation: ( ) [ ] { } , ; : . = < > <= >= != + - * / % += -=
  kWhitespace,       // hidden
  kComment,          // hidden: -- ..., // ..., /* ... */
  kEof,
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;  // see TokenKind
  size_t begin = 0;  // byte offsets of the token in the source: [begin, end)
  size_t end = 0;
  int line = 1;    // 1-based
  int column = 0;  // 0-based, in bytes from the start of the line

  bool hidden() const { return kind == TokenKind::kWhitespace || kind == TokenKind::kComment; }
};

// The first error the lexer met (it skips the offending character and goes on, as ANTLR's
// lexer does), already formatted as Cassandra reports it: "line 1:7 no viable alternative at
// character '@'".
struct LexError {
  std::string message;
  size_t offset = 0;  // where in the source, to order it against parser errors
};

struct LexResult {
  std::vector<Token> tokens;  // ends with one kEof token
  std::optional<LexError> error;
};

LexResult tokenize(std::string_view text);

}  // namespace cassette::cql
