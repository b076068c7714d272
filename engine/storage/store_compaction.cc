// Size-tiered compaction (Cassandra's default strategy): SSTables of similar size are merged once
// there are compaction_min_threshold of them, at most compaction_max_threshold at a time. The
// merge reconciles every version of each entry, applies partition deletions and range
// tombstones to the rows they shadow, turns expired cells into tombstones, and drops tombstones
// older than gc_grace_seconds when no file outside the merge (and no memtable) could still hold
// data they shadow.
#include <algorithm>
#include <limits>
#include <optional>

#include "engine/storage/commit_trace.h"
#include "engine/storage/compaction_listener.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sstable_writer.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {
namespace {

constexpr uint64_t kSmallFileBytes = 50ull << 20;  // Cassandra's min_sstable_size: one bucket
constexpr double kBucketLow = 0.5;
constexpr double kBucketHigh = 1.5;

// Everything a merge needs to decide whether a tombstone may go.
struct PurgeContext {
  int64_t now_seconds;
  int64_t gc_before;
  std::vector<std::shared_ptr<TableFile>> others;  // the table's files outside the merge
  std::vector<std::shared_ptr<Memtable>> memtables;
  // The oldest write timestamp of the memtables flushed while the merge ran in steps (their
  // files are not in `others`).
  int64_t flushed_min_timestamp = std::numeric_limits<int64_t>::max();

  // Whether a tombstone of partition `prefix` written at `timestamp` shadows nothing outside.
  bool may_purge(std::string_view prefix, int64_t timestamp) const {
    if (flushed_min_timestamp <= timestamp) return false;
    for (const auto& m : memtables) {
      if (m != nullptr && !m->empty() && m->min_timestamp.load() <= timestamp) return false;
    }
    for (const auto& f : others) {
      if (f->min_timestamp <= timestamp && f->reader->may_contain_partition(prefix)) return false;
    }
    return true;
  }
};

bool purgeable(const DeletionTime& d, const PurgeContext& ctx, std::string_view prefix) {
  return !d.is_live() && d.local_deletion_time < ctx.gc_before &&
         ctx.may_purge(prefix, d.marked_for_delete_at);
}

// Drops the purgeable parts of a partition header; returns false when nothing is left.
bool purge_header(PartitionHeader& header, const PurgeContext& ctx, std::string_view prefix) {
  if (purgeable(header.deletion, ctx, prefix)) header.deletion = DeletionTime{};
  std::erase_if(header.range_tombstones, [&](const RangeTombstone& rt) {
    return !header.deletion.is_live() && !rt.deletion.supersedes(header.deletion)
               ? true  // shadowed by the partition deletion
               : purgeable(rt.deletion, ctx, prefix);
  });
  return !header.is_empty();
}

// Merges the sorted entry streams of the inputs, one entry key at a time.
class EntryMerger {
 public:
  explicit EntryMerger(std::vector<std::unique_ptr<EntryIterator>> inputs)
      : inputs_(std::move(inputs)) {
    for (auto& it : inputs_) it->seek({});
  }
  // Gathers the next key's values; false at the end or on error (see status()).
  bool next(std::string* key, std::vector<std::string>* values) {
    const EntryIterator* least = nullptr;
    for (auto& it : inputs_) {
      if (!it->valid()) {
        if (!it->status().is_ok()) status_ = it->status();
        continue;
      }
      if (least == nullptr || it->key() < least->key()) least = it.get();
    }
    if (!status_.is_ok() || least == nullptr) return false;
    key->assign(least->key());
    values->clear();
    for (auto& it : inputs_) {
      if (it->valid() && it->key() == std::string_view(*key)) {
        values->emplace_back(it->value());
        it->next();
      }
    }
    return true;
  }
  const Status& status() const { return status_; }

 private:
  std::vector<std::unique_ptr<EntryIterator>> inputs_;
  Status status_;
};

}  // namespace

