#include "engine/storage/store.h"

#include <fcntl.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "engine/storage/commit_record.h"
#include "engine/storage/commit_trace.h"
#include "engine/storage/durability.h"
#include "engine/storage/file_reaper.h"
#include "engine/storage/index_component_removals.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/memtable_iterator.h"
#include "engine/storage/spilled_writes.h"
#include "engine/storage/store_state.h"
#include "engine/types/murmur3.h"

namespace cassette::storage {
namespace {

// One Store per directory per process: open() hands out the live one.
std::mutex registry_mutex;
std::map<std::string, std::weak_ptr<Store>>& registry() {
  static auto* stores = new std::map<std::string, std::weak_ptr<Store>>();
  return *stores;
}

Result<std::string> make_private_directory() {
  std::error_code error;  // TMPDIR naming no directory: an error, not an exception
  const std::filesystem::path temp = std::filesystem::temp_directory_path(error);
  if (error) {
    return Status::io_error(
        fmt::format("cannot find a temporary directory ($TMPDIR): {}", error.message()));
  }
  std::string pattern = (temp / "cassette-memory-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return file::errno_status("cannot create", pattern);
  return pattern;
}

// Starts the store's background thread (flushes and compactions) unless it runs already. A store
// starts it only once it has work for it (recover() at open, a write that fills the memtable, an
// explicit flush), not at open: the first thread of a process makes glibc turn every mutex
// operation of the process (SQLite's, Python's GIL, malloc's) into an atomic one for good, which
// slows a process that only reads by about a tenth. (A template, so as not to name the private
// Store::Private.)
template <typename StorePrivate>
void start_background_thread(StorePrivate& p) {
  std::lock_guard guard(p.background_mutex);
  p.start_background_threads_locked();
}

}  // namespace

TableFile::~TableFile() {
  if (obsolete.load() && reader != nullptr) {
    std::string path = reader->path();
    reader.reset();  // its descriptor first
    auto remove = [path] {
      (void)file::remove_file(path);
      remove_index_component_files(path);
    };
    // Whoever lets go last (a commit's compaction step, a reader's snapshot) need not wait for
    // the unlink when the store runs threads anyway (file_reaper.h).
    size_t slash = path.rfind('/');
    if (slash != std::string::npos && threaded_store(path.substr(0, slash))) {
      reap_later(std::move(remove));
    } else {
      remove();
    }
  }
}

void remove_index_component_files(const std::string& sstable_path) {
  size_t slash = sstable_path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : sstable_path.substr(0, slash);
  std::string_view name = std::string_view(sstable_path).substr(slash + 1);
  auto names = file::list_directory(dir);
  if (!names.is_ok()) return;
  for (const std::string& n : *names) {
    if (component_sstable_name(n) == name) (void)file::remove_file(file::join(dir, n));
  }
}

void remove_pending_file(const PendingFile& f) {
  (void)file::remove_file(f.temp_path);
  for (const std::string& c : f.components) {
    (void)file::remove_file(index_component_path(f.temp_path, c));
  }
}

const std::vector<std::shared_ptr<TableFile>>& Version::files(TableId table) const {
  static const std::vector<std::shared_ptr<TableFile>> kNone;
  auto it = tables.find(table);
  return it == tables.end() ? kNone : it->second;
}

Store::Private::Private(std::string p, const StoreOptions& o, const Clock* c)
    : path(std::move(p)),
      options(o),
      clock(c),
      log_dir(file::join(path, "log")),
      data_dir(file::join(path, "data")),
      cache(o.block_cache_bytes),
      row_cache(o.row_cache_bytes),
      tables(std::make_shared<TableCache>(table_cache_capacity(o.max_open_files))),
      mem(std::make_shared<Memtable>()),
      version(std::make_shared<Version>()) {}

Store::Store(std::string path, const StoreOptions& options)
    : path_(std::move(path)),
      options_(options),
      clock_(options.clock != nullptr ? options.clock : SystemClock::instance()) {
  p_ = std::make_unique<Private>(path_, options_, clock_);
}

Result<std::shared_ptr<Store>> Store::open(const std::string& path, const StoreOptions& options) {
  bool in_memory = path == ":memory:";
  StoreDirectory found;
  if (in_memory) {
    CASSETTE_ASSIGN_OR_RETURN(found.path, make_private_directory());
    found.writable = true;
    CASSETTE_ASSIGN_OR_RETURN(found.identity, file::file_identity(found.path));
  } else {
    CASSETTE_ASSIGN_OR_RETURN(found, open_store_directory(path, options.create_if_missing));
  }
  const std::string dir = found.path;
  std::lock_guard guard(registry_mutex);
  if (!in_memory) {
    // The live store of this directory; one whose directory was replaced is left to fail.
    auto existing = registry()[dir].lock();
    if (existing && existing->p_->directory.identity == found.identity) return existing;
  }
  std::shared_ptr<Store> store(new Store(dir, options));
  store->p_->in_memory = in_memory;
  store->p_->directory = found;
  store->p_->read_only = !found.writable;
  Status s = store->p_->recover();
  if (!s.is_ok()) return s;  // ~Store: not registered yet, so it leaves the registry alone
  if (!in_memory) {
    registry()[dir] = store;
    store->p_->registered = true;
  }
  return store;
}

Store::~Store() {
  {
    std::lock_guard guard(p_->background_mutex);
    p_->stopping = true;
  }
  p_->background_cv.notify_all();
  if (p_->background.joinable()) p_->background.join();
  if (p_->compactor.joinable()) p_->compactor.join();
  {
    std::lock_guard guard(p_->state_mutex);
    p_->log_writer.reset();  // syncs what the group commit has not yet
  }
  bool in_memory = p_->in_memory;
  bool registered = p_->registered;
  const bool threaded_removals = p_->threaded_removals;
  const std::string data_dir = p_->data_dir;
  p_.reset();
  if (threaded_removals) {
    unregister_threaded_store(data_dir);
    drain_file_reaper();  // the segments flushed and the SSTables compacted away are gone
  }
  if (in_memory) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  } else if (registered) {
    std::lock_guard guard(registry_mutex);
    auto it = registry().find(path_);
    if (it != registry().end() && it->second.expired()) registry().erase(it);
  }
}

bool Store::read_only() const {
  return p_->read_only;
}

void Store::set_table_options(TableId table, const TableOptions& options) {
  std::lock_guard guard(p_->options_mutex);
  p_->table_options[table] = options;
  p_->row_cache.set_table_rows(table, options.row_cache_rows);
}

void Store::set_partition_namer(PartitionNamer namer) {
  std::lock_guard guard(p_->options_mutex);
  p_->partition_namer = std::move(namer);
}

void Store::set_index_components(std::shared_ptr<const IndexComponentMap> components) {
  std::lock_guard guard(p_->options_mutex);
  p_->index_components = std::move(components);
}

std::vector<IndexComponentFactory> Store::Private::components_for(TableId table) {
  std::lock_guard guard(options_mutex);
  if (index_components == nullptr) return {};
  auto it = index_components->find(table);
  return it == index_components->end() ? std::vector<IndexComponentFactory>{} : it->second;
}

Status Store::build_index_components(TableId table, const IndexComponentFactory& factory) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> snap, snapshot());
  for (const auto& f : snap->version->files(table)) {
    if (file::exists(index_component_path(f->reader->path(), factory.name))) continue;
    CASSETTE_RETURN_IF_ERROR(build_index_component(*f->reader, factory));
  }
  return Status::ok();
}

