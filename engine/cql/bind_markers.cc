// Bind markers (see bind_markers.h). One walk over a statement serves both steps: it finds each
// marker with its receiver, and either records the receiver (prepare) or replaces the marker by
// its value (execute), so the receivers a statement is prepared with are the ones it binds.
#include "engine/cql/bind_markers.h"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "engine/cql/modification.h"
#include "engine/cql/term.h"

namespace cassette::cql {

namespace {

using types::CqlType;
using types::TypeKind;

struct Receiver {
  std::string name;
  CqlType type;
  // What an unset value here is: empty when the term it fills may go (the slot becomes
  // nullptr and its owner drops it), else the error to give.
  std::string unset_error;
  int partition_key_position = -1;
};

bool contains_marker(const Term& term) {
  if (term.kind == Term::Kind::kBindMarker) return true;
  for (const TermPtr& e : term.elements)
    if (e && contains_marker(*e)) return true;
  for (const auto& [k, v] : term.entries)
    if (contains_marker(*k) || contains_marker(*v)) return true;
  for (const auto& [name, v] : term.fields)
    if (contains_marker(*v)) return true;
  return false;
}

std::string unset_for(std::string_view name) {
  return fmt::format("Invalid unset value for {}", name);
}

std::string unset_for_column(std::string_view name) {
  return fmt::format("Invalid unset value for column {}", name);
}

TermPtr bound_term(const Term& marker, const CqlType& type, const types::Value& value) {
  auto term = std::make_shared<Term>();
  term->source = marker.source;
  if (!value) return term;  // kNull
  term->kind = Term::Kind::kBoundValue;
  term->type = type;
  term->bound_value = *value;
  return term;
}

class MarkerWalker {
 public:
  // Prepare: records each marker's receiver in `collected` (sized to the marker count).
  MarkerWalker(const ExecutionContext& context, std::vector<std::optional<BindVariable>>* collected)
      : context_(context), collected_(collected) {}
  // Execute: binds `values`, whose receivers are `variables`.
  MarkerWalker(const ExecutionContext& context, std::span<const BindVariable> variables,
               std::span<const BoundValue> values)
      : context_(context), variables_(variables), values_(values) {}

  Status statement(Statement& statement) {
    return std::visit(
        [&](auto& s) -> Status {
          using T = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<T, SelectStatement>)
            return select(s);
          else if constexpr (std::is_same_v<T, InsertStatement>)
            return insert(s);
          else if constexpr (std::is_same_v<T, UpdateStatement>)
            return update(s);
          else if constexpr (std::is_same_v<T, DeleteStatement>)
            return remove(s);
          else if constexpr (std::is_same_v<T, BatchStatement>)
            return batch(s);
          else
            return Status::ok();  // no terms that can hold a marker
        },
        statement);
  }

  // Whether unset values left a statement nothing to do.
  bool nothing_to_do() const { return nothing_to_do_; }

 private:
  bool binding() const { return collected_ == nullptr; }

  // ---- statements -------------------------------------------------------------------------

  Status select(SelectStatement& s) {
    CASSETTE_RETURN_IF_ERROR(table(s.table));
    CASSETTE_RETURN_IF_ERROR(where(s.where));
    CASSETTE_RETURN_IF_ERROR(term(s.limit, synthetic("[limit]", TypeKind::kInt)));
    return term(s.per_partition_limit, synthetic("[per_partition_limit]", TypeKind::kInt));
  }

