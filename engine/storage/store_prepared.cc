// Two-phase commit (store.h, Store::prepare_commit; FORMAT.md, "Prepared transactions"): the
// first phase writes the transaction as a prepared record under the write locks and keeps them;
// the second writes a small decision record naming it and, for a commit, publishes the writes.
// A prepared record whose writer died before deciding is decided by the next writer, through the
// host's resolver (StoreOptions::resolve_in_doubt). A transaction too large for a record
// (prepare_sorted: a spilled one) is prepared as SSTables the record lists, which its commit
// installs with one manifest change (decide_prepared_files_locked).
#include <algorithm>

#include "engine/storage/commit_record.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {

namespace {

// A log record's header (commit_log.cc, FORMAT.md "Segment files"): masked crc32c, length.
constexpr uint64_t kLogRecordHeaderBytes = 8;

// Removes an SSTable that no manifest holds and its index components.
void remove_unlisted_sstable(const std::string& data_dir, const ManifestFile& f) {
  const std::string path = file::join(data_dir, sstable_file_name(f.table, f.file_id));
  remove_index_component_files(path);
  (void)file::remove_file(path);
}

}  // namespace

Result<std::unique_ptr<PreparedCommit>> Store::prepare_commit(const PrepareWrite& prepare,
                                                              const std::vector<TableId>& truncate,
                                                              std::string host_tag) {
  Private& p = *p_;
  std::unique_ptr<PreparedCommit> prepared(new PreparedCommit());
  prepared->locks_ = std::make_unique<WriteLocks>();
  CASSETTE_RETURN_IF_ERROR(lock_for_write(*prepared->locks_, !truncate.empty()));
  EncodedBatch batch;
  CASSETTE_ASSIGN_OR_RETURN(bool write, prepare(p.writer_view_locked(*current_snapshot()), batch));
  if ((!write || batch.empty()) && truncate.empty()) return std::unique_ptr<PreparedCommit>();
  if (!write) batch = EncodedBatch();  // a TRUNCATE alone: an empty transaction after it
  CASSETTE_RETURN_IF_ERROR(p.ensure_log_writer_locked());

  const int64_t timestamp = std::max(clock_->now_micros(), p.last_timestamp + 1);
  CASSETTE_ASSIGN_OR_RETURN(EncodedTransaction tx, encode_transaction(batch, timestamp));
  CASSETTE_RETURN_IF_ERROR(check_mutation_size(tx.payload));
  prepared->payload_ = std::move(tx.payload);
  prepared->truncate_ = truncate;
  prepared->host_tag_ = std::move(host_tag);
  prepared->timestamp_ = timestamp;
  CASSETTE_ASSIGN_OR_RETURN(
      prepared->position_,
      p.append_prepared_locked(
          encode_prepared_record(prepared->host_tag_, truncate, prepared->payload_), timestamp));
  prepared->locks_->state.unlock();  // readers catch up meanwhile; writers wait for the decision
  prepared->store_ = this;
  return prepared;
}

