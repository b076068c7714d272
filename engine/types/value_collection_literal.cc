// Reading a collection, tuple or UDT value from its CQL literal text, for parse_value_string()
// (COPY FROM, CAST from text, string-encoded JSON): "[1, 2]", "{'a', 'b'}", "{'k': 1}",
// "(1, 'x', null)", "{street: 'Main', n: 3}". Strings are single-quoted ('' escapes a quote);
// any other scalar is the run of characters up to the next delimiter.
#include <cctype>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"
#include "engine/util/message.h"

namespace cassette::types::internal {

namespace {

class LiteralReader {
 public:
  explicit LiteralReader(std::string_view text) : text_(text) {}

  Result<std::string> read_whole(const CqlType& type) {
    CASSETTE_ASSIGN_OR_RETURN(Value v, read_value(type));
    skip_space();
    if (pos_ != text_.size() || !v) return malformed();
    return *v;
  }

 private:
  Status malformed() const {
    return Status::invalid_argument(
        fmt::format("Unable to parse '{}' as a {} value", message_value(text_), "collection"));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  // A scalar token: a quoted string (unquoted) or a bare run; `quoted` tells which.
  Result<std::string> read_token(bool* quoted) {
    skip_space();
    *quoted = false;
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      *quoted = true;
      std::string out;
      ++pos_;
      while (pos_ < text_.size()) {
        if (text_[pos_] == '\'') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '\'') {
            out.push_back('\'');
            pos_ += 2;
            continue;
          }
          ++pos_;
          return out;
        }
        out.push_back(text_[pos_++]);
      }
      return malformed();
    }
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           std::string_view(",:]})").find(text_[pos_]) == std::string_view::npos &&
           !std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    if (pos_ == start) return malformed();
    return std::string(text_.substr(start, pos_ - start));
  }

  // A bare null (any case) where a collection, tuple or UDT value would start: a null field of
  // a tuple or UDT, as CQL and format_value write it ("{z: null}").
  bool eat_null() {
    skip_space();
    const std::string_view rest = text_.substr(pos_);
    if (rest.size() < 4) return false;
    std::string word(rest.substr(0, 4));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (word != "null") return false;
    if (rest.size() > 4 && std::string_view(",:]}) \t\r\n").find(rest[4]) == std::string_view::npos)
      return false;
    pos_ += 4;
    return true;
  }

  Result<Value> read_value(const CqlType& type) {
    skip_space();
    if (type.is_collection() || type.kind == TypeKind::kTuple || type.kind == TypeKind::kUdt ||
        type.kind == TypeKind::kVector) {
      if (eat_null()) return Value();
    }
    switch (type.kind) {
      case TypeKind::kVector: {
        if (!eat('[')) return malformed();
        std::vector<std::string> elements;
        do {
          CASSETTE_ASSIGN_OR_RETURN(Value e, read_value(type.params.at(0)));
          if (!e) return Status::invalid_argument("null is not supported inside vectors");
          elements.push_back(std::move(*e));
        } while (eat(','));
        if (!eat(']')) return malformed();
        if (elements.size() != static_cast<size_t>(type.dimension))
          return Status::invalid_argument(
              fmt::format("Invalid vector literal for {}; expected {} elements, but given {}",
                          cql_type_name(type), type.dimension, elements.size()));
        return Value(serialize_vector(type, elements));
      }
      case TypeKind::kList:
      case TypeKind::kSet: {
        const char open = type.kind == TypeKind::kList ? '[' : '{';
        const char close = type.kind == TypeKind::kList ? ']' : '}';
        if (!eat(open)) return malformed();
        std::vector<std::string> elements;
        if (!eat(close)) {
          do {
            CASSETTE_ASSIGN_OR_RETURN(Value e, read_value(type.params.at(0)));
            if (!e) return Status::invalid_argument("null is not supported inside collections");
            elements.push_back(std::move(*e));
          } while (eat(','));
          if (!eat(close)) return malformed();
        }
        return Value(type.kind == TypeKind::kList
                         ? serialize_list(elements)
                         : serialize_set(type.params.at(0), std::move(elements)));
      }
      case TypeKind::kMap: {
        if (!eat('{')) return malformed();
        std::vector<std::pair<std::string, std::string>> entries;
        if (!eat('}')) {
          do {
            CASSETTE_ASSIGN_OR_RETURN(Value k, read_value(type.params.at(0)));
            if (!eat(':')) return malformed();
            CASSETTE_ASSIGN_OR_RETURN(Value v, read_value(type.params.at(1)));
            if (!k || !v)
              return Status::invalid_argument("null is not supported inside collections");
            entries.emplace_back(std::move(*k), std::move(*v));
          } while (eat(','));
          if (!eat('}')) return malformed();
        }
        return Value(serialize_map(type.params.at(0), std::move(entries)));
      }
      case TypeKind::kTuple: {
        if (!eat('(')) return malformed();
        std::vector<Value> components;
        do {
          if (components.size() >= type.params.size()) return malformed();
          CASSETTE_ASSIGN_OR_RETURN(Value c, read_value(type.params[components.size()]));
          components.push_back(std::move(c));
        } while (eat(','));
        if (!eat(')')) return malformed();
        return Value(serialize_tuple(components));
      }
      case TypeKind::kUdt: {
        if (!eat('{')) return malformed();
        std::vector<Value> fields(type.params.size());
        if (!eat('}')) {
          do {
            bool quoted;
            skip_space();
            std::string name;
            if (pos_ < text_.size() && text_[pos_] == '"') {
              const size_t end = text_.find('"', pos_ + 1);
              if (end == std::string_view::npos) return malformed();
              name = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
              pos_ = end + 1;
            } else {
              CASSETTE_ASSIGN_OR_RETURN(name, read_token(&quoted));
              for (char& c : name)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            size_t index = 0;
            while (index < type.field_names.size() && type.field_names[index] != name) ++index;
            if (index == type.field_names.size() || !eat(':')) return malformed();
            CASSETTE_ASSIGN_OR_RETURN(fields[index], read_value(type.params[index]));
          } while (eat(','));
          if (!eat('}')) return malformed();
        }
        return Value(serialize_tuple(fields));
      }
      default: {
        bool quoted;
        CASSETTE_ASSIGN_OR_RETURN(std::string token, read_token(&quoted));
        if (!quoted && (token == "null" || token == "NULL")) return Value();
        CASSETTE_ASSIGN_OR_RETURN(std::string v, parse_value_string(type, token));
        // An element is always inside a collection, tuple or UDT, where the empty value that ''
        // gives a smallint stands for nothing: each must be well formed, as Cassandra's
        // serializers check ("Expected 2 bytes for a smallint (0)").
        CASSETTE_RETURN_IF_ERROR(validate_value(type, v));
        return Value(std::move(v));
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::string> parse_collection_literal(const CqlType& type, std::string_view text) {
  return LiteralReader(text).read_whole(type);
}

}  // namespace cassette::types::internal
