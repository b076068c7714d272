// A recursive-descent JSON reader (RFC 8259) that keeps each value's source text.
#include "engine/util/json.h"

#include <fmt/format.h>

#include "engine/util/message.h"
#include "engine/util/utf8.h"

namespace cassette::json {

JsonValue::JsonValue() = default;

namespace {

constexpr int kMaxDepth = 512;  // deeper documents are rejected rather than overflowing the stack

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<JsonValue> parse_document() {
    skip_space();
    JsonValue value;
    CASSETTE_RETURN_IF_ERROR(parse_value(&value, 0));
    skip_space();
    if (pos_ != text_.size()) return error("unexpected content after the JSON value");
    return value;
  }

 private:
  Status error(std::string_view what) const {
    return Status::invalid_argument(fmt::format("{} at character {}", what, pos_ + 1));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Status parse_value(JsonValue* out, int depth) {
    if (depth > kMaxDepth) return error("JSON nested too deeply");
    if (pos_ >= text_.size()) return error("unexpected end of input");
    const size_t start = pos_;
    const char c = text_[pos_];
    Status st;
    if (c == '{') {
      st = parse_object(out, depth);
    } else if (c == '[') {
      st = parse_array(out, depth);
    } else if (c == '"') {
      out->kind = JsonValue::Kind::kString;
      st = parse_string(&out->text);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      st = parse_number(out);
    } else if (consume_word("true")) {
      out->kind = JsonValue::Kind::kBoolean;
      out->boolean = true;
    } else if (consume_word("false")) {
      out->kind = JsonValue::Kind::kBoolean;
      out->boolean = false;
    } else if (consume_word("null")) {
      out->kind = JsonValue::Kind::kNull;
    } else {
      // A non-ASCII character is shown whole (all its UTF-8 bytes, up to the next separator),
      // never as a lone byte that would make the message invalid UTF-8.
      if (static_cast<unsigned char>(c) >= 0x80) {
        size_t end = pos_;
        while (end < text_.size() &&
               std::string_view(" \t\r\n,:[]{}\"").find(text_[end]) == std::string_view::npos) {
          ++end;
        }
        return error(
            fmt::format("unexpected text '{}'", message_value(text_.substr(pos_, end - pos_))));
      }
      return error(fmt::format("unexpected character '{}'", c));
    }
    CASSETTE_RETURN_IF_ERROR(st);
    out->source = std::string(text_.substr(start, pos_ - start));
    return Status::ok();
  }

  Status parse_object(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kObject;
    ++pos_;  // {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return Status::ok();
    }
    while (true) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') return error("expected a string key");
      std::string key;
      CASSETTE_RETURN_IF_ERROR(parse_string(&key));
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ':') return error("expected ':'");
      ++pos_;
      skip_space();
      JsonValue value;
      CASSETTE_RETURN_IF_ERROR(parse_value(&value, depth + 1));
      out->members.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return Status::ok();
      }
      return error("expected ',' or '}'");
    }
  }

  Status parse_array(JsonValue* out, int depth) {
    out->kind = JsonValue::Kind::kArray;
    ++pos_;  // [
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return Status::ok();
    }
    while (true) {
      skip_space();
      JsonValue value;
      CASSETTE_RETURN_IF_ERROR(parse_value(&value, depth + 1));
      out->elements.push_back(std::move(value));
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return Status::ok();
      }
      return error("expected ',' or ']'");
    }
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  Status parse_number(JsonValue* out) {
    out->kind = JsonValue::Kind::kNumber;
    const size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    if (pos_ >= text_.size() || !is_digit(text_[pos_])) return error("invalid number");
    if (text_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) return error("invalid number");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) return error("invalid number");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    out->text = std::string(text_.substr(start, pos_ - start));
    return Status::ok();
  }

  bool read_hex4(uint32_t* v) {
    if (pos_ + 4 > text_.size()) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      *v <<= 4;
      if (c >= '0' && c <= '9')
        *v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        *v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        *v |= c - 'A' + 10;
      else
        return false;
    }
    return true;
  }

  Status parse_string(std::string* out) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= text_.size()) return error("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return Status::ok();
      if (static_cast<unsigned char>(c) < 0x20)
        return error("unescaped control character in string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return error("unterminated string");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!read_hex4(&cp)) return error("invalid \\u escape");
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            const size_t save = pos_;
            pos_ += 2;
            uint32_t low;
            if (read_hex4(&low) && low >= 0xDC00 && low < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          utf8::append(out, cp);
          break;
        }
        default:
          return error(fmt::format("invalid escape '\\{}'", e));
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

bool JsonValue::is_integer() const {
  return kind == Kind::kNumber && text.find_first_of(".eE") == std::string::npos;
}

Result<JsonValue> parse_json(std::string_view document) {
  return Parser(document).parse_document();
}

std::string escape_json_string(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

std::string quote_json_string(std::string_view s) {
  return "\"" + escape_json_string(s) + "\"";
}

}  // namespace cassette::json
