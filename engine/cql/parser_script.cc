// split_statements (parser.h): cuts a script into statements at top-level semicolons, keeping
// a BEGIN BATCH ... APPLY BATCH whole although the statements inside it end in ';' too.
#include <cctype>

#include "engine/cql/lexer.h"
#include "engine/cql/parser.h"
#include "engine/cql/parser_internal.h"

namespace cassette::cql {

namespace {

// The visible tokens of a piece of script, lower-cased words for keyword checks.
std::vector<std::string> words_of(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) {
    if (t.hidden() || t.kind == TokenKind::kEof) continue;
    out.push_back(t.kind == TokenKind::kIdent ? parser_internal::to_lower(t.text)
                                              : "\x01" + t.text);
  }
  return out;
}

bool is_batch_start(const std::vector<std::string>& w) {
  if (w.empty() || w[0] != "begin") return false;
  return true;
}

bool is_batch_end(const std::vector<std::string>& w) {
  return w.size() >= 2 && w[w.size() - 2] == "apply" && w.back() == "batch";
}

// Where a statement's text ends: trailing whitespace dropped, and a line comment that ends the
// statement too. Kept without the newline that closed it, such a comment would swallow the ';'
// written after the text ("SELECT 1 -- c" + ";"), so the text would not split the same alone.
size_t statement_end(std::string_view script, size_t begin, size_t end) {
  while (true) {
    while (end > begin && std::isspace(static_cast<unsigned char>(script[end - 1]))) --end;
    const LexResult lexed = tokenize(script.substr(begin, end - begin));
    if (lexed.tokens.size() < 2) return end;  // the tokens end with kEof
    const Token& last = lexed.tokens[lexed.tokens.size() - 2];
    const std::string_view text = script.substr(begin + last.begin, last.end - last.begin);
    const bool line_comment =
        last.kind == TokenKind::kComment && (text.starts_with("--") || text.starts_with("//"));
    if (!line_comment || begin + last.end != end) return end;
    end = begin + last.begin;
  }
}

}  // namespace

std::vector<ScriptStatement> split_statements(std::string_view script, bool* complete) {
  // First cut at top-level ';' (outside strings, quoted names and comments).
  struct Piece {
    size_t begin, end;  // [begin, end) without the ';'
    bool terminated;
  };
  std::vector<Piece> pieces;
  bool unterminated_quote = false;
  size_t start = 0;
  size_t i = 0;
  while (i < script.size()) {
    std::string_view rest = script.substr(i);
    char c = script[i];
    if (rest.starts_with("--") || rest.starts_with("//")) {
      size_t n = rest.find('\n');
      i = n == std::string_view::npos ? script.size() : i + n + 1;
    } else if (rest.starts_with("/*")) {
      size_t n = rest.find("*/", 2);
      if (n == std::string_view::npos) {
        unterminated_quote = true;
        i = script.size();
      } else {
        i += n + 2;
      }
    } else if (rest.starts_with("$$")) {
      size_t n = rest.find("$$", 2);
      if (n == std::string_view::npos) {
        unterminated_quote = true;
        i = script.size();
      } else {
        i += n + 2;
      }
    } else if (c == '\'' || c == '"') {
      size_t n = rest.find(c, 1);  // a doubled quote is two adjacent quoted runs
      if (n == std::string_view::npos) {
        unterminated_quote = true;
        i = script.size();
      } else {
        i += n + 1;
      }
    } else if (c == ';') {
      pieces.push_back({start, i, true});
      start = ++i;
    } else {
      ++i;
    }
  }
  pieces.push_back({start, script.size(), false});

  // Then join the pieces of a BEGIN BATCH ... APPLY BATCH, and drop empty ones.
  std::vector<ScriptStatement> out;
  bool ended_at_boundary = !unterminated_quote;
  for (size_t p = 0; p < pieces.size(); ++p) {
    LexResult lexed = tokenize(script.substr(pieces[p].begin, pieces[p].end - pieces[p].begin));
    std::vector<std::string> words = words_of(lexed.tokens);
    if (words.empty()) continue;
    size_t first = p;
    size_t last = p;
    if (is_batch_start(words)) {
      while (!is_batch_end(words) && last + 1 < pieces.size()) {
        ++last;
        LexResult more =
            tokenize(script.substr(pieces[last].begin, pieces[last].end - pieces[last].begin));
        std::vector<std::string> more_words = words_of(more.tokens);
        if (!more_words.empty()) words = std::move(more_words);
      }
      if (!is_batch_end(words)) ended_at_boundary = false;
    }
    if (!pieces[last].terminated) ended_at_boundary = false;
    // Trim leading whitespace/comments and trailing whitespace.
    LexResult head =
        tokenize(script.substr(pieces[first].begin, pieces[first].end - pieces[first].begin));
    size_t begin = pieces[first].begin;
    int line = 1;
    for (const Token& t : head.tokens) {
      if (t.hidden()) continue;
      begin = pieces[first].begin + t.begin;
      break;
    }
    for (size_t k = 0; k < begin; ++k)
      if (script[k] == '\n') ++line;
    const size_t end = statement_end(script, begin, pieces[last].end);
    out.push_back(ScriptStatement{std::string(script.substr(begin, end - begin)), line});
    p = last;
  }
  if (complete) *complete = ended_at_boundary;
  return out;
}

}  // namespace cassette::cql
