// Spill: the part of an open transaction's writes that went to disk (docs/ARCHITECTURE.md,
// "Transactions larger than memory"). Past StoreOptions::transaction_spill_bytes of pending log,
// Transaction folds its log (pending_fold.h), sorts the folded rows by (table, entry key) and
// writes them as a *run*: a temporary file in the store's data/ directory named
// tmp-<pid>-spill-<n>.run, so that the next opener removes the files of a process that died
// (store_catch_up.cc). The log then starts again empty. At commit the runs and the in-memory
// tail are merged (a k-way merge; later runs override earlier ones row by row with the fold's
// rules) into one sorted stream that the store stamps with the commit timestamp while it writes
// the final SSTables (Store::apply_sorted): no batch of the whole transaction is ever built.
//
// A run file is a sequence of entries, each: a flags byte (1: the row replaces what earlier runs
// wrote to it, PendingFold::replaces), varint table id, length-prefixed entry key,
// length-prefixed value (kAutoTimestamp not stamped). Entries are in (table, key) order, each key
// once. The file is private to its process, never synced, and removed with the Spill.
//
// A TRUNCATE in the log drops the table's entries of the runs written before it (a cut); the
// commit truncates the table under its write lock, as for a transaction in memory.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/sorted_entry_source.h"
#include "engine/txn/pending_fold.h"

namespace cassette::txn {

// The fold of a log's rows (those its TRUNCATEs leave), sorted by (table, entry key).
struct SortedRun {
  struct Item {
    storage::TableId table = 0;
    std::string_view key;    // into `folded`
    std::string_view value;  // into `folded`
    bool replaces = false;   // PendingFold::replaces
  };
  storage::EncodedBatch folded;
  std::vector<Item> items;
};
// fold_sorted() of the entries [begin, end) of `log` (TRUNCATEs before `begin` already cut the
// entries they drop: only those in the range act).
Status fold_sorted(const PendingLog& log, int64_t now_seconds, SortedRun* out);
Status fold_sorted(const PendingLog& log, size_t begin, size_t end, int64_t now_seconds,
                   SortedRun* out);

class Spill {
 public:
  // Runs go to `data_dir` (the store's data/ directory).
  explicit Spill(std::string data_dir) : data_dir_(std::move(data_dir)) {}
  ~Spill();  // removes the run files
  Spill(const Spill&) = delete;
  Spill& operator=(const Spill&) = delete;

  size_t runs() const { return runs_.size(); }
  // Writes the entries of `log` (folded, sorted) as new runs, one per segment between the
  // positions of `splits` (ascending, each in (0, entries)): a savepoint whose mark is inside
  // the log is at a run's boundary afterwards, so that ROLLBACK TO it drops runs. The caller then
  // empties the log. A segment's TRUNCATEs cut the runs before it. All or nothing: on failure no
  // run of the log stays.
  Status write_runs(const PendingLog& log, int64_t now_seconds,
                    const std::vector<size_t>& splits = {});
  // Removes runs [n, runs()) and the cuts their logs made (a savepoint rolled back).
  void drop_runs_from(size_t n);
  // The tables the runs' logs truncated (the commit truncates them first).
  std::vector<storage::TableId> truncated_tables() const;
  // The last statement whose writes are in a run.
  uint64_t max_statement() const { return max_statements_.empty() ? 0 : max_statements_.back(); }
  // Appends the runs' rows to `log`, oldest run first, each run after the TRUNCATEs of its log
  // (the transaction goes back to memory: for what the runs cannot do yet). A run's entries
  // carry its last statement, and a row that replaces earlier writes is a kDeleteRow, so that
  // the log folds as the runs merge. `run_starts[r]`: the log's size where run r begins.
  Status read_back(PendingLog& log, std::vector<size_t>* run_starts) const;
  // The runs merged with `tail` (the in-memory log after the last run, whose TRUNCATEs cut every
  // run), each key once. The Spill and `tail` must outlive the source.
  Result<std::unique_ptr<storage::SortedEntrySource>> merge(const PendingLog& tail,
                                                            int64_t now_seconds);

 private:
  struct Cut {
    storage::TableId table;
    size_t runs_before;  // runs [0, runs_before) lose the table's entries
  };
  void add_tables(const PendingLog& log);
  // The cuts of the log's TRUNCATEs in [begin, end): the runs written so far lose the table.
  void add_cuts(const PendingLog& log, size_t begin, size_t end);
  // One run of the entries [begin, end) of `log`.
  Status write_run(const PendingLog& log, size_t begin, size_t end, int64_t now_seconds);

  std::string data_dir_;
  std::vector<std::string> runs_;         // paths, oldest first
  std::vector<uint64_t> max_statements_;  // by run: its log's last statement
  std::vector<Cut> cuts_;
  // The tables the runs write (the fold's rules need each row's table).
  std::map<storage::TableId, std::shared_ptr<const schema::TableDef>> tables_;
};

}  // namespace cassette::txn
