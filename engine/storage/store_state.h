// The inside of a Store: its state and the machinery that keeps it (internal to engine/storage).
//
// The files split the work:
//   store.cc             open/close, the registry of open stores, apply(), snapshots and reads
//   store_catch_up.cc    following the manifest and the commit log (recovery is the first catch-up)
//   store_commit.cc      a record into the log and the memtable (a large one into both at once)
//   store_flush.cc       memtable -> SSTables, installing manifests, truncate, the background
//   thread store_compaction.cc  size-tiered compaction with purging
//
// Locks, always taken in this order (any prefix of it):
//   writer_mutex   one writing thread of this process at a time; held around the store lock
//   flush_mutex    one flush at a time (a flush writes files without holding the others)
//   StoreLock      the cross-process write lock (flock), held by whoever holds writer_mutex
//   state_mutex    the state below: memtables, log position, manifest; catch-up runs under it
//   view_mutex     the few pointers a snapshot copies (held for nanoseconds)
//
// Invariant (under state_mutex): the SSTables of `manifest` hold every record before
// manifest.covered; `imm` (when set) holds the records [imm_start, mem_start) and `mem` the
// records [mem_start, log_end); so a snapshot of (version, imm, mem) sees every record before
// log_end exactly once, which matters for counters (deltas are summed).
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "engine/storage/block_cache.h"
#include "engine/storage/commit_log.h"
#include "engine/storage/commit_record.h"
#include "engine/storage/manifest.h"
#include "engine/storage/memtable.h"
#include "engine/storage/row_cache.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/store.h"
#include "engine/storage/store_directory.h"
#include "engine/storage/store_lock.h"
#include "engine/storage/table_cache.h"

namespace cassette::storage {

// An SSTable written by a flush or compaction, not yet in the manifest.
class SSTableWriter;

// Private::sstable_commit_bytes by default: past 64 MiB a commit-log record (and its copy in
// the memtable) costs more than writing the SSTables its flush would write anyway.
constexpr uint64_t kSstableCommitBytes = 64 << 20;

// Inline mode (no background thread): before it commits, a write does a step of the flush and
// of the compaction under way in proportion to what the writes since the previous step added to
// the memtable, so that no commit waits for a whole flush or compaction (store_flush.cc, "when to
// flush and compact"). kNoStepLimit: the whole of it.
constexpr uint64_t kInlineMinStepBytes = 64 << 10;
constexpr uint64_t kInlineFlushStepFactor = 2;       // a memtable is written by half of the next
constexpr uint64_t kInlineCompactionStepFactor = 4;  // size-tiered rewrites a byte once a tier
constexpr uint64_t kNoStepLimit = ~uint64_t{0};

// Reconciles the fragments of one entry key (newest first) into one value (store_flush.cc).
Status merge_fragments(std::string_view key, const std::vector<std::string_view>& values,
                       std::string* out);

struct PendingFile {
  ManifestFile meta;
  std::string temp_path;
  std::vector<std::string> components;  // index components written next to it (by name)
};
// Removes a pending file and its index components.
void remove_pending_file(const PendingFile& file);
// Whether an SSTable can hold anything a read wants: its key range and, for one partition, its
// bloom filter (Store::read and the keyed read, keyed_read.h).
bool file_may_match(const TableFile& file, const ReadSpec& spec);
// Removes the index components of an SSTable that is gone (every file named after it).
void remove_index_component_files(const std::string& sstable_path);

// A version with its SSTables held open. A snapshot's `version` is an aliasing pointer into one
// (Store::snapshot), so the descriptors live exactly as long as the snapshot and its copies, and
// the snapshots of one version share them. See FORMAT.md, "Snapshots and other processes'
// compactions".
struct PinnedVersion {
  std::shared_ptr<const Version> version;
  std::vector<TableCache::Handle> descriptors;
};

// The locks a write holds, in the order of the header comment; released in reverse by the
// destructor (a prepared commit keeps all but `state` between its two phases).
struct WriteLocks {
  std::unique_lock<std::mutex> writer;
  std::unique_lock<std::mutex> flush;
  StoreLock* store_lock = nullptr;  // held while set
  std::unique_lock<std::mutex> state;
  ~WriteLocks() { release(); }
  void release() {
    if (state.owns_lock()) state.unlock();
    if (store_lock != nullptr) store_lock->unlock();
    store_lock = nullptr;
    if (flush.owns_lock()) flush.unlock();
    if (writer.owns_lock()) writer.unlock();
  }
};

// A prepared record read from the log with no decision after it yet (replay_log_locked): while
// its writer lives it holds the store lock, so whoever holds the lock finds only records whose
// writer is gone, in doubt (resolve_in_doubt_locked).
struct UndecidedPrepared {
  std::string host_tag;
  std::vector<TableId> truncate;
  std::string payload;  // the transaction's record
  // Prepared as SSTables (Store::prepare_sorted): the files, which the commit installs, and the
  // transaction's timestamp, stamped in them. Then `payload` is empty.
  std::vector<ManifestFile> files;
  int64_t timestamp = 0;
};

// The SSTables of a transaction that TRUNCATEs tables and writes, which the truncation's manifest
// change installs (Private::truncate_tables_locked): one change, so that no reader and no
// recovery sees the tables truncated without the writes, nor the writes beside the old rows.
struct TransactionFiles {
  const std::vector<ManifestFile>& files;  // added by the change
  std::vector<PendingFile>& outputs;       // those of them under temporary names: renamed first
  int64_t timestamp;                       // the transaction's: `last timestamp` rises to it
};

// What a new manifest means for the memtables (load_manifest_locked).
enum class LoadAction {
  kCatchUp,     // another process's change: rebuild the memtable if it flushed
  kFlushedImm,  // our flush of `imm` was installed
  kFlushedAll,  // our flush of every memtable was installed (truncate)
};

struct Store::Private {
  Private(std::string path, const StoreOptions& options, const Clock* clock);
  class MemtableWriter;  // store_flush.cc
  struct FlushJob;       // store_flush.cc
  struct CompactionJob;  // store_compaction.cc

