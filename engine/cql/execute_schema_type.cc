// CREATE TYPE, ALTER TYPE and DROP TYPE, as Cassandra 4.1 checks them (CreateTypeStatement,
// AlterTypeStatement, DropTypeStatement). A change to a type is carried into every table and type
// that uses it, since columns hold their user types resolved.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "engine/cql/execute_schema_internal.h"

namespace cassette::cql {

namespace {

using namespace schema_internal;
using types::CqlType;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

Status check_field_type(const CqlType& raw) {
  if (raw.is_counter()) return Status::invalid_argument("A user type cannot contain counters");
  if (raw.kind == types::TypeKind::kUdt && !raw.frozen) {
    return Status::invalid_argument("A user type cannot contain non-frozen UDTs");
  }
  return Status::ok();
}

// Puts `type` into its keyspace and carries it into every table column and type using it.
schema::Schema with_type(const schema::Schema& now, const schema::UserTypeDef& type) {
  schema::Schema next = now;
  auto keyspace = copy_keyspace(now, type.keyspace);
  keyspace->types[type.name] = std::make_shared<const schema::UserTypeDef>(type);
  // Types nesting this one, then tables (a nested type changes its users' resolved form too).
  bool again = true;
  std::set<std::string> updated = {type.name};
  while (again) {
    again = false;
    for (auto& [name, other] : keyspace->types) {
      if (updated.contains(name)) continue;
      bool uses = false;
      for (const std::string& u : updated) {
        for (const CqlType& field : other->field_types) {
          uses |= references_type(field, type.keyspace, u);
        }
      }
      if (!uses) continue;
      schema::UserTypeDef copy = *other;
      for (const std::string& u : updated) {
        const schema::UserTypeDef& replacement = *keyspace->types.at(u);
        for (CqlType& field : copy.field_types) field = replace_type(field, replacement);
      }
      other = std::make_shared<const schema::UserTypeDef>(std::move(copy));
      updated.insert(name);
      again = true;
      break;
    }
  }
  for (auto& [name, table] : keyspace->tables) {
    schema::TableDef copy = *table;
    bool changed = false;
    for (schema::ColumnDef& column : copy.columns) {
      for (const std::string& u : updated) {
        if (!references_type(column.type, type.keyspace, u)) continue;
        column.type = replace_type(column.type, *keyspace->types.at(u));
        changed = true;
      }
    }
    if (!changed) continue;
    copy.finalize();  // the clustering types may have changed
    table = std::make_shared<const schema::TableDef>(std::move(copy));
  }
  next.keyspaces[type.keyspace] = std::move(keyspace);
  return next;
}

}  // namespace

Result<ExecutionResult> execute_create_type(const CreateTypeStatement& statement,
                                            ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.type));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        const schema::KeyspaceDef* ks = now.find_keyspace(keyspace);
        if (ks == nullptr) {
          return Status::invalid_argument(fmt::format("Keyspace '{}' doesn't exist", keyspace));
        }
        if (ks->types.contains(statement.type.name)) {
          if (statement.if_not_exists) return std::optional<schema::Schema>();
          return Status::invalid_argument(
              fmt::format("A user type with name '{}' already exists", statement.type.name));
        }
        std::set<std::string> names;
        for (const auto& [name, type] : statement.fields) {
          if (!names.insert(name).second) {
            return Status::invalid_argument(
                fmt::format("Duplicate field name '{}' in type '{}'", name, statement.type.name));
          }
        }
        for (const auto& [name, type] : statement.fields)
          CASSETTE_RETURN_IF_ERROR(check_field_type(type));
        schema::UserTypeDef type;
        type.keyspace = keyspace;
        type.name = statement.type.name;
        for (const auto& [name, raw] : statement.fields) {
          CASSETTE_ASSIGN_OR_RETURN(CqlType resolved, resolve_type(raw, keyspace, *ks));
          type.field_names.push_back(name);
          type.field_types.push_back(std::move(resolved));
        }
        return std::optional<schema::Schema>(with_type(now, type));
      });
}

