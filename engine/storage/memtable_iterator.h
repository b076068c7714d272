// The memtable as an EntryIterator of one table, for the read path (RowCursor) and compaction.
#pragma once

#include <memory>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/memtable.h"

namespace cassette::storage {

// Iterates `table`'s entries visible at `snapshot`. Keeps the memtable alive.
std::unique_ptr<EntryIterator> new_memtable_iterator(std::shared_ptr<const Memtable> memtable,
                                                     TableId table, SequenceNumber snapshot);

}  // namespace cassette::storage
