// The parser's building blocks: keywords (which words are reserved), identifiers and names,
// and CQL types. Rules follow Cassandra's Parser.g and Lexer.g.
#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <set>
#include <string>

#include "engine/cql/parser_internal.h"

namespace cassette::cql::parser_internal {
namespace {

using types::CqlType;
using types::TypeKind;

// Every keyword of Lexer.g (an unquoted word spelled so is never an IDENT there).
const std::set<std::string, std::less<>>& keywords() {
  static const auto& k = *new const std::set<std::string, std::less<>>{"select",
                                                                       "from",
                                                                       "as",
                                                                       "where",
                                                                       "and",
                                                                       "key",
                                                                       "keys",
                                                                       "entries",
                                                                       "full",
                                                                       "insert",
                                                                       "update",
                                                                       "with",
                                                                       "limit",
                                                                       "per",
                                                                       "partition",
                                                                       "using",
                                                                       "use",
                                                                       "distinct",
                                                                       "count",
                                                                       "set",
                                                                       "begin",
                                                                       "unlogged",
                                                                       "batch",
                                                                       "apply",
                                                                       "truncate",
                                                                       "delete",
                                                                       "in",
                                                                       "create",
                                                                       "schema",
                                                                       "keyspace",
                                                                       "keyspaces",
                                                                       "columnfamily",
                                                                       "table",
                                                                       "columnfamilies",
                                                                       "tables",
                                                                       "materialized",
                                                                       "view",
                                                                       "index",
                                                                       "custom",
                                                                       "on",
                                                                       "to",
                                                                       "drop",
                                                                       "primary",
                                                                       "into",
                                                                       "values",
                                                                       "timestamp",
                                                                       "ttl",
                                                                       "cast",
                                                                       "alter",
                                                                       "rename",
                                                                       "add",
                                                                       "type",
                                                                       "types",
                                                                       "compact",
                                                                       "storage",
                                                                       "order",
                                                                       "by",
                                                                       "asc",
                                                                       "desc",
                                                                       "allow",
                                                                       "filtering",
                                                                       "if",
                                                                       "is",
                                                                       "contains",
                                                                       "between",
                                                                       "group",
                                                                       "cluster",
                                                                       "internals",
                                                                       "only",
                                                                       "grant",
                                                                       "all",
                                                                       "permission",
                                                                       "permissions",
                                                                       "of",
                                                                       "revoke",
                                                                       "modify",
                                                                       "authorize",
                                                                       "describe",
                                                                       "execute",
                                                                       "norecursive",
                                                                       "mbean",
                                                                       "mbeans",
                                                                       "user",
                                                                       "users",
                                                                       "role",
                                                                       "roles",
                                                                       "superusers",
                                                                       "superuser",
                                                                       "nosuperuser",
                                                                       "generated",
                                                                       "password",
                                                                       "hashed",
                                                                       "login",
                                                                       "nologin",
                                                                       "options",
                                                                       "access",
                                                                       "datacenters",
                                                                       "cidrs",
                                                                       "identity",
                                                                       "clustering",
                                                                       "ascii",
                                                                       "bigint",
                                                                       "blob",
                                                                       "boolean",
                                                                       "counter",
                                                                       "decimal",
                                                                       "double",
                                                                       "duration",
                                                                       "float",
                                                                       "inet",
                                                                       "int",
                                                                       "smallint",
                                                                       "tinyint",
                                                                       "text",
                                                                       "uuid",
                                                                       "varchar",
                                                                       "varint",
                                                                       "timeuuid",
                                                                       "token",
                                                                       "writetime",
                                                                       "maxwritetime",
                                                                       "date",
                                                                       "time",
                                                                       "null",
                                                                       "not",
                                                                       "exists",
                                                                       "map",
                                                                       "list",
                                                                       "tuple",
                                                                       "trigger",
                                                                       "static",
                                                                       "frozen",
                                                                       "function",
                                                                       "functions",
                                                                       "aggregate",
                                                                       "aggregates",
                                                                       "sfunc",
                                                                       "stype",
                                                                       "finalfunc",
                                                                       "initcond",
                                                                       "returns",
                                                                       "called",
                                                                       "input",
                                                                       "language",
                                                                       "or",
                                                                       "replace",
                                                                       "json",
                                                                       "default",
                                                                       "unset",
                                                                       "like",
                                                                       "masked",
                                                                       "unmask",
                                                                       "select_masked",
                                                                       "vector",
                                                                       "ann",
                                                                       "check",
                                                                       "indexes"};
  return k;
}

// Parser.g's basic_unreserved_keyword.
const std::set<std::string, std::less<>>& basic_unreserved() {
  static const auto& k = *new const std::set<std::string, std::less<>>{
      "keys",        "as",          "cluster",       "clustering",
      "compact",     "storage",     "tables",        "columnfamilies",
      "type",        "types",       "values",        "map",
      "list",        "filtering",   "permission",    "permissions",
      "keyspaces",   "all",         "user",          "users",
      "role",        "roles",       "identity",      "superuser",
      "superusers",  "nosuperuser", "login",         "nologin",
      "options",     "password",    "generated",     "hashed",
      "exists",      "custom",      "trigger",       "contains",
      "internals",   "only",        "static",        "frozen",
      "tuple",       "function",    "functions",     "aggregate",
      "aggregates",  "sfunc",       "stype",         "finalfunc",
      "initcond",    "returns",     "called",        "input",
      "like",        "per",         "partition",     "group",
      "datacenters", "cidrs",       "access",        "default",
      "mbean",       "mbeans",      "replace",       "unset",
      "masked",      "unmask",      "select_masked", "vector",
      "ann",         "between",     "check",         "indexes",
      "language"};
  return k;
}

bool is_simple_type_name(std::string_view w) {
  return native_type(w).has_value();
}

}  // namespace

bool is_keyword(std::string_view word) {
  return keywords().contains(word);
}

bool is_unreserved_function_keyword(std::string_view word) {
  return basic_unreserved().contains(word) || is_simple_type_name(word);
}

bool is_unreserved_keyword(std::string_view word) {
  static const auto& extra = *new const std::set<std::string, std::less<>>{
      "ttl", "count", "writetime", "maxwritetime", "key", "cast", "json", "distinct"};
  return is_unreserved_function_keyword(word) || extra.contains(word);
}

std::optional<types::CqlType> native_type(std::string_view w) {
  static const std::pair<std::string_view, TypeKind> kTypes[] = {
      {"ascii", TypeKind::kAscii},       {"bigint", TypeKind::kBigint},
      {"blob", TypeKind::kBlob},         {"boolean", TypeKind::kBoolean},
      {"counter", TypeKind::kCounter},   {"decimal", TypeKind::kDecimal},
      {"double", TypeKind::kDouble},     {"duration", TypeKind::kDuration},
      {"float", TypeKind::kFloat},       {"inet", TypeKind::kInet},
      {"int", TypeKind::kInt},           {"smallint", TypeKind::kSmallint},
      {"text", TypeKind::kText},         {"timestamp", TypeKind::kTimestamp},
      {"tinyint", TypeKind::kTinyint},   {"uuid", TypeKind::kUuid},
      {"varchar", TypeKind::kText},      {"varint", TypeKind::kVarint},
      {"timeuuid", TypeKind::kTimeuuid}, {"date", TypeKind::kDate},
      {"time", TypeKind::kTime}};
  for (const auto& [name, kind] : kTypes)
    if (name == w) return CqlType::simple(kind);
  return std::nullopt;
}

// ---- identifiers and names ---------------------------------------------------------------------

bool Parser::at_ident(int k) const {
  const Token& t = peek(k);
  if (t.kind == TokenKind::kQuotedName) return true;
  if (t.kind != TokenKind::kIdent) return false;
  std::string w = to_lower(t.text);
  return !is_keyword(w) || is_unreserved_keyword(w);
}

std::string Parser::parse_ident() {
  if (!at_ident()) fail_no_viable();
  const Token& t = advance();
  return t.kind == TokenKind::kQuotedName ? t.text : to_lower(t.text);
}

std::string Parser::parse_cident() {
  if (peek().kind == TokenKind::kEmptyQuotedName) {
    advance();
    return "";
  }
  return parse_ident();
}

std::string Parser::parse_keyspace_name() {
  if (peek().kind == TokenKind::kQmark) {
    recognition_error("Bind variables cannot be used for keyspace names");
    advance();
    return "";
  }
  return parse_ident();
}

QualifiedName Parser::parse_qualified_name(std::string_view what) {
  QualifiedName name;
  auto one = [&]() -> std::string {
    if (peek().kind == TokenKind::kQmark) {
      recognition_error(fmt::format("Bind variables cannot be used for {} names", what));
      advance();
      return "";
    }
    return parse_ident();
  };
  if (peek().kind == TokenKind::kQmark && at_symbol(".", 1)) {
    name.keyspace = parse_keyspace_name();
    advance();
    name.name = one();
    return name;
  }
  name.name = one();
  if (accept_symbol(".")) {
    name.keyspace = std::move(name.name);
    name.name = one();
  }
  return name;
}

QualifiedName Parser::parse_user_type_name() {
  // (noncol_ident '.')? non_type_ident; non_type_ident excludes the native type names.
  auto non_type_ident = [&]() -> std::string {
    const Token& t = peek();
    if (t.kind == TokenKind::kQuotedName) return advance().text;
    if (t.kind != TokenKind::kIdent) fail_no_viable();
    std::string w = to_lower(t.text);
    if (is_keyword(w) && !basic_unreserved().contains(w) && w != "key") fail_no_viable();
    static const auto& reserved_type_names = *new const std::set<std::string, std::less<>>{
        "byte", "complex", "enum", "date", "interval", "macaddr", "bitstring"};
    if (!is_keyword(w) && reserved_type_names.contains(w))
      recognition_error(fmt::format("Invalid (reserved) user type name {}", w));
    advance();
    return w;
  };
  QualifiedName name;
  if (at_ident() && at_symbol(".", 1)) {
    name.keyspace = parse_noncol_ident();
    advance();  // '.'
  }
  name.name = non_type_ident();
  return name;
}

bool Parser::at_function_name() const {
  // (keyspaceName '.')? allowedFunctionName '('
  auto allowed = [&](int k) {
    const Token& t = peek(k);
    if (t.kind == TokenKind::kQuotedName) return true;
    if (t.kind != TokenKind::kIdent) return false;
    std::string w = to_lower(t.text);
    return !is_keyword(w) || is_unreserved_function_keyword(w) || w == "token" || w == "count";
  };
  if (allowed(0) && at_symbol("(", 1)) return true;
  return at_ident(0) && at_symbol(".", 1) && allowed(2) && at_symbol("(", 3);
}

QualifiedName Parser::parse_function_name() {
  QualifiedName name;
  if (at_symbol(".", 1)) {
    name.keyspace = parse_keyspace_name();
    advance();
  }
  const Token& t = advance();
  name.name = t.kind == TokenKind::kQuotedName ? t.text : to_lower(t.text);
  return name;
}

// ---- types
// ---------------------------------------------------------------------------------------

namespace {

// Cassandra's freeze(): frozen<> on a collection, tuple or UDT freezes it and everything nested.
void freeze(CqlType& t) {
  t.frozen = true;
  for (CqlType& p : t.params)
    if (p.is_collection() || p.kind == TypeKind::kUdt || p.kind == TypeKind::kTuple) freeze(p);
}

std::string type_name_for_message(const CqlType& t) {
  // only native types reach the frozen<> error; their CQL names
  static const char* kNames[] = {"ascii",     "bigint",   "blob",     "boolean",  "counter",
                                 "date",      "decimal",  "double",   "duration", "float",
                                 "inet",      "int",      "smallint", "text",     "time",
                                 "timestamp", "timeuuid", "tinyint",  "uuid",     "varint"};
  auto i = static_cast<size_t>(t.kind);
  return i < std::size(kNames) ? kNames[i] : "?";
}

}  // namespace

// vector<element, dimension>, after the '<'. Cassandra's VectorType refuses a dimension below 1
// when the type is built; the element is frozen, as VectorType.getInstance freezes it.
types::CqlType Parser::parse_vector_parameters() {
  CqlType element = parse_type();
  expect_symbol(",");
  const Token& t = peek();
  if (t.kind != TokenKind::kInteger) fail_no_viable();
  advance();
  int64_t dimension = 0;
  auto [end, error] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), dimension);
  if (error != std::errc() || end != t.text.data() + t.text.size() || dimension > INT32_MAX ||
      dimension < INT32_MIN) {
    recognition_error(fmt::format("For input string: \"{}\"", t.text));
    return CqlType::vector(std::move(element), 1);
  }
  if (dimension <= 0) {
    throw Status::invalid_argument(
        fmt::format("vectors may only have positive dimensions; given {}", dimension));
  }
  if (element.is_collection() || element.kind == TypeKind::kUdt || element.kind == TypeKind::kTuple)
    freeze(element);
  return CqlType::vector(std::move(element), static_cast<int32_t>(dimension));
}