  // ---- fixed at open ----
  std::string path;
  StoreOptions options;
  const Clock* clock;
  std::string log_dir;
  std::string data_dir;
  bool in_memory = false;
  // A transaction of at least this many bytes of entries commits as SSTables installed by one
  // MANIFEST change instead of a commit-log record (store_sstable_commit.cc); 0: never. Tests
  // lower it (StoreInternals). Not a StoreOptions field yet: see docs/ARCHITECTURE.md.
  uint64_t sstable_commit_bytes = kSstableCommitBytes;
  StoreDirectory directory;        // its identity, checked under the store lock (store_directory.h)
  bool read_only = false;          // !directory.writable: no lock, no writes (Store::read_only)
  bool registered = false;         // in the registry of open stores (guarded by its mutex)
  bool threaded_removals = false;  // register_threaded_store(data_dir) at open (file_reaper.h)
  std::optional<StoreLock> store_lock;
  std::optional<ChangeCounter> change_counter;
  BlockCache cache;
  RowCache row_cache;  // row_cache.h: its invalidations are made where the data changes
  std::shared_ptr<TableCache> tables;  // shared with the readers, which may outlive the store

  std::mutex writer_mutex;
  std::mutex flush_mutex;
  std::mutex state_mutex;
  mutable std::mutex view_mutex;

  // ---- the view (pointers changed under state_mutex and view_mutex) ----
  std::shared_ptr<Memtable> mem;
  std::shared_ptr<Memtable> imm;
  std::shared_ptr<const Version> version;
  std::weak_ptr<const Version> pinned;  // the latest version pinned, while snapshots hold it
  std::atomic<SequenceNumber> visible_seq{0};
  // The change counter when we last caught up; kCounterNeverSeen when it could not be read.
  static constexpr uint64_t kCounterNeverSeen = ~uint64_t{0};
  std::atomic<uint64_t> seen_counter{kCounterNeverSeen};

  // ---- state (state_mutex) ----
  SequenceNumber last_seq = 0;
  Manifest manifest;
  bool have_manifest_file = false;
  LogPosition imm_start;
  LogPosition mem_start;
  LogPosition log_end;
  int64_t last_timestamp = 0;
  // Positioned at log_end when set. Shared: a commit waits for its record's sync (group commit)
  // on the writer it appended to after letting go of the locks, while the next commit may
  // replace it.
  std::shared_ptr<CommitLogWriter> log_writer;
  // A write or sync of the log's current segment failed: nothing more is appended to it; the
  // next write first takes it out of use (abandon_failed_segment_locked).
  bool log_failed = false;
  // A flush's sync of the log failed outside the locks (its own step, or the flush thread): a
  // later sync of that file may report success for pages the failed one dropped, so the segment
  // goes out of use at the next locked step (as log_failed), never synced again and trusted.
  std::atomic<bool> flush_log_sync_failed{false};
  std::map<uint64_t, std::shared_ptr<TableFile>> open_files;  // by file id
  std::mutex options_mutex;  // guards table_options alone: read under any other lock
  std::map<TableId, TableOptions> table_options;
  Store::PartitionNamer partition_namer;                      // options_mutex
  std::shared_ptr<const IndexComponentMap> index_components;  // options_mutex
  std::vector<IndexComponentFactory> components_for(TableId table);
  std::set<uint64_t> compacting;  // file ids inputs of a running compaction
  // Set while this process installs its own compaction: the data is unchanged, so the row
  // cache stays (load_manifest_locked).
  bool installing_compaction = false;
  // Prepared records replayed and not yet decided, by where they start. A flush never covers
  // one (no manifest's `covered` lies between a prepared record and its decision): flushes and
  // writes decide them first.
  std::map<LogPosition, UndecidedPrepared> undecided;