Status Store::remove_index_components(TableId table, std::string_view name) {
  if (!valid_component_name(name)) return Status::invalid_argument("bad index component name");
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const Snapshot> snap, snapshot());
  for (const auto& f : snap->version->files(table)) {
    Status removed = file::remove_file(index_component_path(f->reader->path(), name));
    if (!removed.is_ok()) {
      note_index_component_removal();
      return removed;
    }
  }
  note_index_component_removal();
  return Status::ok();
}

TableOptions Store::Private::options_for(TableId table) {
  std::lock_guard guard(options_mutex);
  auto it = table_options.find(table);
  return it == table_options.end() ? TableOptions{} : it->second;
}

// ---- writing ---------------------------------------------------------------------------------

Status Store::Private::check_writable() const {
  return read_only ? read_only_store_error(path) : Status::ok();
}

Snapshot Store::Private::writer_view_locked(const Snapshot& snapshot) const {
  Snapshot view = snapshot;
  view.seq = last_seq;  // with the records whose commits wait for their sync
  return view;
}

Status Store::Private::ensure_log_writer_locked() {
  if (log_writer != nullptr && log_writer->end() == log_end) return Status::ok();
  log_writer.reset();
  CASSETTE_ASSIGN_OR_RETURN(log_writer, CommitLogWriter::open(log_dir, log_end, options.sync,
                                                              options.commit_log_segment_bytes));
  log_end = log_writer->end();  // an empty log starts at its first segment's first record
  return Status::ok();
}

