// Preparing a SELECT's selectors: names, types and checks (see selection.h).
#include "engine/cql/selection.h"

#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/cql/column_mask.h"
#include "engine/cql/conditions.h"
#include "engine/cql/functions.h"
#include "engine/cql/selection_internal.h"
#include "engine/cql/selector_operators.h"
#include "engine/cql/term.h"
#include "engine/types/murmur3.h"

namespace cassette::cql {

using schema::ColumnDef;
using types::CqlType;
using types::TypeKind;
using types::Value;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string function_base_name(const QualifiedName& name) {
  std::string base = name.name;
  if (name.keyspace == "system" || name.keyspace.empty()) return base;
  return name.keyspace + "." + base;
}

// An unqualified or system.-qualified function name: a native function.
bool is_native(const QualifiedName& name) {
  return name.keyspace.empty() || name.keyspace == "system";
}

// A selector's name inside the parentheses written around it (BetweenParenthesesOrWithTuple's
// "(%s)"): SELECT (c - b) / a names its column "(c - b) / a".
std::string parenthesized(std::string name, int parentheses) {
  for (int i = 0; i < parentheses; ++i) name = "(" + name + ")";
  return name;
}

// A type hint's type as CQL3Type.Raw prints it: "int", "list<int>", "tuple<int, text>" (a tuple
// is frozen whether written so or not, and its hint does not say it).
std::string hint_type_name(const CqlType& type, std::string_view keyspace) {
  std::string name = lower(types::cql_type_name(type, keyspace));
  if (type.kind == TypeKind::kTuple && name.starts_with("frozen<") && name.ends_with(">"))
    name = name.substr(7, name.size() - 8);
  return name;
}

std::string join_arg_names(const std::vector<std::unique_ptr<SelectorNode>>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ", ";
    out += a->name;
  }
  return out;
}

}  // namespace

class SelectionBuilder {
 public:
  SelectionBuilder(Selection& selection, const schema::TableDef& table,
                   const ExecutionContext& context)
      : selection_(selection), table_(table), context_(context) {}

  Result<std::unique_ptr<SelectorNode>> build(const Selector& selector, bool in_aggregate) {
    CASSETTE_ASSIGN_OR_RETURN(auto node, build_unparenthesized(selector, in_aggregate));
    node->name = parenthesized(std::move(node->name), selector.parentheses);
    return node;
  }

 private:
  Result<std::unique_ptr<SelectorNode>> build_unparenthesized(const Selector& selector,
                                                              bool in_aggregate);
  Result<const ColumnDef*> column(const std::string& name) {
    const ColumnDef* c = table_.find_column(name);
    if (c == nullptr)
      return Status::invalid_argument(fmt::format("Undefined column name {}", name));
    if (std::find(selection_.referenced_.begin(), selection_.referenced_.end(), c) ==
        selection_.referenced_.end()) {
      selection_.referenced_.push_back(c);
    }
    return c;
  }
  Result<std::unique_ptr<SelectorNode>> build_function(const Selector& selector, bool in_aggregate);
  Result<std::unique_ptr<SelectorNode>> build_writetime(const Selector& selector);
  Result<std::unique_ptr<SelectorNode>> build_literal(const Selector& selector,
                                                      std::string_view kind, bool in_aggregate);

  Selection& selection_;
  const schema::TableDef& table_;
  const ExecutionContext& context_;
};

