// InsertEncoder: pg-import's rows written straight as storage entries (encoded_batch.h), for the
// common case of a row whose columns are all simple (one cell each): the key columns plus
// regular columns of scalar types or frozen collections.
//
// Each row gets exactly what `INSERT INTO t (columns) VALUES (...)` would write through the
// engine's statements (modification_statement.h): one row entry with the row marker (the
// table's default TTL), a cell per given column (a NULL writes a tombstone), the write timestamp
// left to the store (kAutoTimestamp); and it is refused with the same checks and messages, in
// the same order ("Invalid null value in condition for column k", "Key may not be empty", key
// length and clustering errors). Only the PreparedModification, WriteBatch and Row trees are not
// built: a row costs one encode into the batch's bytes.
//
// Rows of one batch with the same primary key are merged when the batch is written
// (fold_same_rows), as WriteBatch merges them: Cassandra's rules for equal timestamps decide.
//
//   auto encoder = InsertEncoder::make(table, columns);  // nullptr: use the general path
//   encoder->set_parameters(params);                      // per batch: TTL and "now"
//   for (...) if (Status s = encoder->add(values, batch); !s.is_ok()) reject(s.message());
//   fold_same_rows(batch); store.apply(batch);
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/cql/modification.h"
#include "engine/schema/schema.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/row.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::cli::pg {

class InsertEncoder {
 public:
  // An encoder for rows giving `columns` (in add()'s order) of `table`, or nullptr when they
  // need the general path: a static column, a non-frozen collection or UDT, a counter table.
  // REQUIRES: `columns` hold the whole primary key, each column once.
  static std::unique_ptr<InsertEncoder> make(std::shared_ptr<const schema::TableDef> table,
                                             const std::vector<const schema::ColumnDef*>& columns);

  // The TTL and "now" of the rows added next (cql::write_parameters of an INSERT).
  void set_parameters(const cql::WriteParameters& params) { params_ = params; }

  // Checks one row as INSERT does and appends its entry to `batch`; an error (Cassandra's
  // message) appends nothing. The values are moved from.
  Status add(std::vector<types::Value>& values, storage::EncodedBatch& batch);

 private:
  struct Slot {
    enum class Kind { kPartition, kClustering, kCell } kind;
    size_t index;  // into partition_, clustering_ or row_.columns
  };
  InsertEncoder() = default;

  std::shared_ptr<const schema::TableDef> table_;
  std::vector<const schema::ColumnDef*> columns_;
  std::vector<Slot> slots_;  // per column of add()
  cql::WriteParameters params_;
  std::vector<std::string> partition_;   // partition key components, in key order
  std::vector<std::string> clustering_;  // clustering values, in key order
  storage::Row row_;                     // the row being encoded: its cells are refilled per row
  std::string key_;
  std::string value_;
};

// Merges the entries of `batch` that have the same key (one table's rows given twice in a
// batch) into one, reconciled as WriteBatch merges the rows of one statement batch. Leaves a
// batch with no such entries as it is (the common case: one sort of the keys).
Status fold_same_rows(storage::EncodedBatch& batch);

}  // namespace cassette::cli::pg