// Tells other processes that the log or the manifest changed. REQUIRES: the store lock and a
// caught-up state, so the counter cannot have moved since we last saw it.
uint64_t Store::Private::publish_change_locked() {
  uint64_t value = change_counter->bump();
  seen_counter.store(value, std::memory_order_release);
  return value;
}

Result<int64_t> Store::apply(const EncodedBatch& batch) {
  CASSETTE_ASSIGN_OR_RETURN(std::optional<int64_t> timestamp,
                            apply_locked([](const Snapshot&) { return Result<bool>(true); },
                                         [&](int64_t ts) { return p_->commit_of(batch, ts); }));
  return *timestamp;
}

Result<std::optional<int64_t>> Store::apply_prepared(const PrepareWrite& prepare,
                                                     const std::vector<TableId>& truncate_first) {
  EncodedBatch batch;
  return apply_locked(
      [&](const Snapshot& snapshot) -> Result<bool> {
        CASSETTE_ASSIGN_OR_RETURN(bool write, prepare(snapshot, batch));
        return write && !batch.empty();
      },
      [&](int64_t ts) -> Result<EncodedTransaction> {
        if (truncate_first.empty()) return p_->commit_of(batch, ts);
        EncodedTransaction tx;  // SSTables that the truncation installs (apply_locked)
        tx.entries = batch.entry_count();
        tx.sstable_batch = &batch;
        return tx;
      },
      truncate_first);
}

Result<std::optional<int64_t>> Store::apply_sorted(
    const std::function<Result<bool>(const Snapshot&)>& decide, SortedEntrySource& source,
    const std::vector<TableId>& truncate_first) {
  return apply_locked(
      decide,
      [&](int64_t) -> Result<EncodedTransaction> {
        EncodedTransaction tx;
        tx.sstable_source = &source;
        return tx;
      },
      truncate_first);
}

Result<EncodedTransaction> Store::Private::commit_of(const EncodedBatch& batch,
                                                     int64_t timestamp) const {
  if (sstable_commit_bytes != 0 && batch.byte_size() >= sstable_commit_bytes) {
    EncodedTransaction tx;
    tx.entries = batch.entry_count();
    tx.sstable_batch = &batch;
    return tx;
  }
  return encode_transaction(batch, timestamp);
}

