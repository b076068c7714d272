// The parser's terms (the values written in statements: constants, collection, tuple and
// user-type literals, bind markers, function calls, type hints, arithmetic) and WITH
// properties. Rules follow Cassandra's Parser.g.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "engine/cql/parser_internal.h"

namespace cassette::cql::parser_internal {

// ---- terms
// ---------------------------------------------------------------------------------------

namespace {

std::shared_ptr<Term> new_term(Term::Kind kind) {
  auto t = std::make_shared<Term>();
  t->kind = kind;
  return t;
}

}  // namespace

std::string operator_function_name(std::string_view op) {
  if (op == "+") return "_add";
  if (op == "-") return "_substract";
  if (op == "*") return "_multiply";
  if (op == "/") return "_divide";
  return "_modulo";
}

bool Parser::at_constant() const {
  switch (peek().kind) {
    case TokenKind::kString:
    case TokenKind::kInteger:
    case TokenKind::kFloat:
    case TokenKind::kBoolean:
    case TokenKind::kDuration:
    case TokenKind::kUuid:
    case TokenKind::kHex:
      return true;
    default:
      return false;
  }
}

bool Parser::at_marker() const {
  return peek().kind == TokenKind::kQmark || (at_symbol(":") && at_ident(1));
}

TermPtr Parser::parse_constant() {
  const Token& tok = peek();
  auto t = new_term(Term::Kind::kConstant);
  switch (tok.kind) {
    case TokenKind::kString:
      t->constant_kind = types::ConstantKind::kString;
      break;
    case TokenKind::kInteger:
      t->constant_kind = types::ConstantKind::kInteger;
      break;
    case TokenKind::kFloat:
      t->constant_kind = types::ConstantKind::kFloat;
      break;
    case TokenKind::kBoolean:
      t->constant_kind = types::ConstantKind::kBoolean;
      break;
    case TokenKind::kDuration:
      t->constant_kind = types::ConstantKind::kDuration;
      break;
    case TokenKind::kUuid:
      t->constant_kind = types::ConstantKind::kUuid;
      break;
    case TokenKind::kHex:
      t->constant_kind = types::ConstantKind::kHex;
      break;
    default:
      fail_no_viable();
  }
  size_t begin = start_offset();
  t->text = advance().text;
  t->source = source_from(begin);
  return t;
}

TermPtr Parser::parse_marker() {
  size_t begin = start_offset();
  auto t = new_term(Term::Kind::kBindMarker);
  markers_[pos_] = t;
  if (peek().kind == TokenKind::kQmark) {
    advance();
  } else {
    expect_symbol(":");
    t->text = parse_noncol_ident();
  }
  t->source = source_from(begin);
  return t;
}

size_t Parser::number_bind_markers() {
  int next = 0;
  for (auto& [position, marker] : markers_) {
    if (std::shared_ptr<Term> term = marker.lock()) term->bind_index = next++;
  }
  return static_cast<size_t>(next);
}

TermPtr Parser::parse_int_value() {
  if (peek().kind == TokenKind::kInteger) return parse_constant();
  if (at_marker()) return parse_marker();
  fail_no_viable();
}

TermPtr Parser::parse_tuple_literal() {
  size_t begin = start_offset();
  auto t = new_term(Term::Kind::kTuple);
  expect_symbol("(");
  t->elements.push_back(parse_term());
  while (accept_symbol(",")) t->elements.push_back(parse_term());
  expect_symbol(")");
  t->source = source_from(begin);
  return t;
}

TermPtr Parser::parse_collection_literal() {
  size_t begin = start_offset();
  if (accept_symbol("[")) {
    auto t = new_term(Term::Kind::kList);
    if (!at_symbol("]")) {
      t->elements.push_back(parse_term());
      while (accept_symbol(",")) t->elements.push_back(parse_term());
    }
    expect_symbol("]");
    t->source = source_from(begin);
    return t;
  }
  expect_symbol("{");
  if (accept_symbol("}")) {
    auto t = new_term(Term::Kind::kMap);  // {}: a map or a set, decided by the receiver
    t->source = source_from(begin);
    return t;
  }
  // usertypeLiteral: '{' fident ':' term (',' fident ':' term)* '}'
  if (at_ident() && at_symbol(":", 1)) {
    auto t = new_term(Term::Kind::kUserType);
    do {
      std::string field = parse_ident();
      expect_symbol(":");
      TermPtr value = parse_term();
      // The grammar collects the fields in a map: a repeated field keeps its last value.
      auto same = std::find_if(t->fields.begin(), t->fields.end(),
                               [&](const auto& f) { return f.first == field; });
      if (same != t->fields.end()) {
        same->second = std::move(value);
      } else {
        t->fields.emplace_back(std::move(field), std::move(value));
      }
    } while (accept_symbol(","));
    expect_symbol("}");
    t->source = source_from(begin);
    return t;
  }
  TermPtr first = parse_term();
  if (accept_symbol(":")) {
    auto t = new_term(Term::Kind::kMap);
    t->entries.emplace_back(first, parse_term());
    while (accept_symbol(",")) {
      TermPtr k = parse_term();
      expect_symbol(":");
      t->entries.emplace_back(k, parse_term());
    }
    expect_symbol("}");
    t->source = source_from(begin);
    return t;
  }
  auto t = new_term(Term::Kind::kSet);
  t->elements.push_back(first);
  while (accept_symbol(",")) t->elements.push_back(parse_term());
  expect_symbol("}");
  t->source = source_from(begin);
  return t;
}

TermPtr Parser::parse_value() {
  if (at_constant()) return parse_constant();
  if (at_symbol("[") || at_symbol("{")) return parse_collection_literal();
  if (at_symbol("(")) return parse_tuple_literal();
  if (at_keyword("null")) {
    size_t begin = start_offset();
    advance();
    auto t = new_term(Term::Kind::kNull);
    t->source = source_from(begin);
    return t;
  }
  if (at_marker()) return parse_marker();
  // A word here could only start a function call, "f(" or "ks.f(": ANTLR's prediction fails
  // at the token where that stops matching.
  if (at_ident() || (peek().kind == TokenKind::kIdent && to_lower(peek().text) == "token")) {
    if (at_symbol(".", 1) &&
        (peek(2).kind == TokenKind::kIdent || peek(2).kind == TokenKind::kQuotedName))
      fail_no_viable(3);
    fail_no_viable(1);
  }
  fail_no_viable();
}

TermPtr Parser::parse_function_call() {
  size_t begin = start_offset();
  auto t = new_term(Term::Kind::kFunctionCall);
  t->function = parse_function_name();
  expect_symbol("(");
  if (!at_symbol(")")) {
    t->elements.push_back(parse_term());
    while (accept_symbol(",")) t->elements.push_back(parse_term());
  }
  expect_symbol(")");
  t->source = source_from(begin);
  return t;
}

TermPtr Parser::parse_simple_term() {
  NestingGuard guard(*this);
  size_t begin = start_offset();
  // '(' comparatorType ')' simpleTerm   (a type hint), else a tuple literal
  if (at_symbol("(")) {
    std::shared_ptr<Term> hint;
    if (speculate([&] {
          advance();
          types::CqlType type = parse_type();
          expect_symbol(")");
          TermPtr inner = parse_simple_term();
          hint = new_term(Term::Kind::kTypeHint);
          hint->type = std::move(type);
          hint->elements.push_back(std::move(inner));
        })) {
      hint->source = source_from(begin);
      return hint;
    }
  }
  // CAST(x AS type) is a selector only: Cassandra 4.1's term grammar has no alternative for it
  // (CastFctsTest expects "no viable alternative at input '('" with CAST bracketed).
  if (at_keyword("cast") && at_symbol("(", 1)) fail_no_viable(1);
  if (at_function_name()) return parse_function_call();
  return parse_value();
}

TermPtr Parser::parse_term_group() {
  size_t begin = start_offset();
  if (accept_symbol("-")) {
    auto t = new_term(Term::Kind::kNegation);
    t->elements.push_back(parse_simple_term());
    t->source = source_from(begin);
    return t;
  }
  return parse_simple_term();
}

TermPtr Parser::parse_term_multiplication() {
  size_t begin = start_offset();
  TermPtr left = parse_term_group();
  while (at_symbol("*") || at_symbol("/") || at_symbol("%")) {
    std::string op = advance().text;
    auto t = new_term(Term::Kind::kFunctionCall);
    t->function = {"system", operator_function_name(op)};
    t->elements = {left, parse_term_group()};
    t->source = source_from(begin);
    left = t;
  }
  return left;
}

TermPtr Parser::parse_term() {
  NestingGuard guard(*this);
  size_t begin = start_offset();
  TermPtr left = parse_term_multiplication();
  while (at_symbol("+") || at_symbol("-")) {
    // "c = [1] + c": the '+' belongs to the caller when no term follows it
    TermPtr right;
    std::string op = peek().text;
    if (!speculate([&] {
          advance();
          right = parse_term_multiplication();
        }))
      break;
    auto t = new_term(Term::Kind::kFunctionCall);
    t->function = {"system", operator_function_name(op)};
    t->elements = {left, right};
    t->source = source_from(begin);
    left = t;
  }
  return left;
}

// ---- properties
// ----------------------------------------------------------------------------------

std::pair<std::string, PropertyValue> Parser::parse_property() {
  std::string name = parse_noncol_ident();
  expect_symbol("=");
  PropertyValue value;
  if (at_symbol("{")) {
    // fullMapLiteral whose keys and values must be constants
    value.is_map = true;
    advance();
    if (!at_symbol("}")) {
      do {
        TermPtr k = parse_term();
        expect_symbol(":");
        TermPtr v = parse_term();
        if (k->kind != Term::Kind::kConstant) {
          recognition_error(fmt::format("Invalid property name: {}{}", k->source,
                                        k->kind == Term::Kind::kBindMarker
                                            ? " (bind variables are not supported in DDL queries)"
                                            : ""));
          continue;
        }
        if (v->kind != Term::Kind::kConstant) {
          recognition_error(fmt::format("Invalid property value: {} for property: {}{}", v->source,
                                        k->source,
                                        v->kind == Term::Kind::kBindMarker
                                            ? " (bind variables are not supported in DDL queries)"
                                            : ""));
          continue;
        }
        for (const auto& [existing, _] : value.map)
          if (existing == k->text) recognition_error("Multiple definition for property " + k->text);
        value.map.emplace_back(k->text, v->text);
      } while (accept_symbol(","));
    }
    expect_symbol("}");
  } else if (at_constant()) {
    TermPtr c = parse_constant();
    value.constant_kind = c->constant_kind;
    value.text = c->text;
  } else if (peek().kind == TokenKind::kIdent && is_unreserved_keyword(to_lower(peek().text))) {
    value.constant_kind = types::ConstantKind::kString;
    value.text = advance().text;
  } else {
    fail_no_viable();
  }
  return {std::move(name), std::move(value)};
}

void Parser::add_property(std::vector<std::pair<std::string, PropertyValue>>& props,
                          std::pair<std::string, PropertyValue> prop) {
  for (const auto& [existing, _] : props)
    if (existing == prop.first)
      recognition_error(fmt::format("Multiple definitions for property '{}'", prop.first));
  props.push_back(std::move(prop));
}

std::vector<std::pair<std::string, PropertyValue>> Parser::parse_properties() {
  std::vector<std::pair<std::string, PropertyValue>> props;
  add_property(props, parse_property());
  while (accept_keyword("and")) add_property(props, parse_property());
  return props;
}

}  // namespace cassette::cql::parser_internal
