// The PostgreSQL side of the bridge, through libpqxx: connecting with a clear error, the session
// settings the value conversions rely on, PostgreSQL errors turned into one-line messages,
// quoting names, and the catalog look-ups pg-export and pg-import need.
//
// Everything here catches libpqxx's exceptions and returns Status values, so the commands above
// it read like the rest of the shell.
#pragma once

#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/status.h"
#include "ext/pg_common/pg_types.h"

namespace cassette::cli::pg {

// Opens a connection ("cannot connect to PostgreSQL: <libpq's reason>" on failure) and sets
// DateStyle ISO, TimeZone UTC, IntervalStyle iso_8601, bytea_output hex, extra_float_digits 3
// and client_encoding UTF8 for the session.
Result<std::unique_ptr<pqxx::connection>> connect(const std::string& connection_string);

// The first line of a libpqxx exception's message, without libpq's "ERROR:  " prefix.
std::string describe_pg_error(const std::exception& error);

// A PostgreSQL identifier, double-quoted (so any name works in generated SQL).
std::string quote_pg_identifier(std::string_view name);

// A table name as the user gives it ("orders", "sales.orders", "\"Orders\"") split into schema
// (empty for none) and name, each as PostgreSQL resolves it (unquoted names lower-cased).
struct PgTableName {
  std::string schema;
  std::string name;
  std::string quoted;   // for SQL: "sales"."orders"
  std::string display;  // for messages: sales.orders
};
PgTableName parse_pg_table_name(std::string_view text);

// A column of an existing table: its name, format_type() spelling, and whether it must be given
// (NOT NULL without a default).
struct PgColumn {
  std::string name;
  std::string type;
  bool required = false;
};
// The columns of `table` in order, or nullopt when the table does not exist.
Result<std::optional<std::vector<PgColumn>>> table_columns(pqxx::transaction_base& tx,
                                                           const PgTableName& table);

// When `table` is a foreign table of a cassette_fdw server, the server's store option (the
// directory it reads and writes); nullopt for any other table or a missing one.
Result<std::optional<std::string>> cassette_foreign_table_store(pqxx::transaction_base& tx,
                                                                const PgTableName& table);

// The name and kind of each column of a query's result (the query is planned, not run).
struct PgResultColumn {
  std::string name;
  PgSourceType type;
};
Result<std::vector<PgResultColumn>> describe_query(pqxx::transaction_base& tx,
                                                   const std::string& query);

// The planner's row estimate for a query (for a progress bar); nullopt when it has none.
std::optional<double> estimate_rows(pqxx::dbtransaction& tx, const std::string& query);

}  // namespace cassette::cli::pg
