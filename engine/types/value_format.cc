// Printing values: as cqlsh shows a cell (pylib/cqlshlib/formatting.py with its defaults), as a
// CQL literal that reads back to the same value, and as Cassandra's AbstractType.getString()
// (what CAST(x AS text) returns).
#include <cstring>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

using namespace internal;

namespace {

// Decodes one UTF-8 code point at s[*i] (advancing *i); invalid bytes come back one by one.
uint32_t next_code_point(std::string_view s, size_t* i) {
  const uint8_t c = static_cast<uint8_t>(s[*i]);
  size_t n = c < 0x80             ? 0
             : (c & 0xE0) == 0xC0 ? 1
             : (c & 0xF0) == 0xE0 ? 2
             : (c & 0xF8) == 0xF0 ? 3
                                  : 0;
  if (*i + n >= s.size()) n = 0;  // truncated: the lead byte alone
  uint32_t cp = n == 0 ? c : (c & (0x3F >> n));
  for (size_t k = 1; k <= n; ++k) cp = (cp << 6) | (static_cast<uint8_t>(s[*i + k]) & 0x3F);
  *i += n + 1;
  return cp;
}

// cqlsh's format_value_text: backslashes doubled, control characters (U+0000-U+001F and
// U+007F-U+00A0) shown as Python's repr shows them, and inside collections quoted with ''.
std::string cqlsh_text(std::string_view s, bool quote) {
  std::string out;
  if (quote) out.push_back('\'');
  size_t i = 0;
  while (i < s.size()) {
    const size_t start = i;
    const uint32_t cp = next_code_point(s, &i);
    if (cp == '\\') {
      out += "\\\\";
    } else if (quote && cp == '\'') {
      out += "''";
    } else if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0)) {
      switch (cp) {
        case '\t':
          out += "\\t";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        default:
          out += fmt::format("\\x{:02x}", cp);
      }
    } else {
      out.append(s.substr(start, i - start));
    }
  }
  if (quote) out.push_back('\'');
  return out;
}

std::string cql_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

std::string field_name(std::string_view name) {
  bool plain = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) plain = false;
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string format(const CqlType& type, std::string_view bytes, ValueStyle style, bool nested);

std::string format_component(const CqlType& type, const Value& v, ValueStyle style) {
  return v ? format(type, *v, style, true) : "null";
}

std::string format_composite(const CqlType& type, std::string_view bytes, ValueStyle style) {
  switch (type.kind) {
    case TypeKind::kList:
    case TypeKind::kSet: {
      auto elements = deserialize_list(bytes);
      if (!elements.is_ok()) {
        // A list of writetime()/ttl() entries may hold nulls (length -1), as a tuple does.
        auto entries = type.kind == TypeKind::kList && bytes.size() >= 4
                           ? deserialize_tuple(bytes.substr(4))
                           : Result<std::vector<Value>>(elements.status());
        if (!entries.is_ok()) return "0x" + to_hex(bytes);
        std::string out = "[";
        for (size_t i = 0; i < entries->size(); ++i) {
          if (i > 0) out += ", ";
          out += format_component(type.params.at(0), (*entries)[i], style);
        }
        return out + "]";
      }
      std::string out = type.kind == TypeKind::kList ? "[" : "{";
      for (size_t i = 0; i < elements->size(); ++i) {
        if (i > 0) out += ", ";
        out += format(type.params.at(0), (*elements)[i], style, true);
      }
      return out + (type.kind == TypeKind::kList ? "]" : "}");
    }
    case TypeKind::kVector: {  // cqlsh prints a vector as a list
      auto elements = deserialize_vector(type, bytes);
      if (!elements.is_ok()) return "0x" + to_hex(bytes);
      std::string out = "[";
      for (size_t i = 0; i < elements->size(); ++i) {
        if (i > 0) out += ", ";
        out += format(type.params.at(0), (*elements)[i], style, true);
      }
      return out + "]";
    }
    case TypeKind::kMap: {
      auto entries = deserialize_map(bytes);
      if (!entries.is_ok()) return "0x" + to_hex(bytes);
      std::string out = "{";
      for (size_t i = 0; i < entries->size(); ++i) {
        if (i > 0) out += ", ";
        out += format(type.params.at(0), (*entries)[i].first, style, true) + ": " +
               format(type.params.at(1), (*entries)[i].second, style, true);
      }
      return out + "}";
    }
    case TypeKind::kTuple: {
      auto components = deserialize_tuple(bytes);
      if (!components.is_ok()) return "0x" + to_hex(bytes);
      // A tuple may hold fewer components than its type ('(1)' for a tuple<int, int>). cqlsh
      // shows the missing ones as null; the other forms write only those present, so that the
      // text reads back as the same value.
      const size_t shown = style == ValueStyle::kCqlsh || components->empty() ? type.params.size()
                                                                              : components->size();
      std::string out = "(";
      for (size_t i = 0; i < shown; ++i) {
        if (i > 0) out += ", ";
        out += format_component(type.params[i], i < components->size() ? (*components)[i] : Value(),
                                style);
      }
      return out + ")";
    }
    default: {  // UDT
      auto fields = deserialize_tuple(bytes);
      if (!fields.is_ok()) return "0x" + to_hex(bytes);
      std::string out = "{";
      for (size_t i = 0; i < type.params.size(); ++i) {
        if (i > 0) out += ", ";
        // cqlsh prints the names as its driver's namedtuple holds them: as they are, unquoted
        out += (style == ValueStyle::kCqlsh ? type.field_names.at(i)
                                            : field_name(type.field_names.at(i))) +
               ": " +
               format_component(type.params[i], i < fields->size() ? (*fields)[i] : Value(), style);
      }
      return out + "}";
    }
  }
}