Status Store::lock_for_write(WriteLocks& locks, bool truncating) {
  Private& p = *p_;
  // A request sees its own writes, and commits in its order (durability.h).
  if (auto* deferred = DeferredDurability::current(); deferred && deferred->pending()) {
    CASSETTE_RETURN_IF_ERROR(deferred->wait());
  }
  CommitTrace::mark("deferred_wait");
  CASSETTE_RETURN_IF_ERROR(p.check_writable());
  CommitTrace::mark("check_writable");
  CASSETTE_RETURN_IF_ERROR(p.inline_work_before_write());
  CASSETTE_RETURN_IF_ERROR(p.wait_for_memtable_room());
  CommitTrace::mark("memtable_room");
  CASSETTE_RETURN_IF_ERROR(take_write_locks(locks, truncating));
  Status s = p.resolve_in_doubt_locked(/*must_decide=*/true);
  CommitTrace::mark("in_doubt");
  return s;
}

Status Store::take_write_locks(WriteLocks& locks, bool truncating) {
  Private& p = *p_;
  locks.writer = std::unique_lock(p.writer_mutex);
  // A truncation writes files, as a flush does (the lock order of truncate_table).
  if (truncating) locks.flush = std::unique_lock(p.flush_mutex);
  CommitTrace::mark("writer_mutex");
  CASSETTE_RETURN_IF_ERROR(p.store_lock->lock(p.options.busy_timeout));
  locks.store_lock = &*p.store_lock;
  CommitTrace::mark("store_lock");
  // One stat(2) per transaction: a removed directory must fail the write, not lose it.
  CASSETTE_RETURN_IF_ERROR(check_store_directory(p.directory));
  locks.state = std::unique_lock(p.state_mutex);
  CommitTrace::mark("state_mutex");
  if (p.change_counter->load() != p.seen_counter.load() || !p.log_tail_is_ours_locked() ||
      truncating) {
    CASSETTE_RETURN_IF_ERROR(p.catch_up_locked());
  }
  CommitTrace::mark("catch_up");
  // A sync failed after its commits let go of the locks (group commit): nothing more goes into
  // that segment, and their records leave the memtable (abandon_failed_segment_locked).
  if (p.unsynced_failed_locked()) p.log_write_failed_locked();
  // A flush's sync of the log failed outside the locks: the same.
  if (p.flush_log_sync_failed.exchange(false)) p.log_write_failed_locked();
  if (p.log_failed) CASSETTE_RETURN_IF_ERROR(p.abandon_failed_segment_locked());
  return Status::ok();
}

