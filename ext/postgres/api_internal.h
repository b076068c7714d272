// What the C++ side of the C interface (cassette_api.h) shares between its files: the error
// slot, the registry of open stores and tables, and the guard that turns any exception into an
// error code. Nothing here is visible to the C glue.
#pragma once

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/cql/session.h"
#include "engine/query/query.h"
#include "engine/schema/catalog.h"
#include "engine/storage/store.h"
#include "engine/txn/transaction.h"
#include "engine/types/scalar.h"
#include "engine/types/value.h"
#include "engine/util/status.h"
#include "engine/write/row_encoder.h"
#include "ext/pg_common/pg_types.h"
#include "ext/postgres/cassette_api.h"

// One CQL table as resolved at one schema version, with its columns as the glue sees them. A
// handle never changes once handed out (a changed definition gets a new handle) and lives as long
// as the process, so the glue may keep pointers into it for a whole query.
struct cas_table {
  std::string store_path;
  std::string qualified_name;  // "ks.t"
  std::shared_ptr<cassette::storage::Store> store;
  std::shared_ptr<cassette::schema::Catalog> catalog;
  std::shared_ptr<const cassette::schema::TableDef> def;
  uint64_t schema_version = 0;
  // The schema resolve_table last read: its views are kept by the foreign table's writes
  // (cql::keep_views).
  std::shared_ptr<const cassette::schema::Schema> schema;
  std::vector<std::string> names;  // storage for cas_column_info strings
  std::vector<std::string> cql_types;
  std::vector<std::string> pg_types;
  std::vector<cas_column_info> columns;
  std::vector<uint8_t> index_analysis;  // schema::sai_column_analyses: an index scan's terms
  // Foreign-table writes (api_write.cc): the INSERT encoder over every column, made on first
  // use, and its values; the values RETURNING reads back and their text forms (which the glue
  // reads until the next write).
  std::unique_ptr<cassette::write::RowEncoder> insert_encoder;
  std::vector<cassette::types::Value> insert_values;
  std::vector<cassette::types::Value> stored_values;
  std::vector<std::string> stored_buffers;
  // Row locks (cas_scan_row_lock_ids): the hash of the store's directory and the table's id.
  std::optional<uint64_t> lock_space;
};

namespace cassette::pg {
struct AggregateState;
}  // namespace cassette::pg

// A scan opened by cas_scan_open (api_scan.cc): the engine's cursor and what the glue reads.
struct cas_scan {
  cas_table* table = nullptr;
  std::shared_ptr<const cassette::schema::TableDef> def;
  std::unique_ptr<cassette::query::QueryCursor> cursor;
  std::vector<cas_repr> reprs;
  std::vector<size_t> wanted;  // the columns the glue reads, in column order
  // By column: the plan decodes its values (the key, the plan's values(...) and restricted
  // columns; every column without values(...)). The glue may read only these.
  std::vector<uint8_t> readable;
  std::vector<std::string> buffers;  // text forms of the current row
  // cas_scan_next_batch: text forms and copied bytes of the current batch ([row][column]), and
  // an error met after some rows of a batch, reported by the next call (after those rows).
  std::vector<std::string> batch_buffers;
  bool needs_buffers = false;  // a wanted column travels as text, bytes or a uuid
  cassette::Status deferred;
  bool ended = false;       // the cursor's next() returned false
  int64_t index_reads = 0;  // reads of SAI components its opening made (cas_scan_index_reads)
  // cas_scan_aggregate's running state (api_aggregate.cc), made by its first call.
  std::shared_ptr<cassette::pg::AggregateState> aggregate;
};