// A compaction under way: its inputs merged into its output an entry key at a time, in as many
// steps as the caller likes (inline mode merges a step per write). The inputs stay in
// `compacting` until release(); an output not installed is removed with the job.
struct Store::Private::CompactionJob {
  CompactionJob(Private* p, TableId table_id, std::vector<std::shared_ptr<TableFile>> in)
      : store(p), table(table_id), inputs(std::move(in)) {}
  CompactionJob(const CompactionJob&) = delete;
  CompactionJob& operator=(const CompactionJob&) = delete;
  ~CompactionJob() { release(); }

  Status start() {
    TableOptions topts = store->options_for(table);
    ctx.now_seconds = store->clock->now_seconds();
    ctx.gc_before = ctx.now_seconds - topts.gc_grace_seconds;
    {
      std::lock_guard view(store->view_mutex);
      ctx.memtables = {store->mem, store->imm};
      for (const auto& f : store->version->files(table)) {
        if (std::none_of(inputs.begin(), inputs.end(), [&](const auto& in) { return in == f; })) {
          ctx.others.push_back(f);
        }
      }
    }
    std::vector<std::unique_ptr<EntryIterator>> iterators;
    for (const auto& f : inputs) iterators.push_back(f->reader->new_iterator());
    merger.emplace(std::move(iterators));
    CASSETTE_ASSIGN_OR_RETURN(output, store->new_pending_file(table));
    SSTableWriterOptions wopts;
    wopts.compression_level = topts.compression_level;
    wopts.block_size = topts.block_size;
    wopts.components = store->components_for(table);
    CASSETTE_ASSIGN_OR_RETURN(writer, SSTableWriter::create(output.temp_path, wopts));
    return Status::ok();
  }

  // Merges entry keys until at least `step_bytes` bytes of input are merged or the inputs end
  // (*done: the output finished, or none when nothing is left of the inputs).
  Status step(uint64_t step_bytes, bool* done) {
    *done = false;
    // Between two steps, writes may have gone into a new memtable and a flush may have put an
    // older one into a file outside the merge: a purged tombstone must shadow neither's data.
    if (step_bytes != kNoStepLimit) {
      std::vector<std::shared_ptr<Memtable>> now;
      {
        std::lock_guard view(store->view_mutex);
        now = {store->mem, store->imm};
      }
      for (const auto& m : ctx.memtables) {
        if (m != nullptr && !m->empty() && std::find(now.begin(), now.end(), m) == now.end()) {
          ctx.flushed_min_timestamp = std::min(ctx.flushed_min_timestamp, m->min_timestamp.load());
        }
      }
      ctx.memtables = std::move(now);  // (no flushed memtable kept alive by a long merge)
    }
    auto corrupt = [&](std::string_view what) {
      return Status::corruption(
          fmt::format("compaction of table {}: malformed {} in an input file", table, what));
    };
    uint64_t merged_bytes = 0;
    while (merged_bytes < step_bytes) {
      if (!merger->next(&key, &values)) {
        CASSETTE_RETURN_IF_ERROR(merger->status());
        if (writer->entries() > 0) {
          CASSETTE_ASSIGN_OR_RETURN(output.meta.size, writer->finish());
          output.components = writer->components();
          outputs.push_back(output);
        }
        writer.reset();  // removes an unfinished (empty) file
        *done = true;
        return Status::ok();
      }
      merged_bytes += key.size();
      for (const std::string& v : values) merged_bytes += v.size();
      size_t prefix_length = partition_prefix_length(key);
      if (prefix_length == 0 || prefix_length >= key.size()) return corrupt("entry key");
      std::string_view key_prefix = std::string_view(key).substr(0, prefix_length);
      if (key_prefix != prefix) {
        prefix.assign(key_prefix);
        header = PartitionHeader{};
      }
      auto kind = static_cast<EntryKind>(key[prefix_length]);
      value.clear();
      if (kind == EntryKind::kPartitionHeader) {
        for (const std::string& v : values) {
          PartitionHeader h;
          if (!decode_header(v, &h)) return corrupt("partition header");
          reconcile_headers(header, h);
        }
        PartitionHeader kept = header;
        if (!purge_header(kept, ctx, prefix)) continue;
        encode_header(kept, &value);
      } else {
        Row merged;
        for (const std::string& v : values) {
          Row r;
          if (!decode_row(v, &r)) return corrupt("row");
          reconcile_rows(merged, r);
        }
        DeletionTime outer =
            kind == EntryKind::kRow
                ? header.deletion_for(std::string_view(key).substr(prefix_length + 1))
                : header.deletion;
        auto may_purge = [&](int64_t ts) { return ctx.may_purge(prefix, ts); };
        if (!purge_for_compaction(merged, outer, ctx.now_seconds, ctx.gc_before, may_purge)) {
          continue;
        }
        encode_row(merged, &value);
      }
      CASSETTE_RETURN_IF_ERROR(writer->add(key, value));
    }
    return Status::ok();
  }

