// Flush: the memtable becomes one SSTable per table. The files are written without any lock held,
// then installed under the store lock only if the log range they cover is still unflushed (two
// processes may flush the same records; the first install wins, the other discards its files).
#include <unistd.h>

#include <algorithm>
#include <random>
#include <thread>
#include <utility>

#include "engine/storage/commit_trace.h"
#include "engine/storage/file_reaper.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sstable_writer.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {
namespace {

std::string manifest_path(const std::string& store_dir) {
  return file::join(store_dir, "MANIFEST");
}

// The background thread's compaction step: about a tenth of a second of merging.
constexpr uint64_t kBackgroundCompactionStepBytes = 8 << 20;

// The zstd level a flush compresses at, at most: Cassandra's flush_compression "fast" (its
// default), which flushes a table whose compressor is slow (Zstd, Deflate) with a fast one.
// Writers wait for the flush once both memtables are full (wait_for_memtable_room): a 64 MiB
// memtable of the engine bench took 0.52 s of CPU to flush at level 3, 0.31 s at level 1, for
// the same disk size. Compaction rewrites the data at the table's level.
constexpr int kFlushCompressionLevel = 1;

uint64_t random_file_id() {
  static std::mutex mutex;
  static std::mt19937_64 rng{std::random_device{}() ^ static_cast<uint64_t>(::getpid())};
  std::lock_guard guard(mutex);
  return rng() >> 1;
}

}  // namespace

// Reconciles the fragments of one entry key (newest first) into one value.
Status merge_fragments(std::string_view key, const std::vector<std::string_view>& values,
                       std::string* out) {
  size_t prefix = partition_prefix_length(key);
  if (prefix == 0 || prefix >= key.size()) return Status::corruption("malformed memtable key");
  out->clear();
  if (static_cast<EntryKind>(key[prefix]) == EntryKind::kPartitionHeader) {
    PartitionHeader merged, h;
    for (std::string_view v : values) {
      if (!decode_header(v, &h))
        return Status::corruption("malformed partition header in memtable");
      reconcile_headers(merged, h);
    }
    encode_header(merged, out);
    return Status::ok();
  }
  Row merged, r;
  for (std::string_view v : values) {
    if (!decode_row(v, &r)) return Status::corruption("malformed row in memtable");
    reconcile_rows(merged, r);
  }
  encode_row(merged, out);
  return Status::ok();
}

void Store::Private::swap_memtable_locked() {
  {
    std::lock_guard view(view_mutex);
    imm = std::move(mem);
    mem = std::make_shared<Memtable>();
  }
  imm_start = mem_start;
  mem_start = log_end;
}

Result<PendingFile> Store::Private::new_pending_file(TableId table) {
  PendingFile f;
  f.meta.table = table;
  do {
    f.meta.file_id = random_file_id();
  } while (file::exists(file::join(data_dir, sstable_file_name(table, f.meta.file_id))));
  // Numbered per process, not per store: two Stores of one process on one directory (tests
  // standing in for two processes) must not write the same temporary file.
  static std::atomic<uint64_t> temp_counter{0};
  f.temp_path = file::join(data_dir, fmt::format("tmp-{}-{}.sst", ::getpid(), ++temp_counter));
  return f;
}

Result<std::unique_ptr<SSTableWriter>> Store::Private::create_table_writer(
    const PendingFile& file) {
  TableOptions topts = options_for(file.meta.table);
  SSTableWriterOptions wopts;
  wopts.compression_level = std::min(topts.compression_level, kFlushCompressionLevel);
  wopts.block_size = topts.block_size;
  wopts.components = components_for(file.meta.table);
  return SSTableWriter::create(file.temp_path, wopts);
}

// Writes a memtable into one SSTable per table, entry by entry, in as many steps as the caller
// likes (inline mode writes a flush a step per commit). The files stay temporary; the ones not
// taken by take_outputs() (an error, a flush given up) are removed with the writer.
class Store::Private::MemtableWriter {
 public:
  MemtableWriter(Private* p, const Memtable& source, std::vector<TableId> skip = {})
      : p_(p), it_(&source), skip_(std::move(skip)) {}
  MemtableWriter(const MemtableWriter&) = delete;
  MemtableWriter& operator=(const MemtableWriter&) = delete;
  ~MemtableWriter() { discard(); }

