// Term evaluation (see term.h). Follows Cassandra's two steps for every term: first a type-level
// assignment test (Constants.Literal.testAssignment, Lists.testListAssignment, ...) that decides
// whether a term may go to a receiver at all and produces the "is not of type" messages, then the
// evaluation proper, whose failures are the value-level ones ("Unable to make int from ...").
#include "engine/cql/term.h"

#include <fmt/format.h>

#include <cstring>

#include "engine/cql/functions.h"
#include "engine/types/scalar.h"
#include "engine/util/message.h"

namespace cassette::cql {

namespace {

using types::ConstantKind;
using types::CqlType;
using types::TypeKind;

enum class Assignability { kNotAssignable, kWeaklyAssignable, kExactMatch };

bool assignable(Assignability a) {
  return a != Assignability::kNotAssignable;
}

// The keyspace of the first UDT inside `type`, so that type names print unqualified in messages
// (Cassandra prints a UDT by its bare name).
std::string udt_keyspace_of(const CqlType& type) {
  if (type.kind == TypeKind::kUdt) return type.udt_keyspace;
  for (const CqlType& p : type.params) {
    std::string ks = udt_keyspace_of(p);
    if (!ks.empty()) return ks;
  }
  return {};
}

std::string type_name(const CqlType& type) {
  return types::cql_type_name(type, udt_keyspace_of(type));
}

std::string term_text_impl(const Term& term);

// Cassandra's Term.Raw.getText(): how a term is printed inside messages.
std::string term_text_impl(const Term& term) {
  auto join = [](const std::vector<TermPtr>& elements) {
    std::string out;
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out += ", ";
      out += term_text_impl(*elements[i]);
    }
    return out;
  };
  switch (term.kind) {
    case Term::Kind::kConstant:
      return term.constant_kind == ConstantKind::kString ? fmt::format("'{}'", term.text)
                                                         : term.text;
    case Term::Kind::kNull:
      return "NULL";
    case Term::Kind::kBindMarker:
      return term.text.empty() ? "?" : ":" + term.text;
    case Term::Kind::kBoundValue:
      return types::format_value(term.type, term.bound_value, types::ValueStyle::kLiteral);
    case Term::Kind::kList:
      return "[" + join(term.elements) + "]";
    case Term::Kind::kSet:
      return "{" + join(term.elements) + "}";
    case Term::Kind::kTuple:
      return "(" + join(term.elements) + ")";
    case Term::Kind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < term.entries.size(); ++i) {
        if (i > 0) out += ", ";
        out +=
            term_text_impl(*term.entries[i].first) + ": " + term_text_impl(*term.entries[i].second);
      }
      return out + "}";
    }
    case Term::Kind::kUserType: {
      std::string out = "{";
      for (size_t i = 0; i < term.fields.size(); ++i) {
        if (i > 0) out += ", ";
        out += term.fields[i].first + ": " + term_text_impl(*term.fields[i].second);
      }
      return out + "}";
    }
    case Term::Kind::kFunctionCall: {
      std::string name = term.function.keyspace.empty()
                             ? term.function.name
                             : term.function.keyspace + "." + term.function.name;
      return name + "(" + join(term.elements) + ")";
    }
    case Term::Kind::kTypeHint:
      return "(" + type_name(term.type) + ")" + term_text_impl(*term.elements.at(0));
    case Term::Kind::kNegation:
      return "-" + term_text_impl(*term.elements.at(0));
  }
  return term.source;
}