// The write path every apply shares: under the process's writer mutex and the store lock, catch
// up, let `decide` look at a snapshot of everything committed so far, then append the record
// `encode` makes as one log record (or install a large transaction as SSTables; a transaction
// that truncates tables always is, by the truncation's manifest change). The record is synced
// after the locks are let go, so that concurrent commits share one sync (group commit,
// FORMAT.md): the commit returns only once a sync covers it.
Result<std::optional<int64_t>> Store::apply_locked(
    const std::function<Result<bool>(const Snapshot&)>& decide, const EncodeRecord& encode,
    const std::vector<TableId>& truncate_first) {
  Private& p = *p_;
  int64_t timestamp;
  std::shared_ptr<CommitLogWriter> logged_to;  // group commit: the writer that holds our record
  LogPosition logged_end;
  SequenceNumber unsynced_seq = 0;
  CommitTrace trace;
  {
    WriteLocks locks;
    CASSETTE_RETURN_IF_ERROR(lock_for_write(locks, !truncate_first.empty()));
    CASSETTE_ASSIGN_OR_RETURN(bool write, decide(p.writer_view_locked(*current_snapshot())));
    CommitTrace::mark("decide");
    if (!write) {
      CASSETTE_RETURN_IF_ERROR(p.truncate_tables_locked(truncate_first));  // a TRUNCATE alone
      return std::optional<int64_t>();
    }
    CASSETTE_RETURN_IF_ERROR(p.ensure_log_writer_locked());
    CommitTrace::mark("log_writer_open");

    timestamp = std::max(clock_->now_micros(), p.last_timestamp + 1);
    CASSETTE_ASSIGN_OR_RETURN(EncodedTransaction tx, encode(timestamp));
    CommitTrace::mark("encode");
    if (tx.sstable_source != nullptr) {
      CASSETTE_RETURN_IF_ERROR(
          p.commit_sorted_locked(*tx.sstable_source, timestamp, truncate_first));
    } else if (tx.sstable_batch != nullptr) {
      CASSETTE_RETURN_IF_ERROR(
          p.commit_as_sstables_locked(*tx.sstable_batch, timestamp, truncate_first));
    } else {
      CASSETTE_RETURN_IF_ERROR(check_mutation_size(tx.payload));
      if (Status logged = p.log_and_apply_locked(tx, &unsynced_seq); !logged.is_ok()) {
        // Out of use at once, while we hold the store lock, so that no process appends to it
        // (when this fails too, the next write of this process tries again).
        if (p.log_failed) (void)p.abandon_failed_segment_locked();
        return logged;
      }
      if (unsynced_seq != 0) {
        logged_to = p.log_writer;
        logged_end = p.log_end;
      }
      CommitTrace::mark("log_and_apply");
      p.publish_change_locked();
    }
  }
  CommitTrace::mark("unlock");
  // A failed sync fails every commit it covered, which stay invisible; the next write takes
  // them out of the memtable and the segment out of use.
  Status durable;
  if (logged_to != nullptr && DeferredDurability::current() != nullptr) {
    // The thread hands the wait over (durability.h): the record stays invisible until a sync
    // covers it, as below, and the caller answers nobody before.
    DeferredDurability::current()->defer(logged_to, logged_end,
                                         [&p, unsynced_seq](const Status& synced) {
                                           if (synced.is_ok()) p.raise_visible_seq(unsynced_seq);
                                           p.after_commit();
                                         });
    return std::optional<int64_t>(timestamp);
  }
  if (logged_to != nullptr) {
    durable = logged_to->wait_durable(logged_end);
    // Every record before ours is durable too (the log is sequential): all can be seen.
    if (durable.is_ok()) p.raise_visible_seq(unsynced_seq);
    CommitTrace::mark("wait_durable");
  }
  p.after_commit();
  CommitTrace::mark("after_commit");
  if (!durable.is_ok()) return durable;
  return std::optional<int64_t>(timestamp);
}

void Store::Private::after_commit() {
  // The background thread starts with its first flush (see start_background_thread).
  const bool flush_due = options.background_threads && memtable_full();
  after_write();
  if (flush_due) start_background_thread(*this);
}

// ---- reading ---------------------------------------------------------------------------------

// Another process removes an SSTable whenever it likes once its own snapshots are done with it
// (after compacting it), and this process's table cache may have closed the file's descriptor:
// so a snapshot holds its files open from before it is handed out until it is released. A file
// that is gone already was compacted away after our last catch-up, which therefore moved the
// change counter; nobody has read this snapshot yet, so a newer one is as good: catch up again.
Result<std::shared_ptr<const Snapshot>> Store::snapshot() {
  // A request reads its own deferred writes (durability.h).
  if (auto* deferred = DeferredDurability::current(); deferred && deferred->pending()) {
    CASSETTE_RETURN_IF_ERROR(deferred->wait());
  }
  constexpr int kAttempts = 16;
  Status s;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    CASSETTE_RETURN_IF_ERROR(p_->catch_up_if_changed());
    auto snap = std::make_shared<Snapshot>(*current_snapshot());
    Result<std::shared_ptr<const Version>> pinned = p_->pin_version(snap->version);
    if (pinned.is_ok()) {
      snap->version = std::move(pinned).value();
      return std::shared_ptr<const Snapshot>(std::move(snap));
    }
    s = pinned.status();
    if (!s.is_not_found()) return s;
  }
  return s;
}

