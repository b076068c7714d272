// The `cql` virtual table module: a CQL table as an SQLite table (README.md for the surface).
//
//   cql_table_create.cc  xCreate/xConnect (module arguments -> CQL DDL), xDestroy, xRename
//   cql_table_read.cc    xBestIndex (engine/query plans), xFilter/xNext/xColumn/xRowid
//   cql_table_write.cc   xUpdate and the transaction callbacks
//
// Column numbering: 0..n-1 are the CQL columns in `sql_order` (declared order for a table the
// virtual table created, CQL's for an exposed one; sql_order[i] is the TableDef index of SQL
// column i); then the hidden columns, in the order `token`, writetime_<c>/ttl_<c> per non-key
// column, cql_ttl, cql_timestamp (a hidden column whose name a real column has is left out, so
// `hidden` maps SQL index -> meaning).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/query/query.h"
#include "engine/write/row_encoder.h"
#include "ext/sqlite/connection.h"
#include "ext/sqlite/sqlite_api.h"

namespace cassette::sqlite {

struct HiddenColumn {
  enum class Kind : uint8_t { kToken, kWritetime, kTtl, kCqlTtl, kCqlTimestamp };
  Kind kind;
  size_t column = 0;  // kWritetime/kTtl: the CQL column
};

// The key of a row SQLite saw through xRowid, for xUpdate's DELETE/UPDATE by rowid.
struct RowKey {
  std::string partition_key;
  std::string clustering;
  bool static_only = false;
  // A counter table's counters as the statement that last handed out this rowid read them, by
  // index in table->columns (0 when absent). An UPDATE adds its new value minus this one: the
  // value SQLite computed it from, so that what others committed since the read is kept.
  std::vector<int64_t> counters_read;
};

struct CqlTable {
  sqlite3_vtab base;  // must come first: SQLite sees a sqlite3_vtab*
  Connection* connection = nullptr;
  std::shared_ptr<storage::Store> store;
  cql::Session* session = nullptr;
  std::shared_ptr<const schema::TableDef> table;
  std::string keyspace;
  std::string name;                  // the CQL table name
  std::string sql_schema, sql_name;  // the virtual table's SQLite schema ("main") and name
  bool owns_table = false;           // created by this virtual table: DROP TABLE drops it
  std::vector<size_t> sql_order;     // SQL column i (< n) -> index in table->columns
  // What xColumn needs of SQL column i (< n), packed in one array: it runs per value per row,
  // between which SQLite and the host touch much other memory, and a ColumnDef is large.
  struct ColumnRead {
    uint32_t column;  // sql_order[i]
    bool key;         // a partition key or clustering column
    types::TypeKind kind;
    const types::CqlType* type;  // in *table
  };
  std::vector<ColumnRead> reads;
  std::vector<size_t> sql_position;  // index in table->columns -> SQL column (the inverse)
  std::vector<HiddenColumn> hidden;  // SQL column n + i
  // What changed in the catalog since the table was connected, as of the schema `schema_seen`
  // (the store's, as the open transaction sees it: Connection::schema_view), re-read when it
  // changes (through cql(), another process, or a schema change of the transaction):
  // the columns with a secondary index (an index created later is used at once), the columns
  // of `table` dropped since (they read as NULL and refuse values), and whether the CQL table
  // itself is gone (dropped, or dropped and created again: every use is an error).
  // SQLite fixes a virtual table's columns when it connects: when the CQL table's columns
  // changed (added, dropped, renamed), redeclare_columns() makes SQLite connect the table again
  // from the next statement on, and until then the statements prepared before run as above.
  std::vector<int> indexed_columns;
  std::vector<uint8_t> index_analysis;  // schema::sai_column_analyses: an index scan's terms
  std::vector<uint8_t> dropped;  // by index in table->columns (bytes: xColumn reads it per value)
  bool any_dropped = false;
  bool columns_changed = false;  // the CQL table's columns are not `table`'s any more
  bool redeclared = false;       // redeclare_columns() succeeded
  std::string gone;              // why the table cannot be used, when it is gone
  std::shared_ptr<const schema::Schema> schema_seen;
  std::unordered_map<int64_t, RowKey> rowids;  // rowids handed out by xRowid
  // The plans xFilter decoded, by the idxStr text xBestIndex encoded them to (without the
  // grouping prefix): xFilter runs once per execution of a statement, and a prepared statement
  // runs many times with the same plan. `table` never changes, so neither do they.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, query::Plan, TextHash, std::equal_to<>> plans;
  Result<const query::Plan*> decoded_plan(std::string_view text);
  // INSERT's encoder over the columns not dropped (made by the first INSERT, again after
  // catch_up() saw the schema change) and its values, reused row after row.
  std::unique_ptr<write::RowEncoder> insert_encoder;
  std::vector<types::Value> insert_values;
  bool in_transaction = false;

