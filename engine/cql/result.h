// What executing a statement returns: nothing, rows (with their column names and types), or a
// change of keyspace. The shell and the SQL hosts format rows themselves from the types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/types/cql_type.h"
#include "engine/types/value.h"

namespace cassette::cql {

struct ResultColumn {
  std::string name;     // as Cassandra names it: the column, its alias, "writetime(v)", "count"
  types::CqlType type;  // for SELECT JSON: one text column named "[json]"
};

struct ResultSet {
  std::vector<ResultColumn> columns;
  std::vector<std::vector<types::Value>> rows;  // each row has columns.size() values
};

struct ExecutionResult {
  enum class Kind {
    kVoid,          // INSERT/UPDATE/DELETE/BATCH without conditions, TRUNCATE
    kRows,          // SELECT, conditional writes ([applied] ...), DESCRIBE
    kSetKeyspace,   // USE
    kSchemaChange,  // CREATE/ALTER/DROP
  };
  Kind kind = Kind::kVoid;
  ResultSet rows;
  std::string keyspace;               // kSetKeyspace: the new current keyspace
  std::vector<std::string> warnings;  // as Cassandra's client warnings (cqlsh prints them)
  // DESCRIBE returns rows (keyspace_name, type, name, create_statement) as Cassandra 4 does;
  // the shell prints only create_statement, the CQL text.
  bool is_describe = false;
  // A paged SELECT (StatementOptions::page_size) that may have more rows: where the next page
  // starts, opaque to the caller. nullopt: this was the last page.
  std::optional<std::string> paging_state;
};

}  // namespace cassette::cql