types::CqlType Parser::parse_native_type() {
  if (peek().kind == TokenKind::kIdent) {
    if (auto t = native_type(to_lower(peek().text))) {
      advance();
      return *t;
    }
  }
  fail_no_viable();
}

types::CqlType Parser::parse_type() {
  NestingGuard guard(*this);
  const Token& t = peek();
  if (t.kind == TokenKind::kString) {
    // custom types ('org.apache.cassandra.db.marshal.XType') are not supported
    advance();
    recognition_error(fmt::format("Cannot parse type {}: custom types are not supported", t.text));
    return CqlType::simple(TypeKind::kBlob);
  }
  if (t.kind == TokenKind::kIdent) {
    std::string w = to_lower(t.text);
    if (auto native = native_type(w)) {
      advance();
      return *native;
    }
    if ((w == "map" || w == "list" || w == "set" || w == "tuple" || w == "frozen" ||
         w == "vector") &&
        at_symbol("<", 1)) {
      advance();
      advance();  // '<'
      CqlType result;
      if (w == "map") {
        CqlType key = parse_type();
        expect_symbol(",");
        CqlType value = parse_type();
        result = CqlType::map(std::move(key), std::move(value));
      } else if (w == "list") {
        result = CqlType::list(parse_type());
      } else if (w == "set") {
        result = CqlType::set(parse_type());
      } else if (w == "tuple") {
        std::vector<CqlType> components{parse_type()};
        while (accept_symbol(",")) components.push_back(parse_type());
        result = CqlType::tuple(std::move(components));
        freeze(result);  // a tuple's components are frozen, as in Cassandra's RawTuple
      } else if (w == "vector") {
        result = parse_vector_parameters();
      } else {  // frozen
        result = parse_type();
        // A vector is one cell already: Cassandra 5.0's RawVector.freeze() returns it as it is.
        const bool freezable = result.is_collection() || result.kind == TypeKind::kUdt ||
                               result.kind == TypeKind::kTuple;
        if (freezable)
          freeze(result);
        else if (result.kind != TypeKind::kVector)
          recognition_error(fmt::format(
              "frozen<> is only allowed on collections, tuples, and user-defined types (got {})",
              type_name_for_message(result)));
      }
      expect_symbol(">");
      return result;
    }
  }
  QualifiedName udt = parse_user_type_name();
  CqlType result;
  result.kind = TypeKind::kUdt;
  result.udt_keyspace = std::move(udt.keyspace);
  result.udt_name = std::move(udt.name);
  return result;
}

}  // namespace cassette::cql::parser_internal
