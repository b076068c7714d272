// CqlRowWriter: rows of values written into a CQL table in batches, each row with the
// semantics and checks of `INSERT INTO t (columns) VALUES (...)` (row marker, a null value
// writes a tombstone, the table's default TTL, Cassandra's key checks and messages), and each
// batch as one atomic store write, as an UNLOGGED BATCH of those INSERTs would be. pg-import
// and the shell's COPY FROM both write through it; for COPY FROM into a counter table each row
// is `UPDATE t SET c = c + value WHERE <key>` instead, as cqlsh's COPY does.
//
// Rows are encoded straight into storage entries by the engine's INSERT encoder
// (engine/write/row_encoder.h); rows that must read before they write (a non-frozen collection
// overwritten) and counter updates go through the engine's prepared statements
// (engine/cql/modification_statement.h), built from values directly. Either way no CQL
// text or JSON is made and parsed per row, and a row that fails its checks is refused on its
// own (add() returns why) while the batch goes on. A batch is written on a
// second thread while the caller prepares the next one (at most one batch in flight), so reading
// and converting rows overlaps with the store's work on a machine with two cores.
//
//   auto writer = CqlRowWriter::open(session, table, columns).value();
//   for (...) if (Status s = writer->add(values); !s.is_ok()) reject(s.message());
//   if (writer->batch_full(1000)) writer->flush();
//   ...; writer->finish();
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/cql/session.h"
#include "engine/schema/schema.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::cli::pg {

struct RowWriterOptions {
  // USING TTL for every row (checked as an INSERT's); nullopt: the table's default TTL.
  std::optional<int64_t> ttl;
  // Counter tables: add each row's values to its counters (a null adds 0), as cqlsh's COPY FROM
  // does. Without it a counter table is refused: INSERT cannot write counters.
  bool counter_increments = false;
};

class CqlRowWriter {
 public:
  // `columns` are the columns each row gives values for, in the order of add()'s values. They
  // must include the whole primary key ("Some partition key parts are missing: k",
  // "Some clustering keys are missing: c" otherwise), except that, as in an INSERT, the
  // clustering columns may be left out when the other columns are all static. Counter tables cannot
  // be written with INSERT, as in Cassandra (see RowWriterOptions::counter_increments).
  static Result<std::unique_ptr<CqlRowWriter>> open(cql::Session& session,
                                                    std::shared_ptr<const schema::TableDef> table,
                                                    std::vector<const schema::ColumnDef*> columns,
                                                    RowWriterOptions options = {});
  ~CqlRowWriter();

  // Checks one row and queues it for the next flush(). An error (Cassandra's message, e.g.
  // "Invalid null value in condition for column k") refuses the row and queues nothing. The
  // values are moved from.
  Status add(std::vector<types::Value>& values);
  size_t pending() const;
  // Whether the queued rows should be written now: `max_rows` of them, or values of
  // kMaxBatchValueBytes in all. The byte bound keeps a batch's update of one partition (rows of
  // one partition key, as a sorted export gives them) under the store's mutation limit, 16 MiB
  // by default (Cassandra's max_mutation_size), unless a single row is over it alone.
  static constexpr size_t kMaxBatchValueBytes = 4 << 20;
  bool batch_full(size_t max_rows) const;
  // Hands the queued rows to the writing thread, to be written as one atomic store write, and
  // empties the queue. Waits for the batch before it first; its error, if any, is returned.
  Status flush();
  // Writes what is queued and waits until every batch is written.
  Status finish();
  // Drops what is queued and waits for the batch being written, if any (after an error).
  Status finish_in_flight();
  // Rows in batches written so far (updated by flush() and finish()).
  int64_t written() const;

 private:
  struct State;
  explicit CqlRowWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace cassette::cli::pg
