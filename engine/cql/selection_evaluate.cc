// Evaluating prepared selectors on rows, and aggregating rows into groups (see selection.h).
#include "engine/codec/table_codec.h"
#include "engine/cql/selection_internal.h"
#include "engine/types/murmur3.h"
#include "engine/types/scalar.h"

namespace cassette::cql {

using schema::ColumnDef;
using types::CqlType;
using types::TypeKind;
using types::Value;

namespace {

Value int64_value(int64_t v) {
  return types::store_be(static_cast<uint64_t>(v), 8);
}

Value int32_value(int32_t v) {
  return types::store_be(static_cast<uint32_t>(v), 4);
}

Value column_value(const SelectionRow& row, const schema::TableDef& table, const ColumnDef& c) {
  return (*row.values)[static_cast<size_t>(&c - table.columns.data())];
}

// Evaluates a node: aggregates come from `states` (the group's results), everything else from
// `row`.

}  // namespace

namespace selection_internal {

Result<Value> evaluate_node(const SelectorNode& node, const schema::TableDef& table,
                            const SelectionRow& row, const std::vector<AggregateState>* states,
                            const FunctionContext* functions) {
  switch (node.kind) {
    case SelectorNode::Kind::kColumn: {
      if (node.function == nullptr) return column_value(row, table, *node.column);
      const Value clear = column_value(row, table, *node.column);
      FunctionContext fc;
      if (functions) fc = *functions;
      return node.function->apply(std::span<const Value>(&clear, 1), fc);  // a column mask
    }
    case SelectorNode::Kind::kWritetime:
    case SelectorNode::Kind::kMaxWritetime:
    case SelectorNode::Kind::kTtl: {
      const storage::Row* source = node.column->is_static() ? row.static_row : row.row;
      if (source == nullptr) return Value();
      const bool ttl = node.kind == SelectorNode::Kind::kTtl;
      auto encode = [ttl](int64_t v) {
        return ttl ? int32_value(static_cast<int32_t>(v)) : int64_value(v);
      };
      // writetime(s[x]) and the like: nothing selected, no time
      const SelectorNode* first = nullptr;  // the selection's step on the column itself
      if (!node.args.empty()) {
        CASSETTE_ASSIGN_OR_RETURN(Value selected,
                                  evaluate_node(*node.args[0], table, row, states, functions));
        if (!selected) return Value();
        first = node.args[0].get();
        while (first->args.at(0)->kind != SelectorNode::Kind::kColumn) first = first->args[0].get();
      }
      if (!node.column->type.is_multi_cell()) {
        // a frozen value's parts all have the column's one time
        std::optional<int64_t> v = ttl ? column_ttl(*node.column, *source, row.now_seconds)
                                       : column_writetime(*node.column, *source);
        if (!v) return Value();
        return encode(*v);
      }
      auto times = element_times(*node.column, *source, !ttl, row.now_seconds);
      if (!times) return Value();
      if (first != nullptr && first->kind == SelectorNode::Kind::kField) {
        const std::optional<int64_t>& t = first->field_index < times->size()
                                              ? (*times)[first->field_index]
                                              : std::optional<int64_t>();
        return t ? encode(*t) : Value();
      }
      if (first != nullptr) {
        // an element or slice of a set or map: its entries, in key order as `times`
        const Value clear = column_value(row, table, *node.column);
        if (!clear) return Value();
        const CqlType& type = node.column->type;
        std::vector<std::string> keys;
        if (type.kind == TypeKind::kMap) {
          CASSETTE_ASSIGN_OR_RETURN(auto entries, types::deserialize_map(*clear));
          for (auto& e : entries) keys.push_back(std::move(e.first));
        } else {
          CASSETTE_ASSIGN_OR_RETURN(keys, types::deserialize_list(*clear));
        }
        const CqlType& key_type = type.params[0];
        std::vector<std::optional<int64_t>> kept;
        for (size_t i = 0; i < keys.size() && i < times->size(); ++i) {
          const std::string& key = keys[i];
          if (first->kind == SelectorNode::Kind::kElement) {
            if (first->constant && types::compare_values(key_type, key, *first->constant) == 0) {
              return (*times)[i] ? encode(*(*times)[i]) : Value();
            }
            continue;
          }
          if (first->constant && types::compare_values(key_type, key, *first->constant) < 0) {
            continue;
          }
          if (first->constant_end &&
              types::compare_values(key_type, key, *first->constant_end) > 0) {
            continue;
          }
          kept.push_back((*times)[i]);
        }
        if (first->kind == SelectorNode::Kind::kElement || kept.empty()) return Value();
        *times = std::move(kept);
      }
      if (node.kind == SelectorNode::Kind::kMaxWritetime) {
        std::optional<int64_t> max;
        for (const std::optional<int64_t>& t : *times) {
          if (t && (!max || *t > *max)) max = t;
        }
        if (!max) return Value();
        return encode(*max);
      }
      // A list whose null entries (an element without TTL, a UDT field without a cell) are
      // written as length -1, as Cassandra's ColumnTimestamps does.
      std::vector<Value> entries;
      for (const std::optional<int64_t>& t : *times) {
        entries.push_back(t ? encode(*t) : Value());
      }
      std::string out = types::store_be(static_cast<uint32_t>(entries.size()), 4);
      out += types::serialize_tuple(entries);
      return Value(std::move(out));
    }
    case SelectorNode::Kind::kToken: {
      bool on_key = true;
      for (size_t i = 0; i < node.args.size(); ++i) {
        const SelectorNode& a = *node.args[i];
        on_key = on_key && a.kind == SelectorNode::Kind::kColumn &&
                 a.column->kind == schema::ColumnKind::kPartitionKey &&
                 static_cast<size_t>(a.column->position) == i;
      }
      if (on_key) return int64_value(row.token);
      std::vector<std::string> components;
      for (const auto& a : node.args) {
        CASSETTE_ASSIGN_OR_RETURN(Value v, evaluate_node(*a, table, row, states, functions));
        if (!v) return Value();  // TokenFct returns null for a null component
        components.push_back(std::move(*v));
      }
      return int64_value(types::murmur3_token(partition_key_bytes(components)));
    }
    case SelectorNode::Kind::kAggregate:
      if (states == nullptr) return Status::internal("aggregate evaluated outside a group");
      return (*states)[node.aggregate_index].result();
    case SelectorNode::Kind::kTerm:
      return node.constant;
    default:
      break;
  }
  std::vector<Value> args;
  for (const auto& a : node.args) {
    CASSETTE_ASSIGN_OR_RETURN(Value v, evaluate_node(*a, table, row, states, functions));
    args.push_back(std::move(v));
  }
  switch (node.kind) {
    case SelectorNode::Kind::kScalar: {
      if (!node.function->called_on_null_input) {
        for (const Value& v : args) {
          if (!v) return Value();
        }
      }
      FunctionContext fc;
      if (functions) fc = *functions;
      return node.function->apply(args, fc);
    }
    case SelectorNode::Kind::kLiteral: {
      if (node.type.kind == TypeKind::kTuple) return Value(types::serialize_tuple(args));
      std::vector<std::string> elements;
      for (Value& v : args) {
        if (!v) return Status::invalid_argument("null is not supported inside collections");
        elements.push_back(std::move(*v));
      }
      if (node.type.kind == TypeKind::kList) return Value(types::serialize_list(elements));
      return Value(types::serialize_set(node.type.params[0], std::move(elements)));
    }
    case SelectorNode::Kind::kCast:
      if (!args[0]) return Value();
      return types::cast_value(node.args[0]->type, node.type, args[0]);
    case SelectorNode::Kind::kToJson:
      return Value(types::to_json(node.args[0]->type, args[0]));
    case SelectorNode::Kind::kField: {
      if (!args[0]) return Value();
      CASSETTE_ASSIGN_OR_RETURN(std::vector<Value> fields, types::deserialize_tuple(*args[0]));
      if (node.field_index >= fields.size()) return Value();
      return fields[node.field_index];
    }
    case SelectorNode::Kind::kElement:
    case SelectorNode::Kind::kSlice: {
      if (!args[0]) return Value();
      const CqlType& t = node.args[0]->type;
      const CqlType& key_type = t.params[0];
      auto in_slice = [&](std::string_view key) {
        if (node.constant && types::compare_values(key_type, key, *node.constant) < 0) return false;
        if (node.constant_end && types::compare_values(key_type, key, *node.constant_end) > 0) {
          return false;
        }
        return true;
      };
      if (t.kind == TypeKind::kMap) {
        CASSETTE_ASSIGN_OR_RETURN(auto entries, types::deserialize_map(*args[0]));
        if (node.kind == SelectorNode::Kind::kElement) {
          if (!node.constant) return Value();
          for (auto& [k, v] : entries) {
            if (types::compare_values(key_type, k, *node.constant) == 0) return Value(v);
          }
          return Value();
        }
        std::vector<std::pair<std::string, std::string>> kept;
        for (auto& e : entries) {
          if (in_slice(e.first)) kept.push_back(e);
        }
        if (kept.empty()) return Value();
        return Value(types::serialize_map(key_type, std::move(kept)));
      }
      CASSETTE_ASSIGN_OR_RETURN(auto elements, types::deserialize_list(*args[0]));
      if (node.kind == SelectorNode::Kind::kElement) {
        if (!node.constant) return Value();
        for (auto& e : elements) {
          if (types::compare_values(key_type, e, *node.constant) == 0) return Value(e);
        }
        return Value();
      }
      std::vector<std::string> kept;
      for (auto& e : elements) {
        if (in_slice(e)) kept.push_back(e);
      }
      if (kept.empty()) return Value();
      return Value(types::serialize_set(key_type, std::move(kept)));
    }
    default:
      return Status::internal("unexpected selector");
  }
}

}  // namespace selection_internal

using selection_internal::evaluate_node;

Result<std::vector<Value>> Selection::evaluate(const SelectionRow& row) const {
  std::vector<Value> out;
  out.reserve(selectors_.size());
  for (const auto& node : selectors_) {
    CASSETTE_ASSIGN_OR_RETURN(Value v, evaluate_node(*node, *table_, row, nullptr, &functions_));
    out.push_back(std::move(v));
  }
  return out;
}

// The first row of a group, kept whole: non-aggregate selectors read it at the end.
struct Selection::Group::FirstRow {
  RowValues values;
  std::optional<storage::Row> row;
  std::optional<storage::Row> static_row;
  int64_t token = 0;
  int64_t now_seconds = 0;
};

Selection::Group::Group(const Selection& selection) : selection_(&selection) {
  for (const SelectorNode* a : selection.aggregates_) states_.emplace_back(&a->aggregate);
}

Status Selection::Group::add(const SelectionRow& row) {
  if (!first_) {
    first_ = std::make_shared<FirstRow>();
    first_->values = *row.values;
    if (row.row) first_->row = *row.row;
    if (row.static_row) first_->static_row = *row.static_row;
    first_->token = row.token;
    first_->now_seconds = row.now_seconds;
  }
  for (size_t i = 0; i < selection_->aggregates_.size(); ++i) {
    const SelectorNode* a = selection_->aggregates_[i];
    if (a->aggregate.kind == AggregateKind::kCountRows) {
      states_[i].add(Value());
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(Value v, evaluate_node(*a->args[0], *selection_->table_, row, nullptr,
                                                     &selection_->functions_));
    states_[i].add(v);
  }
  return Status::ok();
}

Result<std::vector<Value>> Selection::Group::result() const {
  RowValues empty(selection_->table_->columns.size());
  SelectionRow row;
  row.values = first_ ? &first_->values : &empty;
  if (first_) {
    row.row = first_->row ? &*first_->row : nullptr;
    row.static_row = first_->static_row ? &*first_->static_row : nullptr;
    row.token = first_->token;
    row.now_seconds = first_->now_seconds;
  }
  std::vector<Value> out;
  for (const auto& node : selection_->selectors_) {
    if (!first_ && !node->contains_aggregate) {
      out.emplace_back();
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(
        Value v, evaluate_node(*node, *selection_->table_, row, &states_, &selection_->functions_));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace cassette::cql
