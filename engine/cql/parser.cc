// The parser's entry points (parser.h), the token cursor and the syntax-error messages.
//
// Syntax errors are worded as Cassandra's ANTLR 3 parser words them (via ErrorCollector):
//   line L:C mismatched input 'x' expecting K_FROM (SELECT * [x]...)
//   line L:C no viable alternative at input 'x' (SELECT * [x]...)
//   line 0:-1 no viable alternative at input '<EOF>'      (at the end of input: no position)
// The snippet starts ten tokens (hidden whitespace/comment tokens included) before the
// offending one, brackets it, and shows "..." where text was left out on either side.
#include "engine/cql/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/cql/lexer.h"
#include "engine/cql/parser_internal.h"
#include "engine/util/message.h"

namespace cassette::cql {
namespace parser_internal {

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

namespace {

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// ANTLR's token display: the token's text, quoted, with control characters escaped (a long
// token cut as message_value cuts values).
std::string token_display(const Token& t) {
  if (t.kind == TokenKind::kEof) return "'<EOF>'";
  std::string out = "'";
  for (char c : message_value(t.text)) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out + "'";
}

// The ANTLR token name Cassandra prints after "expecting": K_FROM, ')', ...
std::string expected_name(std::string_view what) {
  if (what.empty()) return "";
  if (std::isalpha(static_cast<unsigned char>(what[0]))) {
    if (what == "table") return "K_COLUMNFAMILY";
    if (what == "tables") return "K_TABLES";
    return "K_" + to_upper(what);
  }
  return fmt::format("'{}'", what);
}

}  // namespace

Parser::Parser(std::string_view text, std::vector<Token> tokens)
    : text_(text), tokens_(std::move(tokens)) {
  for (size_t i = 0; i < tokens_.size(); ++i)
    if (!tokens_[i].hidden()) visible_.push_back(i);
}

const Token& Parser::peek(int k) const {
  size_t i = std::min(pos_ + static_cast<size_t>(k), visible_.size() - 1);
  return tokens_[visible_[i]];
}

const Token& Parser::advance() {
  const Token& t = peek();
  if (pos_ + 1 < visible_.size()) ++pos_;
  return t;
}

bool Parser::at_keyword(std::string_view kw, int k) const {
  const Token& t = peek(k);
  if (t.kind != TokenKind::kIdent) return false;
  std::string w = to_lower(t.text);
  if (w == kw) return true;
  // Lexer.g's synonyms
  if (kw == "table") return w == "columnfamily";
  if (kw == "tables") return w == "columnfamilies";
  if (kw == "keyspace") return w == "schema";
  return false;
}

bool Parser::accept_keyword(std::string_view kw) {
  if (!at_keyword(kw)) return false;
  advance();
  return true;
}

void Parser::expect_keyword(std::string_view kw) {
  if (!accept_keyword(kw)) fail_mismatch(expected_name(kw));
}

bool Parser::at_symbol(std::string_view sym, int k) const {
  const Token& t = peek(k);
  if (sym == "?") return t.kind == TokenKind::kQmark;
  if (sym == "..") return t.kind == TokenKind::kRange;
  return t.kind == TokenKind::kSymbol && t.text == sym;
}

bool Parser::accept_symbol(std::string_view sym) {
  if (!at_symbol(sym)) return false;
  advance();
  return true;
}

void Parser::expect_symbol(std::string_view sym) {
  if (!accept_symbol(sym)) fail_mismatch(expected_name(sym));
}

namespace {

// `index`: the token where the failing decision started (bracketed in the snippet);
// `reported`: the token the message names and whose position it gives (deeper than `index`
// when ANTLR's prediction looked ahead before failing).
SyntaxError make_error(std::string_view text, const std::vector<Token>& tokens, size_t index,
                       size_t reported, const std::string& what) {
  const Token& r = tokens[reported];
  if (r.kind == TokenKind::kEof)
    return SyntaxError{Status::syntax_error(fmt::format("line 0:-1 {}", what)), text.size()};
  const Token& t = tokens[index];
  // the snippet runs from ten tokens before to at most two after the decision's start, but
  // no further than the tokens the parser had read
  size_t from = index >= 10 ? index - 10 : 0;
  size_t to = std::min(index + 2, reported);
  std::string snippet = " (";
  if (from != 0) snippet += "...";
  // (each piece cut as a value in a message: one token may be a 10 MB literal)
  std::string body = message_value(text.substr(tokens[from].begin, t.begin - tokens[from].begin));
  body += "[";
  body += message_value(text.substr(t.begin, t.end - t.begin));
  body += "]";
  if (tokens[to].end > t.end) body += message_value(text.substr(t.end, tokens[to].end - t.end));
  body.erase(std::remove(body.begin(), body.end(), '\n'), body.end());
  snippet += body;
  if (std::max(tokens[to].end, t.end) != text.size()) snippet += "...";
  snippet += ")";
  return SyntaxError{
      Status::syntax_error(fmt::format("line {}:{} {}{}", r.line, r.column, what, snippet)),
      r.begin};
}

}  // namespace

void Parser::fail_no_viable(int lookahead) const {
  size_t index = visible_[std::min(pos_, visible_.size() - 1)];
  size_t reported = visible_[std::min(pos_ + static_cast<size_t>(lookahead), visible_.size() - 1)];
  throw make_error(
      text_, tokens_, index, reported,
      fmt::format("no viable alternative at input {}", token_display(peek(lookahead))));
}

void Parser::fail_mismatch(std::string_view expecting) const {
  size_t index = visible_[std::min(pos_, visible_.size() - 1)];
  throw make_error(
      text_, tokens_, index, index,
      fmt::format("mismatched input {} expecting {}", token_display(peek()), expecting));
}

void Parser::fail_action(std::string_view exception, std::string_view message) const {
  throw Status::syntax_error(fmt::format("Failed parsing statement: [{}] reason: {} {}",
                                         message_value(text_), exception, message));
}

int64_t Parser::parse_long(const Token& token) const {
  int64_t value = 0;
  const char* end = token.text.data() + token.text.size();
  auto [ptr, ec] = std::from_chars(token.text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    fail_action("NumberFormatException",
                fmt::format("For input string: \"{}\"", message_value(token.text)));
  }
  return value;
}

Parser::NestingGuard::NestingGuard(Parser& p) : parser_(p) {
  static constexpr int kMaxDepth = 256;
  if (++parser_.depth_ > kMaxDepth) {
    const Token& t = parser_.peek();
    --parser_.depth_;
    throw SyntaxError{Status::syntax_error(fmt::format("line {}:{} the statement nests too deeply",
                                                       t.line, t.column)),
                      t.begin};
  }
}

void Parser::recognition_error(std::string message) {
  if (recognition_error_) return;
  recognition_error_ = Status::syntax_error(std::move(message));
}

bool Parser::speculate(const std::function<void()>& rule) {
  // a failed attempt leaves no trace: neither the cursor nor recognition errors it recorded
  size_t saved = pos_;
  std::optional<Status> saved_error = recognition_error_;
  try {
    rule();
  } catch (const SyntaxError&) {
    pos_ = saved;
    recognition_error_ = std::move(saved_error);
    return false;
  }
  return true;
}

bool Parser::lookahead(const std::function<void()>& rule) {
  size_t saved = pos_;
  std::optional<Status> saved_error = recognition_error_;
  bool ok = speculate(rule);
  pos_ = saved;
  recognition_error_ = std::move(saved_error);
  return ok;
}

std::string Parser::source_from(size_t begin) const {
  // the last consumed token is the visible one before the cursor
  size_t end = pos_ > 0 ? tokens_[visible_[pos_ - 1]].end : begin;
  if (end < begin) return "";
  return std::string(text_.substr(begin, end - begin));
}

// Valid CQL that Cassette does not implement: refused with a clear message rather than a syntax
// error at the first word.
void Parser::reject_unsupported_statement() const {
  std::string first = peek().kind == TokenKind::kIdent ? to_lower(peek().text) : "";
  if (first == "grant" || first == "revoke" ||
      (first == "list" && peek(1).kind == TokenKind::kIdent))
    throw Status::invalid_argument(
        "Authorization statements (GRANT, REVOKE, LIST) are not supported");
  if (first != "create" && first != "alter" && first != "drop") return;
  int k = 1;
  if (first == "create" && at_keyword("or", 1)) k = 3;  // CREATE OR REPLACE
  std::string what = peek(k).kind == TokenKind::kIdent ? to_lower(peek(k).text) : "";
  if (what == "function" || what == "aggregate" || what == "trigger" || what == "role" ||
      what == "user")
    throw Status::invalid_argument(
        fmt::format("{} {} statements are not supported", to_upper(first), to_upper(what)));
}

Statement Parser::parse_statement() {
  reject_unsupported_statement();
  Statement stmt;
  if (at_keyword("select"))
    stmt = parse_select();
  else if (at_keyword("insert"))
    stmt = parse_insert();
  else if (at_keyword("update"))
    stmt = parse_update();
  else if (at_keyword("begin"))
    stmt = parse_batch();
  else if (at_keyword("delete"))
    stmt = parse_delete();
  else if (at_keyword("use"))
    stmt = parse_use();
  else if (at_keyword("truncate"))
    stmt = parse_truncate();
  else if (at_keyword("create"))
    stmt = parse_create();
  else if (at_keyword("alter"))
    stmt = parse_alter();
  else if (at_keyword("drop"))
    stmt = parse_drop();
  else if (at_keyword("describe") || at_keyword("desc"))
    stmt = parse_describe();
  else
    fail_no_viable();
  while (accept_symbol(";")) {
  }
  if (peek().kind != TokenKind::kEof) fail_mismatch("EOF");
  return stmt;
}

}  // namespace parser_internal

Result<Statement> parse_statement(std::string_view text, size_t* bind_marker_count) {
  if (text.size() > kMaxStatementBytes) {
    return Status::invalid_argument(
        fmt::format("Request is too big: length {} exceeds maximum allowed length {}.", text.size(),
                    kMaxStatementBytes));
  }
  LexResult lexed = tokenize(text);
  parser_internal::Parser parser(text, std::move(lexed.tokens));
  std::optional<parser_internal::SyntaxError> error;
  std::optional<Statement> stmt;
  try {
    stmt = parser.parse_statement();
  } catch (parser_internal::SyntaxError& e) {
    error = std::move(e);
  } catch (Status& s) {  // a non-syntax error found while parsing (e.g. unsupported forms)
    return s;
  }
  if (parser.recognition_error()) return *parser.recognition_error();
  if (lexed.error && (!error || lexed.error->offset <= error->offset))
    return Status::syntax_error(lexed.error->message);
  if (error) return error->status;
  size_t markers = parser.number_bind_markers();
  if (bind_marker_count != nullptr) *bind_marker_count = markers;
  return std::move(*stmt);
}

}  // namespace cassette::cql
