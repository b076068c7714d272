// Fuzz target: CQL literals per type. The input is a CQL type (fuzz_support.h's byte form), a
// byte choosing a constant kind, and a text. Two parsers read the text:
//  - parse_value_string (COPY FROM, CAST from text, string-encoded JSON): a value it accepts
//    is well formed (validate_value), and its string form (format_value kString) parses back
//    to the same bytes; as in Cassandra's fromString, an empty text is the empty value of most
//    types (exempt from validation), and a value whose string form is empty (a zero duration)
//    comes back as that empty value;
//  - for a scalar type, parse_constant with the chosen kind (a literal in a statement): a value
//    it accepts is well formed, and its literal form (format_value kLiteral) lexes to one token
//    which parse_constant reads back to the same bytes.
// Both accept or reject without crashing; a rejection is InvalidArgument.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/cql/lexer.h"
#include "engine/types/value.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::types;

std::optional<ConstantKind> constant_kind_of(cql::TokenKind kind) {
  switch (kind) {
    case cql::TokenKind::kString:
      return ConstantKind::kString;
    case cql::TokenKind::kInteger:
      return ConstantKind::kInteger;
    case cql::TokenKind::kFloat:
      return ConstantKind::kFloat;
    case cql::TokenKind::kBoolean:
      return ConstantKind::kBoolean;
    case cql::TokenKind::kUuid:
      return ConstantKind::kUuid;
    case cql::TokenKind::kHex:
      return ConstantKind::kHex;
    case cql::TokenKind::kDuration:
      return ConstantKind::kDuration;
    default:
      return std::nullopt;
  }
}

void check_value_string(const CqlType& type, std::string_view text) {
  auto value = parse_value_string(type, text);
  if (!value.is_ok()) {
    FUZZ_CHECK(value.status().is_invalid_argument(), value.status().message());
    return;
  }
  const Status valid = validate_value(type, *value);
  FUZZ_CHECK(valid.is_ok() || (text.empty() && value->empty()),
             "parse_value_string made an invalid " + cql_type_name(type) + ": " + valid.message());
  const std::string printed = format_value(type, *value, ValueStyle::kString);
  if (printed.empty()) return;
  auto again = parse_value_string(type, printed);
  FUZZ_CHECK(again.is_ok(), "a " + cql_type_name(type) + "'s string form does not parse: " +
                                printed + ": " + again.status().message());
  FUZZ_CHECK(*again == *value,
             "a " + cql_type_name(type) + " changed through its string form: " + printed);
}

void check_constant(const CqlType& type, ConstantKind kind, std::string_view text) {
  auto value = parse_constant(type, kind, text, "v");
  if (!value.is_ok()) {
    FUZZ_CHECK(value.status().is_invalid_argument(), value.status().message());
    return;
  }
  // The empty value (from an empty text, which the lexer never makes but for '') is exempt, as
  // in check_value_string, and has no literal of its own kind.
  if (text.empty() && value->empty()) return;
  const Status valid = validate_value(type, *value);
  FUZZ_CHECK(valid.is_ok(),
             "parse_constant made an invalid " + cql_type_name(type) + ": " + valid.message());
  const std::string literal = format_value(type, *value, ValueStyle::kLiteral);
  const cql::LexResult lexed = cql::tokenize(literal);
  FUZZ_CHECK(!lexed.error && lexed.tokens.size() == 2,
             "a " + cql_type_name(type) + " literal is not one token: " + literal);
  const cql::Token& token = lexed.tokens[0];
  const std::optional<ConstantKind> literal_kind = constant_kind_of(token.kind);
  FUZZ_CHECK(literal_kind.has_value(), "a literal is not a constant: " + literal);
  auto again = parse_constant(type, *literal_kind, token.text, "v");
  FUZZ_CHECK(again.is_ok(), "a " + cql_type_name(type) + " literal does not parse back: " +
                                literal + ": " + again.status().message());
  FUZZ_CHECK(*again == *value,
             "a " + cql_type_name(type) + " changed through its literal: " + literal);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const CqlType type = fuzz::read_type(in);
  const auto kind = static_cast<ConstantKind>(in.byte() % 7);
  const std::string_view text = in.take_rest();
  check_value_string(type, text);
  const bool scalar = type.params.empty() && type.kind != TypeKind::kUdt;
  if (scalar) check_constant(type, kind, text);
  return 0;
}