Result<ExecutionResult> execute_alter_type(const AlterTypeStatement& statement,
                                           ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.type));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        std::shared_ptr<const schema::UserTypeDef> existing =
            now.find_type(keyspace, statement.type.name);
        if (existing == nullptr) {
          if (statement.if_exists) return std::optional<schema::Schema>();
          return Status::invalid_argument(
              fmt::format("Type '{}.{}' doesn't exist", keyspace, statement.type.name));
        }
        const schema::KeyspaceDef& ks = *now.find_keyspace(keyspace);
        schema::UserTypeDef type = *existing;
        std::string full_name = fmt::format("{}.{}", keyspace, type.name);
        switch (statement.kind) {
          case AlterTypeStatement::Kind::kAlterFieldType:
            return Status::invalid_argument(
                "Alterations of user type field types are no longer supported");
          case AlterTypeStatement::Kind::kAdd: {
            bool added_any = false;
            for (const auto& [name, raw] : statement.added) {
              if (std::find(type.field_names.begin(), type.field_names.end(), name) !=
                  type.field_names.end()) {
                if (statement.field_if_not_exists) continue;
                return Status::invalid_argument(fmt::format(
                    "Cannot add new field {} to type {}: a field with name {} already exists", name,
                    full_name, name));
              }
              if (raw.kind == types::TypeKind::kUdt &&
                  (raw.udt_keyspace.empty() || raw.udt_keyspace == keyspace) &&
                  raw.udt_name == type.name) {
                return Status::invalid_argument(fmt::format(
                    "Cannot add new field {} of type {} to user type {} as this would create a "
                    "circular reference",
                    name, type_name(raw, keyspace), full_name));
              }
              CASSETTE_RETURN_IF_ERROR(check_field_type(raw));
              CASSETTE_ASSIGN_OR_RETURN(CqlType resolved, resolve_type(raw, keyspace, ks));
              if (references_type(resolved, keyspace, type.name)) {
                return Status::invalid_argument(fmt::format(
                    "Cannot add new field {} of type {} to user type {} as this would create a "
                    "circular reference",
                    name, type_name(raw, keyspace), full_name));
              }
              // A frozen value in a partition key would change its serialized form (and its
              // token) once the type has one more field.
              std::vector<std::string> keyed;
              for (const auto& [table_name, table] : ks.tables) {
                for (const schema::ColumnDef* column : table->partition_key()) {
                  if (references_type(column->type, keyspace, type.name)) {
                    keyed.push_back(fmt::format("{}.{}", keyspace, table_name));
                    break;
                  }
                }
              }
              if (!keyed.empty()) {
                return Status::invalid_argument(fmt::format(
                    "Cannot add new field {} of type {} to user type {} as the type is being used "
                    "in partition key by the following tables: {}",
                    name, type_name(raw, keyspace), full_name, fmt::join(keyed, ", ")));
              }
              type.field_names.push_back(name);
              type.field_types.push_back(std::move(resolved));
              added_any = true;
            }
            if (!added_any) return std::optional<schema::Schema>();
            break;
          }
          case AlterTypeStatement::Kind::kRename: {
            for (const auto& [from, to] : statement.renames) {
              auto it = std::find(type.field_names.begin(), type.field_names.end(), from);
              if (it == type.field_names.end()) {
                if (statement.if_exists) continue;
                return Status::invalid_argument(
                    fmt::format("Unkown field {} in user type {}", from, full_name));
              }
              if (std::find(type.field_names.begin(), type.field_names.end(), to) !=
                  type.field_names.end()) {
                return Status::invalid_argument(
                    fmt::format("Duplicate field name {} in type {}", to, full_name));
              }
              *it = to;
            }
            break;
          }
        }
        return std::optional<schema::Schema>(with_type(now, type));
      });
}

Result<ExecutionResult> execute_drop_type(const DropTypeStatement& statement,
                                          ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.type));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        std::shared_ptr<const schema::UserTypeDef> type =
            now.find_type(keyspace, statement.type.name);
        if (type == nullptr) {
          if (statement.if_exists) return std::optional<schema::Schema>();
          return Status::invalid_argument(
              fmt::format("Type '{}.{}' doesn't exist", keyspace, statement.type.name));
        }
        const schema::KeyspaceDef& ks = *now.find_keyspace(keyspace);
        std::vector<std::string> types;
        for (const auto& [name, other] : ks.types) {
          if (name == type->name) continue;
          for (const CqlType& field : other->field_types) {
            if (references_type(field, keyspace, type->name)) {
              types.push_back(name);
              break;
            }
          }
        }
        if (!types.empty()) {
          return Status::invalid_argument(
              fmt::format("Cannot drop user type '{}.{}' as it is still used by user types {}",
                          keyspace, type->name, join(types)));
        }
        std::vector<std::string> tables;
        for (const auto& [name, table] : ks.tables) {
          for (const schema::ColumnDef& column : table->columns) {
            if (references_type(column.type, keyspace, type->name)) {
              tables.push_back(name);
              break;
            }
          }
        }
        if (!tables.empty()) {
          return Status::invalid_argument(
              fmt::format("Cannot drop user type '{}.{}' as it is still used by tables {}",
                          keyspace, type->name, join(tables)));
        }
        schema::Schema next = now;
        auto copy = copy_keyspace(now, keyspace);
        copy->types.erase(type->name);
        next.keyspaces[keyspace] = std::move(copy);
        return std::optional<schema::Schema>(std::move(next));
      });
}

}  // namespace cassette::cql
