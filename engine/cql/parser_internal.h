// The parser's private interface, shared by parser*.cc. One Parser object parses one statement:
// a recursive-descent parser over the visible tokens of lexer.h, one method per rule of
// Cassandra's Parser.g (simplified where the AST does not need the distinction).
//
// Errors: a syntax error is thrown as a SyntaxError (internal to the parser: parse_statement
// catches it and returns a Status), which keeps the rules free of error plumbing. Where
// Parser.g needs a syntactic predicate (backtracking), `speculate` tries a rule and rewinds.
// Cassandra also raises some errors from inside its grammar actions ("recognition errors",
// e.g. "Multiple definitions for property 'x'"); those do not stop the parse, and the first
// one wins over any later syntax error, as in Cassandra's ErrorCollector.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/lexer.h"
#include "engine/util/status.h"

namespace cassette::cql::parser_internal {

struct SyntaxError {
  Status status;
  size_t offset = 0;  // source offset of the offending token (the text's size at EOF)
};

// Keyword classes, from Lexer.g / Parser.g. `word` must be lower-case.
bool is_keyword(std::string_view word);
bool is_unreserved_keyword(std::string_view word);           // usable as an identifier
bool is_unreserved_function_keyword(std::string_view word);  // usable as a function name
// The CqlType of a native type name (lower-case), or nullopt.
std::optional<types::CqlType> native_type(std::string_view word);

std::string to_lower(std::string_view s);

// Cassandra's names of the arithmetic operator functions (OperationFcts): "+" -> "_add", ...
std::string operator_function_name(std::string_view op);

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens);

  // cqlStatement (';')* EOF
  Statement parse_statement();
  void reject_unsupported_statement() const;

  // The first recognition error, if any (see above).
  const std::optional<Status>& recognition_error() const { return recognition_error_; }

  // ---- tokens (parser.cc) ----
  const Token& peek(int k = 0) const;
  const Token& advance();
  bool at_keyword(std::string_view kw, int k = 0) const;  // kw lower-case
  bool accept_keyword(std::string_view kw);
  void expect_keyword(std::string_view kw);
  bool at_symbol(std::string_view sym, int k = 0) const;
  bool accept_symbol(std::string_view sym);
  void expect_symbol(std::string_view sym);
  // "no viable alternative at input X": X is the token `lookahead` tokens ahead, where a
  // prediction that looked ahead failed (ANTLR names that token, not the decision's first).
  [[noreturn]] void fail_no_viable(int lookahead = 0) const;
  [[noreturn]] void fail_mismatch(std::string_view expecting) const;
  // A Java exception thrown by a grammar action (Long.parseLong in Parser.g, say), which
  // Cassandra's QueryProcessor turns into "Failed parsing statement: [<statement>] reason:
  // <exception> <message>" and which stops the parse at once.
  [[noreturn]] void fail_action(std::string_view exception, std::string_view message) const;
  // The value of an INTEGER token read as Long.parseLong does; fail_action when out of range.
  int64_t parse_long(const Token& token) const;
  void recognition_error(std::string message);

  // Guards the recursive rules (terms, selectors, relations, types) against input nested so
  // deeply that it would exhaust the stack.
  class NestingGuard {
   public:
    explicit NestingGuard(Parser& p);
    ~NestingGuard() { --parser_.depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& parser_;
  };

  size_t position() const { return pos_; }
  void rewind(size_t pos) { pos_ = pos; }
  // Runs `rule`; if it throws a SyntaxError, rewinds and returns false.
  bool speculate(const std::function<void()>& rule);
  // Whether `rule` would parse here; never moves the cursor (a syntactic predicate).
  bool lookahead(const std::function<void()>& rule);
  size_t start_offset() const { return peek().begin; }  // source offset of the next token
  std::string source_from(size_t begin) const;          // source up to the last consumed token

  // ---- identifiers, names and types (parser_names.cc); terms, properties (parser_terms.cc) ----
  bool at_ident(int k = 0) const;  // IDENT (not a reserved keyword) | QUOTED_NAME | unreserved kw
  std::string parse_ident();       // ident
  std::string parse_cident();      // ident | EMPTY_QUOTED_NAME
  std::string parse_noncol_ident() { return parse_ident(); }
  std::string parse_keyspace_name();
  // (ks '.')? name: tables, indexes; `what` names them in the bind-marker error
  QualifiedName parse_qualified_name(std::string_view what = "table");
  QualifiedName parse_user_type_name();  // (ks '.')? non_type_ident
  bool at_function_name() const;         // functionName '('
  QualifiedName parse_function_name();
  types::CqlType parse_type();  // comparatorType
  types::CqlType parse_native_type();
  types::CqlType parse_vector_parameters();  // after "vector<": element, dimension

  TermPtr parse_term();
  TermPtr parse_simple_term();
  TermPtr parse_value();
  TermPtr parse_constant();
  TermPtr parse_marker();
  TermPtr parse_int_value();  // INTEGER | marker
  TermPtr parse_tuple_literal();
  bool at_constant() const;
  bool at_marker() const;

  std::vector<std::pair<std::string, PropertyValue>> parse_properties();
  std::pair<std::string, PropertyValue> parse_property();
  void add_property(std::vector<std::pair<std::string, PropertyValue>>& props,
                    std::pair<std::string, PropertyValue> prop);

  // ---- SELECT (parser_select.cc) ----
  SelectStatement parse_select();
  std::vector<SelectorPtr> parse_selectors();
  SelectorPtr parse_selector();  // selector: unaliased (AS ident)?
  SelectorPtr parse_unaliased_selector();
  std::vector<Relation> parse_where_clause();
  void parse_relation(std::vector<Relation>& out);

  // ---- DML (parser_dml.cc) ----
  InsertStatement parse_insert();
  UpdateStatement parse_update();
  DeleteStatement parse_delete();
  BatchStatement parse_batch();
  void parse_using_clause(UsingClause& using_clause);
  std::vector<Condition> parse_conditions();
  std::vector<TermPtr> parse_in_values(TermPtr* marker);  // '(' terms ')' | marker
  bool at_relation_type() const;                          // = < <= > >= !=
  Operator parse_relation_type();

  // ---- DDL (parser_ddl.cc) ----
  Statement parse_create();
  Statement parse_alter();
  Statement parse_drop();
  UseStatement parse_use();
  TruncateStatement parse_truncate();
  DescribeStatement parse_describe();

 private:
  SelectorPtr parse_selection_addition();
  SelectorPtr parse_selection_multiplication();
  SelectorPtr parse_selection_group();
  SelectorPtr parse_selection_group_without_field();
  SelectorPtr parse_selector_modifiers(SelectorPtr receiver, size_t begin);
  // [a, b] / {a, b} / {a: b} / (a, b) of selectors: a call of `function` (selector_operators.h)
  SelectorPtr selector_literal(std::string_view function, std::vector<SelectorPtr> elements,
                               size_t begin);
  SelectorPtr parse_selection_function();
  TermPtr parse_term_multiplication();
  TermPtr parse_term_group();
  TermPtr parse_collection_literal();
  TermPtr parse_function_call();
  Condition parse_condition();
  Assignment parse_assignment();
  TableProperties parse_table_properties();
  CreateTableStatement parse_create_table();
  CreateIndexStatement parse_create_index(bool custom);
  CreateTypeStatement parse_create_type();
  AlterTableStatement parse_alter_table();
  AlterTypeStatement parse_alter_type();

  std::string_view text_;
  std::vector<Token> tokens_;    // all tokens, hidden ones included
  std::vector<size_t> visible_;  // indexes into tokens_ of the visible ones (last: EOF)
  size_t pos_ = 0;               // index into visible_
  int depth_ = 0;                // see NestingGuard
  std::optional<Status> recognition_error_;
  // The bind markers parsed, by token position. A parse that backtracks parses a marker again
  // at the same position; the abandoned term expires.
  std::map<size_t, std::weak_ptr<Term>> markers_;

 public:
  // Numbers the markers of the finished parse in the order they are written; returns how many.
  size_t number_bind_markers();
};

}  // namespace cassette::cql::parser_internal