// writetime(c), maxwritetime(c), ttl(c) (Cassandra 5.0's Selectable.WritetimeOrTTL): on a
// non-frozen collection or UDT writetime() and ttl() give a list with one entry per element
// (per field), maxwritetime() the greatest timestamp of its cells.
Result<std::unique_ptr<SelectorNode>> SelectionBuilder::build_writetime(const Selector& selector) {
  CASSETTE_ASSIGN_OR_RETURN(const ColumnDef* c, column(selector.column));
  auto node = std::make_unique<SelectorNode>();
  const char* fname = "writetime";
  switch (selector.kind) {
    case Selector::Kind::kMaxWritetime:
      node->kind = SelectorNode::Kind::kMaxWritetime;
      fname = "maxwritetime";
      break;
    case Selector::Kind::kTtl:
      node->kind = SelectorNode::Kind::kTtl;
      fname = "ttl";
      break;
    default:
      node->kind = SelectorNode::Kind::kWritetime;
      break;
  }
  if (c->is_primary_key()) {
    return Status::invalid_argument(
        fmt::format("Cannot use selection function {} on PRIMARY KEY part {}", fname, c->name));
  }
  node->column = c;
  node->type =
      CqlType::simple(node->kind == SelectorNode::Kind::kTtl ? TypeKind::kInt : TypeKind::kBigint);
  node->name = fmt::format("{}({})", fname, c->name);
  bool per_element = c->type.is_multi_cell();
  if (!selector.arguments.empty()) {
    // writetime(s[x]), writetime(m[a..b]), writetime(u.f), writetime(u.f.g): the selection, on
    // the clear value (args[0], its column leaf unmasked), says which cells count.
    CASSETTE_ASSIGN_OR_RETURN(auto path, build(*selector.arguments[0], false));
    SelectorNode* step = path.get();
    SelectorNode* first = nullptr;  // the step applied to the column itself
    size_t depth = 0;
    while (step->kind != SelectorNode::Kind::kColumn) {
      if (step->kind != SelectorNode::Kind::kElement && step->kind != SelectorNode::Kind::kSlice &&
          step->kind != SelectorNode::Kind::kField) {
        return Status::invalid_argument(
            fmt::format("Invalid selection in {}: {}", fname, selector.arguments[0]->source));
      }
      first = step;
      ++depth;
      step = step->args.at(0).get();
    }
    step->function = nullptr;
    step->type = c->type;
    // a slice of a non-frozen collection gives one entry per element; further steps after it
    // would select inside one of them
    per_element = per_element && first->kind == SelectorNode::Kind::kSlice;
    if (per_element && depth > 1) {
      return Status::invalid_argument(
          fmt::format("Invalid selection in {}: {}", fname, selector.arguments[0]->source));
    }
    node->name = fmt::format("{}({})", fname, path->name);
    node->args.push_back(std::move(path));
  }
  if (per_element && node->kind != SelectorNode::Kind::kMaxWritetime) {
    node->type = CqlType::list(node->type, /*frozen=*/true);
  }
  return node;
}

// [a, b], {a, b}, (a, b) of selectors (Selectable.WithList, WithSet,
// BetweenParenthesesOrWithTuple): a list or set takes the type of its first element whose type is
// known (literals take it too), a tuple needs every component's; {a: b} never has one without a
// type hint (WithMapOrUdt.getExactTypeIfKnown), as in Cassandra.
Result<std::unique_ptr<SelectorNode>> SelectionBuilder::build_literal(const Selector& selector,
                                                                      std::string_view kind,
                                                                      bool in_aggregate) {
  auto node = std::make_unique<SelectorNode>();
  node->kind = SelectorNode::Kind::kLiteral;
  std::vector<std::optional<CqlType>> types;
  for (const SelectorPtr& a : selector.arguments) {
    if (a->kind == Selector::Kind::kTerm) {
      auto literal = std::make_unique<SelectorNode>();
      literal->kind = SelectorNode::Kind::kTerm;
      literal->name = parenthesized(term_full_text(*a->term), a->parentheses);
      types.push_back(term_type(*a->term, context_));
      node->args.push_back(std::move(literal));
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*a, in_aggregate));
    types.push_back(arg->type);
    node->contains_aggregate = node->contains_aggregate || arg->contains_aggregate;
    node->args.push_back(std::move(arg));
  }
  std::string names;
  for (size_t i = 0; i < node->args.size(); ++i) {
    if (i > 0) names += kind == kMapSelectorFunction && i % 2 == 1 ? ": " : ", ";
    names += node->args[i]->name;
  }
  const bool tuple = kind == kTupleSelectorFunction;
  node->name = tuple                           ? "(" + names + ")"
               : kind == kListSelectorFunction ? "[" + names + "]"
                                               : "{" + names + "}";
  const auto first_known = std::find_if(
      types.begin(), types.end(), [](const std::optional<CqlType>& t) { return t.has_value(); });
  if (kind == kMapSelectorFunction || first_known == types.end() ||
      (tuple && std::any_of(types.begin(), types.end(),
                            [](const std::optional<CqlType>& t) { return !t.has_value(); }))) {
    return Status::invalid_argument(fmt::format(
        "Cannot infer type for term {} in selection clause (try using a cast to force a type)",
        node->name));
  }
  for (size_t i = 0; i < node->args.size(); ++i) {
    SelectorNode& element = *node->args[i];
    const CqlType expected = tuple ? *types[i] : **first_known;
    if (element.kind == SelectorNode::Kind::kTerm) {
      CASSETTE_ASSIGN_OR_RETURN(element.constant, evaluate_term(*selector.arguments[i]->term,
                                                                expected, element.name, context_));
      element.type = expected;
    } else if (!value_compatible_with(expected, element.type)) {
      return Status::invalid_argument(fmt::format("{} is not of the expected type: {}",
                                                  element.name,
                                                  types::cql_type_name(expected, table_.keyspace)));
    }
  }
  if (tuple) {
    std::vector<CqlType> components;
    for (const auto& t : types) components.push_back(*t);
    node->type = CqlType::tuple(std::move(components));
  } else if (kind == kListSelectorFunction) {
    node->type = CqlType::list(**first_known, /*frozen=*/true);
  } else {
    if ((*first_known)->kind == TypeKind::kDuration) {
      return Status::invalid_argument(
          fmt::format("Durations are not allowed inside sets: {}",
                      types::cql_type_name(CqlType::set(**first_known), table_.keyspace)));
    }
    node->type = CqlType::set(**first_known, /*frozen=*/true);
  }
  return node;
}

