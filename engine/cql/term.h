// Evaluating terms: a literal, collection, tuple, UDT literal, function call or type hint written
// in a statement becomes a value of the type its receiver (a column, a collection element, a
// function parameter) expects, with Cassandra's messages when it cannot:
//   Invalid STRING constant (foo) for "k" of type int
//   Invalid list literal for l of type set<int>
//   Invalid null value in condition for column v     (the caller's context decides on null)
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "engine/cql/ast.h"
#include "engine/cql/execution_context.h"
#include "engine/types/value.h"

namespace cassette::cql {

// The value of `term` for a receiver of `receiver_type` named `receiver_name` (the column name,
// or "k[1]"-style for collection elements, as Cassandra names receivers in messages). A null term
// gives nullopt; a function call is resolved against the receiver and evaluated with the
// context's now. Bind markers are rejected.
Result<types::Value> evaluate_term(const Term& term, const types::CqlType& receiver_type,
                                   std::string_view receiver_name, const ExecutionContext& context);

// The type a term has on its own, when it has one without a receiver (a function call, a type
// hint; nullopt for literals and null). Used to resolve overloads and to check selectors.
std::optional<types::CqlType> term_type(const Term& term, const ExecutionContext& context);

// The function a kFunctionCall term calls, resolved among its overloads by its arguments' types
// and, when given, the type its result goes to (FunctionResolver's messages when none fits).
Result<std::shared_ptr<const ScalarFunction>> resolve_function_call(
    const Term& call, const std::optional<types::CqlType>& receiver,
    const ExecutionContext& context);

// A term as Cassandra prints it in messages (Term.Raw.getText()): 'text' quoted, 42, [1, 2],
// {a: 1}, f(x), (int)3.
std::string term_text(const Term& term);

// The same text whole, however long (term_text() cuts long values for messages): a literal
// selector's column name, as Cassandra's TermSelector names it ("[1, 2]" however it was spaced).
std::string term_full_text(const Term& term);

// AbstractType.isValueCompatibleWith: whether bytes of `other` are valid bytes of `receiver` with
// the same meaning (a type hint "(blob)a" retypes a's values when they are).
bool value_compatible_with(const types::CqlType& receiver, const types::CqlType& other);

}  // namespace cassette::cql
