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
#include <algorithm>

#include "engine/storage/internal_key.h"
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

// The batch's entries by (table, key), the newest first among those of one key.
Result<std::vector<SortedEntry>> sorted_entries(const EncodedBatch& batch) {
  std::vector<SortedEntry> sorted;
  sorted.reserve(batch.entry_count());
  size_t offset = 0;
  for (size_t i = 0; i < batch.entry_count(); ++i) {
    EncodedBatch::Entry e = batch.entry_at(offset, &offset);
    const size_t prefix = partition_prefix_length(e.key);
    if (prefix == 0 || prefix >= e.key.size()) {
      return Status::invalid_argument("malformed entry key in a batch");
    }
    sorted.push_back({e.table, e.key, e.value, i});
  }
  std::sort(sorted.begin(), sorted.end(), [](const SortedEntry& a, const SortedEntry& b) {
    if (a.table != b.table) return a.table < b.table;
    if (int c = a.key.compare(b.key); c != 0) return c < 0;
    return a.ordinal > b.ordinal;
  });
  return sorted;
}

bool is_header(std::string_view key) {
  return static_cast<EntryKind>(key[partition_prefix_length(key)]) == EntryKind::kPartitionHeader;
}

}  // namespace

Status Store::Private::commit_as_sstables_locked(const EncodedBatch& batch, int64_t timestamp) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<SortedEntry> sorted, sorted_entries(batch));
  std::vector<PendingFile> outputs;
  std::unique_ptr<SSTableWriter> writer;
  auto discard = [&](Status s) {
    writer.reset();
    for (const PendingFile& f : outputs) (void)file::remove_file(f.temp_path);
    return s;
  };
  auto finish = [&]() -> Status {
    if (writer == nullptr) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(outputs.back().meta.size, writer->finish());
    writer.reset();
    return Status::ok();
  };

  int64_t min_timestamp = INT64_MAX;  // restamp_value's; the SSTables keep their own statistics
  std::vector<std::string> stamped;   // one key's values, restamped, newest first
  std::vector<std::string_view> fragments;
  std::string merged;
  for (size_t i = 0; i < sorted.size();) {
    const SortedEntry& first = sorted[i];
    if (writer == nullptr || outputs.back().meta.table != first.table) {
      if (Status s = finish(); !s.is_ok()) return discard(s);
      Result<PendingFile> pending = new_pending_file(first.table);
      if (!pending.is_ok()) return discard(pending.status());
      outputs.push_back(*pending);
      auto created = create_table_writer(outputs.back());
      if (!created.is_ok()) return discard(created.status());
      writer = std::move(created).value();
    }
    const bool header = is_header(first.key);
    size_t n = 0;
    for (; i + n < sorted.size() && sorted[i + n].table == first.table &&
           sorted[i + n].key == first.key;
         ++n) {
      if (stamped.size() <= n) stamped.emplace_back();
      stamped[n].clear();
      if (!restamp_value(sorted[i + n].value, header, timestamp, &stamped[n], &min_timestamp)) {
        return discard(Status::invalid_argument("malformed entry value in a batch"));
      }
    }
    std::string_view value = stamped[0];
    if (n > 1) {  // a key given twice: reconciled as the memtable's flush does
      fragments.assign(stamped.begin(), stamped.begin() + static_cast<std::ptrdiff_t>(n));
      if (Status s = merge_fragments(first.key, fragments, &merged); !s.is_ok()) {
        return discard(s);
      }
      value = merged;
    }
    if (Status s = writer->add(first.key, value); !s.is_ok()) return discard(s);
    i += n;
  }
  if (Status s = finish(); !s.is_ok()) return discard(s);

  // Recovery must yield a prefix of the transactions: the records before this one must not be
  // lost to a power loss that keeps it (sync=normal, off), so the log is made durable first.
  if (Status s = sync_commit_log_through(log_dir, log_end); !s.is_ok()) {
    log_write_failed_locked();  // a segment whose sync failed is taken out of use (FORMAT.md)
    return discard(s);
  }
  Manifest next = manifest;
  ++next.generation;
  next.last_timestamp = std::max(last_timestamp, timestamp);
  for (const PendingFile& f : outputs) next.files.push_back(f.meta);
  if (Status s = install_locked(next, outputs, LoadAction::kCatchUp); !s.is_ok()) {
    for (const PendingFile& f : outputs) (void)file::remove_file(f.temp_path);
    return s;
  }
  last_timestamp = std::max(last_timestamp, timestamp);
  {
    std::lock_guard guard(background_mutex);
    compaction_wanted = true;  // new files, as after a flush
  }
  background_cv.notify_all();
  return Status::ok();
}

}  // namespace cassette::storage