  Status insert(InsertStatement& s) {
    CASSETTE_RETURN_IF_ERROR(table(s.table));
    CASSETTE_RETURN_IF_ERROR(using_clause(s.using_clause));
    if (s.json) {
      Receiver json = synthetic("[json]", TypeKind::kText);
      json.unset_error = unset_for("[json]");
      return term(s.json_value, json);
    }
    // Cassandra's order of checks (UpdateStatement.ParsedInsert): the lists' lengths first.
    if (s.values.size() != s.columns.size()) {
      return Status::invalid_argument("Unmatched column names/values");
    }
    for (size_t i = 0; i < s.values.size(); ++i) {
      const schema::ColumnDef* def = table_->find_column(s.columns[i]);
      if (def == nullptr) {
        if (!contains_marker(*s.values[i])) continue;  // the executor names it
        return existing_column(*table_, s.columns[i]).status();
      }
      CASSETTE_RETURN_IF_ERROR(term(s.values[i], column_receiver(*def)));
    }
    // An unset value leaves its column as it is: the column is not written at all.
    for (size_t i = s.values.size(); i-- > 0;) {
      if (s.values[i] != nullptr || i >= s.columns.size()) continue;
      s.values.erase(s.values.begin() + static_cast<std::ptrdiff_t>(i));
      s.columns.erase(s.columns.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return Status::ok();
  }

  Status update(UpdateStatement& s) {
    CASSETTE_RETURN_IF_ERROR(table(s.table));
    CASSETTE_RETURN_IF_ERROR(using_clause(s.using_clause));
    for (Assignment& a : s.assignments) CASSETTE_RETURN_IF_ERROR(assignment(a));
    std::erase_if(s.assignments, [](const Assignment& a) { return a.value == nullptr; });
    if (s.assignments.empty()) nothing_to_do_ = true;
    CASSETTE_RETURN_IF_ERROR(where(s.where));
    return conditions(s.conditions);
  }

  Status remove(DeleteStatement& s) {
    CASSETTE_RETURN_IF_ERROR(table(s.table));
    CASSETTE_RETURN_IF_ERROR(using_clause(s.using_clause));
    const bool had_targets = !s.targets.empty();
    std::vector<DeleteTarget> kept;
    for (DeleteTarget& target : s.targets) {
      if (target.element) {
        CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* def, column(target.column));
        if (def->type.is_collection()) {
          CASSETTE_RETURN_IF_ERROR(term(target.element, element_key_receiver(*def, true)));
          // DELETE l[?] with ? unset deletes nothing, not the row.
          if (target.element == nullptr) continue;
        }
      }
      kept.push_back(std::move(target));
    }
    s.targets = std::move(kept);
    if (had_targets && s.targets.empty()) nothing_to_do_ = true;
    CASSETTE_RETURN_IF_ERROR(where(s.where));
    return conditions(s.conditions);
  }

  Status batch(BatchStatement& s) {
    CASSETTE_RETURN_IF_ERROR(using_clause(s.using_clause));
    for (auto& inner : s.statements) {
      CASSETTE_RETURN_IF_ERROR(std::visit(
          [&](auto& child) -> Status {
            Statement wrapped = std::move(child);
            Status st = statement(wrapped);
            child = std::move(std::get<std::decay_t<decltype(child)>>(wrapped));
            return st;
          },
          inner));
    }
    nothing_to_do_ = false;  // the batch's other statements still run
    return Status::ok();
  }

  // ---- clauses ----------------------------------------------------------------------------

  Status using_clause(UsingClause& using_clause) {
    CASSETTE_RETURN_IF_ERROR(term(using_clause.ttl, synthetic("[ttl]", TypeKind::kInt)));
    return term(using_clause.timestamp, synthetic("[timestamp]", TypeKind::kBigint));
  }

  Status assignment(Assignment& a) {
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* def, column(a.column));
    const CqlType& type = def->type;
    switch (a.kind) {
      case Assignment::Kind::kSet:
      case Assignment::Kind::kAdd:
      case Assignment::Kind::kPrepend:
        return term(a.value, Receiver{def->name, type, {}, -1});
      case Assignment::Kind::kSubtract:
        // m = m - ? removes keys: a set of the map's key type (Operation.Substraction).
        if (type.kind == TypeKind::kMap) {
          return term(a.value, Receiver{def->name, CqlType::set(type.params[0]), {}, -1});
        }
        return term(a.value, Receiver{def->name, type, {}, -1});
      case Assignment::Kind::kSetElement:
        if (!type.is_collection() || type.kind == TypeKind::kSet) return Status::ok();
        CASSETTE_RETURN_IF_ERROR(term(a.key, element_key_receiver(*def, false)));
        return term(a.value,
                    Receiver{fmt::format("value({})", def->name), type.params.back(), {}, -1});
      case Assignment::Kind::kSetField:
        for (size_t i = 0; i < type.field_names.size(); ++i) {
          if (type.field_names[i] != a.field) continue;
          return term(a.value,
                      Receiver{fmt::format("{}.{}", def->name, a.field), type.params[i], {}, -1});
        }
        return Status::ok();  // the executor names the unknown field
    }
    return Status::ok();
  }

