// The CQL lexer (see lexer.h). Where Cassandra's ANTLR lexer picks between rules that match the
// same input (a number, a duration, a uuid, an identifier), it takes the longest match and, on
// a tie, the rule listed first in Lexer.g; the helpers below each measure one rule's match.
#include "engine/cql/lexer.h"

#include <fmt/format.h>

#include <cctype>

namespace cassette::cql {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_ident_char(char c) {
  return is_letter(c) || is_digit(c) || c == '_';
}

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

size_t count_digits(std::string_view s, size_t i) {
  size_t n = 0;
  while (i + n < s.size() && is_digit(s[i + n])) ++n;
  return n;
}

// HEX{8}-HEX{4}-HEX{4}-HEX{4}-HEX{12} at i: its length (36) or 0.
size_t match_uuid(std::string_view s, size_t i) {
  static constexpr int kGroups[] = {8, 4, 4, 4, 12};
  size_t p = i;
  for (int g = 0; g < 5; ++g) {
    if (g > 0) {
      if (p >= s.size() || s[p] != '-') return 0;
      ++p;
    }
    for (int k = 0; k < kGroups[g]; ++k, ++p)
      if (p >= s.size() || !is_hex(s[p])) return 0;
  }
  return p - i;
}

// A DURATION_UNIT at i (case-insensitive): y, mo, w, d, h, m, s, ms, us, µs, ns.
size_t match_duration_unit(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  auto next_is = [&](char c) { return i + 1 < s.size() && lower(s[i + 1]) == c; };
  switch (lower(s[i])) {
    case 'y':
    case 'w':
    case 'd':
    case 'h':
    case 's':
      return 1;
    case 'm':
      return next_is('o') || next_is('s') ? 2 : 1;
    case 'u':
    case 'n':
      return next_is('s') ? 2 : 0;
    default:
      break;
  }
  // µ in UTF-8 (U+00B5) followed by s
  if (s.substr(i, 2) == "\xC2\xB5" && i + 2 < s.size() && lower(s[i + 2]) == 's') return 3;
  return 0;
}

// '-'? DIGIT+ UNIT (DIGIT+ UNIT)*  at i: its length or 0.
size_t match_unit_duration(std::string_view s, size_t i) {
  size_t p = i;
  if (p < s.size() && s[p] == '-') ++p;
  size_t matched = 0;
  while (true) {
    size_t d = count_digits(s, p);
    if (d == 0) break;
    size_t u = match_duration_unit(s, p + d);
    if (u == 0) break;
    p += d + u;
    matched = p - i;
  }
  return matched;
}

// The ISO 8601 forms, uppercase designators only (as in Lexer.g), at i: its length or 0.
//   P[nY][nM][nD][T[nH][nM][nS]] (at least one field), PnW, Pyyyy-mm-ddThh:mm:ss
size_t match_iso_duration(std::string_view s, size_t i) {
  size_t p = i;
  if (p < s.size() && s[p] == '-') ++p;
  if (p >= s.size() || s[p] != 'P') return 0;
  ++p;
  // alternative format
  {
    auto digits_at = [&](size_t at, size_t n) { return count_digits(s, at) >= n; };
    size_t q = p;
    if (digits_at(q, 4) && q + 4 < s.size() && s[q + 4] == '-' && digits_at(q + 5, 2) &&
        q + 7 < s.size() && s[q + 7] == '-' && digits_at(q + 8, 2) && q + 10 < s.size() &&
        s[q + 10] == 'T' && digits_at(q + 11, 2) && q + 13 < s.size() && s[q + 13] == ':' &&
        digits_at(q + 14, 2) && q + 16 < s.size() && s[q + 16] == ':' && digits_at(q + 17, 2) &&
        count_digits(s, q) == 4)
      return q + 19 - i;
  }
  // week form
  if (size_t d = count_digits(s, p); d > 0 && p + d < s.size() && s[p + d] == 'W')
    return p + d + 1 - i;
  // designators, in order; each a number followed by its letter
  auto fields = [&](size_t& at, std::string_view letters) {
    size_t matched = 0;
    for (char letter : letters) {
      size_t d = count_digits(s, at);
      if (d > 0 && at + d < s.size() && s[at + d] == letter) {
        at += d + 1;
        ++matched;
      }
    }
    return matched;
  };
  size_t date_fields = fields(p, "YMD");
  size_t end = p;
  if (p < s.size() && s[p] == 'T') {
    size_t q = p + 1;
    if (fields(q, "HMS") > 0) end = q;
  }
  if (end == p && date_fields == 0) return 0;
  return end - i;
}

// INTEGER ('.' DIGIT*)? EXPONENT? at i (a '.' followed by '.' is a RANGE, not a decimal point):
// its length, and whether it is a float rather than an integer.
size_t match_number(std::string_view s, size_t i, bool* is_float) {
  size_t p = i;
  if (p < s.size() && s[p] == '-') ++p;
  size_t d = count_digits(s, p);
  if (d == 0) return 0;
  p += d;
  *is_float = false;
  if (p < s.size() && s[p] == '.' && !(p + 1 < s.size() && s[p + 1] == '.')) {
    *is_float = true;
    ++p;
    p += count_digits(s, p);
  }
  if (p < s.size() && lower(s[p]) == 'e') {
    size_t q = p + 1;
    if (q < s.size() && (s[q] == '+' || s[q] == '-')) ++q;
    if (size_t e = count_digits(s, q); e > 0) {
      *is_float = true;
      p = q + e;
    }
  }
  return p - i;
}

size_t ident_run(std::string_view s, size_t i) {
  size_t p = i;
  while (p < s.size() && is_ident_char(s[p])) ++p;
  return p - i;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  LexResult run() {
    while (pos_ < s_.size()) next();
    Token eof;
    eof.kind = TokenKind::kEof;
    eof.begin = eof.end = s_.size();
    eof.line = line_;
    eof.column = column_;
    result_.tokens.push_back(eof);
    return std::move(result_);
  }

 private:
  void emit(TokenKind kind, size_t length, std::string text) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.begin = pos_;
    t.end = pos_ + length;
    t.line = line_;
    t.column = column_;
    advance(length);
    result_.tokens.push_back(std::move(t));
  }
  void emit_raw(TokenKind kind, size_t length) {
    emit(kind, length, std::string(s_.substr(pos_, length)));
  }

