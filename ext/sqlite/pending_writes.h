// The writes of an open SQL transaction on one store, buffered until it commits.
//
// Each xUpdate appends entries (a row write, a row deletion, an INSERT OR IGNORE) to a log kept
// in storage form (pending_fold.h); SAVEPOINT marks a position in the log and ROLLBACK TO
// truncates to it, so savepoints cost nothing. At commit the log is folded — later entries for
// the same row override earlier ones, as SQL statements do — and applied as one commit-log
// record (Store::apply of an EncodedBatch: when no row was written twice, the log's own bytes).
// INSERT OR IGNORE entries are decided at commit, under the store's write lock
// (Store::apply_prepared_encoded), like CQL's IF NOT EXISTS.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/overlay.h"
#include "engine/storage/store.h"
#include "ext/sqlite/pending_fold.h"

namespace cassette::sqlite {

class PendingWrites {
 public:
  using Kind = PendingLog::Kind;

  explicit PendingWrites(storage::Store* store) : store_(store), overlay_(&store->clock()) {}

  // Buffers one row change: `row` (timestamps kAutoTimestamp unless the statement gave one) for
  // the static row or the row at `clustering` of a partition. Fails, buffering nothing, when the
  // partition key cannot be stored (empty, over 65535 bytes).
  Status add(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
             std::string_view partition_key, bool is_static, std::string_view clustering,
             const storage::Row& row, uint64_t statement);
  // add() of a row already encoded (encode_row's format, e.g. by storage::EncodedRowWriter).
  Status add_encoded(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
                     std::string_view partition_key, bool is_static, std::string_view clustering,
                     std::string_view encoded_row, uint64_t statement);
  uint64_t next_statement() { return ++statements_; }
  bool empty() const { return log_.entries.empty(); }

  // SAVEPOINT n / RELEASE n / ROLLBACK TO n (SQLite's numbering: nested levels from 0).
  void savepoint(int level);
  void release(int level);
  void rollback_to(int level);

  // Applies the log as one atomic write and empties it (also when the write fails).
  Status commit();
  void clear();

  // `snapshot` plus this transaction's writes on top (reads see their own transaction's
  // writes): a private memtable of the folded log, at a provisional timestamp just above now.
  // Kept up to date incrementally: entries added since the last call are folded and added to
  // the memtable at a new sequence number (snapshots handed out earlier do not see them); a row
  // written again goes in again at a higher timestamp. It starts over only after a ROLLBACK TO,
  // when a rewritten row carries a statement's own timestamp (cql_timestamp: it might not
  // shadow), or when shadowed versions outnumber the rows. Returns `snapshot` when empty.
  Result<std::shared_ptr<const storage::Snapshot>> with_overlay(
      std::shared_ptr<const storage::Snapshot> snapshot);

 private:
  void reset_overlay();

  storage::Store* store_;
  PendingLog log_;
  std::vector<size_t> marks_;  // log size at each open savepoint level
  uint64_t statements_ = 0;
  std::string scratch_;  // the row being encoded by add()

  // The overlay: the fold of log_.entries[0, overlay_entries_), its rows in overlay_.
  std::unique_ptr<PendingFold> overlay_fold_;
  size_t overlay_entries_ = 0;
  storage::Overlay overlay_;
  bool overlay_advanced_ = false;  // a rewrite moved its timestamp since the last reset
};

}  // namespace cassette::sqlite