  // ---- background work ----
  std::mutex background_mutex;
  std::condition_variable background_cv;
  // Two threads, so that a flush (which writers wait for once both memtables are full) never
  // waits behind a compaction step, and both cores work while a compaction runs.
  std::thread background;  // flushes
  std::thread compactor;   // compactions
  bool stopping = false;
  bool compaction_wanted = true;
  bool background_busy = false;  // the flush thread is flushing
  bool compactor_busy = false;
  Status background_error;  // the last flush's (writers waiting for room see it)
  Status compaction_error;  // the last compaction step's
  std::atomic<uint64_t> flushes{0};
  std::atomic<uint64_t> compactions{0};

  // store_catch_up.cc
  Status recover();
  Status recover_read_only();
  Status catch_up_if_changed();
  Status catch_up_locked();  // REQUIRES: state_mutex
  Status catch_up_once_locked();
  Status load_manifest_locked(const Manifest& next, LoadAction action);
  bool log_tail_is_ours_locked() const;
  Status replay_log_locked();
  // One log record read by catch-up: a transaction applied, a prepared one kept aside
  // (`undecided`), a decision applying or dropping it.
  Status replay_record_locked(LogPosition start, std::string_view payload);

  // store_prepared.cc
  // Decides every undecided prepared record with options.resolve_in_doubt. `must_decide`: one
  // it cannot decide is an error naming its tag (a writer), else it stays (an idle open).
  // REQUIRES: every write lock (WriteLocks) and a caught-up state.
  Status resolve_in_doubt_locked(bool must_decide);
  // Writes the decision on the prepared record at `position` and, for a commit, truncates its
  // tables and publishes its writes. The commit record carries the writes itself when the
  // prepared record may be gone from what a reader replays. REQUIRES: as
  // resolve_in_doubt_locked.
  Status decide_prepared_locked(LogPosition position, const UndecidedPrepared& prepared,
                                bool commit);
  // decide_prepared_locked of a transaction prepared as SSTables (Store::prepare_sorted).
  Status decide_prepared_files_locked(LogPosition position, const UndecidedPrepared& prepared,
                                      bool commit);
  // The abort record of the prepared record at `position`, which is then decided.
  Status record_abort_locked(LogPosition position);
  // Appends a prepared record of a transaction at `timestamp`; returns where it starts. On
  // failure nothing is prepared (the segment is taken out of use).
  Result<LogPosition> append_prepared_locked(std::string_view record, int64_t timestamp);
  // Whether the manifest holds the files of a prepared transaction: its commit point passed.
  bool files_installed_locked(const UndecidedPrepared& prepared) const;
  // Writes the decision of every undecided transaction whose files the manifest holds (its
  // writer died between the install and the decision): committed, whatever a host would say.
  // REQUIRES: writer_mutex, the store lock and state_mutex held, caught up. Anything that
  // changes the manifest's files first (a compaction could merge them away).
  Status record_installed_prepared_locked();
  Result<std::shared_ptr<TableFile>> open_table_file(const ManifestFile& meta);
  Status remove_orphan_files_locked();

