// Following the manifest and the commit log. Recovery on open is the first catch-up: load the
// manifest's SSTables, replay the log from the position the manifest covers. Every later
// catch-up does the same incrementally: a new manifest swaps the SSTable set (and rebuilds the
// memtable if another process flushed), new log records go into the memtable.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "engine/storage/commit_record.h"
#include "engine/storage/file_reaper.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {
namespace {

constexpr int kCatchUpAttempts = 16;

std::string manifest_path(const std::string& store_dir) {
  return file::join(store_dir, "MANIFEST");
}

// "tmp-<pid>-<n>.sst": a flush or compaction output of process <pid>, not yet installed.
bool is_dead_process_temp_file(const std::string& name) {
  if (name.rfind("tmp-", 0) != 0) return false;
  int pid = 0;
  auto [ptr, ec] = std::from_chars(name.data() + 4, name.data() + name.size(), pid);
  if (ec != std::errc() || pid <= 0) return true;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace

Status Store::Private::recover() {
  if (read_only) return recover_read_only();
  CASSETTE_RETURN_IF_ERROR(file::create_directories(log_dir));
  CASSETTE_RETURN_IF_ERROR(file::create_directories(data_dir));
  CASSETTE_ASSIGN_OR_RETURN(StoreLock lock, StoreLock::open(path));
  store_lock.emplace(std::move(lock));
  CASSETTE_ASSIGN_OR_RETURN(ChangeCounter counter, ChangeCounter::open(path));
  change_counter.emplace(std::move(counter));
  {
    std::lock_guard state(state_mutex);
    CASSETTE_RETURN_IF_ERROR(catch_up_locked());
  }
  // When no other process is writing, tidy up after a crash: cut a torn log tail and remove files
  // that never made it into the manifest. A busy store is left to its lock holder.
  if (store_lock->lock(std::chrono::milliseconds(0)).is_ok()) {
    std::lock_guard state(state_mutex);
    Status s = catch_up_locked();
    if (s.is_ok()) s = ensure_log_writer_locked();
    if (s.is_ok()) s = remove_orphan_files_locked();
    if (s.is_ok()) s = resolve_in_doubt_locked(/*must_decide=*/false);
    store_lock->unlock();
    CASSETTE_RETURN_IF_ERROR(s);
  }
  // Removals (file_reaper.h) go to a thread of their own when the store runs threads anyway; a
  // host that wants none keeps them inline.
  if (options.background_threads || options.sync == SyncMode::kNormal) {
    register_threaded_store(data_dir);
    threaded_removals = true;
  }
  // The background thread starts when there is work for it (start_background_thread in
  // store.cc): here only when the SSTables already call for a compaction.
  if (options.background_threads) {
    bool compaction_due;
    {
      std::lock_guard state(state_mutex);
      TableId table;
      compaction_due = !pick_size_tiered(*version, &table).empty();
    }
    std::lock_guard guard(background_mutex);
    if (compaction_due) start_background_threads_locked();
  }
  return Status::ok();
}

// A store this process cannot write: no lock (it cannot be created, nor taken without write
// access on every system), no tidying up, no background work. It follows the change counter when
// the store has one, and otherwise catches up for every snapshot. The log is replayed into
// memory only: a torn tail is skipped, not cut.
Status Store::Private::recover_read_only() {
  CASSETTE_ASSIGN_OR_RETURN(ChangeCounter counter, ChangeCounter::open_read_only(path));
  change_counter.emplace(std::move(counter));
  std::lock_guard state(state_mutex);
  return catch_up_locked();
}

Status Store::Private::catch_up_if_changed() {
  if (change_counter->load() == seen_counter.load(std::memory_order_acquire)) return Status::ok();
  std::lock_guard state(state_mutex);
  if (change_counter->load() == seen_counter.load(std::memory_order_acquire)) return Status::ok();
  return catch_up_locked();
}

Status Store::Private::catch_up_locked() {
  CASSETTE_RETURN_IF_ERROR(check_store_directory(directory));
  Status s;
  for (int attempt = 0; attempt < kCatchUpAttempts; ++attempt) {
    std::optional<uint64_t> counter = change_counter->load();
    s = catch_up_once_locked();
    if (s.is_ok()) {
      seen_counter.store(counter.value_or(kCounterNeverSeen), std::memory_order_release);
      return s;
    }
    // A log segment removed under us: another process flushed. Its manifest says where to go on.
    if (!s.is_not_found()) return s;
  }
  return s;
}

Status Store::Private::catch_up_once_locked() {
  std::string mpath = manifest_path(path);
  if (file::exists(mpath)) {
    CASSETTE_ASSIGN_OR_RETURN(Manifest next, read_manifest(mpath));
    if (!have_manifest_file || next.generation != manifest.generation) {
      CASSETTE_RETURN_IF_ERROR(load_manifest_locked(next, LoadAction::kCatchUp));
    }
  }
  return replay_log_locked();
}

Result<std::shared_ptr<TableFile>> Store::Private::open_table_file(const ManifestFile& meta) {
  auto it = open_files.find(meta.file_id);
  if (it != open_files.end()) return it->second;
  std::string file_path = file::join(data_dir, sstable_file_name(meta.table, meta.file_id));
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<SSTableReader> reader,
                            SSTableReader::open(file_path, &cache, tables));
  auto tf = std::make_shared<TableFile>();
  tf->meta = meta;
  tf->reader = std::move(reader);
  const SSTableStats& stats = tf->reader->stats();
  tf->min_timestamp = stats.min_timestamp;
  tf->max_timestamp = stats.max_timestamp;
  tf->max_local_deletion_time = stats.max_local_deletion_time;
  tf->tombstones = stats.tombstones;
  return tf;
}

namespace {
// The tables whose SSTables differ between two versions.
std::vector<TableId> tables_with_changed_files(const Version& before, const Version& after) {
  auto ids = [](const std::vector<std::shared_ptr<TableFile>>& files) {
    std::vector<uint64_t> out;
    for (const auto& f : files) out.push_back(f->meta.file_id);
    std::sort(out.begin(), out.end());
    return out;
  };
  std::vector<TableId> changed;
  for (const auto& [table, files] : before.tables) {
    if (ids(files) != ids(after.files(table))) changed.push_back(table);
  }
  for (const auto& [table, files] : after.tables) {
    if (!before.tables.contains(table)) changed.push_back(table);
  }
  return changed;
}
}  // namespace

Status Store::Private::load_manifest_locked(const Manifest& next, LoadAction action) {
  auto version = std::make_shared<Version>();
  std::map<uint64_t, std::shared_ptr<TableFile>> files;
  for (const ManifestFile& meta : next.files) {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<TableFile> tf, open_table_file(meta));
    version->tables[meta.table].push_back(tf);
    files[meta.file_id] = std::move(tf);
  }
  LogPosition coverage_start = imm != nullptr ? imm_start : mem_start;
  bool rebuild = action == LoadAction::kFlushedAll ||
                 (action == LoadAction::kCatchUp && next.covered != coverage_start);
  {
    std::lock_guard view(view_mutex);
    // The row cache (row_cache.h), with the version a snapshot takes its epoch with: our own
    // flush and compaction change no data; a TRUNCATE, or another process's flush (the
    // memtable is rebuilt), changes any table; an SSTable commit or another process's
    // compaction or truncate changes the tables whose files changed.
    if (action == LoadAction::kFlushedAll || rebuild) {
      row_cache.invalidate_all();
    } else if (action == LoadAction::kCatchUp && !installing_compaction &&
               this->version != nullptr) {
      for (TableId table : tables_with_changed_files(*this->version, *version)) {
        row_cache.invalidate_table(table);
      }
    }
    this->version = std::move(version);
    if (action == LoadAction::kFlushedImm || rebuild) imm = nullptr;
    // Another process flushed what our memtables hold: start over from what it covers, so no
    // record is both in an SSTable and in a memtable (counter deltas would count twice).
    if (rebuild) mem = std::make_shared<Memtable>();
  }
  if (rebuild) {
    // What another process flushed past was decided first (its flush decides what it finds).
    if (action == LoadAction::kCatchUp) {
      undecided.erase(undecided.begin(), undecided.lower_bound(next.covered));
    }
    mem_start = next.covered;
    if (action == LoadAction::kCatchUp) log_end = next.covered;
  } else if (action == LoadAction::kFlushedImm) {
    imm_start = mem_start;
  }
  bool new_files = std::any_of(files.begin(), files.end(),
                               [&](const auto& f) { return !open_files.contains(f.first); });
  if (action == LoadAction::kCatchUp && new_files) {
    // Another process's flush: compaction may be due here too (that process may have exited).
    std::lock_guard guard(background_mutex);
    compaction_wanted = true;
  }
  open_files = std::move(files);
  last_timestamp = std::max(last_timestamp, next.last_timestamp);
  manifest = next;
  have_manifest_file = true;
  return Status::ok();
}