namespace cassette::pg {

// Records the message of a failed call; returns the non-zero code the C functions return.
int set_error(const Status& status);
int set_error(const std::string& message);

// Runs `body` (returning Status), catching every exception: the only way C++ code is entered
// from the glue.
template <typename F>
int guarded(F&& body) {
  try {
    Status status = body();
    return status.is_ok() ? 0 : set_error(status);
  } catch (const std::exception& e) {
    return set_error(std::string("internal error in cassette_fdw: ") + e.what());
  } catch (...) {
    return set_error(std::string("internal error in cassette_fdw"));
  }
}

// The store at `path`, opened once per process without background threads. `must_exist`
// refuses to create a missing store directory.
Result<std::shared_ptr<storage::Store>> open_store(const std::string& path, bool must_exist);
Result<std::shared_ptr<schema::Catalog>> open_catalog(const std::string& path, bool must_exist);

// ---- values (api_values.cc) ----
// How values of a CQL type travel (their PostgreSQL type: cli::pg::pg_type_name).
cas_repr natural_repr(const types::CqlType& type);
// Whether PostgreSQL's default btree order of pg_type_name(type) is CQL's comparator order.
bool pg_order_matches(const types::CqlType& type);

constexpr int64_t kPgEpochMicros = 946'684'800'000'000;  // 2000-01-01 in Unix microseconds
using cli::pg::kPgEndTimestampMillis;
using cli::pg::kPgMinTimestampMillis;

// A CQL timestamp (Unix milliseconds) as a PostgreSQL timestamptz (microseconds since 2000).
// REQUIRES: kPgMinTimestampMillis <= millis < kPgEndTimestampMillis. The epoch is shifted before
// the scaling: near PostgreSQL's upper limit, Unix microseconds would not fit in 64 bits.
constexpr int64_t pg_micros_from_cql_millis(int64_t millis) {
  return (millis - kPgEpochMicros / 1000) * 1000;
}

// The range of a CQL integer type (tinyint, smallint, int), or nullopt for the others.
std::optional<std::pair<int64_t, int64_t>> integer_range(const types::CqlType& type);

// The scan's per-value fast path, inline: a CQL int, bigint or counter, double or timestamp of
// its usual width in representation INT4, INT8, FLOAT8 or TIMESTAMPTZ. Returns false, writing
// nothing, for anything else (empty values, other widths, other representations): to_pg_value
// then decides.
inline bool to_pg_number(std::string_view bytes, cas_repr repr, cas_value* out) {
  switch (repr) {
    case CAS_REPR_INT4:
      if (bytes.size() != 4) return false;
      out->i = types::read_int32(bytes);
      break;
    case CAS_REPR_INT8:
    case CAS_REPR_TIMESTAMPTZ:
      if (bytes.size() != 8) return false;
      out->i = types::read_int64(bytes);
      if (repr == CAS_REPR_TIMESTAMPTZ) {
        if (out->i < kPgMinTimestampMillis || out->i >= kPgEndTimestampMillis) return false;
        out->i = pg_micros_from_cql_millis(out->i);
      }
      break;
    case CAS_REPR_FLOAT8:
      if (bytes.size() != 8) return false;
      out->d = types::read_double(bytes);
      break;
    default:
      return false;
  }
  out->isnull = 0;
  return true;
}

// A CQL value (nullptr: null) as a cas_value in representation `repr`; text forms are built in
// *buffer, which must outlive the use of `out`. (A pointer, not an optional passed by value: the
// scan calls this per row and column, and copying an optional just written stalls the CPU.)
Status to_pg_value(const types::CqlType& type, const std::string_view* value, cas_repr repr,
                   cas_value* out, std::string* buffer);
// A cas_value in representation `repr` as a CQL value of `type`; `column` names it in messages.
Result<types::Value> from_pg_value(const types::CqlType& type, const cas_value& value,
                                   cas_repr repr, std::string_view column);

// Fails with an internal error when `scan`'s plan does not decode column `column`'s values
// (cas_scan::readable): a value() of it would fail only after its row was read as NULL.
Status check_readable(const cas_scan& scan, size_t column);

// Frees every scan still open (the end of a transaction, which may have failed mid-scan).
void release_open_scans();

// ---- the transaction block's writes (api_write.cc) ----

// The transaction block's txn::Transaction on `store`, made on first use, marked for savepoint
// `level` (the (sub)transaction nesting level, 1 at the top): foreign-table writes and cql()
// writes of the block go there. find_store_transaction: nullptr when there is none.
txn::Transaction& store_transaction(storage::Store* store, int level);
txn::Transaction* find_store_transaction(storage::Store* store);

// What a read of `table` in the statement with command id `command` sees: the store's latest
// committed state with the transaction block's writes of commands before `command` on top.
Result<std::shared_ptr<const storage::Snapshot>> read_snapshot(cas_table* table, uint32_t command);

// One foreign-table UPDATE or DELETE, as the glue gives it: its key and the columns it sets.
struct ForeignRow {
  enum class Kind : uint8_t { kUpdate, kDelete };
  Kind kind = Kind::kUpdate;
  std::string partition_key;  // serialized
  std::string clustering;     // encoded ("" without clustering columns)
  // An UPDATE of a partition's static columns alone, without clustering values (as
  // CQL allows): it writes the static row only.
  bool static_only = false;
  std::vector<std::pair<size_t, types::Value>> sets;  // column index, value (null: delete)
};

// The rows a foreign-table write wrote (empty when it wrote none), for RETURNING.
struct WrittenRows {
  storage::Row row, static_row;
};

// Writes `row` of `table` into `transaction` as statement `statement`, as storage rows: an
// UPDATE writes the cells it sets (NULL deletes one); static columns go to the partition's
// static row; a DELETE writes a row deletion. (An INSERT is RowEncoder's.) The write parameters
// are the table's (its default TTL) at the store's clock, timestamps left to the commit. With
// `written`, the rows also go there.
Status encode_foreign_row(const ForeignRow& row, const cas_table& table,
                          txn::Transaction& transaction, txn::StatementId statement,
                          WrittenRows* written = nullptr);

}  // namespace cassette::pg