Result<std::unique_ptr<SelectorNode>> SelectionBuilder::build_function(const Selector& selector,
                                                                       bool in_aggregate) {
  const std::string name = function_base_name(selector.function);
  const std::string lname = lower(name);
  auto node = std::make_unique<SelectorNode>();

  if (is_native(selector.function) &&
      (lname == kListSelectorFunction || lname == kSetSelectorFunction ||
       lname == kMapSelectorFunction || lname == kTupleSelectorFunction)) {
    return build_literal(selector, lname, in_aggregate);
  }

  if (lname == kTypeHintFunction && is_native(selector.function) &&
      selector.arguments.size() == 1) {
    // WithTypeHint: the selector's values under the hinted type, which must be its own or one
    // its bytes are valid values of (AbstractType.testAssignment).
    CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*selector.arguments[0], in_aggregate));
    const std::string type_name = hint_type_name(selector.type, table_.keyspace);
    arg->name = fmt::format("({}){}", type_name, arg->name);
    if (!value_compatible_with(selector.type, arg->type)) {
      return Status::invalid_argument(
          fmt::format("Cannot assign value {} to {} of type {}", arg->name, arg->name, type_name));
    }
    arg->type = selector.type;
    return arg;
  }

  if (lname == "token" && is_native(selector.function)) {
    // TokenFct: a scalar function whose parameters are the partition key's types. On the key
    // columns themselves it is the row's token; on any other values of those types it is the
    // token those values would have as a key.
    const std::vector<const ColumnDef*>& key = table_.partition_key();
    if (selector.arguments.size() != key.size()) {
      return Status::invalid_argument(fmt::format(
          "Invalid number of arguments in call to function system.token: {} required but {} "
          "provided",
          key.size(), selector.arguments.size()));
    }
    for (size_t i = 0; i < key.size(); ++i) {
      const Selector& a = *selector.arguments[i];
      std::unique_ptr<SelectorNode> arg;
      if (a.kind == Selector::Kind::kTerm) {
        arg = std::make_unique<SelectorNode>();
        arg->kind = SelectorNode::Kind::kTerm;
        arg->name = parenthesized(term_full_text(*a.term), a.parentheses);
        arg->type = key[i]->type;
        CASSETTE_ASSIGN_OR_RETURN(arg->constant,
                                  evaluate_term(*a.term, key[i]->type, a.source, context_));
      } else {
        CASSETTE_ASSIGN_OR_RETURN(arg, build(a, in_aggregate));
        if (!(arg->type == key[i]->type)) {
          return Status::invalid_argument(fmt::format(
              "Type error: {} cannot be passed as argument {} of function system.token of type {}",
              arg->name, i, types::cql_type_name(key[i]->type, table_.keyspace)));
        }
      }
      node->contains_aggregate = node->contains_aggregate || arg->contains_aggregate;
      node->args.push_back(std::move(arg));
    }
    node->kind = SelectorNode::Kind::kToken;
    node->type = CqlType::simple(TypeKind::kBigint);
    node->name = fmt::format("system.token({})", join_arg_names(node->args));
    return node;
  }

  if (is_aggregate_name(lname)) {
    if (in_aggregate) {
      return Status::invalid_argument(
          "aggregate functions cannot be used as arguments of aggregate functions");
    }
    if (selector.arguments.size() != 1) {
      return Status::invalid_argument(fmt::format(
          "Invalid number of arguments in call to function system.{}: 1 required but {} provided",
          lname.starts_with("system.") ? lname.substr(7) : lname, selector.arguments.size()));
    }
    CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*selector.arguments[0], true));
    CASSETTE_ASSIGN_OR_RETURN(AggregateFunction f, resolve_aggregate(lname, arg->type));
    node->kind = SelectorNode::Kind::kAggregate;
    node->aggregate = f;
    node->type = f.result;
    node->name = fmt::format("{}({})", f.name, arg->name);
    node->args.push_back(std::move(arg));
    node->contains_aggregate = true;
    return node;
  }

  // Arguments first (their types drive overload resolution).
  std::vector<FunctionArgument> resolver_args;
  for (const SelectorPtr& a : selector.arguments) {
    if (a->kind == Selector::Kind::kTerm) {
      std::optional<CqlType> t = term_type(*a->term, context_);
      resolver_args.push_back({t, a->source});
      if (a->term->kind == Term::Kind::kList)
        resolver_args.back().list_literal_size = static_cast<int32_t>(a->term->elements.size());
      auto placeholder = std::make_unique<SelectorNode>();
      placeholder->kind = SelectorNode::Kind::kTerm;
      placeholder->name = parenthesized(term_full_text(*a->term), a->parentheses);
      if (t) placeholder->type = *t;
      node->args.push_back(std::move(placeholder));
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*a, in_aggregate));
    resolver_args.push_back({arg->type, arg->name});
    node->contains_aggregate = node->contains_aggregate || arg->contains_aggregate;
    node->args.push_back(std::move(arg));
  }

  if ((lname == "tojson" || lname == "to_json") && is_native(selector.function) &&
      node->args.size() == 1 && resolver_args[0].type) {
    node->kind = SelectorNode::Kind::kToJson;
    node->type = CqlType::simple(TypeKind::kText);
    node->name = fmt::format("system.{}({})", lname, node->args[0]->name);
    return node;
  }

  Result<std::shared_ptr<const ScalarFunction>> resolved =
      resolve_function(name, resolver_args, std::nullopt);
  if (!resolved.is_ok() && is_operator_function(lname)) {
    // Arithmetic the function registry does not know: literal operands are int (bigint when
    // too large) or double, as Cassandra types untyped numeric literals.
    std::vector<CqlType> operand_types;
    for (size_t i = 0; i < resolver_args.size(); ++i) {
      if (resolver_args[i].type) {
        operand_types.push_back(*resolver_args[i].type);
        continue;
      }
      const Term* term = selector.arguments[i]->term.get();
      if (term == nullptr || term->kind != Term::Kind::kConstant ||
          (term->constant_kind != types::ConstantKind::kInteger &&
           term->constant_kind != types::ConstantKind::kFloat &&
           term->constant_kind != types::ConstantKind::kDuration &&
           term->constant_kind != types::ConstantKind::kString)) {
        return resolved.status();
      }
      if (term->constant_kind == types::ConstantKind::kString) {
        operand_types.push_back(CqlType::simple(TypeKind::kText));  // a + ' '
      } else if (term->constant_kind == types::ConstantKind::kDuration) {
        operand_types.push_back(CqlType::simple(TypeKind::kDuration));  // ts + 1d
      } else if (term->constant_kind == types::ConstantKind::kFloat) {
        operand_types.push_back(CqlType::simple(TypeKind::kDouble));
      } else {
        bool fits = types::parse_constant(CqlType::simple(TypeKind::kInt), term->constant_kind,
                                          term->text, "")
                        .is_ok();
        operand_types.push_back(CqlType::simple(fits ? TypeKind::kInt : TypeKind::kBigint));
      }
    }
    std::vector<std::string> operand_texts;
    for (const auto& arg : node->args) operand_texts.push_back(arg->name);
    resolved = resolve_operator(lname, operand_types, operand_texts);
  }
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScalarFunction> f, std::move(resolved));
  // Literal arguments take the parameter's type.
  for (size_t i = 0; i < selector.arguments.size(); ++i) {
    if (selector.arguments[i]->kind != Selector::Kind::kTerm) continue;
    const CqlType& parameter = f->parameter_types.at(i);
    CASSETTE_ASSIGN_OR_RETURN(Value v, evaluate_term(*selector.arguments[i]->term, parameter,
                                                     selector.arguments[i]->source, context_));
    node->args[i]->type = parameter;
    node->args[i]->constant = std::move(v);
  }
  node->kind = SelectorNode::Kind::kScalar;
  node->function = f;
  node->type = f->return_type;
  node->name = fmt::format("{}({})", f->name, join_arg_names(node->args));
  // Operators are named as written: "a + b", "-a" (OperationFcts / NegationFunction).
  static const std::pair<const char*, const char*> kOperators[] = {
      {"_add", "+"}, {"_substract", "-"}, {"_multiply", "*"}, {"_divide", "/"}, {"_modulo", "%"}};
  for (const auto& [function_name, symbol] : kOperators) {
    if (lname == function_name && node->args.size() == 2) {
      node->name = fmt::format("{} {} {}", node->args[0]->name, symbol, node->args[1]->name);
    }
  }
  if (lname == "_negate" && node->args.size() == 1) node->name = "-" + node->args[0]->name;
  return node;
}