Result<std::unique_ptr<PreparedCommit>> Store::prepare_sorted(
    const std::function<Result<bool>(const Snapshot&)>& decide, SortedEntrySource& source,
    const std::vector<TableId>& truncate, std::string host_tag) {
  Private& p = *p_;
  std::unique_ptr<PreparedCommit> prepared(new PreparedCommit());
  prepared->locks_ = std::make_unique<WriteLocks>();
  CASSETTE_RETURN_IF_ERROR(lock_for_write(*prepared->locks_, !truncate.empty()));
  CASSETTE_ASSIGN_OR_RETURN(bool write, decide(p.writer_view_locked(*current_snapshot())));
  if (!write) return std::unique_ptr<PreparedCommit>();
  CASSETTE_RETURN_IF_ERROR(p.ensure_log_writer_locked());

  // The timestamp is the transaction's from here on, as a prepared record's payload carries it:
  // the files are stamped with it now, and the commit raises `last timestamp` to it.
  const int64_t timestamp = std::max(clock_->now_micros(), p.last_timestamp + 1);
  CASSETTE_ASSIGN_OR_RETURN(std::vector<PendingFile> outputs,
                            p.write_prepared_files_locked(source, timestamp));
  prepared->truncate_ = truncate;
  prepared->host_tag_ = std::move(host_tag);
  prepared->timestamp_ = timestamp;
  std::string record;
  if (outputs.empty()) {
    // No row left (its TRUNCATEs cut them all): prepared as an empty transaction after them.
    if (truncate.empty()) return std::unique_ptr<PreparedCommit>();
    CASSETTE_ASSIGN_OR_RETURN(EncodedTransaction tx, encode_transaction(EncodedBatch(), timestamp));
    prepared->payload_ = std::move(tx.payload);
    record = encode_prepared_record(prepared->host_tag_, truncate, prepared->payload_);
  } else {
    for (const PendingFile& f : outputs) prepared->files_.push_back(f.meta);
    record =
        encode_prepared_files_record(prepared->host_tag_, truncate, timestamp, prepared->files_);
  }
  Result<LogPosition> position = p.append_prepared_locked(record, timestamp);
  if (!position.is_ok()) {
    for (const PendingFile& f : outputs) remove_pending_file(f);  // no record names them
    return position.status();
  }
  prepared->position_ = *position;
  prepared->locks_->state.unlock();  // readers catch up meanwhile; writers wait for the decision
  prepared->store_ = this;
  return prepared;
}

Result<LogPosition> Store::Private::append_prepared_locked(std::string_view record,
                                                           int64_t timestamp) {
  Result<LogPosition> end = log_writer->append(record);
  if (!end.is_ok()) {
    // Nothing decided yet: a torn or lost prepared record is an aborted one.
    log_write_failed_locked();
    (void)abandon_failed_segment_locked();
    return end.status();
  }
  log_end = *end;
  // Later timestamps are above this one whether it commits or not. No change is published: no
  // reader has anything new to see until the decision.
  last_timestamp = timestamp;
  // Where the record starts, which decisions name: the append may have begun a new segment.
  return LogPosition{end->segment, end->offset - kLogRecordHeaderBytes - record.size()};
}

PreparedCommit::PreparedCommit() = default;

PreparedCommit::~PreparedCommit() {
  // Without a store, nothing was prepared: the locks alone are released (prepare_commit's
  // early returns).
  if (locks_ != nullptr && store_ != nullptr) (void)finish(false);
}

Status PreparedCommit::commit() {
  return finish(true);
}

Status PreparedCommit::abort() {
  return finish(false);
}

Status PreparedCommit::finish(bool commit) {
  if (locks_ == nullptr) {
    return Status::invalid_argument(
        fmt::format("the transaction {} prepared is already decided", host_tag_));
  }
  Store::Private& p = *store_->p_;
  UndecidedPrepared prepared{host_tag_, truncate_, std::move(payload_), std::move(files_),
                             timestamp_};
  Status s;
  {
    std::unique_ptr<WriteLocks> locks = std::move(locks_);
    locks->state = std::unique_lock(p.state_mutex);
    s = p.decide_prepared_locked(position_, prepared, commit);
    // Left in doubt on disk: this process decides it like any other (resolve_in_doubt_locked),
    // after taking its failed log segment out of use. Unless a manifest covers the record now
    // (a commit with TRUNCATEs failed after its manifest change): then it is committed.
    if (!s.is_ok() && !(position_ < p.manifest.covered))
      p.undecided[position_] = std::move(prepared);
  }
  if (s.is_ok() && commit) p.after_commit();
  return s;
}