  void advance(size_t n) {
    for (size_t k = 0; k < n && pos_ < s_.size(); ++k, ++pos_) {
      if (s_[pos_] == '\n') {
        ++line_;
        column_ = 0;
      } else {
        ++column_;
      }
    }
  }

  void error_at(size_t offset, int line, int column, std::string what) {
    if (result_.error) return;
    result_.error = LexError{fmt::format("line {}:{} {}", line, column, what), offset};
  }

  static std::string char_display(std::string_view s, size_t i) {
    if (i >= s.size()) return "'<EOF>'";
    char c = s[i];
    if (c == '\n') return "'\\n'";
    if (c == '\r') return "'\\r'";
    if (c == '\t') return "'\\t'";
    return fmt::format("'{}'", c);
  }

  // A quoted run ('...' or "..."), the quote doubled to escape it. Returns false (after
  // reporting) when the input ends first.
  bool quoted(char quote, TokenKind kind) {
    std::string text;
    size_t p = pos_ + 1;
    while (true) {
      if (p >= s_.size()) {
        report_unterminated(p, quote);
        return false;
      }
      if (s_[p] == quote) {
        if (p + 1 < s_.size() && s_[p + 1] == quote) {
          text += quote;
          p += 2;
          continue;
        }
        break;
      }
      text += s_[p++];
    }
    emit(kind, p + 1 - pos_, std::move(text));
    return true;
  }

