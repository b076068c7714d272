// Preparing the parts of a modification statement that do not depend on the current data: the
// USING attributes, column lookup, and the operations of SET clauses and DELETE targets, with
// Cassandra's messages (Attributes, Operation.SetValue/SetElement/SetField/Addition/Substraction/
// Prepend, Operation.ColumnDeletion/ElementDeletion/FieldDeletion). See modification.h.
#include <fmt/format.h>

#include <limits>

#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/cql/term.h"
#include "engine/types/scalar.h"

namespace cassette::cql {

namespace {

using types::CqlType;
using types::TypeKind;

std::optional<size_t> field_index(const CqlType& type, const std::string& field) {
  for (size_t i = 0; i < type.field_names.size(); ++i) {
    if (type.field_names[i] == field) return i;
  }
  return std::nullopt;
}

}  // namespace

// ---- attributes -----------------------------------------------------------------------------

Result<WriteAttributes> evaluate_attributes(const UsingClause& using_clause,
                                            const schema::TableDef& table,
                                            const ExecutionContext& context) {
  WriteAttributes attributes;
  if (using_clause.timestamp) {
    CASSETTE_ASSIGN_OR_RETURN(
        types::Value ts, evaluate_term(*using_clause.timestamp, CqlType::simple(TypeKind::kBigint),
                                       "[timestamp]", context));
    if (!ts) return Status::invalid_argument("Invalid null value of timestamp");
    if (ts->size() != 8) return Status::invalid_argument("Invalid timestamp value");
    attributes.timestamp = types::read_int64(*ts);
    // Long.MIN_VALUE means "no timestamp" (UpdateParameters); here MIN + 1 also means "let the
    // store assign one" (storage::kAutoTimestamp), so it cannot be given either.
    if (attributes.timestamp <= storage::kAutoTimestamp) {
      return Status::invalid_argument(fmt::format("Out of bound timestamp, must be in [{}, {}]",
                                                  std::numeric_limits<int64_t>::min() + 1,
                                                  std::numeric_limits<int64_t>::max()));
    }
    attributes.timestamp_set = true;
  }
  attributes.ttl = table.params.default_time_to_live;
  if (using_clause.ttl) {
    CASSETTE_ASSIGN_OR_RETURN(
        types::Value ttl,
        evaluate_term(*using_clause.ttl, CqlType::simple(TypeKind::kInt), "[ttl]", context));
    attributes.ttl_set = true;
    if (!ttl) {
      attributes.ttl = 0;
    } else {
      if (ttl->size() != 4) return Status::invalid_argument("Invalid TTL value");
      int64_t value = types::read_int32(*ttl);
      if (value < 0) {
        return Status::invalid_argument(
            fmt::format("A TTL must be greater or equal to 0, but was {}", value));
      }
      if (value > storage::kMaxTtlSeconds) {
        return Status::invalid_argument(fmt::format("ttl is too large. requested ({}) maximum ({})",
                                                    value, storage::kMaxTtlSeconds));
      }
      attributes.ttl = value;  // 0 overrides the table's default
    }
  }
  return attributes;
}

Result<const schema::ColumnDef*> existing_column(const schema::TableDef& table,
                                                 std::string_view name) {
  const schema::ColumnDef* column = table.find_column(name);
  if (column == nullptr) {
    return Status::invalid_argument(fmt::format("Undefined column name {} in table {}.{}",
                                                column_name_for_message(name), table.keyspace,
                                                table.name));
  }
  return column;
}

// ---- preparing operations -------------------------------------------------------------------

Result<ColumnOperation> prepare_assignment(const Assignment& assignment,
                                           const schema::ColumnDef& column,
                                           const ExecutionContext& context) {
  using Kind = Assignment::Kind;
  const CqlType& type = column.type;
  const std::string& name = column.name;
  ColumnOperation op;
  op.column = &column;
  std::string value_text = assignment.value ? term_text(*assignment.value) : "";

  switch (assignment.kind) {
    case Kind::kSet: {
      CASSETTE_ASSIGN_OR_RETURN(op.value, evaluate_term(*assignment.value, type, name, context));
      if (type.is_counter()) {
        return Status::invalid_argument(
            fmt::format("Cannot set the value of counter column {} (counters can only be "
                        "incremented/decremented, not set)",
                        name));
      }
      op.kind = ColumnOperation::Kind::kSetValue;
      return op;
    }
    case Kind::kSetElement: {
      std::string text = fmt::format("{}[{}] = {}", name, term_text(*assignment.key), value_text);
      if (!type.is_collection()) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for non collection column {}", text, name));
      }
      if (!type.is_multi_cell()) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for frozen collection column {}", text, name));
      }
      if (type.kind == TypeKind::kSet) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for set column {}", text, name));
      }
      if (type.kind == TypeKind::kList) {
        CASSETTE_ASSIGN_OR_RETURN(types::Value index,
                                  evaluate_term(*assignment.key, CqlType::simple(TypeKind::kInt),
                                                fmt::format("idx({})", name), context));
        if (!index) return Status::invalid_argument("Invalid null value for list index");
        op.key = *index;
        CASSETTE_ASSIGN_OR_RETURN(op.value, evaluate_term(*assignment.value, type.params[0],
                                                          fmt::format("value({})", name), context));
        op.kind = ColumnOperation::Kind::kSetListIndex;
        return op;
      }
      CASSETTE_ASSIGN_OR_RETURN(
          types::Value key,
          evaluate_term(*assignment.key, type.params[0], fmt::format("key({})", name), context));
      if (!key) return Status::invalid_argument("Invalid null value for map key");
      op.key = *key;
      CASSETTE_ASSIGN_OR_RETURN(op.value, evaluate_term(*assignment.value, type.params[1],
                                                        fmt::format("value({})", name), context));
      op.kind = ColumnOperation::Kind::kSetMapKey;
      return op;
    }
    case Kind::kSetField: {
      std::string text = fmt::format("{}.{} = {}", name, assignment.field, value_text);
      if (type.kind != TypeKind::kUdt) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for non-UDT column {}", text, name));
      }
      if (!type.is_multi_cell()) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for frozen UDT column {}", text, name));
      }
      std::optional<size_t> index = field_index(type, assignment.field);
      if (!index) {
        return Status::invalid_argument(
            fmt::format("UDT column {} does not have a field named {}", name, assignment.field));
      }
      op.field = *index;
      CASSETTE_ASSIGN_OR_RETURN(
          op.value, evaluate_term(*assignment.value, type.params[*index],
                                  fmt::format("{}.{}", name, assignment.field), context));
      op.kind = ColumnOperation::Kind::kSetField;
      return op;
    }
    case Kind::kAdd:
    case Kind::kSubtract: {
      bool add = assignment.kind == Kind::kAdd;
      std::string text = fmt::format("{} = {} {} {}", name, name, add ? "+" : "-", value_text);
      if (!type.is_collection()) {
        // Cassandra's Addition names tuples (and UDTs, which are tuples there) apart.
        if (add && (type.kind == TypeKind::kTuple || type.kind == TypeKind::kUdt)) {
          return Status::invalid_argument(
              fmt::format("Invalid operation ({}) for tuple column {}", text, name));
        }
        if (!type.is_counter()) {
          return Status::invalid_argument(
              fmt::format("Invalid operation ({}) for non counter column {}", text, name));
        }
        CASSETTE_ASSIGN_OR_RETURN(types::Value v,
                                  evaluate_term(*assignment.value, type, name, context));
        if (!v)
          return Status::invalid_argument("Invalid null value for counter increment/decrement");
        int64_t delta = types::read_signed(*v);
        if (!add) {
          if (delta == std::numeric_limits<int64_t>::min()) {
            return Status::invalid_argument(fmt::format(
                "The negation of {} overflows supported counter precision (signed 8 bytes "
                "integer)",
                delta));
          }
          delta = -delta;
        }
        op.kind = ColumnOperation::Kind::kCounterAdd;
        op.counter_delta = delta;
        return op;
      }
      if (!type.is_multi_cell()) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for frozen collection column {}", text, name));
      }
      if (type.kind == TypeKind::kMap) {
        // m = m + {k: v} takes a map; m = m - {k1, k2} a set of keys. Any other value gets
        // Cassandra's message in place of the literal's own.
        Result<types::Value> value =
            add ? evaluate_term(*assignment.value, type, name, context)
                : evaluate_term(*assignment.value, CqlType::set(type.params[0]), name, context);
        if (!value.is_ok()) {
          return Status::invalid_argument(
              add ? fmt::format("Value for a map addition has to be a map, but was: '{}'",
                                value_text)
                  : fmt::format("Value for a map substraction has to be a set, but was: '{}'",
                                value_text));
        }
        op.value = std::move(*value);
        op.kind = add ? ColumnOperation::Kind::kAddElements : ColumnOperation::Kind::kRemoveMapKeys;
        return op;
      }
      CASSETTE_ASSIGN_OR_RETURN(op.value, evaluate_term(*assignment.value, type, name, context));
      if (type.kind == TypeKind::kList) {
        op.kind = add ? ColumnOperation::Kind::kAppend : ColumnOperation::Kind::kRemoveListValues;
      } else {
        op.kind =
            add ? ColumnOperation::Kind::kAddElements : ColumnOperation::Kind::kRemoveElements;
      }
      return op;
    }
    case Kind::kPrepend: {
      // Cassandra's Operation.Prepend evaluates the value first, and prints itself with a '-'
      // (its toString is "%s = %s - %s"); messages keep both quirks.
      CASSETTE_ASSIGN_OR_RETURN(op.value, evaluate_term(*assignment.value, type, name, context));
      std::string text = fmt::format("{} = {} - {}", name, value_text, name);
      if (type.kind != TypeKind::kList) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for non list column {}", text, name));
      }
      if (!type.is_multi_cell()) {
        return Status::invalid_argument(
            fmt::format("Invalid operation ({}) for frozen list column {}", text, name));
      }
      op.kind = ColumnOperation::Kind::kPrepend;
      return op;
    }
  }
  return Status::internal("unknown assignment kind");
}