  // The inputs leave `compacting`; the output, unless installed (outputs cleared), is removed.
  void release() {
    if (released) return;
    released = true;
    writer.reset();
    for (const PendingFile& f : outputs) remove_pending_file(f);
    outputs.clear();
    std::lock_guard state(store->state_mutex);
    for (const auto& f : inputs) store->compacting.erase(f->meta.file_id);
  }

  Private* store;
  TableId table;
  std::vector<std::shared_ptr<TableFile>> inputs;
  PurgeContext ctx;
  std::optional<EntryMerger> merger;
  PendingFile output;
  std::unique_ptr<SSTableWriter> writer;
  std::vector<PendingFile> outputs;  // the output once finished (none if nothing was left)
  std::string key, value, prefix;
  std::vector<std::string> values;
  PartitionHeader header;  // the partition's deletions as merged, before purging
  bool merged = false;     // the output is finished: only its install is left
  bool installed = false;  // and installed: only the inputs' removal is left
  bool released = false;
};

std::vector<std::shared_ptr<TableFile>> Store::Private::pick_size_tiered(const Version& version,
                                                                         TableId* table) {
  std::vector<std::shared_ptr<TableFile>> best;
  for (const auto& [id, files] : version.tables) {
    std::vector<std::shared_ptr<TableFile>> candidates;
    for (const auto& f : files) {
      if (!compacting.contains(f->meta.file_id)) candidates.push_back(f);
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const auto& a, const auto& b) { return a->meta.size < b->meta.size; });
    std::vector<std::shared_ptr<TableFile>> bucket;
    double average = 0;
    // (a copy of id: clang 14 cannot capture a structured binding)
    auto consider = [&, table_id = id] {
      if (bucket.size() >= options.compaction_min_threshold && bucket.size() > best.size()) {
        best.assign(bucket.begin(),
                    bucket.begin() + std::min(bucket.size(), options.compaction_max_threshold));
        *table = table_id;
      }
    };
    for (const auto& f : candidates) {
      double size = static_cast<double>(f->meta.size);
      bool fits =
          !bucket.empty() && ((size >= average * kBucketLow && size <= average * kBucketHigh) ||
                              (f->meta.size < kSmallFileBytes && average < kSmallFileBytes));
      if (!fits) {
        consider();
        bucket.clear();
        average = 0;
      }
      bucket.push_back(f);
      average += (size - average) / static_cast<double>(bucket.size());
    }
    consider();
  }
  return best;
}