  // store_commit.cc: a record's way into the memtable, split so that a large one is added while
  // the log writes it (log_and_apply_locked) and published only once it is durable.
  struct PreparedRecord {
    DecodedTransaction tx;  // pointing into the payload, which must outlive the record
    SequenceNumber seq = 0;
  };
  // Adds a record's entries to the memtable under a new sequence number and publishes them.
  Status apply_record_locked(std::string_view payload, const std::string& where);
  Status prepare_record_locked(std::string_view payload, const std::string& where,
                               PreparedRecord* out);        // decodes; assigns the sequence number
  void insert_record_locked(const PreparedRecord& record);  // into `mem`, not yet visible
  // Its timestamps and metadata; visible_seq reaches it unless `visible` is false (group
  // commit: raise_visible_seq once it is durable).
  void publish_record_locked(const PreparedRecord& record, bool visible = true);
  void raise_visible_seq(SequenceNumber seq);  // no lock needed: it only ever rises
  // Rebuilds `mem` and `imm` without the entries of `seqs` (inserted, never published).
  void remove_unpublished_locked(const std::set<SequenceNumber>& seqs);
  // Group commit (kFull): the records in the memtable whose commits wait for their sync after
  // letting go of the locks, invisible until it succeeds, by sequence number (state_mutex).
  struct Unsynced {
    std::shared_ptr<CommitLogWriter> writer;  // the one that appended it
    LogPosition end;
  };
  std::map<SequenceNumber, Unsynced> unsynced;
  // Group commit: forgets the records that became visible; true when the log writer failed or
  // the sync of one of the others did (then the segment must be taken out of use). kNormal and
  // kOff: false.
  bool unsynced_failed_locked();
  // Takes the records whose sync failed out of the memtables, so that no snapshot and no flush
  // ever sees them (their commits failed). REQUIRES: every write lock.
  void drop_failed_unsynced_locked();
  // Appends the transaction's record to the log, then makes it visible in the memtable; on
  // failure nothing of it is visible, and the segment is out of use (log_failed). The record is
  // not synced yet: the caller waits for that with log_writer->wait_durable(log_end) once it has
  // let go of its locks (group commit, FORMAT.md "Group commit").
  // kFull: *unsynced_seq receives the record's sequence number, not yet visible (the caller
  // raises visible_seq to it once wait_durable succeeds); 0 when it is visible already.
  Status log_and_apply_locked(EncodedTransaction& tx, SequenceNumber* unsynced_seq);
  void log_write_failed_locked();  // drops the writer and sets log_failed

  // store.cc
  Status check_writable() const;  // the read-only error, or OK
  // A single-partition read through the row cache (Store::read), or nullptr to read around it.
  std::unique_ptr<RowCursor> read_cached(const Snapshot& snapshot, TableId table,
                                         const ReadSpec& spec);
  // `version` with every SSTable of it held open (a PinnedVersion): the one a live snapshot of
  // the same version holds, or else a new one. NotFound when a file is gone (another process
  // removed it).
  Result<std::shared_ptr<const Version>> pin_version(std::shared_ptr<const Version> version);
  Status ensure_log_writer_locked();
  // What a write decides on: `snapshot` (the latest) with the records that are in the log but
  // not yet visible (group commit), which this write comes after. REQUIRES: state_mutex.
  Snapshot writer_view_locked(const Snapshot& snapshot) const;
  uint64_t publish_change_locked();
  TableOptions options_for(TableId table);
  bool memtable_full() const;

  // store_flush.cc
  void swap_memtable_locked();
  // Writes up to `step_bytes` of the immutable memtable's entries into SSTables, continuing the
  // flush under way (flush_job), and installs them once it is all written.
  Status flush_immutable(uint64_t step_bytes = kNoStepLimit);
  Status remove_flushed_segments(LogPosition covered);
  Status flush_all();
  // Every table's entries but those of `skip`.
  Result<std::vector<PendingFile>> write_memtable(const Memtable& mem,
                                                  const std::vector<TableId>& skip = {});
  Result<PendingFile> new_pending_file(TableId table);
  // A writer of `file`'s temporary path with its table's options.
  Result<std::unique_ptr<SSTableWriter>> create_table_writer(const PendingFile& file);
  // `log_synced`: a sync of the log through next.covered succeeded already (the flush's).
  Status install_locked(const Manifest& next, std::vector<PendingFile>& outputs, LoadAction action,
                        bool log_synced = false);
  Status truncate_table(TableId table);