  size_t cql_columns() const { return table->columns.size(); }
  // Catches up with the catalog (see `dropped`); an error when the table is gone. With `seq`
  // (a store snapshot's sequence), only when the store has changed since the last check: a
  // query pays nothing while nothing is written.
  Status refresh(std::optional<storage::SequenceNumber> seq = std::nullopt);
  storage::SequenceNumber refreshed_at = 0;
  // Re-reads `indexed_columns`, `dropped`, `columns_changed` and `gone` when the schema seen
  // changed.
  Status catch_up();
  // When `columns_changed`, has SQLite connect the table again from the next statement on, with
  // the CQL table's columns (Connection::redeclare_tables; once, unless that failed). Not in a
  // transaction that has not written the database file (that waits for its end). Called where
  // a statement meets the table (xBestIndex, xFilter), after refresh().
  void redeclare_columns();
  // Sets zErrMsg (sqlite3_mprintf'd) and returns SQLITE_ERROR.
  int error(const std::string& message);
};

struct CqlCursor {
  sqlite3_vtab_cursor base;  // must come first
  std::unique_ptr<query::QueryCursor> rows;
  bool values_terminated = false;  // rows->values_nul_terminated()
  bool eof = true;
  // The current row's rows->row_values(), once values_indexed (reset by each xNext).
  const std::string_view* values = nullptr;
  bool values_indexed = false;
  bool may_keep_values = false;  // xColumn may be asked for an UPDATE's unchanged column
  CqlTable* table() { return reinterpret_cast<CqlTable*>(base.pVtab); }
};

// The module's callbacks, by file.
int cql_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** vtab,
               char** error);
int cql_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** vtab,
                char** error);
int cql_disconnect(sqlite3_vtab* vtab);
int cql_destroy(sqlite3_vtab* vtab);
int cql_rename(sqlite3_vtab* vtab, const char* new_name);
int cql_shadow_name(const char* name);

int cql_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info);
int cql_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** cursor);
int cql_close(sqlite3_vtab_cursor* cursor);
int cql_filter(sqlite3_vtab_cursor* cursor, int idx_num, const char* idx_str, int argc,
               sqlite3_value** argv);
int cql_next(sqlite3_vtab_cursor* cursor);
int cql_eof(sqlite3_vtab_cursor* cursor);
int cql_column(sqlite3_vtab_cursor* cursor, sqlite3_context* context, int column);
int cql_rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid);

int cql_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid);
int cql_begin(sqlite3_vtab* vtab);
int cql_sync(sqlite3_vtab* vtab);
int cql_commit(sqlite3_vtab* vtab);
int cql_rollback(sqlite3_vtab* vtab);
int cql_savepoint(sqlite3_vtab* vtab, int level);
int cql_release(sqlite3_vtab* vtab, int level);
int cql_rollback_to(sqlite3_vtab* vtab, int level);

const sqlite3_module& cql_module();

// The error xSync returns for a commit that failed with `status` (its message in zErrMsg). A
// serialization failure (a row the transaction read and wrote changed since its snapshot) is
// SQLITE_BUSY_SNAPSHOT, as SQLite's WAL says when a transaction's snapshot is stale; the store's
// lock not had in time (Busy) is SQLITE_BUSY. Either way SQLite rolls the transaction back and
// the application retries it. Anything else is SQLITE_ERROR (rolled back too).
int commit_error(sqlite3_vtab* vtab, const Status& status);

// Runs `body`, turning any C++ exception into an SQLite error on `vtab` (never let one escape).
template <typename Body>
int guarded(sqlite3_vtab* vtab, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (vtab) {
      sqlite3_free(vtab->zErrMsg);
      vtab->zErrMsg = sqlite3_mprintf("Internal error in the cql module: %s", e.what());
    }
    return SQLITE_ERROR;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

}  // namespace cassette::sqlite