  // Writes entries until at least `step_bytes` bytes of them are written or the memtable is all
  // written (*done, its files finished). An error leaves no file behind.
  Status step(uint64_t step_bytes, bool* done) {
    Status s = write(step_bytes, done);
    if (!s.is_ok()) discard();
    return s;
  }
  std::vector<PendingFile> take_outputs() { return std::exchange(outputs_, {}); }

 private:
  Status write(uint64_t step_bytes, bool* done) {
    *done = false;
    uint64_t written = 0;
    while (it_.valid() && written < step_bytes) {
      TableId table = it_.table();
      std::string_view key = it_.key();  // in the memtable's arena: stable while it lives
      fragments_.clear();
      for (; it_.valid() && it_.table() == table && it_.key() == key; it_.next()) {
        fragments_.push_back(it_.value());
        written += key.size() + it_.value().size();
      }
      if (!skip_.empty() && std::find(skip_.begin(), skip_.end(), table) != skip_.end()) {
        continue;
      }
      if (writer_ == nullptr || outputs_.back().meta.table != table) {
        CASSETTE_RETURN_IF_ERROR(finish_file());
        CASSETTE_ASSIGN_OR_RETURN(PendingFile pending, p_->new_pending_file(table));
        outputs_.push_back(pending);
        CASSETTE_ASSIGN_OR_RETURN(writer_, p_->create_table_writer(outputs_.back()));
      }
      std::string_view value = fragments_.front();
      if (fragments_.size() > 1) {
        CASSETTE_RETURN_IF_ERROR(merge_fragments(key, fragments_, &merged_));
        value = merged_;
      }
      CASSETTE_RETURN_IF_ERROR(writer_->add(key, value));
    }
    if (it_.valid()) return Status::ok();
    CASSETTE_RETURN_IF_ERROR(finish_file());
    *done = true;
    return Status::ok();
  }

  Status finish_file() {
    if (writer_ == nullptr) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(outputs_.back().meta.size, writer_->finish());
    outputs_.back().components = writer_->components();
    writer_.reset();
    return Status::ok();
  }

  void discard() {
    writer_.reset();  // removes its unfinished file
    for (const PendingFile& f : outputs_) remove_pending_file(f);
    outputs_.clear();
  }

  Private* p_;
  Memtable::RawIterator it_;
  std::vector<TableId> skip_;
  std::vector<PendingFile> outputs_;
  std::unique_ptr<SSTableWriter> writer_;
  std::vector<std::string_view> fragments_;
  std::string merged_;
};

// The flush of an immutable memtable under way: the records [start, end) of the log.
struct Store::Private::FlushJob {
  FlushJob(Private* p, std::shared_ptr<Memtable> memtable, LogPosition start_at, LogPosition end_at)
      : source(std::move(memtable)), start(start_at), end(end_at), writer(p, *source) {}
  std::shared_ptr<Memtable> source;
  LogPosition start, end;
  MemtableWriter writer;
  bool written = false;     // the files are finished: only their install is left
  bool log_synced = false;  // inline: the log synced through `end` (a step of its own)
};

Result<std::vector<PendingFile>> Store::Private::write_memtable(const Memtable& source,
                                                                const std::vector<TableId>& skip) {
  MemtableWriter writer(this, source, skip);
  bool done = false;
  CASSETTE_RETURN_IF_ERROR(writer.step(kNoStepLimit, &done));
  return writer.take_outputs();
}