Result<std::shared_ptr<const Version>> Store::Private::pin_version(
    std::shared_ptr<const Version> of) {
  {
    std::lock_guard view(view_mutex);
    std::shared_ptr<const Version> shared = pinned.lock();
    if (shared.get() == of.get()) return shared;  // (alive, so not a new version at that address)
  }
  auto pins = std::make_shared<PinnedVersion>();
  for (const auto& [table, files] : of->tables) {
    for (const auto& f : files) {
      CASSETTE_ASSIGN_OR_RETURN(TableCache::Handle fd, tables->hold(f->reader->path()));
      pins->descriptors.push_back(std::move(fd));
    }
  }
  pins->version = std::move(of);
  std::shared_ptr<const Version> version(pins, pins->version.get());  // owns `pins`
  std::lock_guard view(view_mutex);
  pinned = version;
  return version;
}

std::shared_ptr<const Snapshot> Store::current_snapshot() const {
  auto snap = std::make_shared<Snapshot>();
  {
    std::lock_guard view(p_->view_mutex);
    snap->seq = p_->visible_seq.load(std::memory_order_acquire);
    snap->memtable = p_->mem;
    snap->flushing = p_->imm;
    snap->version = p_->version;
    snap->row_cache_epoch = p_->row_cache.epoch();  // changes with the version (row_cache.h)
  }
  snap->now_seconds = clock_->now_seconds();
  return snap;
}

ReadSpec Store::partition_spec(std::string_view partition_key) {
  ReadSpec spec;
  spec.partition_prefix = partition_prefix(types::murmur3_token(partition_key), partition_key);
  return spec;
}

ReadSpec Store::range_spec(const TokenRange& range) {
  ReadSpec spec;
  if (!range.to_key_bounds(&spec.start_key, &spec.end_key)) {
    // An empty range: bounds that no key satisfies.
    spec.start_key = std::string(1, '\xff');
    spec.end_key = std::string(1, '\xff');
  }
  return spec;
}

bool file_may_match(const TableFile& file, const ReadSpec& spec) {
  const SSTableStats& stats = file.reader->stats();
  if (spec.single_partition()) {
    std::string_view prefix = spec.partition_prefix;
    if (std::string_view(stats.last_key).substr(0, prefix.size()) < prefix) return false;
    if (std::string_view(stats.first_key).substr(0, prefix.size()) > prefix) return false;
    return file.reader->may_contain_partition(prefix);
  }
  if (!spec.end_key.empty() && stats.first_key >= spec.end_key) return false;
  return stats.last_key >= spec.start_key;
}

namespace {
// Whether a transaction's uncommitted writes touch the partition (it reads around the cache).
bool overlay_writes_partition(const Snapshot& snap, TableId table, std::string_view prefix) {
  if (snap.overlay == nullptr || snap.overlay->table_entry_count(table) == 0) return false;
  std::unique_ptr<EntryIterator> it = new_memtable_iterator(snap.overlay, table, snap.overlay_seq);
  it->seek(prefix);
  return it->valid() && it->key().substr(0, prefix.size()) == prefix;
}

size_t approximate_row_bytes(const std::string& clustering, const Row& row) {
  size_t n = 64 + clustering.size();
  for (const ColumnData& c : row.columns) {
    n += 48 + c.cell.value.size();
    for (const Cell& cell : c.cells) n += 64 + cell.value.size() + cell.path.size();
  }
  return n;
}

// The cursor of a read from the memtables and SSTables.
std::unique_ptr<RowCursor> read_sources(const Snapshot& snap, TableId table, ReadSpec spec);
}  // namespace

std::unique_ptr<RowCursor> Store::read(const Snapshot& snap, TableId table, ReadSpec spec) const {
  if (spec.single_partition() && !spec.keep_deleted && p_->row_cache.any_table_cached()) {
    if (auto cursor = p_->read_cached(snap, table, spec)) return cursor;
  }
  return read_sources(snap, table, std::move(spec));
}

