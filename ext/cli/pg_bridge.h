// The PostgreSQL bridge of the `cassette` command (ext/cli/USAGE.md): rows move between a store
// and a PostgreSQL database through libpqxx, streamed with COPY in both directions.
//
//   cassette pg-export STORE ks.table CONNSTR [pg_table] [--rejects FILE]
//   cassette pg-import STORE ks.table CONNSTR 'SELECT ...' [--rejects FILE] [--batch-size N]
//
// pg-export creates the PostgreSQL table when it is missing (types from pg_types.h, the same
// primary key), or checks that an existing one can take the rows, then streams a full scan of
// the CQL table into it with COPY ... FROM STDIN, in one PostgreSQL transaction.
// pg-import runs COPY (query) TO STDOUT and writes the rows into the CQL table (result columns
// matched to CQL columns by name) in batches, each one atomic store write; rows that fail
// conversion or Cassandra's checks go to the rejects file with the reason.
// Both draw a progress bar on a terminal and print a summary. Exit status: 0 when every row
// moved, 1 on an error or rejected rows, 2 for a bad command line. See ext/cli/USAGE.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/cql/session.h"
#include "engine/schema/schema.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::cli::pg {

struct BridgeOptions {
  bool import = false;   // pg-import (else pg-export)
  std::string store;     // the store directory
  std::string keyspace;  // the CQL table
  std::string table;
  std::string connection;    // a libpq connection string or URI
  std::string pg_table;      // pg-export: the PostgreSQL table (default: the CQL table name)
  std::string query;         // pg-import: the query whose rows are imported
  std::string rejects;       // the rejects file (default: <table>.rejects.csv)
  size_t batch_size = 1000;  // pg-import: rows per store write
  bool help = false;
};

// Whether `word` (the first argument) names a bridge command.
bool is_bridge_command(std::string_view word);

// Parses "pg-export ..." / "pg-import ..." (args[0] is the command). Errors are usage errors.
Result<BridgeOptions> parse_bridge_options(std::span<const std::string> args);

// Runs a bridge command line; returns the exit status (0, 1, or 2 for usage errors).
int run_bridge_command(std::span<const std::string> args);

// What both commands start from: the store, a session on it and the CQL table the options name.
struct BridgeTable {
  std::shared_ptr<storage::Store> store;
  std::unique_ptr<cql::Session> session;
  std::shared_ptr<const schema::TableDef> table;
};
// Opens them; the error says which is missing ("no store at X", "cannot open store X: ...",
// Cassandra's "table ks.t does not exist"...).
Result<BridgeTable> open_bridge_table(const BridgeOptions& options,
                                      const storage::StoreOptions& store_options);

int run_pg_export(const BridgeOptions& options);
int run_pg_import(const BridgeOptions& options);

std::string bridge_usage_text();

}  // namespace cassette::cli::pg
