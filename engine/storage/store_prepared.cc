// Two-phase commit (store.h, Store::prepare_commit; FORMAT.md, "Prepared transactions"): the
// first phase writes the transaction as a prepared record under the write locks and keeps them;
// the second writes a small decision record naming it and, for a commit, publishes the writes.
// A prepared record whose writer died before deciding is decided by the next writer, through the
// host's resolver (StoreOptions::resolve_in_doubt).
#include <algorithm>

#include "engine/storage/commit_record.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {
namespace {

// A log record's header (commit_log.cc, FORMAT.md "Segment files"): masked crc32c, length.
constexpr uint64_t kLogRecordHeaderBytes = 8;

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
  const std::string record = encode_prepared_record(host_tag, truncate, tx.payload);
  Result<LogPosition> end = p.log_writer->append(record);
  if (!end.is_ok()) {
    // Nothing decided yet: a torn or lost prepared record is an aborted one.
    p.log_write_failed_locked();
    (void)p.abandon_failed_segment_locked();
    return end.status();
  }
  p.log_end = *end;
  // Where the record starts, which decisions name: the append may have begun a new segment.
  const LogPosition start{end->segment, end->offset - kLogRecordHeaderBytes - record.size()};
  // Later timestamps are above this one whether it commits or not. No change is published: no
  // reader has anything new to see until the decision.
  p.last_timestamp = timestamp;
  prepared->locks_->state.unlock();  // readers catch up meanwhile; writers wait for the decision
  prepared->store_ = this;
  prepared->position_ = start;
  prepared->payload_ = std::move(tx.payload);
  prepared->truncate_ = truncate;
  prepared->host_tag_ = std::move(host_tag);
  prepared->timestamp_ = timestamp;
  return prepared;
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
  UndecidedPrepared prepared{host_tag_, truncate_, std::move(payload_)};
  Status s;
  {
    std::unique_ptr<WriteLocks> locks = std::move(locks_);
    locks->state = std::unique_lock(p.state_mutex);
    s = p.decide_prepared_locked(position_, prepared, commit);
    // Left in doubt on disk: this process decides it like any other (resolve_in_doubt_locked),
    // after taking its failed log segment out of use.
    if (!s.is_ok()) p.undecided[position_] = std::move(prepared);
  }
  if (s.is_ok() && commit) p.after_commit();
  return s;
}

Status Store::Private::decide_prepared_locked(LogPosition position,
                                              const UndecidedPrepared& prepared, bool commit) {
  CASSETTE_RETURN_IF_ERROR(ensure_log_writer_locked());
  if (!commit) {
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
  // A TRUNCATE happens only now that the transaction commits. A crash between it and the
  // commit record keeps the truncation without the writes, as apply_prepared's would.
  CASSETTE_RETURN_IF_ERROR(truncate_tables_locked(prepared.truncate));
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

Result<std::vector<std::string>> Store::in_doubt_transactions() {
  Private& p = *p_;
  CASSETTE_RETURN_IF_ERROR(p.check_writable());
  WriteLocks locks;
  CASSETTE_RETURN_IF_ERROR(take_write_locks(locks, /*truncating=*/false));
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