Status Store::Private::decide_prepared_locked(LogPosition position,
                                              const UndecidedPrepared& prepared, bool commit) {
  CASSETTE_RETURN_IF_ERROR(ensure_log_writer_locked());
  if (!prepared.files.empty()) return decide_prepared_files_locked(position, prepared, commit);
  if (!commit) return record_abort_locked(position);
  if (!prepared.truncate.empty()) {
    // A TRUNCATE happens only now that the transaction commits, and with its writes: they go
    // to SSTables that the truncation's manifest change installs (the commit point). That change
    // covers the whole log, this prepared record with it, so no reader replays the record again
    // and no decision record is needed (a crash after it leaves nothing in doubt).
    CASSETTE_RETURN_IF_ERROR(commit_record_as_sstables_locked(prepared.payload, prepared.truncate));
    undecided.erase(position);
    return Status::ok();
  }
  // The commit record carries the writes itself and is synced. Another process may swap its
  // memtable between the two records (a swap takes no store lock) and flush it later, writing a
  // manifest whose `covered` lies between them: a reader replaying from there never sees the
  // prepared record, and that flush syncs the log only up to `covered`.
  Result<LogPosition> end = log_writer->append(
      encode_decision_record(RecordKind::kCommitPrepared, {position.segment, position.offset},
                             prepared.payload),
      /*sync=*/true);
  if (!end.is_ok()) {
    log_write_failed_locked();
    return end.status();
  }
  CASSETTE_RETURN_IF_ERROR(apply_record_locked(prepared.payload, log_dir));
  log_end = *end;
  undecided.erase(position);
  publish_change_locked();
  return Status::ok();
}

// A transaction prepared as SSTables (prepare_sorted). Its commit point is the manifest change
// that installs the files (and truncates its TRUNCATEs' tables); the decision record after it
// carries nothing, and tells readers of the log that the prepared record is decided. A crash
// between the two leaves a transaction committed but undecided in the log: whoever next holds
// the lock records it (record_installed_prepared_locked), whatever a host would say. (With
// TRUNCATEs the change covers the whole log, the prepared record with it: no decision record.)
// An abort records the decision first, then removes the files: a crash between leaves files
// that no manifest and no undecided record names, which the next opener removes.
Status Store::Private::decide_prepared_files_locked(LogPosition position,
                                                    const UndecidedPrepared& prepared,
                                                    bool commit) {
  const bool installed = files_installed_locked(prepared);
  if (!commit) {
    if (installed) {
      return Status::invalid_argument(fmt::format(
          "store {}: the transaction prepared by {} is committed already (the manifest holds "
          "its SSTables): it cannot be aborted",
          path, prepared.host_tag));
    }
    CASSETTE_RETURN_IF_ERROR(record_abort_locked(position));
    for (const ManifestFile& f : prepared.files) remove_unlisted_sstable(data_dir, f);
    return Status::ok();
  }
  if (!installed) {
    // A manifest naming a file that is not there whole would not open.
    for (const ManifestFile& f : prepared.files) {
      const std::string file_path = file::join(data_dir, sstable_file_name(f.table, f.file_id));
      Result<uint64_t> size = file::file_size(file_path);
      if (!size.is_ok() || *size != f.size) {
        return Status::corruption(fmt::format(
            "store {}: the transaction prepared by {} cannot commit: its SSTable {} is {}", path,
            prepared.host_tag, file_path,
            size.is_ok() ? fmt::format("{} bytes, not {}", *size, f.size) : "missing"));
      }
    }
    std::vector<PendingFile> in_place;  // written under their final names at prepare
    CASSETTE_RETURN_IF_ERROR(install_transaction_files_locked(
        prepared.files, in_place, prepared.timestamp, prepared.truncate));
    if (!prepared.truncate.empty()) {
      undecided.erase(position);  // covered by the manifest (see above)
      return Status::ok();
    }
  }
  Result<LogPosition> end = log_writer->append(
      encode_decision_record(RecordKind::kCommitPreparedFiles, {position.segment, position.offset}),
      /*sync=*/true);
  if (!end.is_ok()) {
    log_write_failed_locked();  // committed: the next holder of the lock records it
    return end.status();
  }
  log_end = *end;
  undecided.erase(position);
  publish_change_locked();
  return Status::ok();
}

Status Store::Private::record_abort_locked(LogPosition position) {
  Result<LogPosition> end = log_writer->append(
      encode_decision_record(RecordKind::kAbortPrepared, {position.segment, position.offset}));
  if (!end.is_ok()) {
    log_write_failed_locked();
    return end.status();
  }
  log_end = *end;
  undecided.erase(position);
  publish_change_locked();
  return Status::ok();
}