// Renames the outputs into place and makes `next` the manifest. REQUIRES: writer_mutex, the
// store lock and state_mutex, with the state caught up.
Status Store::Private::install_locked(const Manifest& next, std::vector<PendingFile>& outputs,
                                      LoadAction action, bool log_synced) {
  // The log must be durable up to where the new manifest says the SSTables take over: were the
  // manifest to outlive the log's unsynced tail (sync off or normal) in a power loss, recovery
  // would start past the end of the log and the store would not open.
  CommitTrace::mark("install_locks");
  if (next.covered != manifest.covered && !log_synced) {
    if (Status s = sync_commit_log_through(log_dir, next.covered); !s.is_ok()) {
      log_write_failed_locked();  // a segment whose sync failed is taken out of use (FORMAT.md)
      return s;
    }
  }
  CommitTrace::mark("install_log_sync");
  std::vector<std::string> installed;
  auto undo = [&](Status s) {
    for (const std::string& p : installed) (void)file::remove_file(p);
    return s;
  };
  for (PendingFile& f : outputs) {
    std::string final_path = file::join(data_dir, sstable_file_name(f.meta.table, f.meta.file_id));
    // Components first: a crash between leaves components of no SSTable, which the next open
    // removes, never an SSTable without the components its table's indexes expect.
    for (const std::string& c : f.components) {
      std::string to = index_component_path(final_path, c);
      if (Status s = file::rename_file(index_component_path(f.temp_path, c), to); !s.is_ok()) {
        return undo(s);
      }
      installed.push_back(to);
    }
    if (Status s = file::rename_file(f.temp_path, final_path); !s.is_ok()) return undo(s);
    installed.push_back(final_path);
  }
  CommitTrace::mark("install_renames");
  if (Status s = file::sync_directory(data_dir); !s.is_ok()) return undo(s);
  CommitTrace::mark("install_dir_sync");
  Status wrote = write_manifest(manifest_path(path), next);
  CommitTrace::mark("install_manifest");
  if (Status s = wrote; !s.is_ok()) {
    // A failure after the rename (syncing the directory) leaves `next` in place: its files must
    // stay, and the store follows it. The outputs go only when the manifest is surely the old
    // one; when that cannot be told they stay too (the next open removes them if orphaned).
    Result<Manifest> on_disk = read_manifest(manifest_path(path));
    if (on_disk.is_ok() && on_disk->generation == next.generation) {
      CASSETTE_RETURN_IF_ERROR(load_manifest_locked(next, action));
      publish_change_locked();
    } else if (on_disk.is_ok() ? on_disk->generation == manifest.generation
                               : on_disk.status().is_not_found() && !have_manifest_file) {
      return undo(s);
    }
    return s;
  }
  CASSETTE_RETURN_IF_ERROR(load_manifest_locked(next, action));
  publish_change_locked();
  CommitTrace::mark("install_load");
  return Status::ok();
}