Status Store::Private::compact_inline_step(bool* did_work, uint64_t step_bytes) {
  std::lock_guard job_lock(compaction_job_mutex);
  if (compaction_job != nullptr && compaction_job->installed) {
    // The merged inputs go one a step: unlinking a large file frees its extents, tens of
    // milliseconds each on a busy disk (each goes when its last holder lets go: this job, unless
    // a snapshot still reads it).
    if (step_bytes != kNoStepLimit && !compaction_job->inputs.empty()) {
      compaction_job->inputs.pop_back();
      CommitTrace::mark("compaction_unlink_input");
      if (compaction_job->inputs.empty()) compaction_job.reset();
      std::lock_guard guard(background_mutex);
      compaction_wanted = true;
      if (did_work != nullptr) *did_work = true;
      return Status::ok();
    }
    compaction_job.reset();
  }
  if (compaction_job == nullptr) {
    {
      std::lock_guard guard(background_mutex);
      if (!compaction_wanted) {
        if (did_work != nullptr) *did_work = false;
        return Status::ok();
      }
      // Cleared before the pick, so that a flush that wants a compaction meanwhile is not lost.
      compaction_wanted = false;
    }
    TableId table = 0;
    std::vector<std::shared_ptr<TableFile>> inputs;
    {
      std::lock_guard state(state_mutex);
      inputs = pick_size_tiered(*version, &table);
      for (const auto& f : inputs) compacting.insert(f->meta.file_id);
    }
    if (inputs.empty()) {
      if (did_work != nullptr) *did_work = false;
      return Status::ok();
    }
    auto job = std::make_shared<CompactionJob>(this, table, std::move(inputs));
    Status s = job->start();
    if (!s.is_ok()) {
      if (did_work != nullptr) *did_work = false;
      return s;  // retried after the next flush (or an explicit compaction)
    }
    compaction_job = std::move(job);
    CommitTrace::mark("compaction_start");
  }
  Status s;
  if (!compaction_job->merged) {
    s = compaction_job->step(step_bytes, &compaction_job->merged);
    CommitTrace::mark(compaction_job->merged ? "compaction_last_merge" : "compaction_merge");
    // In steps, the install (which syncs the directory and the manifest) is the next step's,
    // so that no commit waits for both it and the output's sync.
    if (s.is_ok() && (!compaction_job->merged || step_bytes != kNoStepLimit)) {
      // More of it for the next step (which the background thread takes while one is wanted).
      std::lock_guard guard(background_mutex);
      compaction_wanted = true;
      if (did_work != nullptr) *did_work = true;
      return s;
    }
  }
  if (s.is_ok()) s = install_compaction(*compaction_job);
  CommitTrace::mark("compaction_install");
  if (s.is_ok() && step_bytes != kNoStepLimit && !compaction_job->inputs.empty()) {
    // Installed; the job keeps the inputs for the next steps to remove (above), nothing else.
    compaction_job->merger.reset();
    compaction_job->ctx = PurgeContext{};
    compaction_job->release();
    compaction_job->installed = true;
  } else {
    compaction_job.reset();
  }
  if (s.is_ok() || s.is_busy()) {
    // There may be more to do (the next tier up), or another process held the store: the next
    // step tries again. Any other failure waits for the next flush (or an explicit compaction),
    // so that a compaction that cannot succeed is not retried by every write.
    std::lock_guard guard(background_mutex);
    compaction_wanted = true;
  }
  if (did_work != nullptr) *did_work = s.is_ok();
  return s;
}

Status Store::Private::finish_inline_compaction() {
  {
    std::lock_guard job_lock(compaction_job_mutex);
    if (compaction_job == nullptr) return Status::ok();
  }
  // (Another thread may finish it first: then this step may start the next one, which is due.)
  return compact_inline_step(nullptr, kNoStepLimit);
}

Status Store::Private::compact_inline_after_flush() {
  size_t steps;
  {
    std::lock_guard view(view_mutex);
    steps = 0;
    for (const auto& [table, files] : version->tables) steps += files.size();
  }
  // Each step merges at least two files into at most one, so this many steps are enough to
  // finish every compaction due (and bound the loop whatever the thresholds).
  Status s;
  bool did_work = true;
  while (did_work && s.is_ok() && steps-- > 0) s = compact_inline_step(&did_work);
  return s;
}

