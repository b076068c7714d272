// Fuzz target: the CQL lexer, parser and script splitter on any text.
//
// Beyond "no crash, no exception out of the parser", it checks:
//  - the lexer's tokens tile the text: in order, non-empty, each starting where the one before
//    ended (or later, past a character the lexer skipped with an error), one kEof at the very
//    end, and each token's line and column are those of its first byte;
//  - a parse error is not an internal one;
//  - printing the statement as its visible tokens joined by single spaces (CQL has no AST
//    printer; the tokens are its printed form) lexes to the same tokens and parses the same way:
//    both succeed or both fail;
//  - every statement split_statements cuts out of the text (but an unterminated last one), split
//    again, is that one statement.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/cql/lexer.h"
#include "engine/cql/parser.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::cql;

void check_tokens_tile(std::string_view text, const LexResult& lexed) {
  const std::vector<Token>& tokens = lexed.tokens;
  FUZZ_CHECK(!tokens.empty() && tokens.back().kind == TokenKind::kEof, "no final kEof");
  size_t position = 0;
  int line = 1;
  size_t line_start = 0;
  for (const Token& t : tokens) {
    FUZZ_CHECK(t.begin >= position, "token before the end of the one before it");
    FUZZ_CHECK(lexed.error || t.begin == position, "a gap between tokens without a lex error");
    for (size_t i = position; i < t.begin; ++i) {  // skipped characters
      if (text[i] == '\n') ++line, line_start = i + 1;
    }
    FUZZ_CHECK(t.line == line && t.column == static_cast<int>(t.begin - line_start),
               "token line/column is not where it starts: " + t.text);
    if (t.kind == TokenKind::kEof) {
      FUZZ_CHECK(&t == &tokens.back() && t.begin == text.size(), "kEof before the end");
      break;
    }
    FUZZ_CHECK(t.end > t.begin && t.end <= text.size(), "empty or overlong token");
    for (size_t i = t.begin; i < t.end; ++i) {
      if (text[i] == '\n') ++line, line_start = i + 1;
    }
    position = t.end;
  }
}

std::string visible_tokens_joined(std::string_view text, const std::vector<Token>& tokens) {
  std::string joined;
  for (const Token& t : tokens) {
    if (t.hidden() || t.kind == TokenKind::kEof) continue;
    if (!joined.empty()) joined += ' ';
    joined.append(text.substr(t.begin, t.end - t.begin));
  }
  return joined;
}

bool same_tokens(const std::vector<Token>& a, const std::vector<Token>& b) {
  auto visible = [](const std::vector<Token>& tokens) {
    std::vector<std::pair<TokenKind, std::string>> out;
    for (const Token& t : tokens) {
      if (!t.hidden()) out.emplace_back(t.kind, t.text);
    }
    return out;
  };
  return visible(a) == visible(b);
}

void check_parse(std::string_view text) {
  const LexResult lexed = tokenize(text);
  check_tokens_tile(text, lexed);
  Result<Statement> parsed = parse_statement(text);
  if (!parsed.is_ok()) {
    FUZZ_CHECK(parsed.status().code() != StatusCode::kInternal, parsed.status().message());
  }
  if (lexed.error) return;  // skipped characters: the printed form would differ
  const std::string printed = visible_tokens_joined(text, lexed.tokens);
  const LexResult relexed = tokenize(printed);
  FUZZ_CHECK(!relexed.error && same_tokens(lexed.tokens, relexed.tokens),
             "printed tokens lex differently: " + printed);
  FUZZ_CHECK(parse_statement(printed).is_ok() == parsed.is_ok(),
             "printed statement parses differently: " + printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_parse(text);
  bool complete = false;
  const std::vector<ScriptStatement> statements = split_statements(text, &complete);
  for (const ScriptStatement& statement : statements) {
    check_parse(statement.text);
    // The last statement of an incomplete script may end inside a string or comment.
    if (&statement == &statements.back() && !complete) break;
    bool again_complete = false;
    const std::vector<ScriptStatement> again =
        split_statements(statement.text + ";", &again_complete);
    FUZZ_CHECK(again.size() == 1 && again[0].text == statement.text && again_complete,
               "a statement splits differently on its own: " + statement.text);
  }
  return 0;
}