std::string format(const CqlType& type, std::string_view bytes, ValueStyle style, bool nested) {
  const bool cqlsh = style == ValueStyle::kCqlsh;
  const bool literal = style == ValueStyle::kLiteral;
  const bool copy = style == ValueStyle::kCopy;
  // An empty value of a type whose empty form is not itself a value (cqlsh's EMPTY) prints as
  // nothing; text and blob have their own empty values ('' and 0x). Inside a collection, tuple
  // or UDT, COPY writes it as '' (which parse_value_string reads as the empty value, as
  // Cassandra's fromString("") does): nothing there would not read back.
  const bool bytes_like =
      type.kind == TypeKind::kText || type.kind == TypeKind::kAscii || type.kind == TypeKind::kBlob;
  if (bytes.empty() && !bytes_like && !type.is_collection() && type.kind != TypeKind::kTuple &&
      type.kind != TypeKind::kUdt) {
    return copy && nested ? "''" : "";
  }
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
      if (cqlsh) return cqlsh_text(bytes, nested);
      if (literal || (copy && nested)) return cql_quote(bytes);
      return std::string(bytes);
    case TypeKind::kBlob:
      return style == ValueStyle::kString ? to_hex(bytes) : "0x" + to_hex(bytes);
    case TypeKind::kBoolean: {
      const bool v = bytes[0] != 0;
      if (cqlsh || copy) return v ? "True" : "False";
      return v ? "true" : "false";
    }
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return fmt::format("{}", read_signed(bytes.substr(0, 8)));
    case TypeKind::kVarint:
      return varint_to_text(bytes);
    case TypeKind::kDecimal:
      return bytes.size() < 4 ? "0x" + to_hex(bytes) : decimal_to_text(bytes);
    case TypeKind::kFloat: {
      if (bytes.size() != 4) return "0x" + to_hex(bytes);
      const float f = read_float(bytes);
      if (copy) return exact_float_to_string(f, true);
      return cqlsh ? cqlsh_float_to_string(f, 5) : java_float_to_string(f);
    }
    case TypeKind::kDouble: {
      if (bytes.size() != 8) return "0x" + to_hex(bytes);
      const double d = read_double(bytes);
      if (copy) return exact_float_to_string(d, false);
      return cqlsh ? cqlsh_float_to_string(d, 12) : java_double_to_string(d);
    }
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return uuid_to_text(bytes);
    case TypeKind::kInet: {
      const std::string text = inet_to_text(bytes, !(cqlsh || copy));
      return ((cqlsh || copy) && nested) || literal ? "'" + text + "'" : text;
    }
    case TypeKind::kTimestamp: {
      const int64_t millis = read_signed(bytes.substr(0, 8));
      if (cqlsh || copy) {
        const std::string text =
            copy ? format_timestamp_copy(millis) : format_timestamp_cqlsh(millis);
        return nested ? "'" + text + "'" : text;
      }
      const std::string text = format_timestamp_java(millis, 'T');
      return literal ? "'" + text + "'" : text;
    }
    case TypeKind::kDate: {
      const uint32_t days = static_cast<uint32_t>(read_unsigned(bytes.substr(0, 4)));
      if (cqlsh) return format_date_cqlsh(days);
      if (copy) return nested ? "'" + format_date_copy(days) + "'" : format_date_copy(days);
      return literal ? "'" + format_date_java(days) + "'" : format_date_java(days);
    }
    case TypeKind::kTime: {
      const std::string text = format_time(read_signed(bytes.substr(0, 8)));
      return literal || (copy && nested) ? "'" + text + "'" : text;
    }
    case TypeKind::kDuration: {
      auto d = deserialize_duration(bytes);
      if (!d) return "0x" + to_hex(bytes);
      const std::string text = duration_to_string(*d);
      return (literal || copy) && text.empty() ? "0s" : text;
    }
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
    case TypeKind::kTuple:
    case TypeKind::kUdt:
    case TypeKind::kVector:
      // Cassandra's own string form of a collection is its bytes in hex (CollectionType.
      // getString), not a literal; nothing here shows a composite's kString form to a user
      // (CAST refuses composites, the hosts map them to JSON). What parse_value_string reads back
      // is the literal COPY writes, with text inside quoted: that is the string form.
      return format_composite(type, bytes,
                              style == ValueStyle::kString ? ValueStyle::kCopy : style);
  }
  return "0x" + to_hex(bytes);
}

}  // namespace

std::string format_value(const CqlType& type, std::string_view bytes, ValueStyle style) {
  return format(type, bytes, style, false);
}

std::string format_float_cqlsh(double v, int precision) {
  return cqlsh_float_to_string(v, precision);
}

}  // namespace cassette::types