Status Store::Private::flush_immutable(uint64_t step_bytes) {
  std::lock_guard flush(flush_mutex);
  {
    std::lock_guard state(state_mutex);
    if (imm == nullptr) {
      flush_job.reset();
      return Status::ok();
    }
    // A flush under way of a memtable that is no longer `imm` (catch-up rebuilt the memtables
    // after another process's flush, a truncation flushed them) is given up.
    if (flush_job != nullptr && flush_job->source != imm) flush_job.reset();
    if (flush_job == nullptr)
      flush_job = std::make_shared<FlushJob>(this, imm, imm_start, mem_start);
  }
  if (!flush_job->written) {
    Status step = flush_job->writer.step(step_bytes, &flush_job->written);
    CommitTrace::mark(flush_job->written ? "flush_last_write" : "flush_write");
    if (!step.is_ok()) flush_job.reset();
    if (!step.is_ok() || !flush_job->written) return step;
    // The files are written and synced; their install syncs the log, the directory and the
    // manifest: in steps, that is the next step's, so that no commit waits for both.
    if (step_bytes != kNoStepLimit) return Status::ok();
  }
  if (step_bytes != kNoStepLimit && !flush_job->log_synced) {
    // Inline, the install needs the log synced through the flush's end: that sync is this
    // step's (install_locked is told, and skips it), so that the commit running the install,
    // under the locks, does not wait for it as well as for the directory and manifest syncs.
    Status synced = sync_commit_log_through(log_dir, flush_job->end);
    CommitTrace::mark("flush_log_sync");
    if (!synced.is_ok()) {
      // The next locked step takes the segment out of use (flush_log_sync_failed), and the
      // flush of everything that follows covers the log past it.
      flush_log_sync_failed.store(true);
      flush_job.reset();
      return synced;
    }
    flush_job->log_synced = true;
    return Status::ok();
  }
  std::shared_ptr<FlushJob> job = std::exchange(flush_job, nullptr);
  std::shared_ptr<Memtable> flushing = job->source;
  LogPosition start = job->start, end = job->end;
  std::vector<PendingFile> outputs = job->writer.take_outputs();
  auto discard = [&] {
    for (const PendingFile& f : outputs) remove_pending_file(f);
  };
  // The install needs the log synced through `end` (install_locked): done before the write
  // locks are taken (inline: by the step before, above; on the flush thread: now), so that the
  // commits waiting for the locks do not wait for it. Failed, the segment goes out of use.
  bool log_synced = job->log_synced;
  if (options.background_threads && !log_synced) {
    Status synced = sync_commit_log_through(log_dir, end);
    // Failed: the locked section below takes the segment out of use and flushes everything.
    if (!synced.is_ok()) flush_log_sync_failed.store(true);
    log_synced = synced.is_ok();
  }

  {
    std::lock_guard writer(writer_mutex);
    StoreLockHolder store_locked(*store_lock);
    if (Status s = store_locked.lock(options.busy_timeout); !s.is_ok()) {
      discard();
      return s;
    }
    std::lock_guard state(state_mutex);
    Status s = catch_up_locked();
    if (s.is_ok() && flush_log_sync_failed.exchange(false)) log_write_failed_locked();
    if (s.is_ok() && unsynced_failed_locked()) {
      // A group-commit sync failed: the memtable written may hold records whose commits failed.
      // Taking the segment out of use flushes the memtables without them instead.
      log_write_failed_locked();
    }
    if (s.is_ok() && log_failed) {
      discard();
      return abandon_failed_segment_locked();
    }
    // A prepared transaction left undecided must not end up before the manifest's `covered`.
    if (s.is_ok()) s = resolve_in_doubt_locked(/*must_decide=*/true);
    if (s.is_ok() && (imm != flushing || manifest.covered != start)) {
      discard();  // another process flushed these records first; catch-up rebuilt our memtable
      return Status::ok();
    }
    if (s.is_ok() && log_writer != nullptr && log_writer->end() == log_end && log_end == end) {
      // Nothing was written since the memtable was swapped: start a new log segment so that every
      // older one can go now, instead of keeping up to a segment of records the SSTables hold.
      s = log_writer->roll_segment();
      if (s.is_ok()) {
        end = mem_start = log_end = log_writer->end();
      } else {
        log_write_failed_locked();  // the old segment's sync failed: see abandon_failed_segment
      }
    }
    Manifest next = manifest;
    ++next.generation;
    next.covered = end;
    next.last_timestamp = last_timestamp;
    for (const PendingFile& f : outputs) next.files.push_back(f.meta);
    // (A roll above made the log durable through its new end too: it syncs the old segment and
    // the new one's header before it returns.)
    if (s.is_ok()) s = install_locked(next, outputs, LoadAction::kFlushedImm, log_synced);
    if (!s.is_ok()) {
      discard();
      return s;
    }
    flushes.fetch_add(1);
    {
      std::lock_guard guard(background_mutex);
      compaction_wanted = true;
    }
  }
  background_cv.notify_all();
  // The flushed segments go once every lock is let go: commits of other threads do not wait
  // for the unlinks (nor, in an inline flush's step, the commit running it; nor the next flush,
  // which the writers may be waiting for: see below).
  CommitTrace::mark("flush_installed");
  Status removed = remove_flushed_segments(end);
  CommitTrace::mark("flush_remove_segments");
  return removed;
}

