// A large transaction commits as SSTables (docs/ARCHITECTURE.md, "Transactions larger than
// memory"): its entries are sorted, stamped with the transaction's timestamp as they are written
// into one SSTable per table, and the files are installed by one MANIFEST change, as a
// compaction's outputs are (`covered` does not move). That install is the commit point: before
// it no reader and no recovery sees anything of the transaction (a crash leaves temporary files,
// which the next opener removes), after it every reader sees all of it, in this process (the new
// Version) and in others (the MANIFEST's generation they catch up with). Readers reconcile by
// timestamp and the transaction's is unique, so files beside memtables of older and newer
// commits order correctly. Neither the commit log nor the memtable holds the transaction: no
// restamped copy of the batch, no memtable to flush in the middle of it.
//
// A transaction that TRUNCATEs tables commits this way whatever its size (and a prepared one's
// record is written out so at its commit): the truncation is a manifest change (it covers the
// whole log), and the same change installs the transaction's files, so the truncation and the
// writes are one step for readers and for recovery alike.
#include <algorithm>

#include "engine/storage/commit_record.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/sorted_entry_source.h"
#include "engine/storage/sstable_writer.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {
namespace {

struct SortedEntry {
  TableId table;
  std::string_view key;
  std::string_view value;
  size_t ordinal;  // in the batch: of two entries with one key, the later is newer
};

// Entries (of a batch or a record) by (table, key), the newest first among those of one key.
Result<std::vector<SortedEntry>> sort_entries(std::vector<SortedEntry> sorted) {
  for (const SortedEntry& e : sorted) {
    const size_t prefix = partition_prefix_length(e.key);
    if (prefix == 0 || prefix >= e.key.size()) {
      return Status::invalid_argument("malformed entry key in a batch");
    }
  }
  std::sort(sorted.begin(), sorted.end(), [](const SortedEntry& a, const SortedEntry& b) {
    if (a.table != b.table) return a.table < b.table;
    if (int c = a.key.compare(b.key); c != 0) return c < 0;
    return a.ordinal > b.ordinal;
  });
  return sorted;
}

Result<std::vector<SortedEntry>> sorted_entries(const EncodedBatch& batch) {
  std::vector<SortedEntry> entries;
  entries.reserve(batch.entry_count());
  size_t offset = 0;
  for (size_t i = 0; i < batch.entry_count(); ++i) {
    EncodedBatch::Entry e = batch.entry_at(offset, &offset);
    entries.push_back({e.table, e.key, e.value, i});
  }
  return sort_entries(std::move(entries));
}

Result<std::vector<SortedEntry>> sorted_entries(const std::vector<TransactionEntry>& record) {
  std::vector<SortedEntry> entries;
  entries.reserve(record.size());
  for (size_t i = 0; i < record.size(); ++i) {
    entries.push_back({record[i].table, record[i].key, record[i].value, i});
  }
  return sort_entries(std::move(entries));
}

bool is_header(std::string_view key) {
  return static_cast<EntryKind>(key[partition_prefix_length(key)]) == EntryKind::kPartitionHeader;
}

// A batch's entries in order, stamped: a key given twice is reconciled as the memtable's flush
// does, after stamping (an explicit timestamp is compared with the transaction's).
class StampedBatch final : public SortedEntrySource {
 public:
  StampedBatch(std::vector<SortedEntry> sorted, int64_t timestamp)
      : sorted_(std::move(sorted)), timestamp_(timestamp) {}
  Result<bool> next(Entry* entry) override {
    if (i_ >= sorted_.size()) return false;
    const SortedEntry& first = sorted_[i_];
    const bool header = is_header(first.key);
    size_t n = 0;
    for (; i_ + n < sorted_.size() && sorted_[i_ + n].table == first.table &&
           sorted_[i_ + n].key == first.key;
         ++n) {
      if (stamped_.size() <= n) stamped_.emplace_back();
      stamped_[n].clear();
      if (!restamp_value(sorted_[i_ + n].value, header, timestamp_, &stamped_[n], &min_)) {
        return Status::invalid_argument("malformed entry value in a batch");
      }
    }
    *entry = {first.table, first.key, stamped_[0]};
    if (n > 1) {
      fragments_.assign(stamped_.begin(), stamped_.begin() + static_cast<std::ptrdiff_t>(n));
      CASSETTE_RETURN_IF_ERROR(merge_fragments(first.key, fragments_, &merged_));
      entry->value = merged_;
    }
    i_ += n;
    return true;
  }

 private:
  std::vector<SortedEntry> sorted_;
  int64_t timestamp_;
  size_t i_ = 0;
  int64_t min_ = INT64_MAX;           // restamp_value's; the SSTables keep their own statistics
  std::vector<std::string> stamped_;  // one key's values, restamped, newest first
  std::vector<std::string_view> fragments_;
  std::string merged_;
};

// Another source's entries (each key once), stamped.
class StampedSource final : public SortedEntrySource {
 public:
  StampedSource(SortedEntrySource& source, int64_t timestamp)
      : source_(source), timestamp_(timestamp) {}
  Result<bool> next(Entry* entry) override {
    CASSETTE_ASSIGN_OR_RETURN(bool more, source_.next(entry));
    if (!more) return false;
    const size_t prefix = partition_prefix_length(entry->key);
    if (prefix == 0 || prefix >= entry->key.size()) {
      return Status::invalid_argument("malformed entry key in a transaction");
    }
    stamped_.clear();
    if (!restamp_value(entry->value, is_header(entry->key), timestamp_, &stamped_, &min_)) {
      return Status::invalid_argument("malformed entry value in a transaction");
    }
    entry->value = stamped_;
    return true;
  }

