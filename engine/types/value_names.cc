// Type names: the CQL spelling of a CqlType (as Cassandra's CQL3Type.toString() prints it in
// messages) and the lookup of the simple type keywords.
#include <fmt/format.h>

#include <cctype>

#include "engine/types/value.h"

namespace cassette::types {

namespace {

std::string_view simple_name(TypeKind kind) {
  switch (kind) {
    case TypeKind::kAscii:
      return "ascii";
    case TypeKind::kBigint:
      return "bigint";
    case TypeKind::kBlob:
      return "blob";
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kCounter:
      return "counter";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kDecimal:
      return "decimal";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kDuration:
      return "duration";
    case TypeKind::kFloat:
      return "float";
    case TypeKind::kInet:
      return "inet";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kSmallint:
      return "smallint";
    case TypeKind::kText:
      return "text";
    case TypeKind::kTime:
      return "time";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kTimeuuid:
      return "timeuuid";
    case TypeKind::kTinyint:
      return "tinyint";
    case TypeKind::kUuid:
      return "uuid";
    case TypeKind::kVarint:
      return "varint";
    default:
      return "";
  }
}

// ColumnIdentifier.maybeQuote: unquoted when it reads back as the same lower-case identifier.
std::string maybe_quote(std::string_view name) {
  bool plain = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) plain = false;
  }
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// `nested`: inside a collection, tuple or UDT, where every collection and UDT is frozen.
std::string type_name(const CqlType& type, std::string_view current_keyspace, bool nested) {
  const bool frozen = type.frozen || nested;
  auto wrap = [&](std::string inner) { return frozen ? "frozen<" + inner + ">" : inner; };
  switch (type.kind) {
    case TypeKind::kList:
      return wrap("list<" + type_name(type.params.at(0), current_keyspace, true) + ">");
    case TypeKind::kSet:
      return wrap("set<" + type_name(type.params.at(0), current_keyspace, true) + ">");
    case TypeKind::kMap:
      return wrap("map<" + type_name(type.params.at(0), current_keyspace, true) + ", " +
                  type_name(type.params.at(1), current_keyspace, true) + ">");
    case TypeKind::kTuple: {
      std::string out = "frozen<tuple<";
      for (size_t i = 0; i < type.params.size(); ++i) {
        if (i > 0) out += ", ";
        out += type_name(type.params[i], current_keyspace, true);
      }
      return out + ">>";
    }
    case TypeKind::kVector:
      return fmt::format("vector<{}, {}>", type_name(type.params.at(0), current_keyspace, true),
                         type.dimension);
    case TypeKind::kUdt: {
      std::string name = maybe_quote(type.udt_name);
      if (!current_keyspace.empty() && !type.udt_keyspace.empty() &&
          type.udt_keyspace != current_keyspace)
        name = maybe_quote(type.udt_keyspace) + "." + name;
      return wrap(name);
    }
    default:
      return std::string(simple_name(type.kind));
  }
}

}  // namespace

std::string cql_type_name(const CqlType& type, std::string_view current_keyspace) {
  return type_name(type, current_keyspace, false);
}

std::optional<CqlType> simple_type_by_name(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "varchar") return CqlType::simple(TypeKind::kText);
  for (int k = static_cast<int>(TypeKind::kAscii); k <= static_cast<int>(TypeKind::kVarint); ++k) {
    if (simple_name(static_cast<TypeKind>(k)) == lower)
      return CqlType::simple(static_cast<TypeKind>(k));
  }
  return std::nullopt;
}

}  // namespace cassette::types
