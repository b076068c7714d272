#include "ext/server/statement_target.h"

#include <type_traits>
#include <variant>

namespace cassette::server {

namespace {

std::string keyspace_or(const std::string& keyspace, const std::string& current_keyspace) {
  return keyspace.empty() ? current_keyspace : keyspace;
}

SchemaChange keyspace_change(std::string change_type, const std::string& keyspace) {
  return SchemaChange{std::move(change_type), "KEYSPACE", keyspace, {}};
}

SchemaChange named_change(std::string change_type, std::string target,
                          const cql::QualifiedName& name, const std::string& current_keyspace) {
  return SchemaChange{std::move(change_type), std::move(target),
                      keyspace_or(name.keyspace, current_keyspace), name.name};
}

// DROP INDEX changes the index's table; the index may be unknown (DROP INDEX IF EXISTS).
SchemaChange drop_index_change(const cql::DropIndexStatement& drop,
                               const std::string& current_keyspace, const schema::Schema& schema) {
  const std::string keyspace = keyspace_or(drop.index.keyspace, current_keyspace);
  std::string table;
  if (const schema::KeyspaceDef* def = schema.find_keyspace(keyspace)) {
    auto index = def->indexes.find(drop.index.name);
    if (index != def->indexes.end()) table = index->second->table;
  }
  return SchemaChange{"UPDATED", "TABLE", keyspace, table};
}

}  // namespace

RowsSource rows_source(const cql::Statement& statement, const std::string& current_keyspace) {
  return std::visit(
      [&](const auto& s) -> RowsSource {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, cql::SelectStatement> ||
                      std::is_same_v<S, cql::InsertStatement> ||
                      std::is_same_v<S, cql::UpdateStatement> ||
                      std::is_same_v<S, cql::DeleteStatement>) {
          return RowsSource{keyspace_or(s.table.keyspace, current_keyspace), s.table.name};
        } else {
          return RowsSource{};
        }
      },
      statement);
}

std::optional<SchemaChange> schema_change_of(const cql::Statement& statement,
                                             const std::string& current_keyspace,
                                             const schema::Schema& schema) {
  return std::visit(
      [&](const auto& s) -> std::optional<SchemaChange> {
        using S = std::decay_t<decltype(s)>;
        const std::string& ks = current_keyspace;
        if constexpr (std::is_same_v<S, cql::CreateKeyspaceStatement>) {
          return keyspace_change("CREATED", s.keyspace);
        } else if constexpr (std::is_same_v<S, cql::AlterKeyspaceStatement>) {
          return keyspace_change("UPDATED", s.keyspace);
        } else if constexpr (std::is_same_v<S, cql::DropKeyspaceStatement>) {
          return keyspace_change("DROPPED", s.keyspace);
        } else if constexpr (std::is_same_v<S, cql::CreateTableStatement>) {
          return named_change("CREATED", "TABLE", s.table, ks);
        } else if constexpr (std::is_same_v<S, cql::AlterTableStatement>) {
          return named_change("UPDATED", "TABLE", s.table, ks);
        } else if constexpr (std::is_same_v<S, cql::DropTableStatement>) {
          return named_change("DROPPED", "TABLE", s.table, ks);
        } else if constexpr (std::is_same_v<S, cql::CreateIndexStatement>) {
          return named_change("UPDATED", "TABLE", s.table, ks);
        } else if constexpr (std::is_same_v<S, cql::DropIndexStatement>) {
          return drop_index_change(s, ks, schema);
        } else if constexpr (std::is_same_v<S, cql::CreateTypeStatement>) {
          return named_change("CREATED", "TYPE", s.type, ks);
        } else if constexpr (std::is_same_v<S, cql::AlterTypeStatement>) {
          return named_change("UPDATED", "TYPE", s.type, ks);
        } else if constexpr (std::is_same_v<S, cql::DropTypeStatement>) {
          return named_change("DROPPED", "TYPE", s.type, ks);
        } else if constexpr (std::is_same_v<S, cql::CreateViewStatement>) {
          // Cassandra announces a view as a table (CreateViewStatement.schemaChangeEvent)
          return named_change("CREATED", "TABLE", s.view, ks);
        } else if constexpr (std::is_same_v<S, cql::AlterViewStatement>) {
          return named_change("UPDATED", "TABLE", s.view, ks);
        } else if constexpr (std::is_same_v<S, cql::DropViewStatement>) {
          return named_change("DROPPED", "TABLE", s.view, ks);
        } else {
          return std::nullopt;
        }
      },
      statement);
}

}  // namespace cassette::server
