// What spill.cc (the runs and the commit's merge) and spill_read_source.cc (reads of the runs
// inside the transaction) share: the run file's entries, the order of keys, and the fold of a
// row's versions across runs. Internal to engine/txn.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string_view>

#include "engine/storage/internal_key.h"
#include "engine/storage/sorted_entry_source.h"
#include "engine/txn/spill.h"

namespace cassette::txn {

// (table, entry key) order: the order of a run and of the merge.
bool key_less(storage::TableId at, std::string_view ak, storage::TableId bt, std::string_view bk);
storage::EntryKind kind_of(std::string_view key);
// Parses one run entry (spill.h's format) off the front of `in`; false when `in` holds no whole
// entry. The item's views point into `in`.
bool parse_item(std::string_view* in, SortedRun::Item* item);
// Up to `n` bytes of `run` at `offset` (fewer at its end).
Result<size_t> read_at(const RunFile& run, uint64_t offset, char* out, size_t n);

// The fold of a few versions of one row (oldest first) from the newest that replaces the row, as
// one fold of the whole log gives it (a row deleted in one run and written in a later one has no
// row marker, counters add up, collection elements join).
class Refold {
 public:
  Refold(const std::map<storage::TableId, std::shared_ptr<const schema::TableDef>>* tables,
         int64_t now_seconds)
      : tables_(tables), now_seconds_(now_seconds) {}
  // Sets `entry` to the folded version of `versions` (one key; views valid until the next call)
  // and `replaces` (when given) to whether it replaces what came before them (some version did).
  Status fold(std::span<const SortedRun::Item* const> versions,
              storage::SortedEntrySource::Entry* entry, bool* replaces = nullptr);

 private:
  const std::map<storage::TableId, std::shared_ptr<const schema::TableDef>>* tables_;
  int64_t now_seconds_;
  PendingLog mini_;
  storage::EncodedBatch folded_;
};

}  // namespace cassette::txn
