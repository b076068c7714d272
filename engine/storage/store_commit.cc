// A transaction's record on its way into the store: appended to the commit log, added to the
// memtable, then published (visible_seq reaches its sequence number, so snapshots see it).
//
// A large record (a bulk load's transaction: a million rows, a hundred megabytes) is added to
// the memtable on a second thread while this one writes and syncs it to the log, so the two
// costs overlap instead of adding up (unless the store runs without threads). Nothing is
// published before the record is in the log; a snapshot taken meanwhile does not see the entries
// (their sequence number is above visible_seq). apply() returns only once the record is as
// durable as the sync mode says (the caller waits for its sync after letting go of its locks). When
// the append fails, the entries are taken back out of the memtable (rebuilding it without them:
// rare, so simple) before anything could see them.
#include <exception>
#include <optional>
#include <system_error>
#include <thread>

#include "engine/storage/commit_record.h"
#include "engine/storage/commit_trace.h"
#include "engine/storage/store_state.h"
#include "engine/util/message.h"

namespace cassette::storage {

namespace {
// Records at least this large go into the memtable while the log writes them.
constexpr size_t kOverlapBytes = 1 << 20;

// A partition named without the schema: the table id and the key's bytes in hex.
Store::PartitionName raw_partition_name(TableId table, std::string_view partition_key) {
  std::string key_hex;
  for (unsigned char c : partition_key) key_hex += fmt::format("{:02x}", c);
  return {"?", fmt::format("table {}.0x{}", table, message_value(key_hex))};
}
}  // namespace

Status Store::check_mutation_size(std::string_view payload) const {
  const uint64_t limit = p_->options.max_mutation_bytes != 0
                             ? p_->options.max_mutation_bytes
                             : p_->options.commit_log_segment_bytes / 2;
  if (payload.size() <= limit) return Status::ok();  // no part is larger than the whole
  const PartitionUpdateSize largest = largest_partition_update(payload);
  if (largest.bytes <= limit) return Status::ok();
  PartitionNamer namer;
  {
    std::lock_guard guard(p_->options_mutex);
    namer = p_->partition_namer;
  }
  PartitionName name = raw_partition_name(largest.table, largest.partition_key);
  if (namer) {
    Result<PartitionName> named = namer(*current_snapshot(), largest.table, largest.partition_key);
    if (named.is_ok()) name = std::move(named).value();
  }
  // Cassandra's MutationExceededMaxSizeException. The update to one partition key is the only
  // one named: a mutation here is one table's (Cassandra's joins a keyspace's tables).
  return Status::invalid_argument(
      fmt::format("Rejected an oversized mutation ({}/{}) for keyspace: {}. Top keys are: {}",
                  largest.bytes, limit, name.keyspace, name.table_and_key));
}

Status Store::Private::prepare_record_locked(std::string_view payload, const std::string& where,
                                             PreparedRecord* out) {
  if (!decode_transaction(payload, &out->tx)) {
    return Status::corruption(fmt::format("commit log {}: malformed transaction record", where));
  }
  out->seq = ++last_seq;
  return Status::ok();
}

void Store::Private::insert_record_locked(const PreparedRecord& record) {
  mem->add_batch(record.seq, record.tx.entries);
}

void Store::Private::publish_record_locked(const PreparedRecord& record, bool visible) {
  const DecodedTransaction& tx = record.tx;
  // Before anyone can see the record: the cached partitions it writes are gone (row_cache.h).
  row_cache.invalidate_entries(tx.entries, record.seq);
  if (tx.has_partition_metadata) mem->has_partition_metadata.store(true, std::memory_order_release);
  if (tx.min_timestamp < mem->min_timestamp.load(std::memory_order_relaxed)) {
    mem->min_timestamp.store(tx.min_timestamp, std::memory_order_relaxed);
  }
  last_timestamp = std::max(last_timestamp, tx.assigned_timestamp);
  if (visible) raise_visible_seq(record.seq);
}

void Store::Private::raise_visible_seq(SequenceNumber seq) {
  SequenceNumber current = visible_seq.load(std::memory_order_relaxed);
  while (current < seq && !visible_seq.compare_exchange_weak(
                              current, seq, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

bool Store::Private::unsynced_failed_locked() {
  // (kNormal and kOff: the next append reports a failed sync, as it always did.)
  if (options.sync != SyncMode::kFull) return false;
  if (log_writer != nullptr && log_writer->failed()) return true;
  const SequenceNumber visible = visible_seq.load(std::memory_order_acquire);
  while (!unsynced.empty() && unsynced.begin()->first <= visible) unsynced.erase(unsynced.begin());
  const CommitLogWriter* healthy = nullptr;  // usually one writer holds them all
  for (const auto& [seq, record] : unsynced) {
    if (record.writer.get() == healthy) continue;
    if (!record.writer->failed()) {
      healthy = record.writer.get();
    } else if (!record.writer->covers(record.end)) {
      return true;
    }
  }
  return false;
}

void Store::Private::drop_failed_unsynced_locked() {
  const SequenceNumber visible = visible_seq.load(std::memory_order_acquire);
  std::set<SequenceNumber> failed;
  for (auto it = unsynced.begin(); it != unsynced.end();) {
    const bool lost = it->first > visible && it->second.writer->failed() &&
                      !it->second.writer->covers(it->second.end);
    if (lost) failed.insert(it->first);
    // A record still waiting for a healthy writer's sync stays (and goes into the SSTables of
    // the flush that follows, which syncs the log first).
    it = lost || it->first <= visible ? unsynced.erase(it) : std::next(it);
  }
  if (!failed.empty()) remove_unpublished_locked(failed);
}

Status Store::Private::apply_record_locked(std::string_view payload, const std::string& where) {
  PreparedRecord record;
  CASSETTE_RETURN_IF_ERROR(prepare_record_locked(payload, where, &record));
  insert_record_locked(record);
  publish_record_locked(record);
  return Status::ok();
}

void Store::Private::remove_unpublished_locked(const std::set<SequenceNumber>& seqs) {
  auto without = [&](const std::shared_ptr<Memtable>& from) {
    auto rebuilt = std::make_shared<Memtable>();
    for (Memtable::RawIterator it(from.get()); it.valid(); it.next()) {
      if (!seqs.contains(it.seq())) rebuilt->add(it.seq(), it.table(), it.key(), it.value());
    }
    rebuilt->min_timestamp.store(from->min_timestamp.load(std::memory_order_relaxed),
                                 std::memory_order_relaxed);
    rebuilt->has_partition_metadata.store(
        from->has_partition_metadata.load(std::memory_order_acquire), std::memory_order_release);
    return rebuilt;
  };
  std::shared_ptr<Memtable> new_mem = without(mem);
  std::shared_ptr<Memtable> new_imm = imm != nullptr ? without(imm) : nullptr;
  std::lock_guard view(view_mutex);
  // Snapshots holding the old ones never see `seqs`: they are above theirs. A flush of the old
  // `imm` running meanwhile finds it replaced and writes nothing.
  mem = std::move(new_mem);
  imm = std::move(new_imm);
  // A writer's view (writer_view_locked) may have cached a head with the records taken out.
  row_cache.invalidate_all();
}

void Store::Private::log_write_failed_locked() {
  log_writer.reset();
  log_failed = true;
}

Status Store::Private::log_and_apply_locked(EncodedTransaction& tx, SequenceNumber* unsynced_seq) {
  *unsynced_seq = 0;
  // Group commit: the record becomes visible once it is durable (Store::apply_locked).
  const bool deferred = options.sync == SyncMode::kFull;
  auto publish = [&](const PreparedRecord& record) {
    publish_record_locked(record, !deferred);
    if (deferred) {
      *unsynced_seq = record.seq;
      unsynced[record.seq] = {log_writer, log_end};
    }
  };
  // Decoded (and checked) before anything is written: a record that does not decode never
  // reaches the log.
  PreparedRecord record;
  CASSETTE_RETURN_IF_ERROR(prepare_record_locked(tx.payload, log_dir, &record));
  // Hosts that want no threads (background_threads off: a PostgreSQL backend) get neither.
  if (tx.payload.size() < kOverlapBytes || !options.background_threads) {
    Result<LogPosition> end = log_writer->append(tx.payload, /*sync=*/false);
    CommitTrace::mark("log_append");
    if (!end.is_ok()) {
      log_write_failed_locked();
      return end.status();
    }
    insert_record_locked(record);
    CommitTrace::mark("memtable_insert");
    log_end = *end;
    publish(record);
    return Status::ok();
  }

  std::exception_ptr failure;  // from the inserting thread (bad_alloc), rethrown here
  std::optional<std::thread> inserter;
  try {
    inserter.emplace([&] {
      try {
        insert_record_locked(record);
      } catch (...) {
        failure = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    // No thread to be had: one step after the other.
  }
  Result<LogPosition> end =
      log_writer->append(tx.payload, /*sync=*/false);  // read by both threads, written by none
  if (inserter) {
    inserter->join();
  } else if (end.is_ok()) {
    insert_record_locked(record);
  }
  if (!end.is_ok() || failure) {
    if (!end.is_ok()) log_write_failed_locked();
    if (inserter) remove_unpublished_locked({record.seq});
    if (failure) std::rethrow_exception(failure);
    return end.status();
  }
  log_end = *end;
  publish(record);
  return Status::ok();
}

}  // namespace cassette::storage
