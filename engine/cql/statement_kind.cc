#include "engine/cql/statement_kind.h"

#include <type_traits>

namespace cassette::cql {

std::string_view statement_name(const Statement& statement) {
  return std::visit(
      [](const auto& s) -> std::string_view {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, SelectStatement>)
          return "SELECT";
        else if constexpr (std::is_same_v<T, InsertStatement>)
          return "INSERT";
        else if constexpr (std::is_same_v<T, UpdateStatement>)
          return "UPDATE";
        else if constexpr (std::is_same_v<T, DeleteStatement>)
          return "DELETE";
        else if constexpr (std::is_same_v<T, BatchStatement>)
          return "BATCH";
        else if constexpr (std::is_same_v<T, UseStatement>)
          return "USE";
        else if constexpr (std::is_same_v<T, CreateKeyspaceStatement>)
          return "CREATE KEYSPACE";
        else if constexpr (std::is_same_v<T, AlterKeyspaceStatement>)
          return "ALTER KEYSPACE";
        else if constexpr (std::is_same_v<T, DropKeyspaceStatement>)
          return "DROP KEYSPACE";
        else if constexpr (std::is_same_v<T, CreateTableStatement>)
          return "CREATE TABLE";
        else if constexpr (std::is_same_v<T, AlterTableStatement>)
          return "ALTER TABLE";
        else if constexpr (std::is_same_v<T, DropTableStatement>)
          return "DROP TABLE";
        else if constexpr (std::is_same_v<T, TruncateStatement>)
          return "TRUNCATE";
        else if constexpr (std::is_same_v<T, CreateIndexStatement>)
          return "CREATE INDEX";
        else if constexpr (std::is_same_v<T, DropIndexStatement>)
          return "DROP INDEX";
        else if constexpr (std::is_same_v<T, CreateTypeStatement>)
          return "CREATE TYPE";
        else if constexpr (std::is_same_v<T, AlterTypeStatement>)
          return "ALTER TYPE";
        else if constexpr (std::is_same_v<T, DropTypeStatement>)
          return "DROP TYPE";
        else if constexpr (std::is_same_v<T, DescribeStatement>)
          return "DESCRIBE";
        else if constexpr (std::is_same_v<T, CreateViewStatement>)
          return "CREATE MATERIALIZED VIEW";
        else if constexpr (std::is_same_v<T, AlterViewStatement>)
          return "ALTER MATERIALIZED VIEW";
        else if constexpr (std::is_same_v<T, DropViewStatement>)
          return "DROP MATERIALIZED VIEW";
        else
          static_assert(sizeof(T) == 0, "a statement kind without a name");
      },
      statement);
}

bool statement_writes(const Statement& statement) {
  return !std::holds_alternative<SelectStatement>(statement) &&
         !std::holds_alternative<DescribeStatement>(statement) &&
         !std::holds_alternative<UseStatement>(statement);
}

bool statement_returns_rows(const Statement& statement) {
  return std::holds_alternative<SelectStatement>(statement) ||
         std::holds_alternative<DescribeStatement>(statement);
}

}  // namespace cassette::cql