Status Store::Private::compact_table(TableId table) {
  CASSETTE_RETURN_IF_ERROR(catch_up_if_changed());
  // Inline mode: a compaction under way holds some of the files (`compacting`) until it ends.
  CASSETTE_RETURN_IF_ERROR(finish_inline_compaction());
  std::vector<std::shared_ptr<TableFile>> inputs;
  {
    std::lock_guard state(state_mutex);
    for (const auto& f : version->files(table)) {
      if (compacting.contains(f->meta.file_id))
        return Status::busy("a compaction of this table is running");
      inputs.push_back(f);
    }
    for (const auto& f : inputs) compacting.insert(f->meta.file_id);
  }
  if (inputs.empty()) return Status::ok();
  return compact_files(table, inputs);
}

Status Store::Private::compact_files(TableId table,
                                     const std::vector<std::shared_ptr<TableFile>>& inputs) {
  CompactionJob job(this, table, inputs);
  CASSETTE_RETURN_IF_ERROR(job.start());
  bool done = false;
  CASSETTE_RETURN_IF_ERROR(job.step(kNoStepLimit, &done));
  return install_compaction(job);
}

Status Store::Private::install_compaction(CompactionJob& job) {
  const std::vector<std::shared_ptr<TableFile>>& inputs = job.inputs;
  std::vector<PendingFile>& outputs = job.outputs;
  CompactionEvent event;
  {
    std::lock_guard writer_lock(writer_mutex);
    StoreLockHolder store_locked(*store_lock);
    CASSETTE_RETURN_IF_ERROR(store_locked.lock(options.busy_timeout));
    std::lock_guard state(state_mutex);
    Status s = catch_up_locked();
    // A prepared transaction whose files are installed but whose decision is not recorded is
    // committed: recorded before its files could be merged away (record_installed_prepared_locked).
    if (s.is_ok()) s = record_installed_prepared_locked();
    auto live = [&](const std::shared_ptr<TableFile>& f) {
      return std::any_of(manifest.files.begin(), manifest.files.end(),
                         [&](const ManifestFile& m) { return m == f->meta; });
    };
    if (!s.is_ok() || !std::all_of(inputs.begin(), inputs.end(), live)) {
      return s;  // another process compacted or truncated these files first: the job removes ours
    }
    Manifest next = manifest;
    ++next.generation;
    std::erase_if(next.files, [&](const ManifestFile& m) {
      return std::any_of(inputs.begin(), inputs.end(), [&](const auto& f) { return f->meta == m; });
    });
    for (const PendingFile& f : outputs) next.files.push_back(f.meta);
    installing_compaction = true;  // what readers see does not change: the row cache stays
    Status installed = install_locked(next, outputs, LoadAction::kCatchUp);
    installing_compaction = false;
    CASSETTE_RETURN_IF_ERROR(installed);
    for (const auto& f : version->files(job.table)) {
      if (std::any_of(outputs.begin(), outputs.end(),
                      [&](const PendingFile& o) { return o.meta == f->meta; })) {
        event.outputs.push_back(f);
      }
    }
    outputs.clear();                                  // installed: no longer the job's to remove
    for (const auto& f : inputs) f->obsolete = true;  // removed once no snapshot reads it
    compactions.fetch_add(1);
  }
  if (!in_memory) {
    event.store_path = path;
    event.table = job.table;
    event.inputs = inputs;
    for (const IndexComponentFactory& f : components_for(job.table)) {
      event.components.push_back(f.name);
    }
    notify_compaction(event);
  }
  return Status::ok();
}

namespace {

std::mutex& listener_mutex() {
  static std::mutex mutex;
  return mutex;
}
CompactionListener& listener() {
  static CompactionListener* instance = new CompactionListener();  // used until exit
  return *instance;
}

}  // namespace

void set_compaction_listener(CompactionListener l) {
  std::lock_guard guard(listener_mutex());
  listener() = std::move(l);
}

void notify_compaction(const CompactionEvent& event) {
  CompactionListener l;
  {
    std::lock_guard guard(listener_mutex());
    l = listener();
  }
  if (l) l(event);
}

}  // namespace cassette::storage