// Removes the segments `covered` makes redundant. In a process that runs a thread for the store
// anyway (sync normal's group commit, or background threads), on the file reaper's thread
// (file_reaper.h; Store::flush waits for it): unlinking a segment frees its extents, 20-180 ms
// on a busy disk (strace of tests/bench/bench_latency.sh), which the commit running the step
// would wait for. Removal order and the directory sync are remove_commit_log_segments_before's;
// a removal that fails leaves segments the next one removes (or the next open ignores).
Status Store::Private::remove_flushed_segments(LogPosition covered) {
  if ((options.sync == SyncMode::kNormal || options.background_threads)) {
    reap_later([dir = log_dir, covered] { (void)remove_commit_log_segments_before(dir, covered); });
    return Status::ok();
  }
  return remove_commit_log_segments_before(log_dir, covered);
}

Status Store::Private::flush_all() {
  CASSETTE_RETURN_IF_ERROR(catch_up_if_changed());
  while (true) {
    CASSETTE_RETURN_IF_ERROR(flush_immutable());
    std::lock_guard state(state_mutex);
    if (imm != nullptr) continue;  // a background flush swapped again meanwhile
    if (mem->empty()) return Status::ok();
    swap_memtable_locked();
    break;
  }
  return flush_immutable();
}

// TRUNCATE: under every lock, flush every memtable except the table's entries and install a
// manifest without the table's files, covering the whole log.
Status Store::Private::truncate_table(TableId table) {
  std::lock_guard writer(writer_mutex);
  std::lock_guard flush(flush_mutex);
  StoreLockHolder store_locked(*store_lock);
  CASSETTE_RETURN_IF_ERROR(store_locked.lock(options.busy_timeout));
  std::lock_guard state(state_mutex);
  CASSETTE_RETURN_IF_ERROR(catch_up_locked());
  if (unsynced_failed_locked()) log_write_failed_locked();
  if (log_failed) CASSETTE_RETURN_IF_ERROR(abandon_failed_segment_locked());
  CASSETTE_RETURN_IF_ERROR(resolve_in_doubt_locked(/*must_decide=*/true));
  return truncate_tables_locked({table});
}

// The memtables' other tables go to SSTables and a manifest without the tables' files covers the
// whole log: nothing of the tables remains to read or to replay. One manifest change for all of
// them (a base table and its views: a crash leaves all or none truncated), which is also the
// commit of `transaction`'s SSTables when given (a transaction that TRUNCATEs and writes): other
// processes load a manifest whole (FORMAT.md), and this one's snapshots take the version and the
// memtables under one view_mutex (load_manifest_locked), so no reader sees one without the other.
Status Store::Private::truncate_tables_locked(const std::vector<TableId>& tables,
                                              const TransactionFiles* transaction) {
  if (tables.empty()) return Status::ok();
  std::vector<PendingFile> outputs;
  for (const auto& source : {imm, mem}) {
    if (source == nullptr || source->empty()) continue;
    auto written = write_memtable(*source, tables);
    if (!written.is_ok()) {
      for (const PendingFile& f : outputs) remove_pending_file(f);
      return written.status();
    }
    outputs.insert(outputs.end(), written->begin(), written->end());
  }
  Manifest next = manifest;
  ++next.generation;
  next.covered = log_end;
  next.last_timestamp = last_timestamp;
  auto truncated = [&](TableId table) {
    return std::find(tables.begin(), tables.end(), table) != tables.end();
  };
  std::erase_if(next.files, [&](const ManifestFile& f) { return truncated(f.table); });
  std::vector<std::shared_ptr<TableFile>> dropped;
  for (TableId table : tables) {
    const auto& files = version->files(table);
    dropped.insert(dropped.end(), files.begin(), files.end());
  }
  for (const PendingFile& f : outputs) next.files.push_back(f.meta);
  std::vector<PendingFile> renamed = outputs;
  if (transaction != nullptr) {
    next.files.insert(next.files.end(), transaction->files.begin(), transaction->files.end());
    renamed.insert(renamed.end(), transaction->outputs.begin(), transaction->outputs.end());
    next.last_timestamp = std::max(next.last_timestamp, transaction->timestamp);
  }
  if (Status s = install_locked(next, renamed, LoadAction::kFlushedAll); !s.is_ok()) {
    for (const PendingFile& f : outputs) remove_pending_file(f);
    return s;
  }
  for (const auto& f : dropped) f->obsolete = true;  // removed once no snapshot reads it
  return remove_commit_log_segments_before(log_dir, log_end);
}

