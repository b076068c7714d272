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

// One step of the split's scan from `i`: past a comment, a quoted run ('...', "...", $$...$$) or
// one character. Sets *unterminated when a quote or block comment runs to the end, and
// *line_comment when the step was a line comment (-- or //), which runs to its newline.
size_t scan_step(std::string_view script, size_t i, bool* unterminated, bool* line_comment) {
  std::string_view rest = script.substr(i);
  *line_comment = false;
  auto past = [&](std::string_view close, size_t from) {
    size_t n = rest.find(close, from);
    if (n == std::string_view::npos) {
      *unterminated = true;
      return script.size();
    }
    return i + n + close.size();
  };
  if (rest.starts_with("--") || rest.starts_with("//")) {
    *line_comment = true;
    size_t n = rest.find('\n');
    return n == std::string_view::npos ? script.size() : i + n + 1;
  }
  if (rest.starts_with("/*")) return past("*/", 2);
  if (rest.starts_with("$$")) return past("$$", 2);
  if (rest[0] == '\'' || rest[0] == '"') return past(rest.substr(0, 1), 1);  // '' = two runs
  return i + 1;
}

// Where a statement's text ends: trailing whitespace dropped, and a line comment that ends the
// statement too. Kept without the newline that closed it, such a comment would swallow the ';'
// written after the text ("SELECT 1 -- c" + ";"), so the text would not split the same alone.
size_t statement_end(std::string_view script, size_t begin, size_t end) {
  while (true) {
    while (end > begin && std::isspace(static_cast<unsigned char>(script[end - 1]))) --end;
    const std::string_view text = script.substr(begin, end - begin);
    size_t i = 0, open_comment = std::string_view::npos;
    bool unterminated = false, line_comment = false;
    while (i < text.size()) {
      const size_t next = scan_step(text, i, &unterminated, &line_comment);
      if (line_comment && next == text.size() && text.back() != '\n') open_comment = i;
      i = next;
    }
    if (open_comment == std::string_view::npos) return end;
    end = begin + open_comment;
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
    if (script[i] == ';') {
      pieces.push_back({start, i, true});
      start = ++i;
      continue;
    }
    bool line_comment = false;
    i = scan_step(script, i, &unterminated_quote, &line_comment);
  }
  pieces.push_back({start, script.size(), false});

  // Then join the pieces of a BEGIN BATCH ... APPLY BATCH, and drop empty ones.
  std::vector<ScriptStatement> out;
  bool ended_at_boundary = !unterminated_quote;
  // The line of each statement's start, counted on from the previous one (statements come in
  // order): counting from the top each time made a 20,000-line script take seconds to start.
  size_t counted = 0;
  int line = 1;
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
    for (const Token& t : head.tokens) {
      if (t.hidden()) continue;
      begin = pieces[first].begin + t.begin;
      break;
    }
    for (; counted < begin; ++counted) {
      if (script[counted] == '\n') ++line;
    }
    const size_t end = statement_end(script, begin, pieces[last].end);
    out.push_back(ScriptStatement{std::string(script.substr(begin, end - begin)), line});
    p = last;
  }
  if (complete) *complete = ended_at_boundary;
  return out;
}

}  // namespace cassette::cql