Result<std::unique_ptr<SelectorNode>> SelectionBuilder::build_unparenthesized(
    const Selector& selector, bool in_aggregate) {
  auto node = std::make_unique<SelectorNode>();
  switch (selector.kind) {
    case Selector::Kind::kColumn: {
      CASSETTE_ASSIGN_OR_RETURN(node->column, column(selector.column));
      node->kind = SelectorNode::Kind::kColumn;
      node->type = node->column->type;
      node->name = node->column->name;
      // A masked column selected without UNMASK: its values go through the mask (`function`),
      // which may change their type (mask_hash: blob).
      const ColumnDef* masked = context_.unmask || context_.schema == nullptr
                                    ? nullptr
                                    : masked_definition(*context_.schema, table_, *node->column);
      if (masked != nullptr) {
        CASSETTE_ASSIGN_OR_RETURN(node->function, column_masker(*masked));
        node->type = node->function->return_type;
      }
      return node;
    }
    case Selector::Kind::kWritetime:
    case Selector::Kind::kMaxWritetime:
    case Selector::Kind::kTtl:
      return build_writetime(selector);
    case Selector::Kind::kCountStar: {
      if (in_aggregate) {
        return Status::invalid_argument(
            "aggregate functions cannot be used as arguments of aggregate functions");
      }
      node->kind = SelectorNode::Kind::kAggregate;
      node->aggregate.kind = AggregateKind::kCountRows;
      node->aggregate.name = "count";
      node->aggregate.result = CqlType::simple(TypeKind::kBigint);
      node->type = node->aggregate.result;
      node->name = "count";
      node->contains_aggregate = true;
      return node;
    }
    case Selector::Kind::kFunction:
      return build_function(selector, in_aggregate);
    case Selector::Kind::kCast: {
      CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*selector.arguments.at(0), in_aggregate));
      // Selectable.WithCast: a cast to the selector's own type is ignored (the column keeps its
      // name); a DESC clustering column's type is reversed, so it is never the same type.
      const bool reversed = arg->kind == SelectorNode::Kind::kColumn && arg->column != nullptr &&
                            arg->column->descending;
      if (arg->type == selector.type && !reversed) return arg;
      if (!types::can_cast(arg->type, selector.type)) {
        return Status::invalid_argument(
            fmt::format("{} cannot be cast to {}", arg->name,
                        lower(types::cql_type_name(selector.type, table_.keyspace))));
      }
      node->kind = SelectorNode::Kind::kCast;
      node->type = selector.type;
      node->name = fmt::format("cast({} as {})", arg->name,
                               lower(types::cql_type_name(selector.type, table_.keyspace)));
      node->contains_aggregate = arg->contains_aggregate;
      node->args.push_back(std::move(arg));
      return node;
    }
    case Selector::Kind::kFieldAccess: {
      CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*selector.arguments.at(0), in_aggregate));
      if (arg->type.kind != TypeKind::kUdt) {
        return Status::invalid_argument(
            fmt::format("Invalid field selection: {} of type {} is not a user type", arg->name,
                        types::cql_type_name(arg->type, table_.keyspace)));
      }
      auto it =
          std::find(arg->type.field_names.begin(), arg->type.field_names.end(), selector.field);
      if (it == arg->type.field_names.end()) {
        return Status::invalid_argument(
            fmt::format("{} of type {} has no field {}", arg->name,
                        types::cql_type_name(arg->type, table_.keyspace), selector.field));
      }
      node->kind = SelectorNode::Kind::kField;
      node->field_index = static_cast<size_t>(it - arg->type.field_names.begin());
      node->type = arg->type.params[node->field_index];
      node->name = fmt::format("{}.{}", arg->name, selector.field);
      node->contains_aggregate = arg->contains_aggregate;
      node->args.push_back(std::move(arg));
      return node;
    }
    case Selector::Kind::kElement:
    case Selector::Kind::kSlice: {
      CASSETTE_ASSIGN_OR_RETURN(auto arg, build(*selector.arguments.at(0), in_aggregate));
      const CqlType& t = arg->type;
      if (!t.is_collection()) {
        return Status::invalid_argument(
            fmt::format("Invalid element selection: {} is of type {} is not a collection",
                        arg->name, types::cql_type_name(t, table_.keyspace)));
      }
      if (t.kind == TypeKind::kList) {
        return Status::invalid_argument(fmt::format(
            "{} selection is only allowed on sets and maps, but {} is a list",
            selector.kind == Selector::Kind::kElement ? "Element" : "Slice", arg->name));
      }
      const CqlType& key_type = t.params[0];
      auto key_of = [&](const TermPtr& term) -> Result<Value> {
        if (!term) return Value();
        return evaluate_term(*term, key_type, arg->name, context_);
      };
      CASSETTE_ASSIGN_OR_RETURN(node->constant, key_of(selector.key));
      if (selector.kind == Selector::Kind::kElement) {
        node->kind = SelectorNode::Kind::kElement;
        node->type = t.kind == TypeKind::kMap ? t.params[1] : t.params[0];
        node->name = fmt::format("{}[{}]", arg->name, selector.key ? selector.key->source : "");
      } else {
        CASSETTE_ASSIGN_OR_RETURN(node->constant_end, key_of(selector.key_end));
        node->kind = SelectorNode::Kind::kSlice;
        node->type = t;
        node->type.frozen = true;
        node->name = fmt::format("{}[{}..{}]", arg->name, selector.key ? selector.key->source : "",
                                 selector.key_end ? selector.key_end->source : "");
      }
      node->contains_aggregate = arg->contains_aggregate;
      node->args.push_back(std::move(arg));
      return node;
    }
    case Selector::Kind::kTerm: {
      std::optional<CqlType> t = term_type(*selector.term, context_);
      if (!t) {
        return Status::invalid_argument(fmt::format(
            "Cannot infer type for term {} in selection clause (try using a cast to force a type)",
            parenthesized(term_text(*selector.term), selector.parentheses)));
      }
      node->kind = SelectorNode::Kind::kTerm;
      node->type = *t;
      // Term.Raw.getText() (TermSelector's name): "[1, 2]", "{'a': 1}", TypeCast's "(int)3",
      // whatever the spacing written.
      node->name = term_full_text(*selector.term);
      if (selector.term->kind == Term::Kind::kTypeHint && !selector.term->elements.empty()) {
        node->name = fmt::format("({}){}", hint_type_name(selector.term->type, table_.keyspace),
                                 term_full_text(*selector.term->elements[0]));
      }
      CASSETTE_ASSIGN_OR_RETURN(node->constant,
                                evaluate_term(*selector.term, *t, selector.source, context_));
      return node;
    }
  }
  return Status::internal("unknown selector kind");
}