// After a failed write or sync of a commit-log segment, the segment cannot be trusted: Linux
// may have dropped the pages that failed to reach the disk, marking them clean, so a later
// fsync that succeeds does not write them ("fsyncgate"). A record appended behind them would
// leave a hole that recovery reads as corruption, and the acknowledged records in the hole
// (sync=normal) would be lost while later ones survive. PostgreSQL PANICs and replays its WAL;
// LevelDB and RocksDB refuse writes until the database is reopened. A store shared by several
// processes cannot restart the others, so it takes the segment out of use instead: every
// memtable, which holds each record of the segment a writer was told about (a failed record is
// never in one), goes into SSTables, and a manifest covering the log up to the start of the next
// segment makes the failed one unneeded. It is removed and the next record begins a new segment.
// Recovery thus never reads a segment past a failure; until this succeeds, writes fail.
Status Store::Private::abandon_failed_segment_locked() {
  // Group commit: the records whose sync failed were never visible and their commits failed.
  drop_failed_unsynced_locked();
  std::vector<PendingFile> outputs;
  auto discard = [&](Status s) {
    for (const PendingFile& f : outputs) remove_pending_file(f);
    return s;
  };
  for (const auto& source : {imm, mem}) {
    if (source == nullptr || source->empty()) continue;
    auto written = write_memtable(*source);
    if (!written.is_ok()) return discard(written.status());
    outputs.insert(outputs.end(), written->begin(), written->end());
  }
  Manifest next = manifest;
  ++next.generation;
  // The start of the next segment, which does not exist yet (an offset inside a segment's
  // header reads as its first record, FORMAT.md "Positions").
  next.covered = LogPosition{log_end.segment + 1, 0};
  next.last_timestamp = last_timestamp;
  for (const PendingFile& f : outputs) next.files.push_back(f.meta);
  if (Status s = install_locked(next, outputs, LoadAction::kFlushedAll); !s.is_ok()) {
    return discard(s);
  }
  log_end = mem_start = next.covered;  // where the next writer begins (ensure_log_writer)
  log_failed = false;
  flushes.fetch_add(1);
  {
    std::lock_guard guard(background_mutex);
    compaction_wanted = true;
  }
  return remove_commit_log_segments_before(log_dir, next.covered);
}

// ---- when to flush and compact -------------------------------------------------------------

bool Store::Private::memtable_full() const {
  std::lock_guard view(view_mutex);
  return mem->memory_usage() >= options.memtable_budget_bytes / 2;
}

void Store::Private::after_write() {
  if (!options.background_threads || !memtable_full()) return;
  {
    std::lock_guard state(state_mutex);
    if (imm == nullptr && memtable_full()) swap_memtable_locked();
  }
  background_cv.notify_all();
}