Status Store::Private::replay_log_locked() {
  LogPosition valid_end;
  Status s = read_commit_log(
      log_dir, log_end,
      [&](LogPosition start, LogPosition end, std::string_view payload) {
        CASSETTE_RETURN_IF_ERROR(replay_record_locked(start, payload));
        log_end = end;
        return Status::ok();
      },
      &valid_end);
  CASSETTE_RETURN_IF_ERROR(s);
  if (log_end < valid_end) log_end = valid_end;
  return Status::ok();
}

Status Store::Private::replay_record_locked(LogPosition start, std::string_view payload) {
  LogRecord record;
  if (!decode_log_record(payload, &record)) {
    return Status::corruption(fmt::format("commit log {}: malformed record at {}:{}", log_dir,
                                          start.segment, start.offset));
  }
  const LogPosition decided{record.prepared.segment, record.prepared.offset};
  switch (record.kind) {
    case RecordKind::kTransaction:
      return apply_record_locked(record.transaction, log_dir);
    case RecordKind::kPrepared:
      undecided[start] = UndecidedPrepared{
          std::string(record.host_tag), record.truncate, std::string(record.transaction), {}, 0};
      return Status::ok();
    case RecordKind::kPreparedFiles:
      undecided[start] = UndecidedPrepared{
          std::string(record.host_tag), record.truncate, {}, record.files, record.timestamp};
      return Status::ok();
    case RecordKind::kAbortPrepared:
    case RecordKind::kCommitPreparedFiles:  // its files are in the manifest already
      undecided.erase(decided);
      return Status::ok();
    case RecordKind::kCommitPrepared:
      break;
  }
  auto it = undecided.find(decided);
  Status s;
  if (!record.transaction.empty()) {
    s = apply_record_locked(record.transaction, log_dir);
  } else if (it != undecided.end()) {
    s = apply_record_locked(it->second.payload, log_dir);
  } else {
    s = Status::corruption(
        fmt::format("commit log {}: the commit at {}:{} names no prepared record", log_dir,
                    start.segment, start.offset));
  }
  if (it != undecided.end()) undecided.erase(it);
  return s;
}