// AbstractType.isValueCompatibleWith, for the types CQL can name: whether bytes of `other` are
// valid bytes of `receiver` with the same meaning.
bool value_compatible(const CqlType& receiver, const CqlType& other) {
  if (receiver == other) return true;
  auto kinds = [&](TypeKind r, TypeKind o) { return receiver.kind == r && other.kind == o; };
  if (receiver.kind == TypeKind::kBlob) return true;
  if (kinds(TypeKind::kText, TypeKind::kAscii)) return true;
  if (kinds(TypeKind::kBigint, TypeKind::kTimestamp)) return true;
  if (kinds(TypeKind::kTimestamp, TypeKind::kBigint)) return true;
  if (kinds(TypeKind::kUuid, TypeKind::kTimeuuid)) return true;     // UUIDType
  if (kinds(TypeKind::kVarint, TypeKind::kTimestamp)) return true;  // via LongType
  if (receiver.kind == TypeKind::kVarint &&
      (other.kind == TypeKind::kInt || other.kind == TypeKind::kBigint ||
       other.kind == TypeKind::kSmallint || other.kind == TypeKind::kTinyint)) {
    return true;
  }
  if (receiver.kind == other.kind && receiver.params.size() == other.params.size() &&
      (receiver.is_collection() || receiver.kind == TypeKind::kTuple ||
       receiver.kind == TypeKind::kUdt)) {
    if (receiver.kind == TypeKind::kUdt &&
        (receiver.udt_name != other.udt_name || receiver.udt_keyspace != other.udt_keyspace)) {
      return false;
    }
    for (size_t i = 0; i < receiver.params.size(); ++i) {
      if (!(receiver.params[i] == other.params[i])) {
        CqlType a = receiver.params[i], b = other.params[i];
        a.frozen = b.frozen = false;
        if (!(a == b)) return false;
      }
    }
    return true;
  }
  return false;
}

Assignability type_assignment(const CqlType& receiver, const CqlType& type) {
  if (receiver == type) return Assignability::kExactMatch;
  return value_compatible(receiver, type) ? Assignability::kWeaklyAssignable
                                          : Assignability::kNotAssignable;
}

// Constants.Literal.testAssignment: which lexical kinds of constants each native type takes.
Assignability constant_assignment(ConstantKind kind, const CqlType& receiver) {
  if (receiver.is_collection() || receiver.kind == TypeKind::kUdt ||
      receiver.kind == TypeKind::kTuple) {
    return Assignability::kNotAssignable;
  }
  auto one_of = [&](std::initializer_list<TypeKind> kinds) {
    for (TypeKind k : kinds) {
      if (receiver.kind == k) return Assignability::kWeaklyAssignable;
    }
    return Assignability::kNotAssignable;
  };
  switch (kind) {
    case ConstantKind::kString:
      return one_of({TypeKind::kAscii, TypeKind::kText, TypeKind::kInet, TypeKind::kDate,
                     TypeKind::kTime, TypeKind::kTimestamp});
    case ConstantKind::kInteger:
      return one_of({TypeKind::kBigint, TypeKind::kCounter, TypeKind::kDate, TypeKind::kDecimal,
                     TypeKind::kDouble, TypeKind::kDuration, TypeKind::kFloat, TypeKind::kInt,
                     TypeKind::kSmallint, TypeKind::kTime, TypeKind::kTimestamp, TypeKind::kTinyint,
                     TypeKind::kVarint});
    case ConstantKind::kUuid:
      return one_of({TypeKind::kUuid, TypeKind::kTimeuuid});
    case ConstantKind::kFloat:
      return one_of({TypeKind::kDecimal, TypeKind::kDouble, TypeKind::kFloat});
    case ConstantKind::kBoolean:
      return one_of({TypeKind::kBoolean});
    case ConstantKind::kHex:
      return one_of({TypeKind::kBlob});
    case ConstantKind::kDuration:
      return one_of({TypeKind::kDuration});
  }
  return Assignability::kNotAssignable;
}

// "(x)" parses as a one-element tuple literal; for a receiver that is no tuple (nor UDT) it is x
// in parentheses, as Tuples.Literal decides once it knows the receiver: 1 * (1 + 1).
bool is_parenthesized_term(const Term& term, const CqlType& receiver) {
  return term.kind == Term::Kind::kTuple && term.elements.size() == 1 &&
         receiver.kind != TypeKind::kTuple && receiver.kind != TypeKind::kUdt;
}

