// SortedEntrySource: the entries of a transaction committed as SSTables (Store::apply_sorted),
// handed over one at a time in the order the SSTables take them, so that a transaction larger
// than memory (a spilled SQL transaction, engine/txn/spill.h) never has to be one batch.
#pragma once

#include <string_view>

#include "engine/storage/ids.h"
#include "engine/util/status.h"

namespace cassette::storage {

class SortedEntrySource {
 public:
  struct Entry {
    TableId table = 0;
    std::string_view key;    // a whole entry key (internal_key.h)
    std::string_view value;  // encoded row or partition header, kAutoTimestamp not yet stamped
  };
  virtual ~SortedEntrySource() = default;
  // The next entry, in (table, entry key) order with each key once; its views stay valid until
  // the next call. False at the end.
  virtual Result<bool> next(Entry* entry) = 0;
};

}  // namespace cassette::storage