// Inline mode: the writer does the work, a flush when the memtable is full and one compaction
// step while one is wanted, so that the store's file count stays bounded without a thread
// however its flushes come (memtable pressure, Store::flush, another process's flushes). It
// does it before its own commit, not after: an error is then the error of a write that wrote
// nothing (a committed write reported as failed would invite a retry that applies it twice,
// counters included), it names the file, and the next write tries the work again.
// A compaction's error does not fail the write: a failed compaction leaves the store as it was
// (every file readable, nothing lost), only less compact, and a compaction that fails for good
// (a row past the SSTable entry limit) must not stop every write. Store::compact, Store::flush
// (cql_compact(), cql_flush()) return it; compact_inline_step retries after the next flush.
//
// The work goes in steps, so that a commit never waits for a whole flush or compaction (which
// takes seconds once the tiers grow): a write flushes kInlineFlushStepFactor times the bytes the
// writes since the previous step added to the memtable (kInlineMinStepBytes at least) of the
// immutable memtable's entries, the flush under way carrying over to the next write (flush_job),
// and merges kInlineCompactionStepFactor times as many in the compaction under way
// (compaction_job). The work is thus spread over the writes in proportion to their size: a
// memtable is written while the next one fills to half, long before it is full (the write that
// finds both full finishes the flush, as the background mode's writer waits for it).
Status Store::Private::inline_work_before_write() {
  if (options.background_threads) return Status::ok();
  uint64_t added;
  bool flushing;
  {
    std::lock_guard view(view_mutex);
    size_t now = mem->memory_usage();
    added =
        step_memtable == mem.get() && now >= step_memtable_bytes ? now - step_memtable_bytes : now;
    step_memtable = mem.get();
    step_memtable_bytes = now;
    flushing = imm != nullptr;
  }
  CommitTrace::mark("inline_start");
  if (memtable_full()) {
    if (flushing) CASSETTE_RETURN_IF_ERROR(flush_immutable(kNoStepLimit));
    CommitTrace::mark("inline_flush_rest");
    std::lock_guard state(state_mutex);
    if (imm == nullptr && memtable_full()) swap_memtable_locked();
    CommitTrace::mark("inline_swap");
  }
  CASSETTE_RETURN_IF_ERROR(
      flush_immutable(std::max(kInlineMinStepBytes, added * kInlineFlushStepFactor)));
  CommitTrace::mark("inline_flush_step");
  (void)compact_inline_step(nullptr,
                            std::max(kInlineMinStepBytes, added * kInlineCompactionStepFactor));
  CommitTrace::mark("inline_compaction_step");
  return Status::ok();
}

// Writers wait while both memtables are full (a flush is behind), so memory stays within budget.
Status Store::Private::wait_for_memtable_room() {
  if (!options.background_threads || !memtable_full()) return Status::ok();
  std::unique_lock lock(background_mutex);
  background_cv.wait(lock, [&] {
    std::lock_guard view(view_mutex);
    return stopping || imm == nullptr || !background_error.is_ok();
  });
  return background_error;
}

void Store::Private::start_background_threads_locked() {
  if (stopping) return;
  if (!background.joinable()) background = std::thread([this] { flush_loop(); });
  if (!compactor.joinable()) compactor = std::thread([this] { compaction_loop(); });
}

void Store::Private::flush_loop() {
  std::unique_lock lock(background_mutex);
  while (!stopping) {
    bool flush_pending;
    {
      std::lock_guard view(view_mutex);
      flush_pending = imm != nullptr;
    }
    if (!flush_pending) {
      background_cv.wait_for(lock, std::chrono::milliseconds(100));
      continue;
    }
    background_busy = true;
    lock.unlock();
    Status s = flush_immutable();
    lock.lock();
    background_busy = false;
    background_error = s;
    background_cv.notify_all();
    if (!s.is_ok()) {
      // A failed flush (a full disk, a busy store) is retried; writers see the error meanwhile.
      background_cv.wait_for(lock, std::chrono::milliseconds(200));
    }
  }
}

void Store::Private::compaction_loop() {
  std::unique_lock lock(background_mutex);
  while (!stopping) {
    if (!compaction_wanted) {
      background_cv.wait_for(lock, std::chrono::milliseconds(100));
      continue;
    }
    compactor_busy = true;
    lock.unlock();
    bool did_work = true;
    // In steps, so that ~Store waits for one step, not for a whole merge of large tiers.
    Status s = compact_inline_step(&did_work, kBackgroundCompactionStepBytes);
    lock.lock();
    compactor_busy = false;
    if (!did_work || !s.is_ok()) compaction_wanted = false;
    compaction_error = s;
    background_cv.notify_all();
  }
}

}  // namespace cassette::storage