// A single-partition read of a table the row cache keeps (row_cache.h): served from the cached
// head when the snapshot may use it; otherwise the head is read (and cached) first. nullptr:
// the read goes around the cache.
std::unique_ptr<RowCursor> Store::Private::read_cached(const Snapshot& snap, TableId table,
                                                       const ReadSpec& spec) {
  if (std::binary_search(snap.truncated.begin(), snap.truncated.end(), table)) return nullptr;
  if (snap.spilled != nullptr && snap.spilled->holds(table)) return nullptr;
  if (overlay_writes_partition(snap, table, spec.partition_prefix)) return nullptr;
  uint64_t head_rows = 0;
  std::shared_ptr<const CachedPartition> entry = row_cache.lookup(
      table, spec.partition_prefix, snap.seq, snap.row_cache_epoch, snap.now_seconds, &head_rows);
  if (head_rows == 0) return nullptr;  // the table is not cached
  if (entry == nullptr) {
    ReadSpec head;
    head.partition_prefix = spec.partition_prefix;
    head.emit_static_only = false;
    std::unique_ptr<RowCursor> cursor = read_sources(snap, table, std::move(head));
    auto fill = std::make_shared<CachedPartition>();
    size_t bytes = 0;
    while (true) {
      const bool more = cursor->next();
      if (!cursor->status().is_ok()) return nullptr;  // the read proper reports it
      if (!more) {
        fill->complete = true;
        break;
      }
      if (fill->rows.size() == head_rows) break;  // one row past the head: it is incomplete
      bytes += approximate_row_bytes(cursor->clustering(), cursor->row());
      if (bytes > options.row_cache_bytes / 4) return nullptr;  // too large to cache
      fill->clustering.push_back(cursor->clustering());
      fill->rows.push_back(cursor->row());
    }
    fill->prefix = spec.partition_prefix;
    if (!decode_partition_prefix(fill->prefix, &fill->token, &fill->partition_key)) return nullptr;
    if (const Row* static_row = cursor->static_row()) {
      fill->has_static = true;
      fill->static_row = *static_row;
    }
    fill->seq = snap.seq;
    fill->epoch = snap.row_cache_epoch;
    fill->read_at_seconds = snap.now_seconds;
    fill->finish();
    if (snap.now_seconds >= fill->expires_at) return nullptr;
    row_cache.insert(table, fill);
    entry = std::move(fill);
  }
  if (spec.reverse && !entry->complete) return nullptr;
  RowCursor::ReadRest rest;
  if (!entry->complete && !spec.reverse) {
    rest = [snap, table](ReadSpec s) { return read_sources(snap, table, std::move(s)); };
  }
  return std::make_unique<RowCursor>(spec, std::move(entry), std::move(rest));
}

namespace {
std::unique_ptr<RowCursor> read_sources(const Snapshot& snap, TableId table, ReadSpec spec) {
  std::vector<std::unique_ptr<EntryIterator>> sources;
  std::vector<std::unique_ptr<EntryIterator>> lookups;
  auto add_memtable = [&](const std::shared_ptr<Memtable>& mem, SequenceNumber seq) {
    if (mem == nullptr || mem->empty()) return;
    sources.push_back(new_memtable_iterator(mem, table, seq));
    if (mem->has_partition_metadata.load(std::memory_order_acquire)) {
      lookups.push_back(new_memtable_iterator(mem, table, seq));
    }
  };
  if (snap.spilled != nullptr && snap.spilled->holds(table)) {
    // A transaction's spilled writes, its in-memory tail folded in: in place of the overlay.
    sources.push_back(snap.spilled->new_iterator(table));
    lookups.push_back(snap.spilled->new_iterator(table));
  } else {
    add_memtable(snap.overlay, snap.overlay_seq);
  }
  if (std::binary_search(snap.truncated.begin(), snap.truncated.end(), table)) {
    return std::make_unique<RowCursor>(std::move(spec), std::move(sources), std::move(lookups),
                                       snap.now_seconds);
  }
  add_memtable(snap.memtable, snap.seq);
  add_memtable(snap.flushing, snap.seq);
  for (const auto& file : snap.version->files(table)) {
    if (!file_may_match(*file, spec)) continue;
    sources.push_back(file->reader->new_iterator());
    // Only files holding partition headers or static rows need the second iterator.
    const SSTableStats& stats = file->reader->stats();
    if (stats.headers + stats.static_rows > 0) lookups.push_back(file->reader->new_iterator());
  }
  return std::make_unique<RowCursor>(std::move(spec), std::move(sources), std::move(lookups),
                                     snap.now_seconds);
}
}  // namespace

