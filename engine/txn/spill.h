// Spill: the part of an open transaction's writes that went to disk (docs/ARCHITECTURE.md,
// "Transactions larger than memory"). Past StoreOptions::transaction_spill_bytes of pending log,
// Transaction sorts its log's rows by (table, entry key), folds the entries of a row written more
// than once (as PendingFold would: pending_fold.h), and writes them as a *run*: a temporary file in
// the store's data/ directory named tmp-<pid>-spill-<n>.run, so that the next opener removes the
// files of a process that died (store_catch_up.cc). The log then starts again empty. At commit the
// runs and the in-memory tail are merged (a k-way merge; later runs override earlier ones row by
// row with the fold's rules) into one sorted stream that the store stamps with the commit timestamp
// while it writes the final SSTables (Store::apply_sorted): no batch of the whole transaction is
// ever built.
//
// A run file is a sequence of entries, each: a flags byte (1: the row replaces what earlier runs
// wrote to it, PendingFold::replaces), varint table id, length-prefixed entry key,
// length-prefixed value (kAutoTimestamp not stamped). Entries are in (table, key) order, each key
// once. The file is private to its process, never synced, and removed with the Spill.
//
// A TRUNCATE in the log drops the table's entries of the runs written before it (a cut); the
// commit truncates the table under its write lock, as for a transaction in memory.
//
// Reads inside the transaction (read_source) see the runs without bringing them back into
// memory: a merge of the runs and the in-memory tail with the same fold as the commit's, as a
// seekable read source of the snapshot (storage::SpilledWrites). A run keeps a sparse index (the
// first key and offset of each block of about kRunBlockBytes, in memory while the run lives), so
// a point or slice read reads one block of each run rather than the run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/sorted_entry_source.h"
#include "engine/storage/spilled_writes.h"
#include "engine/txn/pending_fold.h"
#include "engine/util/file.h"

namespace cassette::txn {

// The fold of a log's rows (those its TRUNCATEs leave), sorted by (table, entry key).
struct SortedRun {
  struct Item {
    storage::TableId table = 0;
    std::string_view key;    // into `folded`, or the log (RunBytes)
    std::string_view value;  // into `folded`, or the log (RunBytes)
    bool replaces = false;   // PendingFold::replaces
  };
  storage::EncodedBatch folded;  // rows folded from several entries; all rows with kOwn
  std::vector<Item> items;
};
// Where a SortedRun's items point: kLog, into the log folded wherever a row has one entry (the
// log must then outlive the run unchanged: a spill writing it, the commit's merge); kOwn, into
// the run's own `folded` (a read source, which outlives later writes).
enum class RunBytes : uint8_t { kLog, kOwn };
// The fold of `log` (each row once, as PendingFold folds it), sorted.
Status fold_sorted(const PendingLog& log, int64_t now_seconds, SortedRun* out, RunBytes bytes);
// fold_sorted() of the entries [begin, end) of `log` (TRUNCATEs before `begin` already cut the
// entries they drop: only those in the range act).
Status fold_sorted(const PendingLog& log, size_t begin, size_t end, int64_t now_seconds,
                   SortedRun* out, RunBytes bytes);

// One run file, open, with its sparse block index. Shared by the Spill and the read sources
// made from it: a read source keeps reading a run that a ROLLBACK TO dropped (its file is
// unlinked, the descriptor stays open).
// A run's sparse index has an entry every kRunBlockBytes or so of the file.
constexpr uint64_t kRunBlockBytes = 16 << 10;

struct RunFile {
  struct Block {
    storage::TableId table = 0;  // of the block's first entry
    std::string first_key;
    uint64_t offset = 0;
  };
  std::string path;
  file::UniqueFd fd;
  uint64_t size = 0;
  std::vector<Block> blocks;                      // ascending; a block ends where the next begins
  std::vector<storage::TableId> tables;           // the tables it has entries of, ascending
  uint64_t min_statement = 0, max_statement = 0;  // of the log entries it folds
};

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
  // The tables the logs of the first `visible_runs` runs truncated (the commit truncates them
  // first; a read does not see their committed rows).
  std::vector<storage::TableId> truncated_tables(size_t visible_runs = SIZE_MAX) const;
  // The last statement whose writes are in a run.
  uint64_t max_statement() const { return runs_.empty() ? 0 : runs_.back()->max_statement; }
  // How many runs (oldest first) hold only writes of statements before `statement`; and whether
  // the next run mixes statements before it with later ones (a statement that spilled while
  // writing reads what it wrote before it: see Transaction::maybe_spill's statement split).
  size_t runs_before(uint64_t statement) const;
  bool run_mixes(size_t run, uint64_t statement) const {
    return run < runs_.size() && runs_[run]->min_statement < statement;
  }
  // The read source of runs [0, visible_runs) with the entries [0, tail_visible) of `tail` (the
  // in-memory log after them) folded on top, every kAutoTimestamp stamped `timestamp`. It
  // holds what it reads (the runs' files, a fold of the tail's visible entries): later writes
  // and rollbacks of the transaction do not change it.
  Result<std::shared_ptr<const storage::SpilledWrites>> read_source(const PendingLog& tail,
                                                                    size_t visible_runs,
                                                                    size_t tail_visible,
                                                                    int64_t timestamp,
                                                                    int64_t now_seconds) const;
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

  // The tables whose entries run `run` does not show: cut by a TRUNCATE of a later run among
  // the first `visible_runs`, or in `also` (the tail's).
  std::vector<storage::TableId> dropped_tables(size_t run, size_t visible_runs,
                                               const std::vector<storage::TableId>& also) const;

  std::string data_dir_;
  std::vector<std::shared_ptr<const RunFile>> runs_;  // oldest first
  std::vector<Cut> cuts_;
  // The tables the runs write (the fold's rules need each row's table).
  std::map<storage::TableId, std::shared_ptr<const schema::TableDef>> tables_;
};

}  // namespace cassette::txn