Assignability test_assignment(const Term& term, const CqlType& receiver,
                              const ExecutionContext& context);

// AssignmentTestable.TestResult.testAll: exact when all are exact, not assignable when any is not.
Assignability test_all(const std::vector<const Term*>& terms, const CqlType& receiver,
                       const ExecutionContext& context) {
  Assignability result = Assignability::kExactMatch;
  for (const Term* t : terms) {
    Assignability a = test_assignment(*t, receiver, context);
    if (a == Assignability::kNotAssignable) return a;
    if (a == Assignability::kWeaklyAssignable) result = a;
  }
  return result;
}

std::vector<const Term*> pointers(const std::vector<TermPtr>& terms) {
  std::vector<const Term*> out;
  for (const TermPtr& t : terms) out.push_back(t.get());
  return out;
}

// The type a type hint names, with a named UDT resolved against the schema.
std::optional<CqlType> resolve_hint_type(const CqlType& type, const ExecutionContext& context) {
  CqlType resolved = type;
  if (resolved.kind == TypeKind::kUdt && resolved.params.empty() && context.schema != nullptr) {
    std::string ks = resolved.udt_keyspace.empty() ? context.keyspace : resolved.udt_keyspace;
    auto udt = context.schema->find_type(ks, resolved.udt_name);
    if (udt == nullptr) return std::nullopt;
    resolved.udt_keyspace = udt->keyspace;
    resolved.field_names = udt->field_names;
    resolved.params = udt->field_types;
  }
  for (CqlType& p : resolved.params) {
    auto r = resolve_hint_type(p, context);
    if (!r) return std::nullopt;
    p = *r;
  }
  return resolved;
}

Assignability test_assignment(const Term& term, const CqlType& receiver,
                              const ExecutionContext& context) {
  switch (term.kind) {
    case Term::Kind::kConstant:
      return constant_assignment(term.constant_kind, receiver);
    case Term::Kind::kNull:
      return receiver.is_counter() ? Assignability::kNotAssignable
                                   : Assignability::kWeaklyAssignable;
    case Term::Kind::kBindMarker:
      return Assignability::kWeaklyAssignable;
    case Term::Kind::kBoundValue:
      return type_assignment(receiver, term.type);
    case Term::Kind::kList:
      if (receiver.kind == TypeKind::kVector) {
        // the dimension is checked when the literal is evaluated, with its own message
        if (term.elements.empty()) return Assignability::kNotAssignable;
        return test_all(pointers(term.elements), receiver.params[0], context) ==
                       Assignability::kNotAssignable
                   ? Assignability::kNotAssignable
                   : Assignability::kWeaklyAssignable;
      }
      if (receiver.kind != TypeKind::kList) return Assignability::kNotAssignable;
      if (term.elements.empty()) return Assignability::kWeaklyAssignable;
      return test_all(pointers(term.elements), receiver.params[0], context);
    case Term::Kind::kSet:
      if (receiver.kind != TypeKind::kSet) {
        return receiver.kind == TypeKind::kMap && term.elements.empty()
                   ? Assignability::kWeaklyAssignable
                   : Assignability::kNotAssignable;
      }
      if (term.elements.empty()) return Assignability::kWeaklyAssignable;
      return test_all(pointers(term.elements), receiver.params[0], context);
    case Term::Kind::kMap: {
      if (term.entries.empty()) {
        return receiver.kind == TypeKind::kMap || receiver.kind == TypeKind::kSet
                   ? Assignability::kWeaklyAssignable
                   : Assignability::kNotAssignable;
      }
      if (receiver.kind != TypeKind::kMap) return Assignability::kNotAssignable;
      std::vector<const Term*> keys, values;
      for (const auto& [k, v] : term.entries) {
        keys.push_back(k.get());
        values.push_back(v.get());
      }
      Assignability a = test_all(keys, receiver.params[0], context);
      Assignability b = test_all(values, receiver.params[1], context);
      if (!assignable(a) || !assignable(b)) return Assignability::kNotAssignable;
      return a == Assignability::kExactMatch && b == Assignability::kExactMatch
                 ? Assignability::kExactMatch
                 : Assignability::kWeaklyAssignable;
    }
    case Term::Kind::kTuple: {
      if (is_parenthesized_term(term, receiver))
        return test_assignment(*term.elements[0], receiver, context);
      if (receiver.kind != TypeKind::kTuple) return Assignability::kNotAssignable;
      if (term.elements.size() > receiver.params.size()) return Assignability::kNotAssignable;
      for (size_t i = 0; i < term.elements.size(); ++i) {
        if (!assignable(test_assignment(*term.elements[i], receiver.params[i], context))) {
          return Assignability::kNotAssignable;
        }
      }
      return Assignability::kWeaklyAssignable;
    }
    case Term::Kind::kUserType: {
      if (receiver.kind != TypeKind::kUdt) return Assignability::kNotAssignable;
      for (const auto& [name, value] : term.fields) {
        size_t i = 0;
        while (i < receiver.field_names.size() && receiver.field_names[i] != name) ++i;
        if (i == receiver.field_names.size()) return Assignability::kNotAssignable;
        if (!assignable(test_assignment(*value, receiver.params[i], context))) {
          return Assignability::kNotAssignable;
        }
      }
      return Assignability::kWeaklyAssignable;
    }
    case Term::Kind::kFunctionCall: {
      // As evaluate_function_call resolves it: with the receiver, which types the operands of
      // an operation (1 * (1 + 1) into a smallint is smallint arithmetic throughout).
      auto resolved = resolve_function_call(term, receiver, context);
      if (resolved.is_ok()) return type_assignment(receiver, (*resolved)->return_type);
      std::optional<CqlType> type = term_type(term, context);
      if (!type)
        return Assignability::kWeaklyAssignable;  // resolution fails later, with its message
      return type_assignment(receiver, *type);
    }
    case Term::Kind::kTypeHint: {
      std::optional<CqlType> type = resolve_hint_type(term.type, context);
      if (!type) return Assignability::kNotAssignable;
      return type_assignment(receiver, *type);
    }
    case Term::Kind::kNegation:
      return test_assignment(*term.elements.at(0), receiver, context);
  }
  return Assignability::kNotAssignable;
}