// ---- maintenance -------------------------------------------------------------------------------

Status Store::flush() {
  CASSETTE_RETURN_IF_ERROR(p_->check_writable());
  Status s = p_->flush_all();
  if (p_->options.background_threads) {
    start_background_thread(*p_);  // compaction may be due
  } else if (s.is_ok()) {
    s = p_->compact_inline_after_flush();
  }
  drain_file_reaper();  // the segments it made redundant are gone when it returns
  return s;
}

Status Store::compact(TableId table) {
  CASSETTE_RETURN_IF_ERROR(p_->check_writable());
  Status s = p_->compact_table(table);
  drain_file_reaper();  // the inputs no snapshot reads are gone when it returns
  return s;
}

Status Store::truncate(TableId table) {
  CASSETTE_RETURN_IF_ERROR(p_->check_writable());
  return p_->truncate_table(table);
}

Status Store::wait_for_background_work() {
  std::unique_lock lock(p_->background_mutex);
  p_->background_cv.wait(lock, [&] {
    std::lock_guard view(p_->view_mutex);
    return p_->stopping || !p_->background.joinable() ||
           (!p_->background_busy && !p_->compactor_busy && p_->imm == nullptr &&
            !p_->compaction_wanted) ||
           !p_->background_error.is_ok() || !p_->compaction_error.is_ok();
  });
  drain_file_reaper();
  return !p_->background_error.is_ok() ? p_->background_error : p_->compaction_error;
}

StoreStats Store::stats() const {
  StoreStats s;
  std::shared_ptr<const Version> version;
  {
    std::lock_guard view(p_->view_mutex);
    s.memtable_bytes = p_->mem->memory_usage() + (p_->imm ? p_->imm->memory_usage() : 0);
    version = p_->version;
  }
  s.block_cache_bytes = p_->cache.usage();
  for (const auto& [table, files] : version->tables) {
    for (const auto& f : files) {
      ++s.sstable_count;
      s.sstable_bytes += f->meta.size;
    }
  }
  auto segments = list_commit_log_segments(p_->log_dir);
  if (segments.is_ok()) {
    for (uint64_t seg : *segments) {
      auto size = file::file_size(file::join(p_->log_dir, commit_log_segment_name(seg)));
      if (size.is_ok()) s.commit_log_bytes += *size;
    }
  }
  s.row_cache_bytes = p_->row_cache.usage();
  s.row_cache_hits = p_->row_cache.hits();
  s.row_cache_misses = p_->row_cache.misses();
  s.flushes = p_->flushes.load();
  s.compactions = p_->compactions.load();
  return s;
}

TableFileStats table_file_stats(const Snapshot& snapshot, TableId table) {
  TableFileStats out;
  if (snapshot.version) {
    for (const auto& file : snapshot.version->files(table)) {
      const SSTableStats& s = file->reader->stats();
      out.sstables += 1;
      out.partitions += s.partitions;
      out.rows += s.rows;
      if (s.rows == 0) out.static_only_rows += s.static_rows;
      out.data_bytes += s.data_bytes;
    }
  }
  for (const auto& mem : {snapshot.memtable, snapshot.flushing}) {
    if (mem) out.memtable_entries += mem->table_entry_count(table);
  }
  return out;
}

}  // namespace cassette::storage
