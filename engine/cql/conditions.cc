// IF conditions (see conditions.h).
#include "engine/cql/conditions.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/cql/term.h"
#include "engine/types/scalar.h"

namespace cassette::cql {

namespace {

using types::CqlType;
using types::TypeKind;

bool is_slice(Operator op) {
  return op == Operator::kLt || op == Operator::kLte || op == Operator::kGt || op == Operator::kGte;
}

bool references_duration(const CqlType& type) {
  if (type.kind == TypeKind::kDuration) return true;
  return std::any_of(type.params.begin(), type.params.end(), references_duration);
}

Status check_duration_slice(const CqlType& type, Operator op) {
  if (!is_slice(op) || !references_duration(type)) return Status::ok();
  if (type.is_collection()) {
    return Status::invalid_argument(
        "Slice conditions are not supported on collections containing durations");
  }
  if (type.kind == TypeKind::kTuple) {
    return Status::invalid_argument(
        "Slice conditions are not supported on tuples containing durations");
  }
  if (type.kind == TypeKind::kUdt) {
    return Status::invalid_argument(
        "Slice conditions are not supported on UDTs containing durations");
  }
  return Status::invalid_argument(
      fmt::format("Slice conditions ( {} ) are not supported on durations", operator_text(op)));
}

// A list index: an int (any other width is truncated as it always was).
int32_t decode_int32(std::string_view bytes) {
  return static_cast<int32_t>(types::read_unsigned(bytes));
}

const storage::Row* row_for(const schema::ColumnDef& column, const CurrentRow& current) {
  const std::optional<storage::Row>& row = column.is_static() ? current.static_row : current.row;
  return row ? &*row : nullptr;
}

// The value a condition compares against, and its type.
types::Value current_value(const ColumnCondition& c, const CurrentRow& current) {
  const storage::Row* row = row_for(*c.column, current);
  if (row == nullptr) return std::nullopt;
  const CqlType& type = c.column->type;
  switch (c.target) {
    case ColumnCondition::Target::kValue:
      return read_column(*c.column, *row);
    case ColumnCondition::Target::kElement: {
      if (type.kind == TypeKind::kList) {
        int32_t index = decode_int32(c.element);
        if (type.is_multi_cell()) {
          std::vector<const storage::Cell*> cells = list_cells_in_order(*c.column, row);
          if (index < 0 || static_cast<size_t>(index) >= cells.size()) return std::nullopt;
          return cells[index]->value;
        }
        types::Value whole = read_column(*c.column, *row);
        if (!whole) return std::nullopt;
        auto elements = types::deserialize_list(*whole);
        if (!elements.is_ok() || index < 0 || static_cast<size_t>(index) >= elements->size()) {
          return std::nullopt;
        }
        return (*elements)[index];
      }
      // map
      if (type.is_multi_cell()) {
        const storage::ColumnData* data = row->find_column(c.column->id);
        if (data == nullptr) return std::nullopt;
        for (const storage::Cell& cell : data->cells) {
          if (cell.path == c.element && !cell.is_tombstone()) return cell.value;
        }
        return std::nullopt;
      }
      types::Value whole = read_column(*c.column, *row);
      if (!whole) return std::nullopt;
      auto entries = types::deserialize_map(*whole);
      if (!entries.is_ok()) return std::nullopt;
      for (auto& [k, v] : *entries) {
        if (types::compare_values(type.params[0], k, c.element) == 0) return v;
      }
      return std::nullopt;
    }
    case ColumnCondition::Target::kField: {
      if (type.is_multi_cell()) {
        const storage::ColumnData* data = row->find_column(c.column->id);
        if (data == nullptr) return std::nullopt;
        std::string path = udt_field_path(c.field);
        for (const storage::Cell& cell : data->cells) {
          if (cell.path == path && !cell.is_tombstone()) return cell.value;
        }
        return std::nullopt;
      }
      types::Value whole = read_column(*c.column, *row);
      if (!whole) return std::nullopt;
      auto fields = types::deserialize_tuple(*whole);
      if (!fields.is_ok() || c.field >= fields->size()) return std::nullopt;
      return (*fields)[c.field];
    }
  }
  return std::nullopt;
}

const CqlType& compared_type(const ColumnCondition& c) {
  const CqlType& type = c.column->type;
  switch (c.target) {
    case ColumnCondition::Target::kValue:
      return type;
    case ColumnCondition::Target::kElement:
      return type.kind == TypeKind::kList ? type.params[0] : type.params[1];
    case ColumnCondition::Target::kField:
      return type.params[c.field];
  }
  return type;
}

// An empty non-frozen collection is no collection at all (Cassandra stores no cells for it).
types::Value normalized(const CqlType& type, types::Value value) {
  if (!value || !type.is_multi_cell() || !type.is_collection()) return value;
  if (type.kind == TypeKind::kMap) {
    auto entries = types::deserialize_map(*value);
    if (entries.is_ok() && entries->empty()) return std::nullopt;
  } else {
    auto elements = types::deserialize_list(*value);
    if (elements.is_ok() && elements->empty()) return std::nullopt;
  }
  return value;
}

// Cassandra's ColumnCondition.Bound.compareWithOperator.
Result<bool> satisfies(Operator op, const CqlType& type, const types::Value& value,
                       const types::Value& current) {
  if (!value) {
    switch (op) {
      case Operator::kEq:
        return !current.has_value();
      case Operator::kNeq:
        return current.has_value();
      default:
        return Status::invalid_argument(
            fmt::format("Invalid comparison with null for operator \"{}\"", operator_text(op)));
    }
  }
  // A non-frozen collection without elements compares as the empty collection (Cassandra's
  // multi-cell bounds); any other missing value only satisfies !=.
  if (!current && !(type.is_collection() && type.is_multi_cell())) return op == Operator::kNeq;
  int cmp = current ? types::compare_values(type, *current, *value) : -1;
  switch (op) {
    case Operator::kEq:
      return cmp == 0;
    case Operator::kNeq:
      return cmp != 0;
    case Operator::kLt:
      return cmp < 0;
    case Operator::kLte:
      return cmp <= 0;
    case Operator::kGt:
      return cmp > 0;
    case Operator::kGte:
      return cmp >= 0;
    default:
      return Status::invalid_argument(
          fmt::format("Unsupported operator {} in condition", operator_text(op)));
  }
}

// IF c CONTAINS v / IF m CONTAINS KEY k: whether the collection `current` holds the element.
Result<bool> contains(const ColumnCondition& c, const types::Value& current) {
  if (!c.value) {
    return Status::invalid_argument(
        fmt::format("Invalid comparison with null for operator \"{}\"", operator_text(c.op)));
  }
  if (!current) return false;
  const CqlType& type = c.column->type;
  if (type.kind == TypeKind::kMap) {
    auto entries = types::deserialize_map(*current);
    if (!entries.is_ok()) return entries.status();
    bool key = c.op == Operator::kContainsKey;
    const CqlType& element_type = key ? type.params[0] : type.params[1];
    for (const auto& [k, v] : *entries) {
      if (types::compare_values(element_type, key ? k : v, *c.value) == 0) return true;
    }
    return false;
  }
  auto elements = types::deserialize_list(*current);
  if (!elements.is_ok()) return elements.status();
  for (const std::string& e : *elements) {
    if (types::compare_values(type.params[0], e, *c.value) == 0) return true;
  }
  return false;
}

}  // namespace

// Cassandra's ColumnConditions.getColumns(): the regular columns, then the static ones.
std::vector<const schema::ColumnDef*> PreparedConditions::columns() const {
  std::vector<const schema::ColumnDef*> out;
  for (bool statics : {false, true}) {
    for (const ColumnCondition& c : conditions) {
      if (c.column->is_static() != statics) continue;
      if (std::find(out.begin(), out.end(), c.column) == out.end()) out.push_back(c.column);
    }
  }
  return out;
}

// IF EXISTS / IF NOT EXISTS name no column (Cassandra's AbstractConditions): the row they test is
// the one the statement writes.
bool PreparedConditions::applies_to_regular_columns() const {
  return std::any_of(conditions.begin(), conditions.end(),
                     [](const ColumnCondition& c) { return !c.column->is_static(); });
}

bool PreparedConditions::applies_to_static_columns() const {
  return std::any_of(conditions.begin(), conditions.end(),
                     [](const ColumnCondition& c) { return c.column->is_static(); });
}

Result<PreparedConditions> prepare_conditions(const schema::TableDef& table, bool if_exists,
                                              bool if_not_exists,
                                              const std::vector<Condition>& conditions,
                                              const ExecutionContext& context) {
  PreparedConditions prepared;
  if (if_exists) {
    prepared.kind = PreparedConditions::Kind::kIfExists;
    return prepared;
  }
  if (if_not_exists) {
    prepared.kind = PreparedConditions::Kind::kIfNotExists;
    return prepared;
  }
  if (conditions.empty()) return prepared;
  prepared.kind = PreparedConditions::Kind::kColumns;
  for (const Condition& raw : conditions) {
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column, existing_column(table, raw.column));
    const CqlType& type = column->type;
    if (type.is_counter()) {
      return Status::invalid_argument("Conditions on counters are not supported");
    }
    ColumnCondition c;
    c.column = column;
    c.op = raw.op;
    CqlType value_type = type;
    std::string value_name = column->name;
    if (raw.element) {
      if (!type.is_collection()) {
        return Status::invalid_argument(fmt::format(
            "Invalid element access syntax for non-collection column {}", column->name));
      }
      if (type.kind == TypeKind::kSet) {
        return Status::invalid_argument(
            fmt::format("Invalid element access syntax for set column {}", column->name));
      }
      bool list = type.kind == TypeKind::kList;
      CqlType element_type = list ? CqlType::simple(TypeKind::kInt) : type.params[0];
      std::string element_name = (list ? "idx(" : "key(") + column->name + ")";
      CASSETTE_ASSIGN_OR_RETURN(types::Value element,
                                evaluate_term(*raw.element, element_type, element_name, context));
      if (!element) {
        return Status::invalid_argument(
            fmt::format("Invalid null value for {} element access", list ? "list" : "map"));
      }
      if (list && decode_int32(*element) < 0) {
        return Status::invalid_argument(
            fmt::format("Invalid negative list index {}", decode_int32(*element)));
      }
      c.target = ColumnCondition::Target::kElement;
      c.element = *element;
      value_type = list ? type.params[0] : type.params[1];
      value_name = fmt::format("value({})", column->name);
    } else if (!raw.field.empty()) {
      if (type.kind != TypeKind::kUdt) {
        return Status::invalid_argument(
            fmt::format("Invalid field selection syntax for non-UDT column {}", column->name));
      }
      size_t index = 0;
      while (index < type.field_names.size() && type.field_names[index] != raw.field) ++index;
      if (index == type.field_names.size()) {
        return Status::invalid_argument(
            fmt::format("Unknown field {} for column {}", raw.field, column->name));
      }
      c.target = ColumnCondition::Target::kField;
      c.field = index;
      value_type = type.params[index];
      value_name = fmt::format("{}.{}", column->name, raw.field);
    }
    CASSETTE_RETURN_IF_ERROR(check_duration_slice(value_type, raw.op));
    bool contains = raw.op == Operator::kContains || raw.op == Operator::kContainsKey;
    if (raw.op == Operator::kContainsKey && type.kind != TypeKind::kMap) {
      return Status::invalid_argument(
          fmt::format("Cannot use CONTAINS KEY on non-map column {}", column->name));
    }
    if (raw.op == Operator::kContains && !type.is_collection()) {
      return Status::invalid_argument(
          fmt::format("Cannot use CONTAINS on non-collection column {}", column->name));
    }
    if (contains) {
      // The value is an element (a map key for CONTAINS KEY, a value for CONTAINS).
      bool key = raw.op == Operator::kContainsKey || type.kind != TypeKind::kMap;
      value_type = key ? type.params[0] : type.params[1];
      value_name =
          fmt::format("{}({})", raw.op == Operator::kContainsKey ? "key" : "value", column->name);
      CASSETTE_ASSIGN_OR_RETURN(c.value,
                                evaluate_term(*raw.value, value_type, value_name, context));
    } else if (raw.op == Operator::kIn) {
      for (const TermPtr& t : raw.in_values) {
        CASSETTE_ASSIGN_OR_RETURN(types::Value v,
                                  evaluate_term(*t, value_type, value_name, context));
        c.in_values.push_back(normalized(value_type, std::move(v)));
      }
    } else if (raw.op == Operator::kEq || raw.op == Operator::kNeq || is_slice(raw.op)) {
      CASSETTE_ASSIGN_OR_RETURN(types::Value v,
                                evaluate_term(*raw.value, value_type, value_name, context));
      c.value = normalized(value_type, std::move(v));
    } else {
      return Status::invalid_argument(fmt::format("Unsupported operator {} in condition on {}",
                                                  operator_text(raw.op), column->name));
    }
    // Checked once the condition is prepared, as Cassandra's prepareColumnConditions does.
    if (column->is_primary_key()) {
      return Status::invalid_argument(
          fmt::format("PRIMARY KEY column '{}' cannot have IF conditions", column->name));
    }
    prepared.conditions.push_back(std::move(c));
  }
  return prepared;
}