Result<std::string> evaluate_element(const Term& term, const CqlType& type, const std::string& name,
                                     const ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(types::Value value, evaluate_term(term, type, name, context));
  if (!value) return Status::invalid_argument("null is not supported inside collections");
  return std::move(*value);
}

// A [...] literal for a vector<element, n> (Cassandra 5.0's Vectors.Literal): n elements, each
// assignable to the element type, none null.
Result<types::Value> evaluate_vector(const Term& term, const CqlType& receiver,
                                     std::string_view receiver_name,
                                     const ExecutionContext& context) {
  const CqlType& element = receiver.params.at(0);
  if (term.elements.size() != static_cast<size_t>(receiver.dimension)) {
    return Status::invalid_argument(
        fmt::format("Invalid vector literal for {} of type {}; expected {} elements, but given {}",
                    receiver_name, type_name(receiver), receiver.dimension, term.elements.size()));
  }
  for (const TermPtr& e : term.elements) {
    if (!assignable(test_assignment(*e, element, context))) {
      return Status::invalid_argument(
          fmt::format("Invalid vector literal for {}: value {} is not of type {}", receiver_name,
                      term_text(*e), type_name(element)));
    }
  }
  std::vector<std::string> values;
  const std::string value_name = fmt::format("value({})", receiver_name);
  for (const TermPtr& e : term.elements) {
    CASSETTE_ASSIGN_OR_RETURN(types::Value v, evaluate_term(*e, element, value_name, context));
    if (!v) return Status::invalid_argument("null is not supported inside vectors");
    values.push_back(std::move(*v));
  }
  return types::Value(types::serialize_vector(receiver, values));
}

