// DESCRIBE results as cqlsh prints them. Cassandra 4 describes on the server and returns rows
// (keyspace_name, type, name[, create_statement]); cqlsh prints, for a named element, each
// create_statement after a blank line, and for DESCRIBE KEYSPACES/TABLES/TYPES the names in
// columns (Python's cmd.Cmd.columnize, 80 characters wide), grouped by keyspace when no keyspace
// is in use.
#pragma once

#include <span>
#include <string>

#include "engine/cql/ast.h"
#include "engine/cql/result.h"

namespace cassette::cli {

std::string format_describe(const cql::ResultSet& rows, cql::DescribeStatement::Kind kind,
                            bool has_current_keyspace);

// Python's cmd.Cmd.columnize: the names in as few rows as fit in `width` characters, column by
// column, two spaces apart; "<empty>" for no names.
std::string columnize(std::span<const std::string> names, size_t width = 80);

}  // namespace cassette::cli