  // The receiver of l[?] / m[?] / s[?]: a list index, a map key, a set element. In UPDATE an
  // unset index is an error; in DELETE (`may_go`) it deletes nothing.
  Receiver element_key_receiver(const schema::ColumnDef& def, bool may_go) {
    Receiver r;
    switch (def.type.kind) {
      case TypeKind::kList:
        r = {fmt::format("idx({})", def.name), CqlType::simple(TypeKind::kInt),
             "Invalid unset value for list index", -1};
        break;
      case TypeKind::kMap:
        r = {fmt::format("key({})", def.name), def.type.params[0],
             "Invalid unset value for map key", -1};
        break;
      default:
        r = {fmt::format("value({})", def.name), def.type.params[0],
             "Invalid unset value for set element", -1};
    }
    if (may_go) r.unset_error.clear();
    return r;
  }

  Status where(std::vector<Relation>& relations) {
    for (Relation& r : relations) CASSETTE_RETURN_IF_ERROR(relation(r));
    return Status::ok();
  }

  Status relation(Relation& r) {
    switch (r.kind) {
      case Relation::Kind::kToken:
        return token_relation(r);
      case Relation::Kind::kMultiColumn:
        return multi_column_relation(r);
      case Relation::Kind::kSingleColumn:
        return single_column_relation(r);
    }
    return Status::ok();
  }

  // token(k) > ? takes a token; token(k) > token(?) the partition key's values, as arguments
  // of the table's token function (FunctionResolver makes one per table: TokenFct).
  Status token_relation(Relation& r) {
    if (!r.value || !contains_marker(*r.value)) return Status::ok();
    if (r.value->kind != Term::Kind::kFunctionCall || r.value->function.name != "token") {
      Receiver token{"partition key token", CqlType::simple(TypeKind::kBigint),
                     unset_for("partition key token"), -1};
      return term(r.value, token);
    }
    Term call = *r.value;
    const auto& key = table_->partition_key();
    for (size_t i = 0; i < call.elements.size() && i < key.size(); ++i) {
      Receiver argument{fmt::format("arg{}(system.token)", i), key[i]->type,
                        "Invalid unset value for argument in call to function token", -1};
      CASSETTE_RETURN_IF_ERROR(term(call.elements[i], argument));
    }
    r.value = std::make_shared<Term>(std::move(call));
    return Status::ok();
  }

  Status single_column_relation(Relation& r) {
    if (!relation_has_marker(r)) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* def, column(r.columns.at(0)));
    const CqlType& type = def->type;
    const std::string unset = unset_for_column(def->name);
    if (r.map_key) {
      if (type.kind != TypeKind::kMap) return Status::ok();
      CASSETTE_RETURN_IF_ERROR(
          term(r.map_key, {fmt::format("key({})", def->name), type.params[0], unset, -1}));
      return term(r.value, {fmt::format("value({})", def->name), type.params[1], unset, -1});
    }
    if (r.op == Operator::kContains || r.op == Operator::kContainsKey) {
      if (!type.is_collection()) return Status::ok();
      const bool key = r.op == Operator::kContainsKey;
      return term(r.value, {fmt::format("{}({})", key ? "key" : "value", def->name),
                            key ? type.params.front() : type.params.back(), unset, -1});
    }
    Receiver receiver = column_receiver(*def);
    receiver.unset_error = unset;
    if (r.in_marker) return in_marker(r.value, r.in_values, r.in_marker, receiver);
    for (TermPtr& value : r.in_values) CASSETTE_RETURN_IF_ERROR(term(value, receiver));
    if (r.op != Operator::kEq) receiver.partition_key_position = -1;
    return term(r.value, receiver);
  }