Result<types::Value> evaluate_collection(const Term& term, const CqlType& receiver,
                                         std::string_view receiver_name,
                                         const ExecutionContext& context) {
  if (term.kind == Term::Kind::kList && receiver.kind == TypeKind::kVector)
    return evaluate_vector(term, receiver, receiver_name, context);
  std::string name(receiver_name);
  std::string receiver_type = type_name(receiver);
  // Empty {} is parsed as a map; it may also be an empty set.
  if (term.kind == Term::Kind::kMap && term.entries.empty() && receiver.kind == TypeKind::kSet) {
    return types::Value(types::serialize_set(receiver.params[0], {}));
  }
  if (term.kind == Term::Kind::kSet && term.elements.empty() && receiver.kind == TypeKind::kMap) {
    return types::Value(types::serialize_map(receiver.params[0], {}));
  }
  if (term.kind == Term::Kind::kList) {
    if (receiver.kind != TypeKind::kList) {
      return Status::invalid_argument(
          fmt::format("Invalid list literal for {} of type {}", name, receiver_type));
    }
    const CqlType& element = receiver.params[0];
    std::string value_name = fmt::format("value({})", name);
    for (const TermPtr& e : term.elements) {
      if (!assignable(test_assignment(*e, element, context))) {
        return Status::invalid_argument(
            fmt::format("Invalid list literal for {}: value {} is not of type {}", name,
                        term_text(*e), type_name(element)));
      }
    }
    std::vector<std::string> values;
    for (const TermPtr& e : term.elements) {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, evaluate_element(*e, element, value_name, context));
      values.push_back(std::move(v));
    }
    return types::Value(types::serialize_list(values));
  }
  if (term.kind == Term::Kind::kSet) {
    if (receiver.kind != TypeKind::kSet) {
      return Status::invalid_argument(
          fmt::format("Invalid set literal for {} of type {}", name, receiver_type));
    }
    const CqlType& element = receiver.params[0];
    std::string value_name = fmt::format("value({})", name);
    for (const TermPtr& e : term.elements) {
      if (!assignable(test_assignment(*e, element, context))) {
        return Status::invalid_argument(
            fmt::format("Invalid set literal for {}: value {} is not of type {}", name,
                        term_text(*e), type_name(element)));
      }
    }
    std::vector<std::string> values;
    for (const TermPtr& e : term.elements) {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, evaluate_element(*e, element, value_name, context));
      values.push_back(std::move(v));
    }
    return types::Value(types::serialize_set(element, std::move(values)));
  }
  // kMap. Cassandra parses an empty {} as a set literal, and names it so.
  if (receiver.kind != TypeKind::kMap) {
    return Status::invalid_argument(fmt::format("Invalid {} literal for {} of type {}",
                                                term.entries.empty() ? "set" : "map", name,
                                                receiver_type));
  }
  const CqlType& key_type = receiver.params[0];
  const CqlType& value_type = receiver.params[1];
  std::string key_name = fmt::format("key({})", name);
  std::string value_name = fmt::format("value({})", name);
  for (const auto& [k, v] : term.entries) {
    if (!assignable(test_assignment(*k, key_type, context))) {
      return Status::invalid_argument(
          fmt::format("Invalid map literal for {}: key {} is not of type {}", name, term_text(*k),
                      type_name(key_type)));
    }
    if (!assignable(test_assignment(*v, value_type, context))) {
      return Status::invalid_argument(
          fmt::format("Invalid map literal for {}: value {} is not of type {}", name, term_text(*v),
                      type_name(value_type)));
    }
  }
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [k, v] : term.entries) {
    CASSETTE_ASSIGN_OR_RETURN(std::string key, evaluate_element(*k, key_type, key_name, context));
    CASSETTE_ASSIGN_OR_RETURN(std::string value,
                              evaluate_element(*v, value_type, value_name, context));
    entries.emplace_back(std::move(key), std::move(value));
  }
  return types::Value(types::serialize_map(key_type, std::move(entries)));
}

