#include "engine/storage/overlay.h"

#include <algorithm>
#include <string>

#include "engine/storage/commit_record.h"
#include "engine/storage/internal_key.h"

namespace cassette::storage {

void Overlay::reset() {
  memtable_ = std::make_shared<Memtable>();
  seq_ = 0;
  refresh_timestamp();
}

void Overlay::clear() {
  memtable_.reset();
  seq_ = 0;
  timestamp_ = 0;
}

void Overlay::refresh_timestamp() {
  timestamp_ = clock_->now_micros() + 1;
}

void Overlay::advance_timestamp() {
  timestamp_ = std::max(timestamp_ + 1, clock_->now_micros() + 1);
}

void Overlay::add_entries(const std::vector<Memtable::BatchEntry>& entries) {
  // Partition headers and static rows are only looked up in memtables that say they hold some.
  bool metadata = false;
  for (const Memtable::BatchEntry& e : entries) {
    metadata |= e.key[partition_prefix_length(e.key)] != static_cast<char>(EntryKind::kRow);
  }
  if (metadata) memtable_->has_partition_metadata.store(true, std::memory_order_release);
  memtable_->add_batch(++seq_, entries);  // copies the entries
}

Status Overlay::add(const EncodedBatch& rows) {
  if (rows.empty()) return Status::ok();
  int64_t min_timestamp = INT64_MAX;
  std::string values;  // the restamped values, back to back
  std::vector<size_t> ends;
  std::vector<Memtable::BatchEntry> entries;
  entries.reserve(rows.entry_count());
  ends.reserve(rows.entry_count());
  size_t offset = 0;
  for (size_t n = 0; n < rows.entry_count(); ++n) {
    const EncodedBatch::Entry e = rows.entry_at(offset, &offset);
    const bool header = static_cast<uint8_t>(e.key[partition_prefix_length(e.key)]) ==
                        static_cast<uint8_t>(EntryKind::kPartitionHeader);
    if (!restamp_value(e.value, header, timestamp_, &values, &min_timestamp)) {
      return Status::internal("Could not decode the pending writes of a transaction.");
    }
    ends.push_back(values.size());
    entries.push_back({e.table, e.key, {}});
  }
  // `values` may have moved while growing: point into it only now.
  for (size_t n = 0, begin = 0; n < entries.size(); begin = ends[n++]) {
    entries[n].value = std::string_view(values).substr(begin, ends[n] - begin);
  }
  add_entries(entries);
  return Status::ok();
}

std::shared_ptr<const Snapshot> Overlay::on(const Snapshot& committed,
                                            std::vector<TableId> truncated) const {
  auto view = std::make_shared<Snapshot>(committed);
  view->overlay = memtable_;
  view->overlay_seq = seq_;
  std::sort(truncated.begin(), truncated.end());
  view->truncated = std::move(truncated);
  return view;
}

}  // namespace cassette::storage
