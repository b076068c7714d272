// The write log of a PostgreSQL transaction (api_write.cc) and what reads it: the fold that
// turns it into rows (used by the commit and by the overlay), and the overlay that lets the
// transaction's reads see its own writes (api_overlay.cc).
//
// Every INSERT, UPDATE, DELETE and TRUNCATE on a foreign table is one WriteEntry, in statement
// order, tagged with its (sub)transaction level (ROLLBACK TO drops a suffix of the log) and with
// PostgreSQL's command id: a statement sees the writes of the commands before it, never its own
// (an UPDATE does not find the rows it has just written; INSERT ... SELECT does not read back
// its own rows), exactly as PostgreSQL's snapshots (curcid) treat heap tuples.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/cql/modification.h"
#include "engine/txn/transaction.h"
#include "ext/postgres/api_internal.h"

namespace cassette::pg {

struct WriteEntry {
  enum class Kind { kInsert, kUpdate, kDelete, kTruncate };
  Kind kind = Kind::kInsert;
  cas_table* table = nullptr;
  std::shared_ptr<const schema::TableDef> def;
  std::string partition_key;
  std::string clustering;
  std::vector<std::pair<size_t, types::Value>> sets;  // column index, value (null: delete)
  int level = 1;
  uint32_t command = 0;  // PostgreSQL's CommandId of the statement that wrote it
  // An INSERT or UPDATE of a partition's static columns alone, without clustering values (as
  // CQL allows): it writes the static row only, no clustering row.
  bool static_only = false;
};

// The transaction's log. Commands never decrease along it (entries are appended as statements
// run; ROLLBACK TO removes a suffix).
std::vector<WriteEntry>& write_log();

// One row's writes of the transaction, folded: later statements win over earlier ones, a DELETE
// forgets what came before it, an INSERT after a DELETE writes the whole row. A partition's
// static columns are folded as a row of their own (only `sets`, never live or deleted): every
// statement that sets one, on whichever row of the partition, writes the same cell.
struct PendingRow {
  std::shared_ptr<const schema::TableDef> def;
  std::string partition_key;
  std::string clustering;
  bool deleted = false;
  bool live = false;
  std::map<size_t, types::Value> sets;
};

// (table, partition key, static row?, clustering): a partition's static row is a row of its own.
using RowKey = std::tuple<storage::TableId, std::string, bool, std::string>;

// The fold of one store's entries, in log order. A TRUNCATE forgets the table's rows folded so
// far and marks the table truncated (the commit truncates it before writing the rows after it).
class WriteFold {
 public:
  // Called with each row an entry writes (the row, and the partition's static row when it sets
  // static columns) and whether no earlier entry wrote that row.
  using Touched = std::function<void(const PendingRow& row, bool is_new)>;
  // Folds `e`. Returns whether it was a TRUNCATE that dropped rows folded before.
  bool add(const WriteEntry& e, const Touched& touched = nullptr);

  const std::map<RowKey, PendingRow>& rows() const { return rows_; }
  const std::map<storage::TableId, std::shared_ptr<const schema::TableDef>>& truncated() const {
    return truncated_;
  }
  bool is_truncated(storage::TableId table) const { return truncated_.count(table) != 0; }

 private:
  PendingRow& row(const WriteEntry& e, bool is_static, const Touched& touched);

  std::map<RowKey, PendingRow> rows_;
  std::map<storage::TableId, std::shared_ptr<const schema::TableDef>> truncated_;
};

// The parameters of the rows a transaction writes to `table`: the store's timestamp
// (kAutoTimestamp), the table's default TTL, `now_micros` for TTLs and tombstones.
cql::WriteParameters write_parameters(const schema::TableDef& table, int64_t now_micros);

// Adds the folded row `p` to `batch` with `params` (the commit's, or the overlay's); `snapshot`
// is what operations that need the current row read (setting a non-frozen collection).
Status add_row(const PendingRow& p, const cql::WriteParameters& params, const storage::Store& store,
               const storage::Snapshot& snapshot, storage::WriteBatch& batch);

// ---- cql() inside a transaction block (api_write.cc) ----

// The writes cql() made in the transaction block on `store` (README.md, "cql() and
// transactions"): a txn::Transaction per store, committed with the store's foreign-table writes
// as one record. Created on first use; nullptr from find_ when there is none.
txn::Transaction& cql_transaction(storage::Store* store);
txn::Transaction* find_cql_transaction(storage::Store* store);

// ---- the overlay (api_overlay.cc) ----

// The store's latest committed state with the foreign-table writes of commands before `command`
// on top; for `table`, if given and TRUNCATEd by them, only the rows written after the TRUNCATE.
// What cql() reads beneath its own writes.
Result<std::shared_ptr<const storage::Snapshot>> foreign_writes_view(
    storage::Store* store, std::optional<storage::TableId> table, uint32_t command);

// What a read of `table` in the statement with command id `command` sees: foreign_writes_view()
// with the transaction's cql() writes on top (all of them: cql() writes carry no command id).
// The store's own snapshot when the transaction has no such writes.
Result<std::shared_ptr<const storage::Snapshot>> read_snapshot(cas_table* table, uint32_t command);
// The log lost its entries from `size` on (ROLLBACK TO): overlays holding them start over.
void overlay_log_truncated(size_t size);
// The transaction ended: forget every overlay.
void reset_overlays();

}  // namespace cassette::pg