// True when nothing was appended to the log since we last read it: the current segment ends at
// log_end and no later segment exists. A writer that died between appending and bumping the
// change counter leaves a record this finds, so the next writer replays it instead of writing
// over it.
bool Store::Private::log_tail_is_ours_locked() const {
  if (log_writer == nullptr || log_writer->end() != log_end) return false;
  std::string segment = file::join(log_dir, commit_log_segment_name(log_end.segment));
  Result<uint64_t> size = file::file_size(segment);
  if (!size.is_ok() || *size != log_end.offset) return false;
  return !file::exists(file::join(log_dir, commit_log_segment_name(log_end.segment + 1)));
}

Status Store::Private::remove_orphan_files_locked() {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> names, file::list_directory(data_dir));
  std::set<std::string> live;
  for (const ManifestFile& f : manifest.files) live.insert(sstable_file_name(f.table, f.file_id));
  // A prepared transaction's SSTables, which its commit installs (Store::prepare_sorted).
  for (const auto& [position, prepared] : undecided) {
    for (const ManifestFile& f : prepared.files) live.insert(sstable_file_name(f.table, f.file_id));
  }
  for (const std::string& name : names) {
    bool temp = name.rfind("tmp-", 0) == 0;
    std::string_view owner = component_sstable_name(name);  // an index component's SSTable
    bool orphan = !temp && ((name.ends_with(".sst") && !live.contains(name)) ||
                            (!owner.empty() && !live.contains(std::string(owner))));
    if (orphan || is_dead_process_temp_file(name)) {
      CASSETTE_RETURN_IF_ERROR(file::remove_file(file::join(data_dir, name)));
    }
  }
  return Status::ok();
}

}  // namespace cassette::storage
