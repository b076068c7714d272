// Store: the storage engine's front door (docs/ARCHITECTURE.md). A directory holds a shared
// commit log, a manifest and per-table SSTables; `:memory:` is a private store, gone on close.
//
//   auto store = Store::open("/data/app.cassette", {}).value();
//   EncodedBatch batch;                           // or a MutationBuilder's encode_to
//   batch.add_row(table, key, EntryKind::kRow, clustering, encoded_row);
//   store->apply(batch);                          // atomic and durable (per the sync mode)
//   auto snap = store->snapshot().value();        // sees every commit made before it
//   auto cursor = store->read(*snap, table, store->partition_spec(key));
//   while (cursor->next()) { ... cursor->row() ... }
//
// Concurrency: a Store is shared by every connection of a process (open() returns the same
// object for the same directory) and is thread-safe. Writers are serialized, within the process
// by a mutex and across processes by the store lock; a reader works on a snapshot and never
// blocks a writer. Each snapshot first catches up with what other processes committed.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/storage/clock.h"
#include "engine/storage/commit_log.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/index_component.h"
#include "engine/storage/manifest.h"
#include "engine/storage/memtable.h"
#include "engine/storage/row_cursor.h"
#include "engine/storage/store_lock.h"

namespace cassette::storage {

class BlockCache;
class PreparedCommit;
struct WriteLocks;          // store_state.h
struct EncodedTransaction;  // commit_record.h
class SortedEntrySource;    // sorted_entry_source.h
class SpilledWrites;        // spilled_writes.h
class SSTableReader;

// What a host says of a prepared transaction whose writer is gone (Store::prepare_commit): the
// host named it by the tag it gave; kUnknown when it cannot tell (another host's transaction).
enum class InDoubtDecision { kCommit, kAbort, kUnknown };
using InDoubtResolver = std::function<InDoubtDecision(std::string_view host_tag)>;

struct StoreOptions {
  SyncMode sync = SyncMode::kFull;
  size_t memtable_budget_bytes = 64 << 20;
  size_t block_cache_bytes = 64 << 20;
  // The row cache's budget (row_cache.h): the heads of partitions of the tables whose CQL
  // `caching` option asks for rows, least recently used out first. 0 turns it off everywhere.
  size_t row_cache_bytes = 32 << 20;
  const Clock* clock = nullptr;  // nullptr: the system clock
  std::chrono::milliseconds busy_timeout{5000};
  // Flush and compact in background threads; false runs them inline, one bounded step at a
  // time, in the writer (for hosts that want no threads, such as a PostgreSQL backend).
  bool background_threads = true;
  uint64_t commit_log_segment_bytes = 32 << 20;
  // The most one partition's update in a transaction may take, in bytes of its commit-log
  // entries (keys and values): Cassandra's max_mutation_size, by default half a segment
  // (16 MiB). A transaction with a larger one fails with InvalidArgument "Rejected an oversized
  // mutation ..." and writes nothing; a transaction of many partitions may exceed it in all.
  // 0: commit_log_segment_bytes / 2.
  uint64_t max_mutation_bytes = 0;
  size_t compaction_min_threshold = 4;   // size-tiered: files of similar size merged at 4...
  size_t compaction_max_threshold = 32;  // ...and at most 32 at once
  // SSTable descriptors kept open (table_cache.h): this many, at most a quarter of RLIMIT_NOFILE;
  // more SSTables still read correctly (reopened when needed). A target: a live snapshot holds
  // every file of its version open (FORMAT.md, "Snapshots and other processes' compactions").
  size_t max_open_files = 1000;
  // Make a new store when `path` is a missing directory whose parent exists, or an empty one.
  // False: open only an existing store (NotFound "store ... does not exist" otherwise).
  bool create_if_missing = true;
  // Decides a prepared transaction left without its commit or abort (its writer died between
  // the two). Asked under the store lock by whoever writes next, and at open when the store is
  // idle; nullptr or kUnknown: the transaction stays in doubt, readers do not see it, and every
  // write (and flush) fails with an error that names its tag, until a host that can decide it
  // writes.
  InDoubtResolver resolve_in_doubt;
  // A SQL transaction (txn::Transaction) whose pending writes reach this many bytes writes them
  // to a sorted run on disk and goes on with an empty log, so that a transaction of any size
  // runs in bounded memory (docs/ARCHITECTURE.md, "Transactions larger than memory"). 0: never.
  uint64_t transaction_spill_bytes = 64 << 20;
};

struct TableOptions {
  int compression_level = 3;  // zstd level; 0 stores blocks uncompressed
  int64_t gc_grace_seconds = 864000;
  size_t block_size = 8 << 10;
  // Cassandra's caching.rows_per_partition: how many rows of a partition's head the row cache
  // keeps (row_cache.h); 0 (NONE, the default) does not cache the table, kAllRows is ALL.
  static constexpr uint64_t kAllRows = ~uint64_t{0};
  uint64_t row_cache_rows = 0;
  friend bool operator==(const TableOptions&, const TableOptions&) = default;
};

// One live SSTable of a table, with what the read path and compaction need to know about it.
struct TableFile {
  TableFile() = default;
  TableFile(const TableFile&) = delete;
  TableFile& operator=(const TableFile&) = delete;
  ~TableFile();  // removes the file when it is obsolete

