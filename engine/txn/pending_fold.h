// The log of an open transaction's writes on one store, and the fold that turns it into one
// store transaction (transaction.h explains when each is used).
//
// PendingLog: each entry is one row change (a row write, a row deletion, an INSERT OR IGNORE, a
// partition header with a partition deletion or range tombstones), kept as its storage entry
// (key + encoded row or header, timestamps kAutoTimestamp unless the statement gave one) in one
// EncodedBatch, plus a few bytes of bookkeeping: ~150 bytes per row and no
// allocation per row, so a million-row INSERT ... SELECT stays cheap to hold and to commit.
//
// PendingFold: later entries for the same row override earlier ones, as SQL statements do (the
// store gives a whole transaction one timestamp, at which a deletion would otherwise win over a
// write). Rows written once — nearly all of them in a bulk load — are never decoded: the fold
// only indexes them, and emit() copies their bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/row.h"

namespace cassette::txn {

struct PendingLog {
  // kTruncate: the table loses every committed row and every row of the entries before it;
  // it has no storage entry (at() must not be called for it).
  enum class Kind : uint8_t { kWrite, kDeleteRow, kInsertIfNotExists, kTruncate };
  struct Entry {
    Kind kind = Kind::kWrite;
    bool is_static = false;
    bool is_header = false;  // a partition header (partition deletion, range tombstones)
    uint32_t table = 0;      // index into `tables`
    // The statement that wrote it. Entries of one SQL row share it (INSERT OR IGNORE: decided
    // together); a host that numbers its statements (PostgreSQL's CommandId) gives one id to
    // all of a statement's entries. Never decreases along the log.
    uint64_t statement = 0;
    size_t offset = 0;  // of the storage entry in `batch` (kTruncate: where the next one goes)
  };
  static_assert(sizeof(Entry) == 24, "the log's bookkeeping per row stays at 24 bytes");

  storage::EncodedBatch batch;
  std::vector<Entry> entries;
  std::vector<std::shared_ptr<const schema::TableDef>> tables;
  std::vector<size_t> truncates;  // the kTruncate entries, ascending

  storage::EncodedBatch::Entry at(size_t i) const { return batch.entry_at(entries[i].offset); }
  const schema::TableDef& table_of(size_t i) const { return *tables[entries[i].table]; }
  // Truncates to the first `n` entries.
  void truncate(size_t n);
  void clear();

  // What the kTruncate entries among the first `end` leave of the log: for each table (by index
  // into `tables`), the first entry not dropped by a truncation (0 when none truncated it).
  // Entry i < end counts iff it is no kTruncate and i >= first_kept[table].
  std::vector<size_t> first_kept(size_t end) const;
  // The storage ids of the tables truncated by the first `end` entries, each once.
  std::vector<storage::TableId> truncated_tables(size_t end) const;
  bool counts(size_t i, const std::vector<size_t>& first_kept) const {
    return entries[i].kind != Kind::kTruncate && i >= first_kept[entries[i].table];
  }
};

class PendingFold {
 public:
  // `log` must outlive the fold and only grow while the fold is used (entries are found again
  // by index). `now_seconds` is the local deletion time of the tombstones a merge writes.
  PendingFold(const PendingLog* log, int64_t now_seconds) : log_(log), now_seconds_(now_seconds) {}

  // Makes room for `rows` rows at once (a commit folds the whole log: no rehashing as it grows).
  void reserve(size_t rows);

  // Folds entry `i` into the row it writes. Returns whether the row was new to the fold
  // (false: an earlier entry wrote it too, and the two were merged). Corruption when a row's
  // bytes do not decode (never for rows the log encoded itself).
  Result<bool> add(size_t i) { return add(i, hash_of(log_->at(i))); }
  // The same, also saying which row (its index in first-written order, as emit() counts) the
  // entry went into.
  Result<bool> add(size_t i, size_t* row) { return add(i, hash_of(log_->at(i)), row); }
  // add() for entries [begin, end), looking a few entries ahead so that the hash table's cache
  // misses overlap (a commit folds a whole log of a million rows).
  Status add_range(size_t begin, size_t end);
  // Whether the fold so far has a live row (a marker or a live cell) where entry `i` writes.
  Result<bool> has_live_row(size_t i) const;
  // Rows folded so far, in the order they were first written.
  size_t rows() const { return slots_.size(); }
  // Appends the folded rows [from, rows()) to `out`.
  void emit(storage::EncodedBatch* out, size_t from = 0) const;
  // Appends the folded rows `rows` (indexes as add() reports them) to `out`.
  void emit_rows(storage::EncodedBatch* out, const std::vector<size_t>& rows) const;
  // Whether a row merged so far carried a timestamp the statement gave (not kAutoTimestamp):
  // such a row's folded state need not have a higher timestamp than its earlier state.
  bool merged_explicit_timestamps() const { return merged_explicit_timestamps_; }
  // Whether two increments of one counter were summed: such a row's folded state is its total
  // delta, which must not be added again on top of the delta stored for it earlier.
  bool merged_counters() const { return merged_counters_; }
  // Whether a row deleted by one entry was written by a later one: its folded state is no
  // longer a deletion and may lack the row marker an older state had, so it does not shadow it.
  bool merged_after_deletion() const { return merged_after_deletion_; }
  // Whether a partition header (a partition deletion, range tombstones) was folded.
  bool has_headers() const { return has_headers_; }
  // Whether row `row` (as add() counts them) was deleted by one of its entries: its folded state
  // then replaces whatever the transaction wrote to it before these entries (a spilled run's
  // row, engine/txn/spill.h), rather than merging into it.
  bool replaces(size_t row) const;

 private:
  struct Slot {
    uint32_t first;  // the entry that first wrote the row
    int32_t merged;  // index into merged_, or -1 while only `first` wrote it
  };
  struct Bucket {
    uint64_t hash = 0;
    uint32_t slot_plus_one = 0;  // 0: empty
  };
  static uint64_t hash_of(const storage::EncodedBatch::Entry& e);
  Result<bool> add(size_t i, uint64_t hash, size_t* row = nullptr);
  void emit_row(storage::EncodedBatch* out, size_t s, std::string* scratch) const;
  // The slot of the row entry `i` writes, or -1.
  int64_t find(size_t i, uint64_t hash) const;
  void grow(size_t buckets = 0);  // to `buckets` (a power of two), by default twice as many
  // Reconciles a later header (partition deletion, range tombstones) into the slot's.
  Status merge_header(Slot& slot, std::string_view value);
  static void merge_elements(storage::ColumnData& into, storage::ColumnData next);
  void merge(const schema::TableDef& table, storage::Row& into, storage::Row next,
             PendingLog::Kind kind, bool is_static);

  const PendingLog* log_;
  int64_t now_seconds_;
  std::vector<Slot> slots_;
  std::vector<storage::Row> merged_;                      // merged rows, by Slot::merged
  std::vector<storage::PartitionHeader> merged_headers_;  // merged headers, by Slot::merged
  std::vector<bool> replaced_;                            // replaces(), by Slot::merged
  bool merged_explicit_timestamps_ = false;
  bool merged_counters_ = false;
  bool merged_after_deletion_ = false;
  bool has_headers_ = false;
  std::vector<Bucket> buckets_;  // open addressing; a power of two, at most half full
};

}  // namespace cassette::txn