Result<ColumnOperation> prepare_deletion(const DeleteTarget& target,
                                         const schema::ColumnDef& column,
                                         const ExecutionContext& context) {
  const CqlType& type = column.type;
  const std::string& name = column.name;
  ColumnOperation op;
  op.column = &column;
  if (target.element) {
    if (!type.is_collection()) {
      return Status::invalid_argument(
          fmt::format("Invalid deletion operation for non collection column {}", name));
    }
    if (!type.is_multi_cell()) {
      return Status::invalid_argument(
          fmt::format("Invalid deletion operation for frozen collection column {}", name));
    }
    if (type.kind == TypeKind::kList) {
      CASSETTE_ASSIGN_OR_RETURN(types::Value index,
                                evaluate_term(*target.element, CqlType::simple(TypeKind::kInt),
                                              fmt::format("idx({})", name), context));
      if (!index) return Status::invalid_argument("Invalid null value for list index");
      op.key = *index;
      op.kind = ColumnOperation::Kind::kDeleteListIndex;
      return op;
    }
    std::string receiver =
        type.kind == TypeKind::kSet ? fmt::format("value({})", name) : fmt::format("key({})", name);
    CASSETTE_ASSIGN_OR_RETURN(types::Value key,
                              evaluate_term(*target.element, type.params[0], receiver, context));
    if (!key) {
      return Status::invalid_argument(type.kind == TypeKind::kSet ? "Invalid null set element"
                                                                  : "Invalid null map key");
    }
    op.key = *key;
    op.kind = ColumnOperation::Kind::kDeleteElement;
    return op;
  }
  if (!target.field.empty()) {
    if (type.kind != TypeKind::kUdt) {
      return Status::invalid_argument(
          fmt::format("Invalid field deletion operation for non-UDT column {}", name));
    }
    if (!type.is_multi_cell()) {
      return Status::invalid_argument(
          fmt::format("Frozen UDT column {} does not support field deletion", name));
    }
    std::optional<size_t> index = field_index(type, target.field);
    if (!index) {
      return Status::invalid_argument(
          fmt::format("UDT column {} does not have a field named {}", name, target.field));
    }
    op.field = *index;
    op.kind = ColumnOperation::Kind::kDeleteField;
    return op;
  }
  op.kind = ColumnOperation::Kind::kDeleteColumn;
  return op;
}

}  // namespace cassette::cql
