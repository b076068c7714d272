// JSON: toJson() of every type (each AbstractType.toJSONString in Cassandra) and fromJson() of a
// JSON value (each AbstractType.fromJSONObject, with its messages).
//
// Cassandra decodes the JSON with Jackson into Java objects first; its messages name their
// classes and print them with toString() ("Expected an int value, but got a Double: 1.5"), so
// java_class() and java_string() below reproduce those.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"
#include "engine/util/json.h"
#include "engine/util/message.h"

namespace cassette::types {

using namespace internal;
using json::JsonValue;

namespace {

std::string quoted(std::string_view s) {
  return json::quote_json_string(s);
}

std::string json_of(const CqlType& type, std::string_view bytes);

// A list of writetime()/ttl() entries may hold nulls (length -1), which deserialize_list refuses:
// its elements read as a tuple's components do.
std::string json_of_list_with_nulls(const CqlType& type, std::string_view bytes) {
  auto entries = bytes.size() >= 4 ? deserialize_tuple(bytes.substr(4))
                                   : Result<std::vector<Value>>(Status::invalid_argument(""));
  if (!entries.is_ok()) return "null";
  std::string out = "[";
  for (size_t i = 0; i < entries->size(); ++i) {
    if (i > 0) out += ", ";
    out += (*entries)[i] ? json_of(type.params.at(0), *(*entries)[i]) : "null";
  }
  return out + "]";
}

std::string json_of(const CqlType& type, std::string_view bytes) {
  if (bytes.empty() && type.kind != TypeKind::kBlob && !type.is_collection() &&
      type.kind != TypeKind::kTuple && type.kind != TypeKind::kUdt) {
    return "\"\"";  // Objects.toString(null, "\"\""): the empty value of a non-string type
  }
  switch (type.kind) {
    case TypeKind::kAscii:
    case TypeKind::kText:
      return quoted(bytes);
    case TypeKind::kBlob:
      return "\"0x" + to_hex(bytes) + "\"";
    case TypeKind::kBoolean:
      return bytes[0] != 0 ? "true" : "false";
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return fmt::format("{}", read_signed(bytes.substr(0, 8)));
    case TypeKind::kVarint:
      return varint_to_text(bytes);
    case TypeKind::kDecimal:
      return decimal_to_text(bytes);
    case TypeKind::kFloat: {
      const float f = read_float(bytes);
      // JSON has no NaN or Infinity; Cassandra writes null for them
      return std::isfinite(f) ? java_float_to_string(f) : "null";
    }
    case TypeKind::kDouble: {
      const double d = read_double(bytes);
      return std::isfinite(d) ? java_double_to_string(d) : "null";
    }
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return quoted(uuid_to_text(bytes));
    case TypeKind::kInet:
      return quoted(inet_to_text(bytes, true));
    case TypeKind::kTimestamp:
      return quoted(format_timestamp_java(read_signed(bytes.substr(0, 8)), ' '));
    case TypeKind::kDate:
      return quoted(format_date_java(static_cast<uint32_t>(read_unsigned(bytes.substr(0, 4)))));
    case TypeKind::kTime:
      return quoted(format_time(read_signed(bytes.substr(0, 8))));
    case TypeKind::kDuration: {
      auto d = deserialize_duration(bytes);
      return quoted(d ? duration_to_string(*d) : "");
    }
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kVector: {
      auto elements = type.kind == TypeKind::kVector ? deserialize_vector(type, bytes)
                                                     : deserialize_list(bytes);
      if (!elements.is_ok()) {
        return type.kind == TypeKind::kList ? json_of_list_with_nulls(type, bytes) : "null";
      }
      std::string out = "[";
      for (size_t i = 0; i < elements->size(); ++i) {
        if (i > 0) out += ", ";
        out += json_of(type.params.at(0), (*elements)[i]);
      }
      return out + "]";
    }
    case TypeKind::kMap: {
      auto entries = deserialize_map(bytes);
      if (!entries.is_ok()) return "null";
      std::string out = "{";
      for (size_t i = 0; i < entries->size(); ++i) {
        if (i > 0) out += ", ";
        // JSON keys are strings: a key whose JSON is not a string is quoted as a string
        const std::string key = json_of(type.params.at(0), (*entries)[i].first);
        out += key.starts_with("\"") ? key : quoted(key);
        out += ": " + json_of(type.params.at(1), (*entries)[i].second);
      }
      return out + "}";
    }
    case TypeKind::kTuple: {
      auto components = deserialize_tuple(bytes);
      if (!components.is_ok()) return "null";
      std::string out = "[";
      for (size_t i = 0; i < components->size() && i < type.params.size(); ++i) {
        if (i > 0) out += ", ";
        out += (*components)[i] ? json_of(type.params[i], *(*components)[i]) : "null";
      }
      return out + "]";
    }
    case TypeKind::kUdt: {
      auto fields = deserialize_tuple(bytes);
      if (!fields.is_ok()) return "null";
      std::string out = "{";
      for (size_t i = 0; i < type.params.size(); ++i) {
        if (i > 0) out += ", ";
        std::string name = type.field_names.at(i);
        bool lower = true;
        for (char c : name)
          if (c >= 'A' && c <= 'Z') lower = false;
        if (!lower) name = "\"" + name + "\"";
        out += quoted(name) + ": ";
        const Value& v = i < fields->size() ? (*fields)[i] : Value();
        out += v ? json_of(type.params[i], *v) : "null";
      }
      return out + "}";
    }
  }
  return "null";
}

// ---- fromJson ----

// The Java class Jackson decodes a JSON value into.
std::string java_class(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kString:
      return "String";
    case JsonValue::Kind::kBoolean:
      return "Boolean";
    case JsonValue::Kind::kArray:
      return "ArrayList";
    case JsonValue::Kind::kObject:
      return "LinkedHashMap";
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kNumber: {
      if (!v.is_integer()) return "Double";
      const std::string& t = v.text;
      const bool negative = t.starts_with("-");
      const std::string_view digits = std::string_view(t).substr(negative ? 1 : 0);
      auto fits = [&](std::string_view max) {
        return digits.size() < max.size() || (digits.size() == max.size() && digits <= max);
      };
      if (fits(negative ? "2147483648" : "2147483647")) return "Integer";
      if (fits(negative ? "9223372036854775808" : "9223372036854775807")) return "Long";
      return "BigInteger";
    }
  }
  return "Object";
}

// The Java toString() of that object.
std::string java_string(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::kString:
      return v.text;
    case JsonValue::Kind::kBoolean:
      return v.boolean ? "true" : "false";
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kNumber:
      if (v.is_integer()) {
        auto bytes = varint_from_text(v.text);
        return bytes ? varint_to_text(*bytes) : v.text;
      }
      return java_double_to_string(std::strtod(v.text.c_str(), nullptr));
    case JsonValue::Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += java_string(v.elements[i]);
      }
      return out + "]";
    }
    case JsonValue::Kind::kObject: {
      std::string out = "{";
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0) out += ", ";
        out += v.members[i].first + "=" + java_string(v.members[i].second);
      }
      return out + "}";
    }
  }
  return "";
}

