// Column masks: preparing MASKED WITH, applying a mask to a column's values, printing it
// (column_mask.h). The masking functions themselves are functions_masking.cc's.
#include "engine/cql/column_mask.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "engine/cql/functions_internal.h"
#include "engine/cql/term.h"
#include "engine/types/value.h"

namespace cassette::cql {

using types::CqlType;
using types::Value;

namespace {

std::string written_name(const QualifiedName& name) {
  return name.keyspace.empty() ? name.name : name.keyspace + "." + name.name;
}

// The native masking function a mask names ("mask_inner" and "system.mask_inner" do).
std::optional<std::string> native_masking_name(const QualifiedName& name) {
  if (!name.keyspace.empty() && name.keyspace != "system") return std::nullopt;
  if (!functions_internal::is_masking_function(name.name)) return std::nullopt;
  return name.name;
}

// The function for a column of `type` and partial arguments of `argument_types`.
Result<std::shared_ptr<const ScalarFunction>> masking_function(
    std::string_view name, const CqlType& type, const std::vector<FunctionArgument>& partial) {
  std::vector<FunctionArgument> arguments;
  arguments.push_back({type, "column"});
  arguments.insert(arguments.end(), partial.begin(), partial.end());
  return functions_internal::make_masking_function(name, arguments);
}

}  // namespace

Result<schema::ColumnMask> prepare_column_mask(const ColumnMaskClause& clause,
                                               const schema::ColumnDef& column,
                                               const ExecutionContext& context) {
  std::vector<FunctionArgument> partial;
  std::vector<std::string> texts;
  for (const TermPtr& term : clause.arguments) {
    FunctionArgument a{term_type(*term, context), term_text(*term)};
    if (term->kind == Term::Kind::kConstant) a.constant_kind = term->constant_kind;
    if (term->kind == Term::Kind::kList)
      a.list_literal_size = static_cast<int32_t>(term->elements.size());
    texts.push_back(a.text);
    partial.push_back(std::move(a));
  }
  const std::optional<std::string> name = native_masking_name(clause.function);
  if (!name) {
    const std::string written = written_name(clause.function);
    if (is_native_function(written)) {
      return Status::invalid_argument(fmt::format(
          "Not-masking function {}() cannot be used for masking table columns", written));
    }
    return Status::invalid_argument(
        fmt::format("Unable to find masking function for {}, no declared function matches the "
                    "signature {}({})",
                    column.name, written, fmt::join(texts, ", ")));
  }
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScalarFunction> function,
                            masking_function(*name, column.type, partial));
  if (function->return_type != column.type) {
    const std::string returned = types::cql_type_name(function->return_type);
    const std::string expected = types::cql_type_name(column.type);
    if (returned != expected) {  // text and varchar are one type
      return Status::invalid_argument(fmt::format(
          "Masking function {}({}) return type is {}. This is different to the type of the masked "
          "column {} of type {}. Masking functions can only be attached to table columns if they "
          "return the same data type as the masked column.",
          written_name(clause.function), fmt::join(texts, ", "), returned, column.name, expected));
    }
  }
  schema::ColumnMask mask;
  mask.function = *name;
  for (size_t i = 0; i < clause.arguments.size(); ++i) {
    const CqlType& parameter = function->parameter_types.at(i + 1);
    Result<Value> value = evaluate_term(*clause.arguments[i], parameter,
                                        fmt::format("arg{}({})", i + 1, function->name), context);
    if (!value.is_ok()) {
      const std::optional<CqlType> found =
          partial[i].type ? partial[i].type : functions_internal::literal_type(partial[i]);
      if (!found) return value.status();
      return Status::invalid_argument(
          fmt::format("Function {} requires an argument of type {}, but found argument {} of type "
                      "{}",
                      function->name, types::cql_type_name(parameter), partial[i].text,
                      types::cql_type_name(*found)));
    }
    mask.argument_types.push_back(parameter);
    mask.argument_values.push_back(std::move(*value));
  }
  return mask;
}

Result<std::shared_ptr<const ScalarFunction>> column_masker(const schema::ColumnDef& column) {
  if (!column.mask) return std::shared_ptr<const ScalarFunction>();
  const schema::ColumnMask& mask = *column.mask;
  std::vector<FunctionArgument> partial;
  for (const CqlType& type : mask.argument_types) partial.push_back({type, "argument"});
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScalarFunction> function,
                            masking_function(mask.function, column.type, partial));
  auto masker = std::make_shared<ScalarFunction>();
  masker->name = function->name;
  masker->parameter_types = {column.type};
  masker->return_type = function->return_type;
  masker->called_on_null_input = true;
  masker->apply = [function, values = mask.argument_values](
                      std::span<const Value> arguments,
                      const FunctionContext& context) -> Result<Value> {
    std::vector<Value> all;
    all.reserve(values.size() + 1);
    all.push_back(arguments[0]);
    all.insert(all.end(), values.begin(), values.end());
    return function->apply(all, context);
  };
  return std::shared_ptr<const ScalarFunction>(std::move(masker));
}

const schema::ColumnDef* masked_definition(const schema::Schema& schema,
                                           const schema::TableDef& table,
                                           const schema::ColumnDef& column) {
  if (!table.is_view()) return column.mask ? &column : nullptr;
  std::shared_ptr<const schema::TableDef> base =
      schema.find_table(table.keyspace, table.view->base_table);
  if (base == nullptr) return nullptr;
  const schema::ColumnDef* def = base->find_column(column.name);
  return def != nullptr && def->mask ? def : nullptr;
}

Status check_masked_columns_query(const schema::Schema* schema, const schema::TableDef& table,
                                  const std::vector<Relation>& where, std::string_view user) {
  if (user.empty()) return Status::ok();
  std::vector<std::string> queried;
  for (const schema::ColumnDef& column : table.columns) {
    const bool masked = schema != nullptr ? masked_definition(*schema, table, column) != nullptr
                                          : column.mask.has_value();
    if (!masked) continue;
    const bool restricted = std::any_of(where.begin(), where.end(), [&](const Relation& r) {
      return std::any_of(r.columns.begin(), r.columns.end(), [&](const std::string& name) {
        return table.find_column(name) == &column;
      });
    });
    if (restricted) queried.push_back(column.name);
  }
  if (queried.empty()) return Status::ok();
  return Status::unauthorized(
      fmt::format("User {} has no UNMASK nor SELECT_MASKED permission on table {}.{}, cannot "
                  "query masked columns [{}]",
                  user, table.keyspace, table.name, fmt::join(queried, ", ")));
}

std::string column_mask_cql(const schema::ColumnMask& mask) {
  std::vector<std::string> arguments;
  for (size_t i = 0; i < mask.argument_types.size(); ++i) {
    const std::optional<std::string>& value =
        i < mask.argument_values.size() ? mask.argument_values[i] : std::nullopt;
    arguments.push_back(
        value ? types::format_value(mask.argument_types[i], *value, types::ValueStyle::kLiteral)
              : "null");
  }
  return fmt::format(" MASKED WITH system.{}({})", mask.function, fmt::join(arguments, ", "));
}

}  // namespace cassette::cql