Result<bool> conditions_apply(const PreparedConditions& conditions, const CurrentRow& current,
                              bool row_exists) {
  switch (conditions.kind) {
    case PreparedConditions::Kind::kNone:
      return true;
    case PreparedConditions::Kind::kIfExists:
      return row_exists;
    case PreparedConditions::Kind::kIfNotExists:
      return !row_exists;
    case PreparedConditions::Kind::kColumns:
      break;
  }
  for (const ColumnCondition& c : conditions.conditions) {
    const CqlType& type = compared_type(c);
    types::Value value = normalized(type, current_value(c, current));
    if (c.op == Operator::kIn) {
      bool any = false;
      for (const types::Value& candidate : c.in_values) {
        CASSETTE_ASSIGN_OR_RETURN(bool ok, satisfies(Operator::kEq, type, candidate, value));
        any = any || ok;
      }
      if (!any) return false;
      continue;
    }
    if (c.op == Operator::kContains || c.op == Operator::kContainsKey) {
      CASSETTE_ASSIGN_OR_RETURN(bool ok, contains(c, value));
      if (!ok) return false;
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(bool ok, satisfies(c.op, type, c.value, value));
    if (!ok) return false;
  }
  return true;
}

std::vector<types::Value> current_values(const std::vector<const schema::ColumnDef*>& columns,
                                         const std::vector<std::string>& partition_values,
                                         const std::vector<std::string>& clustering_values,
                                         const CurrentRow& current) {
  std::vector<types::Value> values;
  for (const schema::ColumnDef* column : columns) {
    if (column->kind == schema::ColumnKind::kPartitionKey) {
      values.push_back(static_cast<size_t>(column->position) < partition_values.size()
                           ? types::Value(partition_values[column->position])
                           : std::nullopt);
    } else if (column->kind == schema::ColumnKind::kClustering) {
      values.push_back(static_cast<size_t>(column->position) < clustering_values.size()
                           ? types::Value(clustering_values[column->position])
                           : std::nullopt);
    } else {
      const storage::Row* row = row_for(*column, current);
      values.push_back(row == nullptr ? std::nullopt : read_column(*column, *row));
    }
  }
  return values;
}

std::vector<const schema::ColumnDef*> columns_in_select_order(const schema::TableDef& table) {
  std::vector<const schema::ColumnDef*> ordered;
  for (const schema::ColumnDef& c : table.columns) ordered.push_back(&c);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const schema::ColumnDef* a, const schema::ColumnDef* b) {
                     int a_rank = schema::column_kind_rank(a->kind);
                     int b_rank = schema::column_kind_rank(b->kind);
                     if (a_rank != b_rank) return a_rank < b_rank;
                     if (a->is_primary_key()) return a->position < b->position;
                     return a->name < b->name;
                   });
  return ordered;
}

ResultColumn applied_column() {
  return ResultColumn{"[applied]", CqlType::simple(TypeKind::kBoolean)};
}

}  // namespace cassette::cql