namespace {

void collect_aggregates(const SelectorNode& node, std::vector<const SelectorNode*>* out) {
  if (node.kind == SelectorNode::Kind::kAggregate) {
    const_cast<SelectorNode&>(node).aggregate_index = out->size();
    out->push_back(&node);
    return;
  }
  for (const auto& a : node.args) collect_aggregates(*a, out);
}

}  // namespace

namespace {

Status collect_selector_columns(const schema::TableDef& table, const Selector& selector,
                                std::vector<const ColumnDef*>* out) {
  if (selector.kind == Selector::Kind::kColumn || selector.kind == Selector::Kind::kWritetime ||
      selector.kind == Selector::Kind::kMaxWritetime || selector.kind == Selector::Kind::kTtl) {
    const ColumnDef* c = table.find_column(selector.column);
    if (c == nullptr) {
      return Status::invalid_argument(fmt::format("Undefined column name {}", selector.column));
    }
    out->push_back(c);
  }
  for (const SelectorPtr& a : selector.arguments) {
    CASSETTE_RETURN_IF_ERROR(collect_selector_columns(table, *a, out));
  }
  return Status::ok();
}

}  // namespace

Result<bool> Selection::check_columns(const schema::TableDef& table,
                                      const SelectStatement& statement) {
  std::vector<const ColumnDef*> columns;
  for (const SelectorPtr& s : statement.selectors) {
    CASSETTE_RETURN_IF_ERROR(collect_selector_columns(table, *s, &columns));
  }
  if (statement.selectors.empty() || !table.has_static_columns()) return false;
  bool any_static = false;
  for (const ColumnDef* c : columns) {
    if (c->is_static()) {
      any_static = true;
    } else if (c->kind != schema::ColumnKind::kPartitionKey) {
      return false;
    }
  }
  return any_static;
}

