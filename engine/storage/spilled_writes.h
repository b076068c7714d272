// SpilledWrites: the writes of an open transaction that went to disk (engine/txn/spill.h), as a
// read source of a Snapshot (Snapshot::spilled). For the tables it holds, a read takes its
// entries in place of the snapshot's overlay memtable: the source already folds the
// transaction's in-memory tail on top of its runs with the fold's rules (a row deleted and
// written again, counters summed, collection elements joined, one provisional timestamp for
// everything), which stacking the runs and the overlay by timestamp would not give.
#pragma once

#include <memory>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/ids.h"

namespace cassette::storage {

class SpilledWrites {
 public:
  virtual ~SpilledWrites() = default;
  // Whether reads of `table` take this source instead of the overlay.
  virtual bool holds(TableId table) const = 0;
  // The entries of `table` in entry-key order, each key once, timestamps stamped. The source
  // stays readable while the iterator lives (it keeps what it reads from).
  virtual std::unique_ptr<EntryIterator> new_iterator(TableId table) const = 0;
};

}  // namespace cassette::storage