Result<types::Value> evaluate_tuple(const Term& term, const CqlType& receiver,
                                    std::string_view receiver_name,
                                    const ExecutionContext& context) {
  if (receiver.kind != TypeKind::kTuple) {
    return Status::invalid_argument(fmt::format("Invalid tuple type literal for {} of type {}",
                                                receiver_name, type_name(receiver)));
  }
  if (term.elements.size() > receiver.params.size()) {
    return Status::invalid_argument(fmt::format(
        "Invalid tuple literal for {}: too many elements. Type {} expects {} but got {}",
        receiver_name, type_name(receiver), receiver.params.size(), term.elements.size()));
  }
  for (size_t i = 0; i < term.elements.size(); ++i) {
    if (!assignable(test_assignment(*term.elements[i], receiver.params[i], context))) {
      return Status::invalid_argument(
          fmt::format("Invalid tuple literal for {}: component {} is not of type {}", receiver_name,
                      i, type_name(receiver.params[i])));
    }
  }
  std::vector<types::Value> components;
  for (size_t i = 0; i < term.elements.size(); ++i) {
    CASSETTE_ASSIGN_OR_RETURN(types::Value v,
                              evaluate_term(*term.elements[i], receiver.params[i],
                                            fmt::format("{}[{}]", receiver_name, i), context));
    components.push_back(std::move(v));
  }
  return types::Value(types::serialize_tuple(components));
}

Result<types::Value> evaluate_user_type(const Term& term, const CqlType& receiver,
                                        std::string_view receiver_name,
                                        const ExecutionContext& context) {
  if (receiver.kind != TypeKind::kUdt) {
    return Status::invalid_argument(fmt::format("Invalid user type literal for {} of type {}",
                                                receiver_name, type_name(receiver)));
  }
  auto find = [&](const std::string& field) -> const Term* {
    for (const auto& [name, value] : term.fields) {
      if (name == field) return value.get();
    }
    return nullptr;
  };
  size_t found = 0;
  for (size_t i = 0; i < receiver.field_names.size(); ++i) {
    const Term* value = find(receiver.field_names[i]);
    if (value == nullptr) continue;
    ++found;
    if (!assignable(test_assignment(*value, receiver.params[i], context))) {
      return Status::invalid_argument(
          fmt::format("Invalid user type literal for {}: field {} is not of type {}", receiver_name,
                      receiver.field_names[i], type_name(receiver.params[i])));
    }
  }
  if (found != term.fields.size()) {
    for (const auto& [name, value] : term.fields) {
      bool known = false;
      for (const std::string& f : receiver.field_names) known = known || f == name;
      if (!known) {
        return Status::invalid_argument(fmt::format(
            "Unknown field '{}' in value of user defined type {}", name, receiver.udt_name));
      }
    }
  }
  std::vector<types::Value> fields;
  for (size_t i = 0; i < receiver.field_names.size(); ++i) {
    const Term* value = find(receiver.field_names[i]);
    if (value == nullptr) {
      fields.push_back(std::nullopt);
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(
        types::Value v,
        evaluate_term(*value, receiver.params[i],
                      fmt::format("{}.{}", receiver_name, receiver.field_names[i]), context));
    fields.push_back(std::move(v));
  }
  return types::Value(types::serialize_tuple(fields));
}

std::string function_name(const Term& term) {
  return term.function.keyspace.empty() ? term.function.name
                                        : term.function.keyspace + "." + term.function.name;
}

Result<std::shared_ptr<const ScalarFunction>> resolve_call(const Term& term,
                                                           const std::optional<CqlType>& receiver,
                                                           const ExecutionContext& context) {
  std::vector<FunctionArgument> arguments;
  for (const TermPtr& argument : term.elements) {
    FunctionArgument a{term_type(*argument, context), term_text(*argument)};
    if (argument->kind == Term::Kind::kConstant) a.constant_kind = argument->constant_kind;
    if (argument->kind == Term::Kind::kList)
      a.list_literal_size = static_cast<int32_t>(argument->elements.size());
    arguments.push_back(std::move(a));
  }
  const std::string name = function_name(term);
  Result<std::shared_ptr<const ScalarFunction>> function =
      resolve_function(name, arguments, receiver);
  // A term's call names no existing function: FunctionCall.Raw.prepare's wording (a selector's
  // is Selectable's "Unknown function 'f'", which resolve_function gives).
  if (!function.is_ok() &&
      function.status().message() == fmt::format("Unknown function '{}'", name))
    return Status::invalid_argument(fmt::format("Unknown function {} called", name));
  return function;
}

Result<types::Value> evaluate_function_call(const Term& term, const CqlType& receiver,
                                            std::string_view receiver_name,
                                            const ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScalarFunction> function,
                            resolve_call(term, receiver, context));
  if (!value_compatible(receiver, function->return_type)) {
    return Status::invalid_argument(fmt::format(
        "Type error: cannot assign result of function {} (type {}) to {} (type {})", function->name,
        type_name(function->return_type), receiver_name, type_name(receiver)));
  }
  if (function->parameter_types.size() != term.elements.size()) {
    return Status::invalid_argument(fmt::format(
        "Invalid number of arguments in call to function {}: {} required but {} provided",
        function->name, function->parameter_types.size(), term.elements.size()));
  }
  std::vector<types::Value> arguments;
  bool any_null = false;
  for (size_t i = 0; i < term.elements.size(); ++i) {
    const CqlType& parameter = function->parameter_types[i];
    const Term& argument = *term.elements[i];
    if (!assignable(test_assignment(argument, parameter, context))) {
      return Status::invalid_argument(
          fmt::format("Type error: {} cannot be passed as argument {} of function {} of type {}",
                      term_text(argument), i, function->name, type_name(parameter)));
    }
    CASSETTE_ASSIGN_OR_RETURN(
        types::Value v,
        evaluate_term(argument, parameter, fmt::format("arg{}({})", i, function->name), context));
    any_null = any_null || !v.has_value();
    arguments.push_back(std::move(v));
  }
  if (any_null && !function->called_on_null_input) return types::Value();
  return function->apply(arguments, context.functions);
}

