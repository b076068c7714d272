// execute_schema_statement: CREATE/ALTER/DROP KEYSPACE here; tables, types and indexes in
// execute_schema_{table,type,index}.cc. Semantics and messages are Cassandra 4.1's
// (cql3/statements/schema/*Statement.java).
#include <fmt/format.h>

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
Result<ExecutionResult> execute_create_index(const CreateIndexStatement& s, ExecutionContext& c);
Result<ExecutionResult> execute_drop_index(const DropIndexStatement& s, ExecutionContext& c);

namespace {

using namespace schema_internal;

Status check_keyspace_name(const std::string& name) {
  if (!is_valid_name(name)) {
    return Status::invalid_argument(fmt::format(
        "Keyspace name must not be empty, more than 48 characters long, or contain "
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
  return run_change(context, [&](const schema::Schema& now)
                                 -> Result<std::optional<schema::Schema>> {
    if (now.find_keyspace(statement.keyspace) != nullptr) {
      if (statement.if_not_exists) return std::optional<schema::Schema>();
      return Status::already_exists(
          fmt::format("Cannot add existing keyspace \"{}\"", statement.keyspace));
    }
    auto keyspace = std::make_shared<schema::KeyspaceDef>();
    keyspace->name = statement.keyspace;
    CASSETTE_ASSIGN_OR_RETURN(keyspace->replication,
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
  return run_change(context, [&](const schema::Schema& now)
                                 -> Result<std::optional<schema::Schema>> {
    if (now.find_keyspace(statement.keyspace) == nullptr) {
      if (statement.if_exists) return std::optional<schema::Schema>();
      return Status::invalid_argument(
          fmt::format("Keyspace '{}' doesn't exist", statement.keyspace));
    }
    auto keyspace = copy_keyspace(now, statement.keyspace);
    if (properties.replication && properties.replication->contains("class")) {
      CASSETTE_ASSIGN_OR_RETURN(keyspace->replication,
                                validate_replication(statement.keyspace, *properties.replication));
    }
    if (properties.durable_writes) keyspace->durable_writes = *properties.durable_writes;
    schema::Schema next = now;
    next.keyspaces[statement.keyspace] = std::move(keyspace);
    return std::optional<schema::Schema>(std::move(next));
  });
}

Result<ExecutionResult> execute_drop_keyspace(const DropKeyspaceStatement& statement,
                                              ExecutionContext& context) {
  CASSETTE_RETURN_IF_ERROR(check_keyspace_name(statement.keyspace));
  return run_change(context, [&](const schema::Schema& now)
                                 -> Result<std::optional<schema::Schema>> {
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

}  // namespace

Result<ExecutionResult> execute_schema_statement(const Statement& statement,
                                                 ExecutionContext& context) {
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
        } else {
          return Status::internal("execute_schema_statement: not a schema statement");
        }
      },
      statement);
}

}  // namespace cassette::cql