  void report_unterminated(size_t at, char expected) {
    // position of the end of input
    int line = line_, column = column_;
    for (size_t k = pos_; k < at && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++line;
        column = 0;
      } else {
        ++column;
      }
    }
    error_at(at, line, column,
             fmt::format("mismatched character '<EOF>' expecting '{}'", expected));
    // skip the rest: nothing after an unterminated quote can be lexed meaningfully
    advance(s_.size() - pos_);
  }

  void next() {
    char c = s_[pos_];
    std::string_view rest = s_.substr(pos_);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      size_t n = 0;
      while (n < rest.size() &&
             (rest[n] == ' ' || rest[n] == '\t' || rest[n] == '\n' || rest[n] == '\r'))
        ++n;
      return emit_raw(TokenKind::kWhitespace, n);
    }
    if (rest.starts_with("--") || rest.starts_with("//")) {
      size_t n = rest.find_first_of("\n\r");
      return emit_raw(TokenKind::kComment, n == std::string_view::npos ? rest.size() : n + 1);
    }
    if (rest.starts_with("/*")) {
      size_t n = rest.find("*/", 2);
      if (n == std::string_view::npos) {
        report_unterminated(s_.size(), '*');
        return;
      }
      return emit_raw(TokenKind::kComment, n + 2);
    }
    if (c == '\'') {
      quoted('\'', TokenKind::kString);
      return;
    }
    if (rest.starts_with("$$")) {
      size_t n = rest.find("$$", 2);
      if (n == std::string_view::npos) {
        report_unterminated(s_.size(), '$');
        return;
      }
      return emit(TokenKind::kString, n + 2, std::string(rest.substr(2, n - 2)));
    }
    if (c == '"') {
      if (rest.starts_with("\"\"") && !rest.starts_with("\"\"\""))
        return emit_raw(TokenKind::kEmptyQuotedName, 2);
      quoted('"', TokenKind::kQuotedName);
      return;
    }
    if (size_t n = match_uuid(s_, pos_); n > 0 && !(n < rest.size() && is_ident_char(rest[n])))
      return emit_raw(TokenKind::kUuid, n);
    bool negative = c == '-' && rest.size() > 1;
    if (is_digit(c) || (negative && (is_digit(rest[1]) || rest[1] == 'P'))) return number();
    if (negative && is_letter(rest[1])) {
      size_t n = ident_run(s_, pos_ + 1);
      std::string_view word = rest.substr(1, n);
      if (iequals(word, "nan")) return emit(TokenKind::kFloat, n + 1, "NaN");
      if (iequals(word, "infinity")) return emit(TokenKind::kFloat, n + 1, "-Infinity");
    }
    if (is_letter(c)) return word();
    if (rest.starts_with("..")) return emit_raw(TokenKind::kRange, 2);
    if (c == '?') return emit_raw(TokenKind::kQmark, 1);
    for (std::string_view two : {"<=", ">=", "!=", "+=", "-="})
      if (rest.starts_with(two)) return emit_raw(TokenKind::kSymbol, 2);
    if (std::string_view("()[]{},;:.=<>+-*/%").find(c) != std::string_view::npos)
      return emit_raw(TokenKind::kSymbol, 1);
    error_at(pos_, line_, column_,
             fmt::format("no viable alternative at character {}", char_display(s_, pos_)));
    advance(1);
  }

  void number() {
    std::string_view rest = s_.substr(pos_);
    if (rest.size() > 1 && rest[0] == '0' && lower(rest[1]) == 'x') {
      size_t n = 2;
      while (n < rest.size() && is_hex(rest[n])) ++n;
      return emit_raw(TokenKind::kHex, n);
    }
    bool is_float = false;
    size_t num = match_number(s_, pos_, &is_float);
    size_t dur = std::max(match_unit_duration(s_, pos_), match_iso_duration(s_, pos_));
    if (dur > num) return emit_raw(TokenKind::kDuration, dur);
    if (num == 0) {  // a lone '-' before 'P' that is no duration
      return emit_raw(TokenKind::kSymbol, 1);
    }
    emit_raw(is_float ? TokenKind::kFloat : TokenKind::kInteger, num);
  }

  void word() {
    size_t n = ident_run(s_, pos_);
    std::string_view w = s_.substr(pos_, n);
    if (iequals(w, "true") || iequals(w, "false")) return emit_raw(TokenKind::kBoolean, n);
    if (iequals(w, "nan")) return emit(TokenKind::kFloat, n, "NaN");
    if (iequals(w, "infinity")) return emit(TokenKind::kFloat, n, "Infinity");
    if (w[0] == 'P') {
      // a tie with IDENT goes to DURATION (listed first); the alternative format is longer
      if (size_t d = match_iso_duration(s_, pos_); d >= n) return emit_raw(TokenKind::kDuration, d);
    }
    emit_raw(TokenKind::kIdent, n);
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 0;
  LexResult result_;
};

}  // namespace

LexResult tokenize(std::string_view text) {
  return Lexer(text).run();
}

}  // namespace cassette::cql
