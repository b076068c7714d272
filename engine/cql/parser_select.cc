// SELECT: selectors (columns, functions, writetime/ttl, casts, field and element selection,
// literals, arithmetic) and the WHERE clause's relations, which UPDATE and DELETE share.
#include <fmt/format.h>

#include <algorithm>

#include "engine/cql/parser_internal.h"
#include "engine/cql/selector_operators.h"

namespace cassette::cql::parser_internal {
namespace {

std::shared_ptr<Selector> new_selector(Selector::Kind kind) {
  auto s = std::make_shared<Selector>();
  s->kind = kind;
  return s;
}

}  // namespace

// ---- selectors
// -----------------------------------------------------------------------------------

std::vector<SelectorPtr> Parser::parse_selectors() {
  if (accept_symbol("*")) return {};
  std::vector<SelectorPtr> out{parse_selector()};
  while (accept_symbol(",")) out.push_back(parse_selector());
  return out;
}

SelectorPtr Parser::parse_selector() {
  SelectorPtr s = parse_unaliased_selector();
  if (accept_keyword("as")) {
    auto aliased = std::make_shared<Selector>(*s);
    aliased->alias = parse_noncol_ident();
    return aliased;
  }
  return s;
}

SelectorPtr Parser::parse_unaliased_selector() {
  return parse_selection_addition();
}

SelectorPtr Parser::parse_selection_addition() {
  size_t begin = start_offset();
  SelectorPtr left = parse_selection_multiplication();
  while (at_symbol("+") || at_symbol("-")) {
    std::string op = advance().text;
    auto s = new_selector(Selector::Kind::kFunction);
    s->function = {"system", operator_function_name(op)};
    s->arguments = {left, parse_selection_multiplication()};
    s->source = source_from(begin);
    left = s;
  }
  return left;
}

SelectorPtr Parser::parse_selection_multiplication() {
  size_t begin = start_offset();
  SelectorPtr left = parse_selection_group();
  while (at_symbol("*") || at_symbol("/") || at_symbol("%")) {
    std::string op = advance().text;
    auto s = new_selector(Selector::Kind::kFunction);
    s->function = {"system", operator_function_name(op)};
    s->arguments = {left, parse_selection_group()};
    s->source = source_from(begin);
    left = s;
  }
  return left;
}

SelectorPtr Parser::parse_selection_group() {
  NestingGuard guard(*this);
  size_t begin = start_offset();
  if (accept_symbol("-")) {
    auto s = new_selector(Selector::Kind::kFunction);
    s->function = {"system", "_negate"};
    s->arguments = {parse_selection_group()};
    s->source = source_from(begin);
    return s;
  }
  SelectorPtr base = parse_selection_group_without_field();
  return parse_selector_modifiers(std::move(base), begin);
}

// selectorModifier: ('.' field | '[' term ']' | '[' term? '..' term? ']')*
SelectorPtr Parser::parse_selector_modifiers(SelectorPtr receiver, size_t begin) {
  while (true) {
    if (at_symbol(".") && at_ident(1)) {
      advance();
      auto s = new_selector(Selector::Kind::kFieldAccess);
      s->arguments = {receiver};
      s->field = parse_ident();
      s->source = source_from(begin);
      receiver = s;
    } else if (accept_symbol("[")) {
      auto s = new_selector(Selector::Kind::kElement);
      s->arguments = {receiver};
      if (accept_symbol("..")) {
        s->kind = Selector::Kind::kSlice;
        s->key_end = parse_term();
      } else {
        s->key = parse_term();
        if (accept_symbol("..")) {
          s->kind = Selector::Kind::kSlice;
          if (!at_symbol("]")) s->key_end = parse_term();
        }
      }
      expect_symbol("]");
      s->source = source_from(begin);
      receiver = s;
    } else {
      return receiver;
    }
  }
}

SelectorPtr Parser::parse_selection_function() {
  size_t begin = start_offset();
  std::string word = to_lower(peek().text);
  if (word == "count" && at_symbol("(", 1) &&
      (at_symbol("*", 2) || peek(2).kind == TokenKind::kInteger) && at_symbol(")", 3)) {
    // Cassandra's countArgument rule: '*' or the integer 1, anything else a recognition error.
    if (peek(2).kind == TokenKind::kInteger && peek(2).text != "1") {
      recognition_error(fmt::format("Only COUNT(1) is supported, got COUNT({})", peek(2).text));
    }
    advance();
    advance();
    advance();
    advance();
    auto s = new_selector(Selector::Kind::kCountStar);
    s->source = source_from(begin);
    return s;
  }
  if (word == "writetime" || word == "maxwritetime" || word == "ttl") {
    advance();
    expect_symbol("(");
    auto s = new_selector(word == "ttl"         ? Selector::Kind::kTtl
                          : word == "writetime" ? Selector::Kind::kWritetime
                                                : Selector::Kind::kMaxWritetime);
    size_t column_begin = start_offset();
    s->column = parse_ident();
    // writetime(m[k]) / writetime(u.f) (Cassandra 5.0): the element selection as an argument
    auto column = new_selector(Selector::Kind::kColumn);
    column->column = s->column;
    column->source = source_from(column_begin);
    SelectorPtr modified = parse_selector_modifiers(column, column_begin);
    if (modified != column) s->arguments = {modified};
    expect_symbol(")");
    s->source = source_from(begin);
    return s;
  }
  if (word == "cast") {
    advance();
    expect_symbol("(");
    auto s = new_selector(Selector::Kind::kCast);
    s->arguments = {parse_unaliased_selector()};
    expect_keyword("as");
    s->type = parse_native_type();
    expect_symbol(")");
    s->source = source_from(begin);
    return s;
  }
  auto s = new_selector(Selector::Kind::kFunction);
  s->function = parse_function_name();
  expect_symbol("(");
  if (!at_symbol(")")) {
    s->arguments.push_back(parse_unaliased_selector());
    while (accept_symbol(",")) s->arguments.push_back(parse_unaliased_selector());
  }
  expect_symbol(")");
  s->source = source_from(begin);
  return s;
}

SelectorPtr Parser::parse_selection_group_without_field() {
  NestingGuard guard(*this);
  size_t begin = start_offset();
  const Token& t = peek();
  if (t.kind == TokenKind::kIdent || t.kind == TokenKind::kQuotedName) {
    std::string word = to_lower(t.text);
    if (t.kind == TokenKind::kIdent && at_symbol("(", 1) &&
        (word == "count" || word == "writetime" || word == "maxwritetime" || word == "ttl" ||
         word == "cast"))
      return parse_selection_function();
    if (at_function_name()) return parse_selection_function();
    if (at_ident()) {
      auto s = new_selector(Selector::Kind::kColumn);
      s->column = parse_ident();
      s->source = source_from(begin);
      return s;
    }
  }
  if (at_constant() || at_keyword("null") || at_marker()) {
    auto s = new_selector(Selector::Kind::kTerm);
    s->term = parse_value();
    s->source = source_from(begin);
    return s;
  }
  if (t.kind == TokenKind::kEmptyQuotedName) {
    advance();
    auto s = new_selector(Selector::Kind::kColumn);
    s->source = source_from(begin);
    return s;
  }
  if (at_symbol("(")) {
    // (type) selector: a type hint
    SelectorPtr hinted;
    if (speculate([&] {
          advance();
          types::CqlType type = parse_type();
          expect_symbol(")");
          SelectorPtr inner = parse_selection_group_without_field();
          if (inner->kind == Selector::Kind::kTerm) {
            auto term = std::make_shared<Term>();
            term->kind = Term::Kind::kTypeHint;
            term->type = type;
            term->elements = {inner->term};
            term->source = source_from(begin);
            auto s = new_selector(Selector::Kind::kTerm);
            s->term = term;
            hinted = s;
          } else {
            // (int)(a + b): Selectable.WithTypeHint over a selector, as a function the selection
            // names "(int)(a + b)" and types int (selection.cc, kTypeHintFunction)
            auto s = new_selector(Selector::Kind::kFunction);
            s->function = {"system", std::string(kTypeHintFunction)};
            s->type = type;
            s->arguments = {inner};
            hinted = s;
          }
        })) {
      auto s = std::make_shared<Selector>(*hinted);
      s->source = source_from(begin);
      return s;
    }
    // (a) or a tuple of selectors
    advance();
    std::vector<SelectorPtr> elements{parse_unaliased_selector()};
    while (accept_symbol(",")) elements.push_back(parse_unaliased_selector());
    expect_symbol(")");
    if (elements.size() == 1) {
      auto s = std::make_shared<Selector>(*elements[0]);
      ++s->parentheses;  // its column name keeps them: "(c - b) / a"
      return s;
    }
    bool literals = std::all_of(elements.begin(), elements.end(), [](const SelectorPtr& e) {
      return e->kind == Selector::Kind::kTerm;
    });
    if (!literals) return selector_literal(kTupleSelectorFunction, std::move(elements), begin);
    auto tuple = std::make_shared<Term>();
    tuple->kind = Term::Kind::kTuple;
    for (const SelectorPtr& e : elements) tuple->elements.push_back(e->term);
    tuple->source = source_from(begin);
    auto s = new_selector(Selector::Kind::kTerm);
    s->term = tuple;
    s->source = tuple->source;
    return s;
  }
  if (at_symbol("[") || at_symbol("{")) {
    TermPtr literal;
    if (speculate([&] { literal = parse_value(); })) {
      auto s = new_selector(Selector::Kind::kTerm);
      s->term = literal;
      s->source = source_from(begin);
      return s;
    }
    // [a, b], {a, b}, {a: b}: collection literals of selectors (Selectable.WithList, WithSet,
    // WithMapOrUdt), map entries as key, value, key, value, ...
    const bool list = accept_symbol("[");
    if (!list) expect_symbol("{");
    const std::string close = list ? "]" : "}";
    std::vector<SelectorPtr> elements;
    bool map = false;
    if (!at_symbol(close)) {
      do {
        elements.push_back(parse_unaliased_selector());
        if (!list && (elements.size() == 1 ? at_symbol(":") : map)) {
          map = true;
          expect_symbol(":");
          elements.push_back(parse_unaliased_selector());
        }
      } while (accept_symbol(","));
    }
    expect_symbol(close);
    return selector_literal(list  ? kListSelectorFunction
                            : map ? kMapSelectorFunction
                                  : kSetSelectorFunction,
                            std::move(elements), begin);
  }
  fail_no_viable();
}

SelectorPtr Parser::selector_literal(std::string_view function, std::vector<SelectorPtr> elements,
                                     size_t begin) {
  auto s = new_selector(Selector::Kind::kFunction);
  s->function = {"system", std::string(function)};
  s->arguments = std::move(elements);
  s->source = source_from(begin);
  return s;
}

// ---- SELECT
// --------------------------------------------------------------------------------------

SelectStatement Parser::parse_select() {
  SelectStatement stmt;
  expect_keyword("select");
  // JSON and DISTINCT are also valid column names: they are keywords only when a select clause
  // follows them (Parser.g's syntactic predicates).
  auto select_clause = [&]() {
    if (at_keyword("distinct") && lookahead([&] {
          advance();
          parse_selectors();
          if (!at_keyword("from")) fail_mismatch("K_FROM");
        })) {
      advance();
      stmt.distinct = true;
    }
    stmt.selectors = parse_selectors();
  };
  if (at_keyword("json") && lookahead([&] {
        advance();
        if (at_keyword("distinct")) advance();
        parse_selectors();
        if (!at_keyword("from")) fail_mismatch("K_FROM");
      })) {
    advance();
    stmt.json = true;
  }
  select_clause();
  expect_keyword("from");
  stmt.table = parse_qualified_name();
  if (accept_keyword("where")) stmt.where = parse_where_clause();
  if (at_keyword("group")) {
    advance();
    expect_keyword("by");
    do {
      stmt.group_by.push_back(parse_unaliased_selector());
    } while (accept_symbol(","));
  }
  if (at_keyword("order")) {
    advance();
    expect_keyword("by");
    do {
      OrderingClause o;
      o.column = parse_cident();
      if (at_keyword("ann") && at_keyword("of", 1)) {
        advance();
        advance();
        o.ann_of = parse_term();
      }
      if (accept_keyword("desc"))
        o.descending = true;
      else
        accept_keyword("asc");
      stmt.order_by.push_back(std::move(o));
    } while (accept_symbol(","));
  }
  if (at_keyword("per")) {
    advance();
    expect_keyword("partition");
    expect_keyword("limit");
    stmt.per_partition_limit = parse_int_value();
  }
  if (accept_keyword("limit")) stmt.limit = parse_int_value();
  if (accept_keyword("allow")) {
    expect_keyword("filtering");
    stmt.allow_filtering = true;
  }
  return stmt;
}

// ---- WHERE
// ---------------------------------------------------------------------------------------

bool Parser::at_relation_type() const {
  for (std::string_view op : {"=", "<", "<=", ">", ">=", "!="})
    if (at_symbol(op)) return true;
  return false;
}

Operator Parser::parse_relation_type() {
  static const std::pair<std::string_view, Operator> kOps[] = {
      {"=", Operator::kEq}, {"<", Operator::kLt},   {"<=", Operator::kLte},
      {">", Operator::kGt}, {">=", Operator::kGte}, {"!=", Operator::kNeq}};
  for (const auto& [sym, op] : kOps)
    if (accept_symbol(sym)) return op;
  fail_no_viable();
}

std::vector<Relation> Parser::parse_where_clause() {
  std::vector<Relation> out;
  parse_relation(out);
  while (accept_keyword("and")) parse_relation(out);
  return out;
}

void Parser::parse_relation(std::vector<Relation>& out) {
  NestingGuard guard(*this);
  size_t begin = start_offset();
  Relation r;
  auto tuple_of_identifiers = [&]() {
    std::vector<std::string> ids;
    expect_symbol("(");
    ids.push_back(parse_cident());
    while (accept_symbol(",")) ids.push_back(parse_cident());
    expect_symbol(")");
    return ids;
  };
  auto finish = [&]() {
    r.source = source_from(begin);
    out.push_back(std::move(r));
  };

  if (at_keyword("token") && at_symbol("(", 1)) {
    advance();
    r.kind = Relation::Kind::kToken;
    r.columns = tuple_of_identifiers();
    r.op = parse_relation_type();
    r.value = parse_term();
    return finish();
  }
  if (at_symbol("(")) {
    std::vector<std::string> ids;
    if (!speculate([&] { ids = tuple_of_identifiers(); })) {
      advance();
      parse_relation(out);
      expect_symbol(")");
      return;
    }
    r.kind = Relation::Kind::kMultiColumn;
    r.columns = std::move(ids);
    bool in = false;
    if (accept_keyword("in")) {
      r.op = Operator::kIn;
      in = true;
    } else if (at_keyword("not") && at_keyword("in", 1)) {
      advance();
      advance();
      r.op = Operator::kNotIn;
      in = true;
    }
    if (in) {
      // '(' ')' | marker | '(' tuple (',' tuple)* ')' | '(' marker (',' marker)* ')'
      if (at_marker()) {
        r.value = parse_marker();
        r.in_marker = true;
        return finish();
      }
      expect_symbol("(");
      if (!accept_symbol(")")) {
        do {
          r.in_values.push_back(at_marker() ? parse_marker() : parse_tuple_literal());
        } while (accept_symbol(","));
        expect_symbol(")");
      }
      return finish();
    }
    if (!at_relation_type()) fail_no_viable();
    r.op = parse_relation_type();
    r.value = at_marker() ? parse_marker() : parse_tuple_literal();
    return finish();
  }

  r.kind = Relation::Kind::kSingleColumn;
  r.columns = {parse_cident()};
  if (accept_symbol("[")) {
    r.map_key = parse_term();
    expect_symbol("]");
    r.op = parse_relation_type();
    r.value = parse_term();
    return finish();
  }
  if (at_relation_type()) {
    r.op = parse_relation_type();
    r.value = parse_term();
    return finish();
  }
  if (accept_keyword("like")) {
    r.op = Operator::kLike;
    r.value = parse_term();
    return finish();
  }
  if (accept_keyword("is")) {
    expect_keyword("not");
    size_t null_begin = start_offset();
    expect_keyword("null");
    auto null_term = std::make_shared<Term>();
    null_term->kind = Term::Kind::kNull;
    null_term->source = source_from(null_begin);
    r.op = Operator::kIsNotNull;
    r.value = null_term;
    return finish();
  }
  bool in = false;
  if (accept_keyword("in")) {
    r.op = Operator::kIn;
    in = true;
  } else if (at_keyword("not") && at_keyword("in", 1)) {
    advance();
    advance();
    r.op = Operator::kNotIn;
    in = true;
  }
  if (in) {
    TermPtr marker;
    r.in_values = parse_in_values(&marker);
    if (marker) {
      r.value = marker;
      r.in_marker = true;
    }
    return finish();
  }
  if (accept_keyword("contains")) {
    r.op = accept_keyword("key") ? Operator::kContainsKey : Operator::kContains;
    r.value = parse_term();
    return finish();
  }
  fail_no_viable();
}

std::vector<TermPtr> Parser::parse_in_values(TermPtr* marker) {
  if (at_marker()) {
    *marker = parse_marker();
    return {};
  }
  std::vector<TermPtr> values;
  expect_symbol("(");
  if (!accept_symbol(")")) {
    values.push_back(parse_term());
    while (accept_symbol(",")) values.push_back(parse_term());
    expect_symbol(")");
  }
  return values;
}

}  // namespace cassette::cql::parser_internal