// -x on a value of a fixed-width signed numeric type.
Result<types::Value> negate(const CqlType& type, types::Value value) {
  if (!value) return value;
  std::string& bytes = *value;
  auto negate_integer = [&](size_t width) -> Result<types::Value> {
    if (bytes.size() != width) return value;
    bytes = types::store_be(0 - types::read_unsigned(bytes), width);
    return value;
  };
  switch (type.kind) {
    case TypeKind::kTinyint:
      return negate_integer(1);
    case TypeKind::kSmallint:
      return negate_integer(2);
    case TypeKind::kInt:
      return negate_integer(4);
    case TypeKind::kBigint:
    case TypeKind::kCounter:
      return negate_integer(8);
    case TypeKind::kFloat:
    case TypeKind::kDouble:
      if (!bytes.empty()) bytes[0] = static_cast<char>(bytes[0] ^ 0x80);  // flip the sign bit
      return value;
    default:
      return Status::invalid_argument(
          fmt::format("Negation is not supported for values of type {}", type_name(type)));
  }
}

}  // namespace

std::string term_text(const Term& term) {
  return message_value(term_text_impl(term));
}

std::string term_full_text(const Term& term) {
  return term_text_impl(term);
}

bool value_compatible_with(const CqlType& receiver, const CqlType& other) {
  return value_compatible(receiver, other);
}

