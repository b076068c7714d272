// Overlay: a SQL transaction's pending writes, readable before they commit.
//
// Both SQL hosts let a transaction read its own writes by putting a private Memtable on a copy
// of the committed Snapshot (Snapshot::overlay / overlay_seq; the read path merges it like any
// other memtable). This class owns that memtable, its sequence counter and the provisional
// timestamp the rows carry; each host keeps its own fold, deciding WHICH rows go in and when
// the memtable must start over:
//
//   storage::Overlay overlay(&store.clock());
//   overlay.reset();                        // a fresh, empty memtable at a timestamp above now
//   overlay.add(rows);                      // the rows, stamped, at sequence 1
//   auto view = overlay.on(*store.snapshot().value());     // committed state + rows
//   overlay.add(more);                      // sequence 2: `view` does not see these
//
// Contract:
// - Each add() puts its batch in at a new sequence number (1, 2, ... since the last reset());
//   a snapshot made by on() sees the batches added before it, never later ones, so a scan
//   still open keeps a stable view while the transaction writes on.
// - A memtable cannot forget a row: a host whose fold dropped or rewrote rows either adds the
//   row's new state at a higher timestamp (advance_timestamp(), so it shadows the old) or calls
//   reset() and adds the whole fold again. Snapshots made earlier keep the old memtable.
// - Rows are stamped at timestamp(): every kAutoTimestamp in them is replaced by it. It is
//   set just above the clock (now + 1 microsecond) by reset() and refresh_timestamp(), so
//   pending rows win over committed ones written at or before now; the commit stamps them
//   afresh (the overlay is only ever read).
// - Not thread-safe: one transaction, one thread. Readers of snapshots it made may run on
//   other threads (the memtable is safe for concurrent reads during adds).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/storage/clock.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/memtable.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::storage {

class Overlay {
 public:
  // `clock`: the store's, for the provisional timestamps; must outlive the overlay.
  explicit Overlay(const Clock* clock) : clock_(clock) {}

  // Whether reset() has been called since construction or the last clear(): a started overlay
  // has a memtable (possibly empty) that on() puts on snapshots.
  bool started() const { return memtable_ != nullptr; }
  // Starts over: a fresh empty memtable, sequence 0, timestamp() = now + 1.
  void reset();
  // Back to the constructed state: no memtable (on() then adds no overlay).
  void clear();

  // The provisional timestamp of the rows added next.
  int64_t timestamp() const { return timestamp_; }
  // timestamp() = now + 1: rows added from now on carry the clock's current time.
  void refresh_timestamp();
  // timestamp() = max(timestamp() + 1, now + 1): rows added from now on shadow every version
  // added before (a rewritten row's new state), even when the clock has not moved.
  void advance_timestamp();

  // Adds `rows` (encode_row / encode_header output, timestamps kAutoTimestamp) at a
  // new sequence number, restamped to timestamp(). Adds nothing (no new sequence) when `rows`
  // is empty. REQUIRES: started(). Returns Internal, adding nothing, for a malformed value.
  Status add(const EncodedBatch& rows);

  // A copy of `committed` with the overlay on top, at the current sequence. Of the tables in
  // `truncated` the copy reads no committed data, only the overlay's rows (how a transaction
  // reads a table it TRUNCATEd: committed data gone, the rows written after the TRUNCATE
  // visible). REQUIRES: `committed` has no overlay.
  std::shared_ptr<const Snapshot> on(const Snapshot& committed,
                                     std::vector<TableId> truncated = {}) const;

  SequenceNumber sequence() const { return seq_; }
  // Entries in the memtable, every version counted (0 when not started).
  uint64_t entry_count() const { return memtable_ ? memtable_->entry_count() : 0; }

 private:
  void add_entries(const std::vector<Memtable::BatchEntry>& entries);

  const Clock* clock_;
  std::shared_ptr<Memtable> memtable_;
  SequenceNumber seq_ = 0;
  int64_t timestamp_ = 0;
};

}  // namespace cassette::storage