 private:
  SortedEntrySource& source_;
  int64_t timestamp_;
  int64_t min_ = INT64_MAX;
  std::string stamped_;
};

}  // namespace

Status Store::Private::commit_as_sstables_locked(const EncodedBatch& batch, int64_t timestamp,
                                                 const std::vector<TableId>& truncate) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<SortedEntry> sorted, sorted_entries(batch));
  StampedBatch stamped(std::move(sorted), timestamp);
  return install_stamped_locked(stamped, timestamp, truncate);
}

Status Store::Private::commit_sorted_locked(SortedEntrySource& source, int64_t timestamp,
                                            const std::vector<TableId>& truncate) {
  StampedSource stamped(source, timestamp);
  return install_stamped_locked(stamped, timestamp, truncate);
}

Status Store::Private::commit_record_as_sstables_locked(std::string_view payload,
                                                        const std::vector<TableId>& truncate) {
  DecodedTransaction tx;
  if (!decode_transaction(payload, &tx)) {
    return Status::corruption(fmt::format("commit log {}: malformed transaction record", log_dir));
  }
  CASSETTE_ASSIGN_OR_RETURN(std::vector<SortedEntry> sorted, sorted_entries(tx.entries));
  StampedBatch stamped(std::move(sorted), tx.assigned_timestamp);  // (stamped already: copied)
  return install_stamped_locked(stamped, tx.assigned_timestamp, truncate);
}

Status Store::Private::install_stamped_locked(SortedEntrySource& stamped, int64_t timestamp,
                                              const std::vector<TableId>& truncate) {
  std::vector<PendingFile> outputs;
  CASSETTE_RETURN_IF_ERROR(write_stamped_locked(stamped, /*final_names=*/false, &outputs));
  std::vector<ManifestFile> files;
  for (const PendingFile& f : outputs) files.push_back(f.meta);
  Status s = install_transaction_files_locked(files, outputs, timestamp, truncate);
  if (!s.is_ok()) {
    for (const PendingFile& f : outputs) remove_pending_file(f);
  }
  return s;
}

Status Store::Private::write_stamped_locked(SortedEntrySource& stamped, bool final_names,
                                            std::vector<PendingFile>* outputs) {
  std::unique_ptr<SSTableWriter> writer;
  auto discard = [&](Status s) {
    writer.reset();
    for (const PendingFile& f : *outputs) remove_pending_file(f);
    outputs->clear();
    return s;
  };
  auto finish = [&]() -> Status {
    if (writer == nullptr) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(outputs->back().meta.size, writer->finish());
    outputs->back().components = writer->components();
    writer.reset();
    return Status::ok();
  };

  for (;;) {
    SortedEntrySource::Entry e;
    Result<bool> more = stamped.next(&e);
    if (!more.is_ok()) return discard(more.status());
    if (!*more) break;
    if (writer == nullptr || outputs->back().meta.table != e.table) {
      if (Status s = finish(); !s.is_ok()) return discard(s);
      Result<PendingFile> pending = new_pending_file(e.table);
      if (!pending.is_ok()) return discard(pending.status());
      if (final_names) {
        pending->temp_path =
            file::join(data_dir, sstable_file_name(pending->meta.table, pending->meta.file_id));
      }
      outputs->push_back(*pending);
      auto created = create_table_writer(outputs->back());
      if (!created.is_ok()) return discard(created.status());
      writer = std::move(created).value();
    }
    if (Status s = writer->add(e.key, e.value); !s.is_ok()) return discard(s);
  }
  if (Status s = finish(); !s.is_ok()) return discard(s);
  return Status::ok();
}

Result<std::vector<PendingFile>> Store::Private::write_prepared_files_locked(
    SortedEntrySource& source, int64_t timestamp) {
  StampedSource stamped(source, timestamp);
  std::vector<PendingFile> outputs;
  CASSETTE_RETURN_IF_ERROR(write_stamped_locked(stamped, /*final_names=*/true, &outputs));
  // Each file is synced as it is finished; their names, before a record names them.
  if (Status s = file::sync_directory(data_dir); !s.is_ok()) {
    for (const PendingFile& f : outputs) remove_pending_file(f);
    return s;
  }
  return outputs;
}

Status Store::Private::install_transaction_files_locked(const std::vector<ManifestFile>& files,
                                                        std::vector<PendingFile>& outputs,
                                                        int64_t timestamp,
                                                        const std::vector<TableId>& truncate) {
  if (!truncate.empty()) {
    // The truncation's manifest change, which covers the whole log (synced first) and installs
    // the files: the transaction's one step.
    const TransactionFiles transaction{files, outputs, timestamp};
    CASSETTE_RETURN_IF_ERROR(truncate_tables_locked(truncate, &transaction));
  } else {
    // Recovery must yield a prefix of the transactions: the records before this one must not be
    // lost to a power loss that keeps it (sync=normal, off), so the log is made durable first.
    if (Status s = sync_commit_log_through(log_dir, log_end); !s.is_ok()) {
      log_write_failed_locked();  // a segment whose sync failed is taken out of use (FORMAT.md)
      return s;
    }
    Manifest next = manifest;
    ++next.generation;
    next.last_timestamp = std::max(last_timestamp, timestamp);
    next.files.insert(next.files.end(), files.begin(), files.end());
    CASSETTE_RETURN_IF_ERROR(install_locked(next, outputs, LoadAction::kCatchUp));
  }
  last_timestamp = std::max(last_timestamp, timestamp);
  if (files.empty()) return Status::ok();
  {
    std::lock_guard guard(background_mutex);
    compaction_wanted = true;  // new files, as after a flush
  }
  background_cv.notify_all();
  return Status::ok();
}

}  // namespace cassette::storage