bool Store::Private::files_installed_locked(const UndecidedPrepared& prepared) const {
  if (prepared.files.empty()) return false;
  return std::all_of(prepared.files.begin(), prepared.files.end(), [&](const ManifestFile& f) {
    return std::find(manifest.files.begin(), manifest.files.end(), f) != manifest.files.end();
  });
}

Status Store::Private::record_installed_prepared_locked() {
  for (auto it = undecided.begin(); it != undecided.end();) {
    if (!files_installed_locked(it->second)) {
      ++it;
      continue;
    }
    // A failed segment takes no record until it is out of use (the next write's first step).
    if (log_failed) {
      return Status::io_error(fmt::format(
          "store {}: the commit of the transaction prepared by {} cannot be recorded until the "
          "commit log's failed segment is out of use",
          path, it->second.host_tag));
    }
    const LogPosition position = it->first;
    const UndecidedPrepared prepared = it->second;  // decide_prepared_locked erases it
    CASSETTE_RETURN_IF_ERROR(decide_prepared_locked(position, prepared, /*commit=*/true));
    it = undecided.upper_bound(position);
  }
  return Status::ok();
}

Result<std::vector<std::string>> Store::in_doubt_transactions() {
  Private& p = *p_;
  CASSETTE_RETURN_IF_ERROR(p.check_writable());
  WriteLocks locks;
  CASSETTE_RETURN_IF_ERROR(take_write_locks(locks, /*truncating=*/false));
  CASSETTE_RETURN_IF_ERROR(p.record_installed_prepared_locked());  // committed, not in doubt
  std::vector<std::string> tags;
  for (const auto& [position, prepared] : p.undecided) tags.push_back(prepared.host_tag);
  return tags;
}

Status Store::decide_in_doubt(std::string_view host_tag, bool commit) {
  Private& p = *p_;
  CASSETTE_RETURN_IF_ERROR(p.check_writable());
  {
    WriteLocks locks;
    CASSETTE_RETURN_IF_ERROR(take_write_locks(locks, /*truncating=*/false));
    CASSETTE_RETURN_IF_ERROR(p.record_installed_prepared_locked());  // committed, not in doubt
    auto it = std::find_if(p.undecided.begin(), p.undecided.end(),
                           [&](const auto& entry) { return entry.second.host_tag == host_tag; });
    if (it == p.undecided.end()) {
      return Status::not_found(
          fmt::format("store {} holds no transaction in doubt prepared by {}", p.path, host_tag));
    }
    const LogPosition position = it->first;
    const UndecidedPrepared prepared = it->second;  // decide_prepared_locked erases it
    CASSETTE_RETURN_IF_ERROR(p.decide_prepared_locked(position, prepared, commit));
  }
  if (commit) p.after_commit();
  return Status::ok();
}

Status Store::Private::resolve_in_doubt_locked(bool must_decide) {
  CASSETTE_RETURN_IF_ERROR(
      record_installed_prepared_locked());  // committed, whatever the host says
  while (!undecided.empty()) {
    auto it = undecided.begin();
    const InDoubtDecision decision = options.resolve_in_doubt
                                         ? options.resolve_in_doubt(it->second.host_tag)
                                         : InDoubtDecision::kUnknown;
    if (decision == InDoubtDecision::kUnknown) {
      if (!must_decide) return Status::ok();
      return Status::io_error(fmt::format(
          "store {} holds a transaction prepared by {} whose writer stopped before committing "
          "or aborting it, and this host cannot decide it: nothing can be written until the host "
          "that prepared it writes to the store",
          path, it->second.host_tag));
    }
    const LogPosition position = it->first;
    const UndecidedPrepared prepared = it->second;  // decide_prepared_locked erases it
    CASSETTE_RETURN_IF_ERROR(
        decide_prepared_locked(position, prepared, decision == InDoubtDecision::kCommit));
  }
  return Status::ok();
}

}  // namespace cassette::storage