Result<types::Value> evaluate_term(const Term& term, const types::CqlType& receiver_type,
                                   std::string_view receiver_name,
                                   const ExecutionContext& context) {
  switch (term.kind) {
    case Term::Kind::kConstant: {
      if (!assignable(constant_assignment(term.constant_kind, receiver_type))) {
        return Status::invalid_argument(
            fmt::format("Invalid {} constant ({}) for \"{}\" of type {}",
                        types::constant_kind_name(term.constant_kind), message_value(term.text),
                        receiver_name, type_name(receiver_type)));
      }
      // Counter literals parse as bigints (Constants.Literal.parsedValue).
      const CqlType& parse_type =
          receiver_type.is_counter() ? types::CqlType::simple(TypeKind::kBigint) : receiver_type;
      CASSETTE_ASSIGN_OR_RETURN(
          std::string value,
          types::parse_constant(parse_type, term.constant_kind, term.text, receiver_name));
      return types::Value(std::move(value));
    }
    case Term::Kind::kNull:
      if (receiver_type.is_counter()) {
        return Status::invalid_argument("Invalid null value for counter increment/decrement");
      }
      return types::Value();
    case Term::Kind::kBindMarker:
      return Status::invalid_argument(fmt::format(
          "Bind variables are not supported here: {} (prepare the statement to bind it)",
          term_text(term)));
    case Term::Kind::kBoundValue:
      // Bound for this receiver's marker (bind_markers.h), or passed on from one whose type's
      // bytes this receiver reads the same (a function argument, a type hint).
      if (!assignable(type_assignment(receiver_type, term.type))) {
        return Status::invalid_argument(fmt::format("Cannot assign value {} to {} of type {}",
                                                    term_text(term), receiver_name,
                                                    type_name(receiver_type)));
      }
      return types::Value(term.bound_value);
    case Term::Kind::kList:
    case Term::Kind::kSet:
    case Term::Kind::kMap:
      return evaluate_collection(term, receiver_type, receiver_name, context);
    case Term::Kind::kTuple:
      if (is_parenthesized_term(term, receiver_type))
        return evaluate_term(*term.elements[0], receiver_type, receiver_name, context);
      return evaluate_tuple(term, receiver_type, receiver_name, context);
    case Term::Kind::kUserType:
      return evaluate_user_type(term, receiver_type, receiver_name, context);
    case Term::Kind::kFunctionCall:
      return evaluate_function_call(term, receiver_type, receiver_name, context);
    case Term::Kind::kTypeHint: {
      std::optional<CqlType> hinted = resolve_hint_type(term.type, context);
      if (!hinted) {
        return Status::invalid_argument(
            fmt::format("Unknown type {}", types::cql_type_name(term.type)));
      }
      const Term& inner = *term.elements.at(0);
      if (!assignable(test_assignment(inner, *hinted, context))) {
        return Status::invalid_argument(
            fmt::format("Cannot cast value {} to type {}", term_text(inner), type_name(*hinted)));
      }
      if (!assignable(type_assignment(receiver_type, *hinted))) {
        return Status::invalid_argument(fmt::format("Cannot assign value {} to {} of type {}",
                                                    term_text(term), receiver_name,
                                                    type_name(receiver_type)));
      }
      return evaluate_term(inner, receiver_type, receiver_name, context);
    }
    case Term::Kind::kNegation: {
      CASSETTE_ASSIGN_OR_RETURN(types::Value v, evaluate_term(*term.elements.at(0), receiver_type,
                                                              receiver_name, context));
      return negate(receiver_type, std::move(v));
    }
  }
  return Status::internal("unknown term kind");
}

Result<std::shared_ptr<const ScalarFunction>> resolve_function_call(
    const Term& call, const std::optional<types::CqlType>& receiver,
    const ExecutionContext& context) {
  return resolve_call(call, receiver, context);
}

std::optional<types::CqlType> term_type(const Term& term, const ExecutionContext& context) {
  switch (term.kind) {
    case Term::Kind::kFunctionCall: {
      auto function = resolve_call(term, std::nullopt, context);
      if (!function.is_ok()) return std::nullopt;
      return (*function)->return_type;
    }
    case Term::Kind::kTypeHint:
      return resolve_hint_type(term.type, context);
    case Term::Kind::kNegation:
      return term_type(*term.elements.at(0), context);
    case Term::Kind::kBoundValue:
      return term.type;
    default:
      return std::nullopt;
  }
}

}  // namespace cassette::cql