  // store_sstable_commit.cc: `batch` committed at `timestamp` as SSTables installed by one
  // manifest change, instead of a commit-log record (sstable_commit_bytes), which truncates the
  // tables of `truncate` too (a transaction's TRUNCATEs, then its writes: one step).
  // REQUIRES: writer_mutex, the store lock and state_mutex held, caught up; with `truncate`,
  // flush_mutex too (truncate_tables_locked).
  Status commit_as_sstables_locked(const EncodedBatch& batch, int64_t timestamp,
                                   const std::vector<TableId>& truncate = {});
  // The same for Store::apply_sorted's source.
  Status commit_sorted_locked(SortedEntrySource& source, int64_t timestamp,
                              const std::vector<TableId>& truncate = {});
  // The same for a transaction's record (encode_transaction's payload, stamped already): a
  // prepared record's writes committed with its TRUNCATEs.
  Status commit_record_as_sstables_locked(std::string_view payload,
                                          const std::vector<TableId>& truncate);
  // Their common end: `stamped`'s entries (stamped already) written and installed.
  Status install_stamped_locked(SortedEntrySource& stamped, int64_t timestamp,
                                const std::vector<TableId>& truncate);
  // `stamped`'s entries written into one SSTable per table, as new pending files (under their
  // final names with `final_names`), synced. On failure none is left.
  Status write_stamped_locked(SortedEntrySource& stamped, bool final_names,
                              std::vector<PendingFile>* outputs);
  // Store::prepare_sorted's files: `source` stamped at `timestamp`, written under their final
  // names (no manifest holds them yet) and synced with the directory.
  Result<std::vector<PendingFile>> write_prepared_files_locked(SortedEntrySource& source,
                                                               int64_t timestamp);
  // The manifest change that commits a transaction as SSTables: `files` added (`outputs`
  // renamed into place first, which a failure leaves to the caller) and `last timestamp` raised
  // to `timestamp`, once the log is durable up to here. With `truncate`, the same change is the
  // truncation of those tables (truncate_tables_locked), which then covers the whole log.
  Status install_transaction_files_locked(const std::vector<ManifestFile>& files,
                                          std::vector<PendingFile>& outputs, int64_t timestamp,
                                          const std::vector<TableId>& truncate = {});
  // What apply_locked commits for `batch` at `timestamp`: its record, or, when it is at least
  // sstable_commit_bytes, the batch itself (EncodedTransaction::sstable_batch).
  Result<EncodedTransaction> commit_of(const EncodedBatch& batch, int64_t timestamp) const;
  // truncate_table's work, for any number of tables in one manifest change, which installs
  // `transaction`'s SSTables too when given. REQUIRES: writer_mutex, flush_mutex, the store lock
  // and state_mutex held, caught up.
  Status truncate_tables_locked(const std::vector<TableId>& tables,
                                const TransactionFiles* transaction = nullptr);
  // After log_failed: every memtable into SSTables, a manifest that covers the log up to the
  // next segment, the failed segment removed (store_flush.cc explains why). REQUIRES:
  // writer_mutex, the store lock and state_mutex, caught up.
  Status abandon_failed_segment_locked();
  void schedule_background_work();
  // Starts the flush and compaction threads unless they run. REQUIRES: background_mutex.
  void start_background_threads_locked();
  void flush_loop();
  void compaction_loop();
  void after_commit();  // after a write released its locks: after_write, and the thread if due
  void after_write();   // background threads: swap a full memtable and wake the thread
  // Inline mode, before a write commits: the flush and compaction step that are due. Their
  // error fails the write, which then writes nothing. Background threads: OK, nothing done.
  Status inline_work_before_write();
  Status wait_for_memtable_room();

  // store_compaction.cc
  // A step of the compaction under way, or of a new one when a flush or catch-up asked for one
  // (compaction_wanted), which stays asked for while there is work. `did_work` may be nullptr.
  // Inline mode's writes and the background thread both compact this way.
  // `step_bytes` bounds the entries merged by this call (compaction_job carries the rest over).
  Status compact_inline_step(bool* did_work, uint64_t step_bytes = kNoStepLimit);
  // Inline mode: the compaction under way, if any, finished (Store::compact, before its own).
  Status finish_inline_compaction();
  // Inline mode, after Store::flush: every compaction due now, one step after another. Returns
  // the first error (the compaction is retried by the next write or flush).
  Status compact_inline_after_flush();
  Status compact_table(TableId table);
  std::vector<std::shared_ptr<TableFile>> pick_size_tiered(const Version& version, TableId* table);
  Status compact_files(TableId table, const std::vector<std::shared_ptr<TableFile>>& inputs);
  // Installs a finished compaction's output in place of its inputs.
  Status install_compaction(CompactionJob& job);

  // ---- inline mode's work in steps (last: they go before the state they refer to) ----
  // The flush of `imm` under way (flush_mutex) and the compaction under way
  // (compaction_job_mutex, taken before the other mutexes), each continued by the next write.
  // shared_ptr: their types are complete only in their own files.
  std::shared_ptr<FlushJob> flush_job;
  // The memtable and its size at the previous inline step (view_mutex): what the writes since
  // added sizes the next step.
  const Memtable* step_memtable = nullptr;
  size_t step_memtable_bytes = 0;
  std::mutex compaction_job_mutex;
  std::shared_ptr<CompactionJob> compaction_job;
};

}  // namespace cassette::storage