Status expected(std::string_view what, const JsonValue& v) {
  return Status::invalid_argument(fmt::format("Expected {}, but got a {}: {}", what, java_class(v),
                                              message_value(java_string(v))));
}

bool is_string(const JsonValue& v) {
  return v.kind == JsonValue::Kind::kString;
}
bool is_number(const JsonValue& v) {
  return v.kind == JsonValue::Kind::kNumber;
}

// JSON carried inside a JSON string, as Cassandra accepts for collections ("[1, 2]" as a string).
Result<JsonValue> decode_if_string(const JsonValue& v) {
  if (!is_string(v)) return v;
  auto decoded = json::parse_json(v.text);
  if (!decoded.is_ok())
    return Status::invalid_argument(fmt::format("Could not decode JSON string '{}': {}",
                                                message_value(v.text), decoded.status().message()));
  return std::move(decoded).value();
}

Result<std::string> from_json_object(const CqlType& type, const JsonValue& v);

// An element, key or value of a collection, or a component of a tuple or UDT: a well-formed
// value of its type. The empty value that "" gives most scalars may stand for a whole column,
// not inside a collection or tuple, where Cassandra's serializers validate each element
// ("Expected 2 bytes for a smallint (0)").
Result<std::string> element_from_json(const CqlType& type, const JsonValue& v) {
  CASSETTE_ASSIGN_OR_RETURN(std::string bytes, from_json_object(type, v));
  CASSETTE_RETURN_IF_ERROR(validate_value(type, bytes));
  return bytes;
}

// The elements of a JSON array for a list, set or vector (`what` names it in the error for a
// null element).
Result<std::vector<std::string>> elements_from_json(const CqlType& type, const JsonValue& array,
                                                    std::string_view what) {
  std::vector<std::string> elements;
  for (const JsonValue& e : array.elements) {
    if (e.is_null())
      return Status::invalid_argument(fmt::format("Invalid null element in {}", what));
    CASSETTE_ASSIGN_OR_RETURN(std::string bytes, element_from_json(type.params.at(0), e));
    elements.push_back(std::move(bytes));
  }
  return elements;
}