  // (a, b) op (?, ?), (a, b) op ?, (a, b) IN ((?, ?), ?), (a, b) IN ?
  Status multi_column_relation(Relation& r) {
    if (!relation_has_marker(r)) return Status::ok();
    std::vector<Receiver> columns;
    std::vector<CqlType> types;
    std::vector<std::string> names;
    for (const std::string& name : r.columns) {
      CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* def, column(name));
      Receiver receiver = column_receiver(*def);
      receiver.unset_error = unset_for_column(def->name);
      receiver.partition_key_position = -1;
      columns.push_back(receiver);
      types.push_back(def->type);
      names.push_back(def->name);
    }
    const std::string tuple_name = fmt::format("({})", fmt::join(names, ","));
    Receiver tuple{tuple_name, CqlType::tuple(types), unset_for_column(tuple_name), -1};
    if (r.in_marker) return in_marker(r.value, r.in_values, r.in_marker, tuple);
    CASSETTE_RETURN_IF_ERROR(tuple_term(r.value, columns, tuple));
    for (TermPtr& value : r.in_values) CASSETTE_RETURN_IF_ERROR(tuple_term(value, columns, tuple));
    return Status::ok();
  }

  // A tuple of (a, b): (?, ?) binds each column; ? binds a tuple, which becomes (x, y).
  Status tuple_term(TermPtr& slot, const std::vector<Receiver>& columns, const Receiver& tuple) {
    if (!slot) return Status::ok();
    if (slot->kind == Term::Kind::kTuple) {
      if (slot->elements.size() != columns.size()) return Status::ok();  // executor's message
      Term copy = *slot;
      for (size_t i = 0; i < columns.size(); ++i)
        CASSETTE_RETURN_IF_ERROR(term(copy.elements[i], columns[i]));
      slot = std::make_shared<Term>(std::move(copy));
      return Status::ok();
    }
    CASSETTE_RETURN_IF_ERROR(term(slot, tuple));
    if (binding() && slot->kind == Term::Kind::kBoundValue) slot = split_tuple(*slot);
    return Status::ok();
  }

  static TermPtr split_tuple(const Term& bound) {
    auto tuple = std::make_shared<Term>();
    tuple->kind = Term::Kind::kTuple;
    tuple->source = bound.source;
    auto components = types::deserialize_tuple(bound.bound_value);
    if (!components.is_ok()) return std::make_shared<Term>(bound);
    for (size_t i = 0; i < components->size(); ++i) {
      tuple->elements.push_back(bound_term(bound, bound.type.params.at(i), (*components)[i]));
    }
    return tuple;
  }

  // IN ?: a list of the receiver's type named in(name), bound as the IN list of its elements.
  Status in_marker(TermPtr& value, std::vector<TermPtr>& in_values, bool& is_marker,
                   const Receiver& element) {
    const std::string name = fmt::format("in({})", element.name);
    Receiver list{name, CqlType::list(element.type), element.unset_error, -1};
    CASSETTE_RETURN_IF_ERROR(term(value, list));
    if (!binding()) return Status::ok();
    if (value->kind == Term::Kind::kNull) {
      constexpr std::string_view kUnset = "Invalid unset value for";
      return Status::invalid_argument(
          fmt::format("Invalid null value for{}", element.unset_error.substr(kUnset.size())));
    }
    CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                              types::deserialize_list(value->bound_value));
    for (std::string& bytes : elements) {
      TermPtr bound = bound_term(*value, element.type, std::move(bytes));
      if (element.type.kind == TypeKind::kTuple) bound = split_tuple(*bound);
      in_values.push_back(std::move(bound));
    }
    value = nullptr;
    is_marker = false;
    return Status::ok();
  }

  Status conditions(std::vector<Condition>& conditions) {
    for (Condition& c : conditions) {
      if (!(c.value && contains_marker(*c.value)) && !(c.element && contains_marker(*c.element))) {
        bool any = false;
        for (const TermPtr& v : c.in_values) any = any || contains_marker(*v);
        if (!any) continue;
      }
      CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* def, column(c.column));
      const std::string unset = unset_for_column(def->name);
      Receiver receiver{def->name, def->type, unset, -1};
      if (c.element && def->type.is_collection()) {
        Receiver key = element_key_receiver(*def, false);
        key.unset_error = unset;
        CASSETTE_RETURN_IF_ERROR(term(c.element, key));
        receiver = {fmt::format("value({})", def->name), def->type.params.back(), unset, -1};
      } else if (!c.field.empty()) {
        for (size_t i = 0; i < def->type.field_names.size(); ++i) {
          if (def->type.field_names[i] == c.field) {
            receiver = {fmt::format("{}.{}", def->name, c.field), def->type.params[i], unset, -1};
          }
        }
      }
      if (c.op == Operator::kIn && c.value) {
        bool is_marker = true;
        CASSETTE_RETURN_IF_ERROR(in_marker(c.value, c.in_values, is_marker, receiver));
        continue;
      }
      for (TermPtr& v : c.in_values) CASSETTE_RETURN_IF_ERROR(term(v, receiver));
      CASSETTE_RETURN_IF_ERROR(term(c.value, receiver));
    }
    return Status::ok();
  }

  // ---- terms ------------------------------------------------------------------------------

  Status term(TermPtr& slot, const Receiver& receiver) {
    if (!slot || !contains_marker(*slot)) return Status::ok();
    if (slot->kind == Term::Kind::kBindMarker) return marker(slot, receiver);
    Term copy = *slot;
    CASSETTE_RETURN_IF_ERROR(composite(copy, receiver));
    slot = std::make_shared<Term>(std::move(copy));
    return Status::ok();
  }

  // A literal, function call or type hint with markers inside.
  Status composite(Term& t, const Receiver& receiver) {
    const CqlType& type = receiver.type;
    auto inner = [&](std::string name, const CqlType& inner_type) {
      return Receiver{std::move(name), inner_type, unset_for(receiver.name), -1};
    };
    auto mismatch = [&](std::string_view what) {
      return Status::invalid_argument(fmt::format("Invalid {} literal for {} of type {}", what,
                                                  receiver.name,
                                                  types::cql_type_name(type, context_.keyspace)));
    };
    switch (t.kind) {
      case Term::Kind::kList:
      case Term::Kind::kSet:
        if (!binding() &&
            type.kind != (t.kind == Term::Kind::kList ? TypeKind::kList : TypeKind::kSet)) {
          return mismatch(t.kind == Term::Kind::kList ? "list" : "set");
        }
        for (TermPtr& e : t.elements) {
          CASSETTE_RETURN_IF_ERROR(term(e, inner(fmt::format("value({})", receiver.name),
                                                 binding() ? CqlType() : type.params[0])));
        }
        return Status::ok();
      case Term::Kind::kMap:
        if (!binding() && type.kind != TypeKind::kMap) return mismatch("map");
        for (auto& [k, v] : t.entries) {
          CASSETTE_RETURN_IF_ERROR(term(k, inner(fmt::format("key({})", receiver.name),
                                                 binding() ? CqlType() : type.params[0])));
          CASSETTE_RETURN_IF_ERROR(term(v, inner(fmt::format("value({})", receiver.name),
                                                 binding() ? CqlType() : type.params[1])));
        }
        return Status::ok();
      case Term::Kind::kTuple:
        if (!binding() &&
            (type.kind != TypeKind::kTuple || type.params.size() < t.elements.size())) {
          return mismatch("tuple");
        }
        for (size_t i = 0; i < t.elements.size(); ++i) {
          CASSETTE_RETURN_IF_ERROR(
              term(t.elements[i], inner(fmt::format("{}[{}]", receiver.name, i),
                                        binding() ? CqlType() : type.params[i])));
        }
        return Status::ok();
      case Term::Kind::kUserType:
        return user_type(t, receiver);
      case Term::Kind::kFunctionCall:
        return function_call(t, receiver);
      case Term::Kind::kTypeHint:
      case Term::Kind::kNegation:
        return term(t.elements.at(0), receiver);
      default:
        return Status::ok();
    }
  }

  Status user_type(Term& t, const Receiver& receiver) {
    const CqlType& type = receiver.type;
    if (!binding() && type.kind != TypeKind::kUdt) {
      return Status::invalid_argument(fmt::format("Invalid user type literal for {} of type {}",
                                                  receiver.name,
                                                  types::cql_type_name(type, context_.keyspace)));
    }
    for (auto& [field, value] : t.fields) {
      CqlType field_type;
      for (size_t i = 0; !binding() && i < type.field_names.size(); ++i)
        if (type.field_names[i] == field) field_type = type.params[i];
      if (!binding() && type.field_names.end() ==
                            std::find(type.field_names.begin(), type.field_names.end(), field)) {
        return Status::invalid_argument(fmt::format(
            "Unknown field '{}' in value of user defined type {}", field, type.udt_name));
      }
      CASSETTE_RETURN_IF_ERROR(term(value, {fmt::format("{}.{}", receiver.name, field), field_type,
                                            unset_for(receiver.name), -1}));
    }
    return Status::ok();
  }

  // f(?, ...): each marker takes the type of the parameter it fills in the overload the call
  // resolves to with its receiver's type, named arg<i>(<function>) (AbstractFunction.makeArgSpec).
  Status function_call(Term& t, const Receiver& receiver) {
    std::string name = t.function.name;
    std::vector<CqlType> parameters(t.elements.size());
    if (!binding()) {
      CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScalarFunction> function,
                                resolve_function_call(t, receiver.type, context_));
      name = function->name;
      for (size_t i = 0; i < parameters.size() && i < function->parameter_types.size(); ++i)
        parameters[i] = function->parameter_types[i];
    }
    const std::string short_name = name.substr(name.find('.') + 1);
    for (size_t i = 0; i < t.elements.size(); ++i) {
      Receiver argument{
          fmt::format("arg{}({})", i, name), parameters[i],
          fmt::format("Invalid unset value for argument in call to function {}", short_name), -1};
      CASSETTE_RETURN_IF_ERROR(term(t.elements[i], argument));
    }
    return Status::ok();
  }

  Status marker(TermPtr& slot, const Receiver& receiver) {
    const size_t index = static_cast<size_t>(slot->bind_index);
    if (!binding()) {
      if (index >= collected_->size()) return Status::internal("bind marker out of range");
      (*collected_)[index] = BindVariable{table_keyspace_, table_name_,
                                          slot->text.empty() ? receiver.name : slot->text,
                                          receiver.type, receiver.partition_key_position};
      return Status::ok();
    }
    const BindVariable& variable = variables_[index];
    const BoundValue& value = values_[index];
    switch (value.kind) {
      case BoundValue::Kind::kUnset:
        if (!receiver.unset_error.empty()) return Status::invalid_argument(receiver.unset_error);
        slot = nullptr;
        return Status::ok();
      case BoundValue::Kind::kNull:
        slot = bound_term(*slot, variable.type, std::nullopt);
        return Status::ok();
      case BoundValue::Kind::kValue:
        CASSETTE_RETURN_IF_ERROR(types::validate_value(variable.type, value.bytes));
        slot = bound_term(*slot, variable.type, value.bytes);
        return Status::ok();
    }
    return Status::ok();
  }

  // ---- names ------------------------------------------------------------------------------

  Status table(QualifiedName& name) {
    CASSETTE_ASSIGN_OR_RETURN(table_, context_.resolve_table(name));
    name.keyspace = table_->keyspace;
    table_keyspace_ = table_->keyspace;
    table_name_ = table_->name;
    return Status::ok();
  }

  Result<const schema::ColumnDef*> column(std::string_view name) const {
    const schema::ColumnDef* def = table_->find_column(name);
    if (def == nullptr) {
      return Status::invalid_argument(fmt::format("Undefined column name {}", name));
    }
    return def;
  }

  Receiver column_receiver(const schema::ColumnDef& def) const {
    Receiver r{def.name, def.type, {}, -1};
    if (def.is_primary_key()) r.unset_error = unset_for_column(def.name);
    if (def.kind == schema::ColumnKind::kPartitionKey) r.partition_key_position = def.position;
    return r;
  }

  Receiver synthetic(std::string name, TypeKind kind) const {
    return Receiver{std::move(name), CqlType::simple(kind), {}, -1};
  }

  static bool relation_has_marker(const Relation& r) {
    if (r.value && contains_marker(*r.value)) return true;
    if (r.map_key && contains_marker(*r.map_key)) return true;
    for (const TermPtr& v : r.in_values)
      if (contains_marker(*v)) return true;
    return false;
  }

  const ExecutionContext& context_;
  std::vector<std::optional<BindVariable>>* collected_ = nullptr;
  std::span<const BindVariable> variables_;
  std::span<const BoundValue> values_;
  std::shared_ptr<const schema::TableDef> table_;
  std::string table_keyspace_;
  std::string table_name_;
  bool nothing_to_do_ = false;
};

}  // namespace

Result<std::vector<BindVariable>> bind_variables(Statement& statement, size_t marker_count,
                                                 const ExecutionContext& context) {
  std::vector<std::optional<BindVariable>> collected(marker_count);
  MarkerWalker walker(context, &collected);
  CASSETTE_RETURN_IF_ERROR(walker.statement(statement));
  std::vector<BindVariable> variables;
  for (std::optional<BindVariable>& v : collected) {
    // A marker the walk did not reach sits where no receiver gives it a type (a selector).
    if (!v) return Status::invalid_argument("Bind variables are not supported here: ?");
    variables.push_back(std::move(*v));
  }
  return variables;
}

Result<std::optional<Statement>> bind_values(const Statement& statement,
                                             std::span<const BindVariable> variables,
                                             std::span<const BoundValue> values,
                                             const ExecutionContext& context) {
  Statement bound = statement;
  MarkerWalker walker(context, variables, values);
  CASSETTE_RETURN_IF_ERROR(walker.statement(bound));
  if (walker.nothing_to_do()) return std::optional<Statement>();
  return std::optional<Statement>(std::move(bound));
}

}  // namespace cassette::cql
