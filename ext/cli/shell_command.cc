// Recognizing and parsing the shell's own commands.
#include "ext/cli/shell_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/cql/statement_kind.h"

namespace cassette::cli {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Skips whitespace and comments (-- and // to end of line, /* */).
size_t skip_blank(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    char c = text[pos];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++pos;
    } else if ((c == '-' || c == '/') && pos + 1 < text.size() && text[pos + 1] == c) {
      while (pos < text.size() && text[pos] != '\n') ++pos;
    } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
      size_t end = text.find("*/", pos + 2);
      pos = end == std::string_view::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return pos;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A cursor over tokens for the small command grammars below.
class TokenCursor {
 public:
  explicit TokenCursor(std::vector<ShellToken> tokens) : tokens_(std::move(tokens)) {}
  bool done() const { return pos_ >= tokens_.size(); }
  const ShellToken* peek() const { return done() ? nullptr : &tokens_[pos_]; }
  const ShellToken& take() { return tokens_[pos_++]; }
  bool take_symbol(char c) {
    if (!done() && tokens_[pos_].kind == ShellToken::Kind::kSymbol && tokens_[pos_].text[0] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool take_word(std::string_view word) {
    if (!done() && tokens_[pos_].kind == ShellToken::Kind::kWord && tokens_[pos_].text == word) {
      ++pos_;
      return true;
    }
    return false;
  }
  // An identifier: a word or a "quoted name".
  std::optional<std::string> take_name() {
    if (done()) return std::nullopt;
    const ShellToken& t = tokens_[pos_];
    if (t.kind != ShellToken::Kind::kWord && t.kind != ShellToken::Kind::kQuotedName) {
      return std::nullopt;
    }
    ++pos_;
    return t.text;
  }

 private:
  std::vector<ShellToken> tokens_;
  size_t pos_ = 0;
};

}  // namespace

ShellCommandKind classify_statement(std::string_view text) {
  size_t pos = skip_blank(text, 0);
  if (pos < text.size() && text[pos] == '?') return ShellCommandKind::kHelp;
  size_t end = pos;
  while (end < text.size() && is_word_char(text[end])) ++end;
  std::string word = lower(text.substr(pos, end - pos));
  if (word == "copy") return ShellCommandKind::kCopy;
  if (word == "source") return ShellCommandKind::kSource;
  if (word == "clock") return ShellCommandKind::kClock;
  if (word == "flush") return ShellCommandKind::kFlush;
  if (word == "compact") return ShellCommandKind::kCompact;
  if (word == "build") return ShellCommandKind::kBuildIndexes;
  if (word == "help") return ShellCommandKind::kHelp;
  if (word == "exit" || word == "quit") return ShellCommandKind::kExit;
  return ShellCommandKind::kCql;
}

namespace {

// A line that is HELP, ?, EXIT or QUIT alone (any case, spaces and one ';' allowed).
bool is_line_command(std::string_view line) {
  size_t begin = 0, end = line.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(line[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(line[end - 1]))) --end;
  if (end > begin && line[end - 1] == ';') --end;
  while (end > begin && std::isspace(static_cast<unsigned char>(line[end - 1]))) --end;
  const std::string word = lower(line.substr(begin, end - begin));
  return word == "help" || word == "?" || word == "exit" || word == "quit";
}

// Appends the statements of `chunk`, which starts on line `first_line` of the script.
void append_statements(std::string_view chunk, int first_line, bool* complete,
                       std::vector<cql::ScriptStatement>* out) {
  for (cql::ScriptStatement& statement : cql::split_statements(chunk, complete)) {
    statement.line += first_line - 1;
    out->push_back(std::move(statement));
  }
}

}  // namespace

std::vector<cql::ScriptStatement> split_shell_script(std::string_view script, bool* complete) {
  std::vector<cql::ScriptStatement> out;
  size_t chunk_begin = 0;  // the text not split yet starts here, on line chunk_line
  int chunk_line = 1;
  int line_number = 1;
  for (size_t pos = 0; pos < script.size(); ++line_number) {
    const size_t eol = std::min(script.find('\n', pos), script.size());
    const std::string_view line = script.substr(pos, eol - pos);
    if (is_line_command(line)) {
      bool at_boundary = false;
      const std::string_view before = script.substr(chunk_begin, pos - chunk_begin);
      cql::split_statements(before, &at_boundary);
      if (at_boundary) {  // not inside an unfinished statement: the line stands alone
        append_statements(before, chunk_line, nullptr, &out);
        append_statements(line, line_number, nullptr, &out);
        chunk_begin = std::min(eol + 1, script.size());
        chunk_line = line_number + 1;
      }
    }
    pos = eol + 1;
  }
  append_statements(script.substr(chunk_begin), chunk_line, complete, &out);
  return out;
}

Result<std::vector<ShellToken>> tokenize_shell_command(std::string_view text) {
  std::vector<ShellToken> tokens;
  size_t pos = 0;
  while (true) {
    pos = skip_blank(text, pos);
    if (pos >= text.size()) break;
    char c = text[pos];
    if (c == ';') {  // a trailing terminator
      ++pos;
      continue;
    }
    if (c == '\'' || c == '"') {
      std::string value;
      size_t i = pos + 1;
      bool closed = false;
      while (i < text.size()) {
        if (text[i] == c) {
          if (i + 1 < text.size() && text[i + 1] == c) {
            value += c;
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        value += text[i++];
      }
      if (!closed) return Status::syntax_error("unterminated quoted text");
      tokens.push_back({c == '\'' ? ShellToken::Kind::kString : ShellToken::Kind::kQuotedName,
                        std::move(value)});
      pos = i;
      continue;
    }
    bool negative_number = c == '-' && pos + 1 < text.size() &&
                           std::isdigit(static_cast<unsigned char>(text[pos + 1]));
    if (std::isdigit(static_cast<unsigned char>(c)) || negative_number) {
      size_t i = pos + 1;
      while (i < text.size() && (is_word_char(text[i]) || text[i] == '.')) ++i;
      tokens.push_back({ShellToken::Kind::kNumber, std::string(text.substr(pos, i - pos))});
      pos = i;
      continue;
    }
    if (is_word_char(c)) {
      size_t i = pos;
      while (i < text.size() && is_word_char(text[i])) ++i;
      tokens.push_back({ShellToken::Kind::kWord, lower(text.substr(pos, i - pos))});
      pos = i;
      continue;
    }
    tokens.push_back({ShellToken::Kind::kSymbol, std::string(1, c)});
    ++pos;
  }
  return tokens;
}

Result<CopyCommand> parse_copy_command(std::string_view text) {
  const Status improper = Status::syntax_error("Improper COPY command.");
  auto tokens = tokenize_shell_command(text);
  if (!tokens.is_ok()) return improper;
  TokenCursor cursor(std::move(tokens).value());
  CopyCommand copy;
  if (!cursor.take_word("copy")) return improper;
  std::optional<std::string> first = cursor.take_name();
  if (!first) return improper;
  if (cursor.take_symbol('.')) {
    std::optional<std::string> second = cursor.take_name();
    if (!second) return improper;
    copy.keyspace = *first;
    copy.table = *second;
  } else {
    copy.table = *first;
  }
  if (cursor.take_symbol('(')) {
    do {
      std::optional<std::string> column = cursor.take_name();
      if (!column) return improper;
      copy.columns.push_back(*column);
    } while (cursor.take_symbol(','));
    if (!cursor.take_symbol(')')) return improper;
  }
  if (cursor.take_word("to")) {
    copy.to = true;
  } else if (!cursor.take_word("from")) {
    return improper;
  }
  if (cursor.done()) return improper;
  const ShellToken& target = cursor.take();
  if (target.kind == ShellToken::Kind::kString) {
    copy.file = target.text;
  } else if (target.kind == ShellToken::Kind::kWord &&
             target.text == (copy.to ? "stdout" : "stdin")) {
    copy.file = std::nullopt;
  } else {
    return improper;
  }
  if (cursor.take_word("with")) {
    do {
      std::optional<std::string> name = cursor.take_name();
      if (!name || !cursor.take_symbol('=') || cursor.done()) return improper;
      const ShellToken& value = cursor.take();
      if (value.kind == ShellToken::Kind::kSymbol) return improper;
      copy.options[lower(*name)] = value.text;
    } while (cursor.take_word("and"));
  }
  if (!cursor.done()) return improper;
  return copy;
}

Result<std::string> parse_source_command(std::string_view text) {
  const Status improper = Status::syntax_error("Improper SOURCE command.");
  auto tokens = tokenize_shell_command(text);
  if (!tokens.is_ok() || tokens->size() != 2 || (*tokens)[1].kind != ShellToken::Kind::kString) {
    return improper;
  }
  return (*tokens)[1].text;
}

Result<int64_t> parse_clock_command(std::string_view text) {
  const Status improper =
      Status::syntax_error("Improper CLOCK command (expected CLOCK ADVANCE <seconds>).");
  auto tokens = tokenize_shell_command(text);
  if (!tokens.is_ok() || tokens->size() != 3 || (*tokens)[1].text != "advance" ||
      (*tokens)[2].kind != ShellToken::Kind::kNumber) {
    return improper;
  }
  const std::string& number = (*tokens)[2].text;
  int64_t seconds = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), seconds);
  if (ec != std::errc() || end != number.data() + number.size() || seconds < 0) return improper;
  return seconds;
}

Status parse_flush_command(std::string_view text) {
  auto tokens = tokenize_shell_command(text);
  if (!tokens.is_ok() || tokens->size() != 1) {
    return Status::syntax_error("Improper FLUSH command.");
  }
  return Status::ok();
}

namespace {

// The tokens from `from` on as [ks.]table: the keyspace (empty: the current one) and the table.
std::optional<std::pair<std::string, std::string>> table_name(const std::vector<ShellToken>& t,
                                                              size_t from) {
  auto is_name = [](const ShellToken& token) {
    return token.kind == ShellToken::Kind::kWord || token.kind == ShellToken::Kind::kQuotedName;
  };
  if (t.size() == from + 1 && is_name(t[from])) return std::make_pair(std::string(), t[from].text);
  if (t.size() == from + 3 && is_name(t[from]) && t[from + 1].kind == ShellToken::Kind::kSymbol &&
      t[from + 1].text == "." && is_name(t[from + 2])) {
    return std::make_pair(t[from].text, t[from + 2].text);
  }
  return std::nullopt;
}

}  // namespace

Result<std::pair<std::string, std::string>> parse_compact_command(std::string_view text) {
  const Status improper =
      Status::syntax_error("Improper COMPACT command (expected COMPACT [ks.]table).");
  auto tokens = tokenize_shell_command(text);
  if (!tokens.is_ok()) return improper;
  std::optional<std::pair<std::string, std::string>> name = table_name(*tokens, 1);
  if (!name) return improper;
  return std::move(*name);
}

Result<std::optional<std::pair<std::string, std::string>>> parse_build_indexes_command(
    std::string_view text) {
  const Status improper =
      Status::syntax_error("Improper BUILD command (expected BUILD INDEXES [[ks.]table]).");
  auto tokens = tokenize_shell_command(text);
  if (!tokens.is_ok() || tokens->size() < 2 || (*tokens)[1].kind != ShellToken::Kind::kWord ||
      (*tokens)[1].text != "indexes") {
    return improper;
  }
  if (tokens->size() == 2) return std::optional<std::pair<std::string, std::string>>();
  std::optional<std::pair<std::string, std::string>> name = table_name(*tokens, 2);
  if (!name) return improper;
  return std::optional<std::pair<std::string, std::string>>(std::move(*name));
}

std::string help_text() {
  return R"(
Shell commands:
  COPY [ks.]table [(col, ...)] TO 'file.csv' [WITH HEADER = true AND DELIMITER = ',' ...]
  COPY [ks.]table [(col, ...)] FROM 'file.csv' [WITH HEADER = true AND DELIMITER = ',' ...]
      options: HEADER (false), DELIMITER (','), QUOTE ('"'), ESCAPE ('\'), NULL ('');
      FROM also SKIPROWS, MAXROWS, SKIPCOLS, MAXBATCHSIZE (200), MAXPARSEERRORS (-1),
      MAXINSERTERRORS (1000), TTL;
      TO also FLOATPRECISION (5), DOUBLEPRECISION (12). STDOUT/STDIN instead of a file.
  SOURCE 'file.cql'        run the statements in a file
  CLOCK ADVANCE n          move the manual clock (cassette --clock) forward n seconds
  FLUSH                    write every memtable to SSTables (nodetool flush)
  COMPACT [ks.]table       compact the table's SSTables into one (nodetool compact)
  BUILD INDEXES [[ks.]table]  flush, then build and save the ANN graphs not built yet (vector
                           indexes; a query builds them in the background otherwise)
  HELP                     this text
  EXIT, QUIT               leave the shell

CQL: any CQL statement of Apache Cassandra 4.1 (CREATE/ALTER/DROP KEYSPACE, TABLE, TYPE, INDEX;
INSERT, UPDATE, DELETE, BATCH, SELECT, TRUNCATE, USE, DESCRIBE), each ended by ';'.

)";
}

bool script_may_write(std::string_view script) {
  for (const cql::ScriptStatement& statement : split_shell_script(script)) {
    switch (classify_statement(statement.text)) {
      case ShellCommandKind::kCopy: {
        auto copy = parse_copy_command(statement.text);
        if (copy.is_ok() && !copy->to) return true;
        break;
      }
      case ShellCommandKind::kSource:
        return true;
      case ShellCommandKind::kCql: {
        // A trailing line comment would swallow the ';': it goes on a line of its own.
        auto parsed = cql::parse_statement(statement.text + "\n;");
        if (parsed.is_ok() && cql::statement_writes(*parsed)) return true;
        break;
      }
      case ShellCommandKind::kFlush:
      case ShellCommandKind::kCompact:
      case ShellCommandKind::kBuildIndexes:
        return true;
      case ShellCommandKind::kClock:
      case ShellCommandKind::kHelp:
      case ShellCommandKind::kExit:
        break;
    }
  }
  return false;
}

}  // namespace cassette::cli
