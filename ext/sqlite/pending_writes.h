// The writes of an open SQL transaction on one store, buffered until it commits.
//
// Each xUpdate appends entries (a row write, a row deletion, an INSERT OR IGNORE); SAVEPOINT
// marks a position in the log and ROLLBACK TO truncates to it, so savepoints cost nothing. At
// commit the log is folded into one storage WriteBatch — later entries for the same row
// override earlier ones, as SQL statements do (the store gives a whole batch one timestamp, at
// which a deletion would otherwise win over a write) — and applied as one commit-log record.
// INSERT OR IGNORE entries are decided at commit, under the store's write lock
// (Store::apply_prepared), like CQL's IF NOT EXISTS.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/store.h"

namespace cassette::sqlite {

struct PendingWrite {
  enum class Kind : uint8_t { kWrite, kDeleteRow, kInsertIfNotExists };
  Kind kind = Kind::kWrite;
  std::shared_ptr<const schema::TableDef> table;
  std::string partition_key;
  bool is_static = false;  // the partition's static row
  std::string clustering;  // encoded; the row an INSERT OR IGNORE checks (and writes)
  storage::Row row;
  uint64_t statement = 0;  // entries of one SQL row share it (INSERT OR IGNORE: decided together)
};

class PendingWrites {
 public:
  explicit PendingWrites(storage::Store* store) : store_(store) {}

  void add(PendingWrite write) {
    log_.push_back(std::move(write));
    ++version_;
  }
  uint64_t next_statement() { return ++statements_; }
  bool empty() const { return log_.empty(); }

  // SAVEPOINT n / RELEASE n / ROLLBACK TO n (SQLite's numbering: nested levels from 0).
  void savepoint(int level);
  void release(int level);
  void rollback_to(int level);

  // Applies the log as one atomic write and empties it (also when the write fails).
  Status commit();
  void clear();

  // `snapshot` plus this transaction's writes on top (reads see their own transaction's
  // writes): a private memtable of the folded log, at a provisional timestamp just above now,
  // rebuilt only when the log changed since the last call. Returns `snapshot` when empty.
  Result<std::shared_ptr<const storage::Snapshot>> with_overlay(
      std::shared_ptr<const storage::Snapshot> snapshot);

 private:
  storage::Store* store_;
  std::vector<PendingWrite> log_;
  std::vector<size_t> marks_;  // log size at each open savepoint level
  uint64_t statements_ = 0;
  uint64_t version_ = 0;  // bumped by every change of the log
  uint64_t overlay_version_ = ~uint64_t{0};
  std::shared_ptr<storage::Memtable> overlay_;
};

}  // namespace cassette::sqlite