Result<std::string> from_json_object(const CqlType& type, const JsonValue& v) {
  switch (type.kind) {
    case TypeKind::kAscii:
      if (!is_string(v)) return expected("an ascii string", v);
      return parse_value_string(type, v.text);
    case TypeKind::kText:
      if (!is_string(v)) return expected("a UTF-8 string", v);
      return parse_value_string(type, v.text);
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
      if (!is_string(v) && !is_number(v))
        return expected(type.kind == TypeKind::kTinyint ? "a byte value" : "a short value", v);
      return parse_value_string(type, is_string(v) ? v.text : java_string(v));
    case TypeKind::kInt:
      if (is_string(v)) return parse_value_string(type, v.text);
      if (java_class(v) != "Integer") return expected("an int value", v);
      return parse_value_string(type, v.text);
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      if (is_string(v)) return parse_value_string(type, v.text);
      if (java_class(v) != "Integer" && java_class(v) != "Long")
        return expected("a bigint value", v);
      return parse_value_string(type, v.text);
    case TypeKind::kVarint: {
      auto bytes = varint_from_text(is_string(v) ? v.text : java_string(v));
      if (!bytes)
        return Status::invalid_argument(
            fmt::format("Value '{}' is not a valid representation of a varint value",
                        message_value(java_string(v))));
      return *bytes;
    }
    case TypeKind::kDecimal: {
      // A JSON number is read from its digits as written, as BigDecimal(text) would, not through
      // the double that Cassandra's Jackson makes of a fraction (which keeps ~16 digits): what
      // toJson prints must come back unchanged.
      auto bytes = decimal_from_text(is_string(v) || is_number(v) ? v.text : java_string(v));
      if (!bytes)
        return Status::invalid_argument(
            fmt::format("Value '{}' is not a valid representation of a decimal value",
                        message_value(java_string(v))));
      return *bytes;
    }
    case TypeKind::kFloat:
      if (is_string(v)) return parse_value_string(type, v.text);
      if (!is_number(v)) return expected("a float value", v);
      return float_bytes(v.is_integer() ? std::strtof(v.text.c_str(), nullptr)
                                        : static_cast<float>(std::strtod(v.text.c_str(), nullptr)));
    case TypeKind::kDouble:
      if (is_string(v)) return parse_value_string(type, v.text);
      if (!is_number(v)) return expected("a double value", v);
      return double_bytes(std::strtod(v.text.c_str(), nullptr));
    case TypeKind::kBoolean:
      if (is_string(v)) return parse_value_string(type, v.text);
      if (v.kind != JsonValue::Kind::kBoolean) return expected("a boolean value", v);
      return std::string(1, v.boolean ? '\1' : '\0');
    case TypeKind::kBlob: {
      std::string problem;
      if (!is_string(v)) {
        const std::string cls = java_class(v);
        const std::string pkg = cls == "ArrayList" || cls == "LinkedHashMap" ? "java.util."
                                : cls == "BigInteger"                        ? "java.math."
                                                                             : "java.lang.";
        problem = fmt::format(
            "class {0}{1} cannot be cast to class java.lang.String ({0}{1} and java.lang.String "
            "are in "
            "module java.base of loader 'bootstrap')",
            pkg, cls);
      } else if (!v.text.starts_with("0x")) {
        problem = fmt::format("String representation of blob is missing 0x prefix: {}",
                              message_value(v.text));
      } else if (auto bytes = from_hex(std::string_view(v.text).substr(2))) {
        return *bytes;
      } else {
        problem = fmt::format("cannot parse '{}' as hex bytes", message_value(v.text.substr(2)));
      }
      return Status::invalid_argument(
          fmt::format("Value '{}' is not a valid blob representation: {}",
                      message_value(java_string(v)), problem));
    }
    case TypeKind::kUuid:
      if (!is_string(v)) return expected("a string representation of a uuid", v);
      return parse_value_string(type, v.text);
    case TypeKind::kTimeuuid:
      if (!is_string(v)) return expected("a string representation of a timeuuid", v);
      return parse_value_string(type, v.text);
    case TypeKind::kTimestamp: {
      const std::string cls = java_class(v);
      if (cls == "Integer" || cls == "Long") return parse_value_string(type, v.text);
      if (!is_string(v))
        return expected("a long or a datestring representation of a timestamp value", v);
      return parse_value_string(type, v.text);
    }
    case TypeKind::kDate:
      if (!is_string(v)) return expected("a string representation of a date value", v);
      return parse_value_string(type, v.text);
    case TypeKind::kTime:
      if (!is_string(v)) return expected("a string representation of a time value", v);
      return parse_value_string(type, v.text);
    case TypeKind::kInet:
      if (!is_string(v)) return expected("a string representation of an inet value", v);
      return parse_value_string(type, v.text);
    case TypeKind::kDuration:
      if (!is_string(v)) return expected("a string representation of a duration", v);
      return parse_value_string(type, v.text);
    case TypeKind::kList:
    case TypeKind::kSet: {
      CASSETTE_ASSIGN_OR_RETURN(JsonValue list, decode_if_string(v));
      const bool is_list = type.kind == TypeKind::kList;
      if (list.kind != JsonValue::Kind::kArray)
        return expected(is_list ? "a list" : "a list (representing a set)", list);
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                                elements_from_json(type, list, is_list ? "list" : "set"));
      return is_list ? serialize_list(elements)
                     : serialize_set(type.params.at(0), std::move(elements));
    }
    case TypeKind::kVector: {  // VectorType.fromJSONObject
      CASSETTE_ASSIGN_OR_RETURN(JsonValue list, decode_if_string(v));
      if (list.kind != JsonValue::Kind::kArray) return expected("a list", list);
      if (list.elements.size() != static_cast<size_t>(type.dimension))
        return Status::invalid_argument(
            fmt::format("List had incorrect size: expected {} but given {}; {}", type.dimension,
                        list.elements.size(), message_value(java_string(list))));
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                                elements_from_json(type, list, "list"));
      return serialize_vector(type, elements);
    }
    case TypeKind::kMap: {
      CASSETTE_ASSIGN_OR_RETURN(JsonValue map, decode_if_string(v));
      if (map.kind != JsonValue::Kind::kObject) return expected("a map", map);
      std::vector<std::pair<std::string, std::string>> entries;
      for (const auto& [key, value] : map.members) {
        if (value.is_null()) return Status::invalid_argument("Invalid null value in map");
        JsonValue key_value;
        key_value.kind = JsonValue::Kind::kString;
        key_value.text = key;
        CASSETTE_ASSIGN_OR_RETURN(std::string k, element_from_json(type.params.at(0), key_value));
        CASSETTE_ASSIGN_OR_RETURN(std::string val, element_from_json(type.params.at(1), value));
        entries.emplace_back(std::move(k), std::move(val));
      }
      return serialize_map(type.params.at(0), std::move(entries));
    }
    case TypeKind::kTuple: {
      CASSETTE_ASSIGN_OR_RETURN(JsonValue list, decode_if_string(v));
      if (list.kind != JsonValue::Kind::kArray)
        return expected("a list representation of a tuple", list);
      if (list.elements.size() > type.params.size())
        return Status::invalid_argument(fmt::format("Tuple contains extra items (expected {}): {}",
                                                    type.params.size(),
                                                    message_value(java_string(list))));
      if (list.elements.size() < type.params.size())
        return Status::invalid_argument(fmt::format("Tuple is missing items (expected {}): {}",
                                                    type.params.size(),
                                                    message_value(java_string(list))));
      std::vector<Value> components;
      for (size_t i = 0; i < list.elements.size(); ++i) {
        if (list.elements[i].is_null()) {
          components.emplace_back();
          continue;
        }
        CASSETTE_ASSIGN_OR_RETURN(std::string bytes,
                                  element_from_json(type.params[i], list.elements[i]));
        components.emplace_back(std::move(bytes));
      }
      return serialize_tuple(components);
    }
    case TypeKind::kUdt: {
      CASSETTE_ASSIGN_OR_RETURN(JsonValue map, decode_if_string(v));
      if (map.kind != JsonValue::Kind::kObject) return expected("a map", map);
      std::vector<Value> fields(type.params.size());
      for (const auto& [raw_name, value] : map.members) {
        // Json.handleCaseSensitivity: "\"Name\"" is taken as written, anything else lower-cased
        std::string name = raw_name;
        if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
          name = name.substr(1, name.size() - 2);
        } else {
          for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        size_t index = 0;
        while (index < type.field_names.size() && type.field_names[index] != name) ++index;
        if (index == type.field_names.size())
          return Status::invalid_argument(
              fmt::format("Unknown field '{}' in value of user defined type {}",
                          message_value(name), type.udt_name));
        if (value.is_null()) {
          fields[index].reset();
          continue;
        }
        CASSETTE_ASSIGN_OR_RETURN(std::string bytes, element_from_json(type.params[index], value));
        fields[index] = std::move(bytes);
      }
      return serialize_tuple(fields);
    }
  }
  return Status::invalid_argument("Unsupported type for JSON");
}

}  // namespace

std::string to_json(const CqlType& type, const Value& value) {
  if (!value) return "null";
  return json_of(type, *value);
}

Result<Value> from_json(const CqlType& type, std::string_view json_text,
                        std::string_view receiver) {
  auto parsed = json::parse_json(json_text);
  if (!parsed.is_ok())
    return Status::invalid_argument(fmt::format("Could not decode JSON string '{}': {}",
                                                message_value(json_text),
                                                parsed.status().message()));
  if (parsed->is_null()) return Value();
  CASSETTE_ASSIGN_OR_RETURN(std::string bytes, from_json_object(type, *parsed));
  return Value(std::move(bytes));
}

}  // namespace cassette::types
