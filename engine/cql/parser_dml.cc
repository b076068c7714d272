// INSERT, UPDATE, DELETE and BATCH: their USING clauses, SET assignments and IF conditions.
#include <fmt/format.h>

#include "engine/cql/parser_internal.h"

namespace cassette::cql::parser_internal {
namespace {

// Operation.RawUpdate.isCompatibleWith: two updates of one column in one statement.
bool compatible(const Assignment& a, const Assignment& b) {
  if (a.kind == Assignment::Kind::kSet || b.kind == Assignment::Kind::kSet) return false;
  if (a.kind == Assignment::Kind::kSetField && b.kind == Assignment::Kind::kSetField)
    return a.field != b.field;
  return true;
}

}  // namespace

void Parser::parse_using_clause(UsingClause& using_clause) {
  expect_keyword("using");
  do {
    if (accept_keyword("timestamp"))
      using_clause.timestamp = parse_int_value();
    else if (accept_keyword("ttl"))
      using_clause.ttl = parse_int_value();
    else
      fail_no_viable();
  } while (accept_keyword("and"));
}

// ---- INSERT
// --------------------------------------------------------------------------------------

InsertStatement Parser::parse_insert() {
  InsertStatement stmt;
  expect_keyword("insert");
  expect_keyword("into");
  stmt.table = parse_qualified_name();
  if (accept_keyword("json")) {
    stmt.json = true;
    if (peek().kind == TokenKind::kString) {
      stmt.json_value = parse_constant();
    } else if (at_marker()) {
      stmt.json_value = parse_marker();
    } else {
      fail_no_viable();
    }
    if (accept_keyword("default")) {
      if (accept_keyword("unset"))
        stmt.json_default_unset = true;
      else if (!accept_keyword("null"))
        fail_no_viable();
    }
  } else {
    if (!at_symbol("(")) fail_no_viable();  // neither alternative: (columns) VALUES or JSON
    advance();
    stmt.columns.push_back(parse_cident());
    while (accept_symbol(",")) stmt.columns.push_back(parse_cident());
    expect_symbol(")");
    expect_keyword("values");
    expect_symbol("(");
    stmt.values.push_back(parse_term());
    while (accept_symbol(",")) stmt.values.push_back(parse_term());
    expect_symbol(")");
  }
  if (accept_keyword("if")) {
    expect_keyword("not");
    expect_keyword("exists");
    stmt.if_not_exists = true;
  }
  if (at_keyword("using")) parse_using_clause(stmt.using_clause);
  return stmt;
}

// ---- UPDATE
// --------------------------------------------------------------------------------------

Assignment Parser::parse_assignment() {
  size_t begin = start_offset();
  Assignment a;
  a.column = parse_cident();
  if (accept_symbol("=")) {
    // c = c + v | c = c - v | c = c -3 (lexed as [c, -3]) | c = v | c = v + c
    bool column_first =
        at_ident() && !at_function_name() &&
        (at_symbol("+", 1) || at_symbol("-", 1) || peek(1).kind == TokenKind::kInteger);
    if (peek().kind == TokenKind::kEmptyQuotedName) column_first = true;
    if (column_first) {
      std::string other = parse_cident();
      if (peek().kind == TokenKind::kInteger) {
        std::string sign = peek().text[0] == '-' ? "-" : "+";
        if (other != a.column)
          recognition_error(
              fmt::format("Only expressions of the form X = X {} <value> are supported.", sign));
        a.kind = Assignment::Kind::kAdd;
        a.value = parse_constant();
      } else {
        std::string sig = advance().text;
        if (other != a.column)
          recognition_error(
              fmt::format("Only expressions of the form X = X {}<value> are supported.", sig));
        a.kind = sig == "+" ? Assignment::Kind::kAdd : Assignment::Kind::kSubtract;
        a.value = parse_term();
      }
    } else {
      a.value = parse_term();
      if (accept_symbol("+")) {
        std::string other = parse_cident();
        if (other != a.column)
          recognition_error("Only expressions of the form X = <value> + X are supported.");
        a.kind = Assignment::Kind::kPrepend;
      } else {
        a.kind = Assignment::Kind::kSet;
      }
    }
  } else if (accept_symbol("+=")) {
    a.kind = Assignment::Kind::kAdd;
    a.value = parse_term();
  } else if (accept_symbol("-=")) {
    a.kind = Assignment::Kind::kSubtract;
    a.value = parse_term();
  } else if (accept_symbol("[")) {
    a.kind = Assignment::Kind::kSetElement;
    a.key = parse_term();
    expect_symbol("]");
    expect_symbol("=");
    a.value = parse_term();
  } else if (accept_symbol(".")) {
    a.kind = Assignment::Kind::kSetField;
    a.field = parse_ident();
    expect_symbol("=");
    a.value = parse_term();
  } else {
    fail_no_viable();
  }
  a.source = source_from(begin);
  return a;
}

UpdateStatement Parser::parse_update() {
  UpdateStatement stmt;
  expect_keyword("update");
  stmt.table = parse_qualified_name();
  if (at_keyword("using")) parse_using_clause(stmt.using_clause);
  expect_keyword("set");
  do {
    Assignment a = parse_assignment();
    for (const Assignment& existing : stmt.assignments)
      if (existing.column == a.column && !compatible(existing, a))
        recognition_error("Multiple incompatible setting of column " + a.column);
    stmt.assignments.push_back(std::move(a));
  } while (accept_symbol(","));
  expect_keyword("where");
  stmt.where = parse_where_clause();
  if (accept_keyword("if")) {
    if (accept_keyword("exists"))
      stmt.if_exists = true;
    else
      stmt.conditions = parse_conditions();
  }
  return stmt;
}

// ---- IF conditions
// -------------------------------------------------------------------------------

Condition Parser::parse_condition() {
  size_t begin = start_offset();
  Condition c;
  c.column = parse_cident();
  auto op_and_value = [&](bool allow_contains) {
    if (at_relation_type()) {
      c.op = parse_relation_type();
      c.value = parse_term();
    } else if (accept_keyword("in")) {
      c.op = Operator::kIn;
      TermPtr marker;
      c.in_values = parse_in_values(&marker);
      if (marker) c.value = marker;
    } else if (allow_contains && accept_keyword("contains")) {
      c.op = accept_keyword("key") ? Operator::kContainsKey : Operator::kContains;
      c.value = parse_term();
    } else {
      fail_no_viable();
    }
  };
  if (accept_symbol("[")) {
    c.element = parse_term();
    expect_symbol("]");
    op_and_value(false);
  } else if (accept_symbol(".")) {
    c.field = parse_ident();
    op_and_value(false);
  } else {
    op_and_value(true);
  }
  c.source = source_from(begin);
  return c;
}

std::vector<Condition> Parser::parse_conditions() {
  std::vector<Condition> out{parse_condition()};
  while (accept_keyword("and")) out.push_back(parse_condition());
  return out;
}

// ---- DELETE
// --------------------------------------------------------------------------------------

DeleteStatement Parser::parse_delete() {
  DeleteStatement stmt;
  expect_keyword("delete");
  if (!at_keyword("from")) {
    do {
      size_t begin = start_offset();
      DeleteTarget target;
      target.column = parse_cident();
      if (accept_symbol("[")) {
        target.element = parse_term();
        expect_symbol("]");
      } else if (accept_symbol(".")) {
        target.field = parse_ident();
      }
      target.source = source_from(begin);
      stmt.targets.push_back(std::move(target));
    } while (accept_symbol(","));
  }
  expect_keyword("from");
  stmt.table = parse_qualified_name();
  if (accept_keyword("using")) {
    expect_keyword("timestamp");
    stmt.using_clause.timestamp = parse_int_value();
  }
  expect_keyword("where");
  stmt.where = parse_where_clause();
  if (accept_keyword("if")) {
    if (accept_keyword("exists"))
      stmt.if_exists = true;
    else
      stmt.conditions = parse_conditions();
  }
  return stmt;
}

// ---- BATCH
// ---------------------------------------------------------------------------------------

BatchStatement Parser::parse_batch() {
  BatchStatement stmt;
  expect_keyword("begin");
  if (accept_keyword("unlogged"))
    stmt.type = BatchStatement::Type::kUnlogged;
  else if (accept_keyword("counter"))
    stmt.type = BatchStatement::Type::kCounter;
  expect_keyword("batch");
  if (at_keyword("using")) parse_using_clause(stmt.using_clause);
  while (true) {
    if (at_keyword("insert"))
      stmt.statements.emplace_back(parse_insert());
    else if (at_keyword("update"))
      stmt.statements.emplace_back(parse_update());
    else if (at_keyword("delete"))
      stmt.statements.emplace_back(parse_delete());
    else
      break;
    accept_symbol(";");
  }
  expect_keyword("apply");
  expect_keyword("batch");
  return stmt;
}

}  // namespace cassette::cql::parser_internal