Selection::Selection() = default;
Selection::~Selection() = default;
Selection::Selection(Selection&&) noexcept = default;
Selection& Selection::operator=(Selection&&) noexcept = default;

const SelectorNode& Selection::node(size_t i) const {
  return *selectors_[i];
}

Result<Selection> Selection::prepare(const schema::TableDef& table,
                                     const SelectStatement& statement,
                                     const ExecutionContext& context) {
  Selection selection;
  selection.table_ = &table;
  selection.functions_ = context.functions;
  SelectionBuilder builder(selection, table, context);
  if (statement.selectors.empty()) {
    selection.wildcard_ = true;
    for (const ColumnDef* c : columns_in_select_order(table)) {
      Selector s;
      s.kind = Selector::Kind::kColumn;
      s.column = c->name;
      CASSETTE_ASSIGN_OR_RETURN(auto node, builder.build(s, false));
      selection.selectors_.push_back(std::move(node));
    }
  } else {
    for (const SelectorPtr& s : statement.selectors) {
      CASSETTE_ASSIGN_OR_RETURN(auto node, builder.build(*s, false));
      if (s->alias) node->name = *s->alias;
      selection.selectors_.push_back(std::move(node));
    }
  }
  for (const auto& node : selection.selectors_) {
    selection.columns_.push_back({node->name, node->type});
    collect_aggregates(*node, &selection.aggregates_);
    selection.aggregate_ = selection.aggregate_ || node->contains_aggregate;
  }
  selection.visible_count_ = selection.columns_.size();
  return selection;
}

size_t Selection::index_of_column(const ColumnDef& column) {
  for (size_t i = 0; i < selectors_.size(); ++i) {
    // a masked selection is not the clear value ORDER BY sorts on
    if (selectors_[i]->kind == SelectorNode::Kind::kColumn && selectors_[i]->column == &column &&
        selectors_[i]->function == nullptr) {
      return i;
    }
  }
  auto node = std::make_unique<SelectorNode>();
  node->kind = SelectorNode::Kind::kColumn;
  node->column = &column;
  node->type = column.type;
  node->name = column.name;
  columns_.push_back({node->name, node->type});
  selectors_.push_back(std::move(node));
  // the read loads only referenced columns: a hidden one must be among them
  if (std::find(referenced_.begin(), referenced_.end(), &column) == referenced_.end())
    referenced_.push_back(&column);
  return selectors_.size() - 1;
}

}  // namespace cassette::cql
