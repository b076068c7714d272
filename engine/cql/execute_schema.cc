// execute_schema_statement: CREATE/ALTER/DROP KEYSPACE here; tables, types and indexes in
// execute_schema_{table,type,index}.cc. Semantics and messages are Cassandra 4.1's
// (cql3/statements/schema/*Statement.java).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <type_traits>

#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/table_properties.h"

namespace cassette::cql {

// In execute_schema_table.cc, execute_schema_type.cc and execute_schema_index.cc.
Result<ExecutionResult> execute_create_table(const CreateTableStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_alter_table(const AlterTableStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_drop_table(const DropTableStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_truncate(const TruncateStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_create_type(const CreateTypeStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_alter_type(const AlterTypeStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_drop_type(const DropTypeStatement& s, ExecutionContext& c);
// execute_schema_view.cc
Result<ExecutionResult> execute_create_view(const CreateViewStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_alter_view(const AlterViewStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_drop_view(const DropViewStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_create_index(const CreateIndexStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_drop_index(const DropIndexStatement& s, ExecutionContext& c);

namespace {

using namespace schema_internal;

Status check_keyspace_name(const std::string& name) {
  if (!is_valid_name(name)) {
    return Status::invalid_argument(
        fmt::format("Keyspace name must not be empty, more than 48 characters long, or contain "
                    "non-alphanumeric-underscore characters (got '{}')",
                    name));
  }
  return Status::ok();
}

Result<ExecutionResult> execute_create_keyspace(const CreateKeyspaceStatement& statement,
                                                ExecutionContext& context) {
  CASSETTE_RETURN_IF_ERROR(check_keyspace_name(statement.keyspace));
  CASSETTE_ASSIGN_OR_RETURN(KeyspaceProperties properties,
                            parse_keyspace_properties(statement.properties));
  if (!properties.replication) {
    return Status::invalid_argument("Missing mandatory option 'replication'");
  }
  return run_change(context,
                    [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
                      if (now.find_keyspace(statement.keyspace) != nullptr) {
                        if (statement.if_not_exists) return std::optional<schema::Schema>();
                        return Status::already_exists(
                            fmt::format("Cannot add existing keyspace \"{}\"", statement.keyspace));
                      }
                      auto keyspace = std::make_shared<schema::KeyspaceDef>();
                      keyspace->name = statement.keyspace;
                      CASSETTE_ASSIGN_OR_RETURN(
                          keyspace->replication,
                          validate_replication(statement.keyspace, *properties.replication));
                      keyspace->durable_writes = properties.durable_writes.value_or(true);
                      schema::Schema next = now;
                      next.keyspaces[statement.keyspace] = std::move(keyspace);
                      return std::optional<schema::Schema>(std::move(next));
                    });
}

Result<ExecutionResult> execute_alter_keyspace(const AlterKeyspaceStatement& statement,
                                               ExecutionContext& context) {
  CASSETTE_RETURN_IF_ERROR(check_keyspace_name(statement.keyspace));
  CASSETTE_ASSIGN_OR_RETURN(KeyspaceProperties properties,
                            parse_keyspace_properties(statement.properties));
  return run_change(context,
                    [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
                      if (now.find_keyspace(statement.keyspace) == nullptr) {
                        if (statement.if_exists) return std::optional<schema::Schema>();
                        return Status::invalid_argument(
                            fmt::format("Keyspace '{}' doesn't exist", statement.keyspace));
                      }
                      auto keyspace = copy_keyspace(now, statement.keyspace);
                      if (properties.replication && properties.replication->contains("class")) {
                        CASSETTE_ASSIGN_OR_RETURN(
                            keyspace->replication,
                            validate_replication(statement.keyspace, *properties.replication));
                      }
                      if (properties.durable_writes)
                        keyspace->durable_writes = *properties.durable_writes;
                      schema::Schema next = now;
                      next.keyspaces[statement.keyspace] = std::move(keyspace);
                      return std::optional<schema::Schema>(std::move(next));
                    });
}

Result<ExecutionResult> execute_drop_keyspace(const DropKeyspaceStatement& statement,
                                              ExecutionContext& context) {
  CASSETTE_RETURN_IF_ERROR(check_keyspace_name(statement.keyspace));
  return run_change(context,
                    [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
                      if (now.find_keyspace(statement.keyspace) == nullptr) {
                        if (statement.if_exists) return std::optional<schema::Schema>();
                        return Status::invalid_argument(
                            fmt::format("Keyspace '{}' doesn't exist", statement.keyspace));
                      }
                      schema::Schema next = now;
                      next.keyspaces.erase(statement.keyspace);  // the catalog truncates its tables
                      return std::optional<schema::Schema>(std::move(next));
                    });
}

// Cassandra refuses any schema change in its local system keyspaces (system, system_schema and
// the virtual system_views and system_virtual_schema), whatever the case the name is written in.
// Most statements meet the refusal in their permission check, before anything else
// (ClientState.preventSystemKSSchemaModification): Unauthorized, "system keyspace is not
// user-modifiable.". CREATE KEYSPACE and DROP INDEX check no keyspace permission first and meet
// it in AlterSchemaStatement.execute: InvalidRequest, "System keyspace 'system' is not
// user-modifiable". Cassette keeps nothing there: a table made there would pass for Cassandra's.
Status check_user_modifiable(const Statement& statement, const std::string& keyspace) {
  std::string lower = keyspace;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "system" && lower != "system_schema" && lower != "system_views" &&
      lower != "system_virtual_schema") {
    return Status::ok();
  }
  if (std::holds_alternative<CreateKeyspaceStatement>(statement) ||
      std::holds_alternative<DropIndexStatement>(statement)) {
    return Status::invalid_argument(
        fmt::format("System keyspace '{}' is not user-modifiable", keyspace));
  }
  return Status::unauthorized(fmt::format("{} keyspace is not user-modifiable.", keyspace));
}

// The keyspace a schema statement changes (the session's for an unqualified name); none for
// TRUNCATE, which changes data, not schema.
Result<std::optional<std::string>> changed_keyspace(const Statement& statement,
                                                    const ExecutionContext& context) {
  using Keyspace = std::optional<std::string>;
  auto resolve = [&](const QualifiedName& name) -> Result<Keyspace> {
    CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(name));
    return Keyspace(std::move(keyspace));
  };
  return std::visit(
      [&](const auto& s) -> Result<Keyspace> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, CreateKeyspaceStatement> ||
                      std::is_same_v<T, AlterKeyspaceStatement> ||
                      std::is_same_v<T, DropKeyspaceStatement>) {
          return Keyspace(s.keyspace);
        } else if constexpr (std::is_same_v<T, CreateTableStatement> ||
                             std::is_same_v<T, AlterTableStatement> ||
                             std::is_same_v<T, DropTableStatement> ||
                             std::is_same_v<T, CreateIndexStatement>) {
          return resolve(s.table);
        } else if constexpr (std::is_same_v<T, CreateViewStatement> ||
                             std::is_same_v<T, AlterViewStatement> ||
                             std::is_same_v<T, DropViewStatement>) {
          return resolve(s.view);
        } else if constexpr (std::is_same_v<T, CreateTypeStatement> ||
                             std::is_same_v<T, AlterTypeStatement> ||
                             std::is_same_v<T, DropTypeStatement>) {
          return resolve(s.type);
        } else if constexpr (std::is_same_v<T, DropIndexStatement>) {
          return resolve(s.index);
        } else {
          return Keyspace();
        }
      },
      statement);
}

}  // namespace

Result<ExecutionResult> execute_schema_statement(const Statement& statement,
                                                 ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::optional<std::string> keyspace,
                            changed_keyspace(statement, context));
  if (keyspace) CASSETTE_RETURN_IF_ERROR(check_user_modifiable(statement, *keyspace));
  return std::visit(
      [&](const auto& s) -> Result<ExecutionResult> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, CreateKeyspaceStatement>) {
          return execute_create_keyspace(s, context);
        } else if constexpr (std::is_same_v<T, AlterKeyspaceStatement>) {
          return execute_alter_keyspace(s, context);
        } else if constexpr (std::is_same_v<T, DropKeyspaceStatement>) {
          return execute_drop_keyspace(s, context);
        } else if constexpr (std::is_same_v<T, CreateTableStatement>) {
          return execute_create_table(s, context);
        } else if constexpr (std::is_same_v<T, AlterTableStatement>) {
          return execute_alter_table(s, context);
        } else if constexpr (std::is_same_v<T, DropTableStatement>) {
          return execute_drop_table(s, context);
        } else if constexpr (std::is_same_v<T, TruncateStatement>) {
          return execute_truncate(s, context);
        } else if constexpr (std::is_same_v<T, CreateTypeStatement>) {
          return execute_create_type(s, context);
        } else if constexpr (std::is_same_v<T, AlterTypeStatement>) {
          return execute_alter_type(s, context);
        } else if constexpr (std::is_same_v<T, DropTypeStatement>) {
          return execute_drop_type(s, context);
        } else if constexpr (std::is_same_v<T, CreateIndexStatement>) {
          return execute_create_index(s, context);
        } else if constexpr (std::is_same_v<T, DropIndexStatement>) {
          return execute_drop_index(s, context);
        } else if constexpr (std::is_same_v<T, CreateViewStatement>) {
          return execute_create_view(s, context);
        } else if constexpr (std::is_same_v<T, AlterViewStatement>) {
          return execute_alter_view(s, context);
        } else if constexpr (std::is_same_v<T, DropViewStatement>) {
          return execute_drop_view(s, context);
        } else {
          return Status::internal("execute_schema_statement: not a schema statement");
        }
      },
      statement);
}

}  // namespace cassette::cql