  ManifestFile meta;
  std::shared_ptr<SSTableReader> reader;
  int64_t min_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t max_local_deletion_time = 0;
  uint64_t tombstones = 0;
  // Set by the compaction or truncate of this process that dropped the file from the manifest:
  // the last holder (the oldest snapshot still reading it) removes the file, which the reader
  // may have to open again until then (its descriptor is in the table cache).
  std::atomic<bool> obsolete{false};
};

// The SSTables live at one moment: immutable, shared by the snapshots that use it.
struct Version {
  std::map<TableId, std::vector<std::shared_ptr<TableFile>>> tables;
  const std::vector<std::shared_ptr<TableFile>>& files(TableId table) const;
};

// What one reader sees: the memtables and SSTables of a moment, and the sequence number that
// hides writes made after it.
struct Snapshot {
  SequenceNumber seq = 0;
  std::shared_ptr<Memtable> memtable;
  std::shared_ptr<Memtable> flushing;  // the memtable being flushed, if any
  // Uncommitted writes a reader should see on top (a SQL transaction reading its own writes):
  // the overlay's entries at sequences up to overlay_seq (so a writer may keep adding to the
  // overlay at higher sequences without a reader seeing them). Set by the caller on a copy of a
  // snapshot; never by the store.
  std::shared_ptr<Memtable> overlay;
  SequenceNumber overlay_seq = 0;
  // Tables whose committed data this reader does not see (a transaction that TRUNCATEd them
  // reads only the rows it wrote after the TRUNCATE, which are in the overlay). Sorted; set by
  // the caller with the overlay, never by the store.
  std::vector<TableId> truncated;
  // A transaction's writes that went to disk, with its in-memory tail folded on top: for the
  // tables it holds, reads take it instead of `overlay` (and go around the row cache). Set by the
  // caller with the overlay, never by the store.
  std::shared_ptr<const SpilledWrites> spilled;
  std::shared_ptr<const Version> version;
  int64_t now_seconds = 0;
  // The row cache's count of table-wide changes (TRUNCATE, another process's SSTables) when the
  // version was taken: with seq, what a cached partition is compared with (row_cache.h).
  uint64_t row_cache_epoch = 0;
};

// What a snapshot holds of one table, from what the store already keeps: the SSTables'
// statistics blocks and the memtables' entry counts. SSTables and memtables may hold versions of
// the same rows, so these overcount a table updated in place until compaction merges it.
struct TableFileStats {
  uint64_t sstables = 0;
  uint64_t partitions = 0;
  uint64_t rows = 0;  // clustering rows
  // Static rows of the SSTables that hold no clustering row (a table of static rows only).
  uint64_t static_only_rows = 0;
  uint64_t data_bytes = 0;
  uint64_t memtable_entries = 0;  // the live and the flushing memtable's entries
};
TableFileStats table_file_stats(const Snapshot& snapshot, TableId table);

struct StoreStats {
  size_t memtable_bytes = 0;
  size_t block_cache_bytes = 0;
  size_t sstable_count = 0;
  uint64_t sstable_bytes = 0;
  uint64_t commit_log_bytes = 0;
  uint64_t flushes = 0;
  uint64_t compactions = 0;
  size_t row_cache_bytes = 0;  // row_cache.h
  uint64_t row_cache_hits = 0;
  uint64_t row_cache_misses = 0;
};

class Store {
 public:
  // Opens the store in `path` (making it when missing, see StoreOptions::create_if_missing and
  // store_directory.h), or returns the store this process already has open there. A store whose
  // directory this process cannot write opens read-only: it reads, and every write fails
  // without changing anything (see read_only()). ":memory:" makes a new private store each time.
  static Result<std::shared_ptr<Store>> open(const std::string& path,
                                             const StoreOptions& options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  const StoreOptions& options() const { return options_; }
  // True when the directory is not writable (permissions, read-only media): the store reads
  // what is on disk, including the commit log replayed into memory, and takes no lock, so a
  // snapshot is consistent only while nobody writes the store (see FORMAT.md, "Read-only
  // stores"). apply, flush, compact and truncate fail with IOError "store ... is read-only".
  bool read_only() const;
  SyncMode sync_mode() const { return options_.sync; }  // as opened
  const Clock& clock() const { return *clock_; }
  void set_table_options(TableId table, const TableOptions& options);
  // How a message names a partition, as Cassandra's do: its keyspace and "table.key". The
  // schema sets it (schema::Catalog::open); until then a message gives the table id and the
  // key in hex. Called under the write lock: it may read the snapshot it is given, nothing else.
  struct PartitionName {
    std::string keyspace;
    std::string table_and_key;
  };
  using PartitionNamer = std::function<Result<PartitionName>(
      const Snapshot& snapshot, TableId table, std::string_view partition_key)>;
  void set_partition_namer(PartitionNamer namer);
  // The index components (index_component.h) every SSTable of a table gets from now on, when it
  // is flushed, compacted or written by a large transaction. Set by the schema (Catalog).
  void set_index_components(std::shared_ptr<const IndexComponentMap> components);
  // Writes component `factory` for each SSTable of `table` that lacks it (an index created on a
  // table with data), and removes component `name` of every SSTable (DROP INDEX).
  Status build_index_components(TableId table, const IndexComponentFactory& factory);
  Status remove_index_components(TableId table, std::string_view name);

  // Applies the batch atomically: one commit-log record, visible all at once. Replaces
  // kAutoTimestamp in its entries with the store's next timestamp and returns it. The entries'
  // keys and values must be well formed (InvalidArgument otherwise, with nothing written); their
  // bytes go to the log and the memtable with only the timestamps rewritten. This and
  // apply_prepared are the store's one write path (a MutationBuilder encodes into a batch).
  Result<int64_t> apply(const EncodedBatch& batch);

  // A read-check-write transaction (lightweight transactions, schema changes, list index
  // updates, SQL transactions): under the write lock, after catching up with every other
  // process, `prepare` reads what it needs through the snapshot it is given (which sees every
  // commit so far and no new one can slip in) and fills the batch, or returns false to write
  // nothing. Returns the batch's timestamp, or nullopt when nothing was written (false, or an
  // empty batch). `prepare` must not call back into the Store except read().
  //
  // `truncate_first`: tables that lose all their data (as truncate() does) under the same locks,
  // once `prepare` has accepted: `prepare` sees them as committed (a caller that must read them
  // as empty sets Snapshot::truncated on a copy), and its error (a write conflict) truncates
  // nothing. The truncation and the batch are one step: the batch becomes SSTables that the
  // truncation's manifest change installs, so no reader sees the one without the other and a
  // crash keeps both or neither (`prepare` false: that change alone, a TRUNCATE alone).
  using PrepareWrite = std::function<Result<bool>(const Snapshot& snapshot, EncodedBatch& batch)>;
  Result<std::optional<int64_t>> apply_prepared(const PrepareWrite& prepare,
                                                const std::vector<TableId>& truncate_first = {});
  // apply_prepared for a transaction too large for a commit-log record (a spilled SQL
  // transaction): under the write lock `decide` looks at everything committed (false: write
  // nothing), and `source`'s entries, stamped with the transaction's timestamp as they are
  // written, become SSTables installed by one manifest change (the commit point), which empties
  // the tables of `truncate_first` too.
  Result<std::optional<int64_t>> apply_sorted(
      const std::function<Result<bool>(const Snapshot&)>& decide, SortedEntrySource& source,
      const std::vector<TableId>& truncate_first = {});

  // The first phase of a two-phase commit (a host that must commit with another resource, such
  // as PostgreSQL's own transaction): as apply_prepared, then, instead of publishing the batch,
  // writes it durably as a *prepared* record that no reader sees (FORMAT.md, "Prepared
  // transactions"), tagged with `host_tag` (how the host names the transaction, for
  // resolve_in_doubt and for messages), and keeps every write lock until the returned object
  // commits or aborts. The tables of `truncate` are emptied when it commits, in one step with
  // its writes as apply_prepared's are (an abort changes nothing); `prepare` sees them likewise.
  // Returns nullptr when there is nothing to write (false, or an empty batch and no table to
  // truncate); an error writes nothing. REQUIRES: the returned object is finished or destroyed on
  // this thread, before the Store.
  Result<std::unique_ptr<PreparedCommit>> prepare_commit(const PrepareWrite& prepare,
                                                         const std::vector<TableId>& truncate,
                                                         std::string host_tag);
  // prepare_commit for a transaction too large for a commit-log record (a spilled SQL
  // transaction), as apply_sorted is apply_prepared's: once `decide` accepted, `source`'s entries
  // are stamped with the transaction's timestamp and written into SSTables now, synced, and the
  // prepared record lists them instead of carrying the writes. The commit installs them with one
  // manifest change (which empties the tables of `truncate` too); the abort removes them.
  Result<std::unique_ptr<PreparedCommit>> prepare_sorted(
      const std::function<Result<bool>(const Snapshot&)>& decide, SortedEntrySource& source,
      const std::vector<TableId>& truncate, std::string host_tag);

  // The operator's way out for a prepared transaction left in doubt (its writer stopped between
  // prepare_commit and the decision) that no host's resolver can decide (`cassette resolve`):
  // the host tags of every transaction in doubt, in log order; and the decision on the one
  // tagged `host_tag`, written as its host would (commit: its writes become visible; abort:
  // dropped). Both take the store lock, so a writer that is alive and still deciding its own
  // is waited for (busy_timeout) rather than taken for dead. decide_in_doubt: NotFound when no
  // transaction in doubt has that tag.
  Result<std::vector<std::string>> in_doubt_transactions();
  Status decide_in_doubt(std::string_view host_tag, bool commit);

  // A consistent view for reading, after catching up with other processes' commits.
  Result<std::shared_ptr<const Snapshot>> snapshot();
  // Specs for read(): one partition (a serialized partition key), or a token range.
  static ReadSpec partition_spec(std::string_view partition_key);
  static ReadSpec range_spec(const TokenRange& range);
  std::unique_ptr<RowCursor> read(const Snapshot& snapshot, TableId table, ReadSpec spec) const;

  // Writes the memtable to SSTables now and waits; inline mode: then compacts, returning its error.
  Status flush();
  // Merges all of a table's SSTables into one, dropping what is shadowed, expired past
  // gc_grace_seconds, or deleted.
  Status compact(TableId table);
  // Removes all of a table's data (TRUNCATE / DROP TABLE).
  Status truncate(TableId table);
  // Waits until background flushes and compactions have nothing left to do.
  Status wait_for_background_work();
  StoreStats stats() const;

 private:
  struct Private;  // store_state.h
  friend struct StoreInternals;
  friend class PreparedCommit;
  // Takes the write locks (`truncating`: the flush mutex too), catches up and decides what was
  // left in doubt: the common start of apply_locked and prepare_commit.
  Status lock_for_write(WriteLocks& locks, bool truncating);
  // lock_for_write's locks and catch-up, deciding nothing (in_doubt_transactions).
  Status take_write_locks(WriteLocks& locks, bool truncating);
  Store(std::string path, const StoreOptions& options);
  // Under the locks: `decide` looks at everything committed so far (false: write nothing), then
  // `encode` makes the record for the transaction's timestamp.
  using EncodeRecord = std::function<Result<EncodedTransaction>(int64_t timestamp)>;
  // `truncate_first`: tables truncated under the same locks after `decide` accepted (its error
  // truncates nothing), by the manifest change that installs the writes as SSTables.
  Result<std::optional<int64_t>> apply_locked(
      const std::function<Result<bool>(const Snapshot&)>& decide, const EncodeRecord& encode,
      const std::vector<TableId>& truncate_first = {});
  std::shared_ptr<const Snapshot> current_snapshot() const;  // no catch-up
  // InvalidArgument when a partition's update in the record is over max_mutation_bytes.
  Status check_mutation_size(std::string_view payload) const;

  std::string path_;
  StoreOptions options_;
  const Clock* clock_;
  std::unique_ptr<Private> p_;
};

// A transaction Store::prepare_commit wrote and holds the store's write locks for: commit() makes
// it visible (a commit record carrying the writes again, synced), abort() drops it; either
// releases the locks, and so does the destructor, which aborts an unfinished one. When commit()
// fails (a write error) the transaction stays in doubt on disk and is decided later by the
// store's resolve_in_doubt; abort() failing leaves it in doubt as well.
class PreparedCommit {
 public:
  ~PreparedCommit();
  PreparedCommit(const PreparedCommit&) = delete;
  PreparedCommit& operator=(const PreparedCommit&) = delete;

  Status commit();
  Status abort();
  int64_t timestamp() const { return timestamp_; }
  const std::string& host_tag() const { return host_tag_; }

 private:
  friend class Store;
  PreparedCommit();
  Status finish(bool commit);

  Store* store_ = nullptr;
  std::unique_ptr<WriteLocks> locks_;  // released by finish()
  LogPosition position_;               // where the prepared record starts
  std::string payload_;                // the transaction's record (encode_transaction)
  std::vector<ManifestFile> files_;    // prepare_sorted: its SSTables, installed by the commit
  std::vector<TableId> truncate_;
  std::string host_tag_;
  int64_t timestamp_ = 0;
};

}  // namespace cassette::storage
