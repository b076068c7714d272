#include "engine/txn/pending_fold.h"

#include <algorithm>

#include "engine/storage/mutation_builder.h"
#include "engine/storage/row_codec.h"
#include "engine/util/hash64.h"

namespace cassette::txn {

void PendingLog::truncate(size_t n) {
  if (n >= entries.size()) return;
  while (!truncates.empty() && truncates.back() >= n) truncates.pop_back();
  batch.truncate(n - truncates.size(), entries[n].offset);
  entries.resize(n);
}

void PendingLog::clear() {
  batch.clear();
  entries.clear();
  tables.clear();
  truncates.clear();
}

std::vector<size_t> PendingLog::first_kept(size_t end) const {
  std::vector<size_t> first(tables.size(), 0);
  for (size_t i : truncates) {
    if (i < end) first[entries[i].table] = i + 1;
  }
  return first;
}

std::vector<storage::TableId> PendingLog::truncated_tables(size_t end) const {
  std::vector<storage::TableId> ids;
  for (size_t i : truncates) {
    const storage::TableId id = tables[entries[i].table]->table_id;
    if (i < end && std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

uint64_t PendingFold::hash_of(const storage::EncodedBatch::Entry& e) {
  return hash64(e.key, e.table);
}

int64_t PendingFold::find(size_t i, uint64_t hash) const {
  if (buckets_.empty()) return -1;
  const storage::EncodedBatch::Entry e = log_->at(i);
  const size_t mask = buckets_.size() - 1;
  for (size_t b = hash & mask; buckets_[b].slot_plus_one != 0; b = (b + 1) & mask) {
    if (buckets_[b].hash != hash) continue;
    const uint32_t slot = buckets_[b].slot_plus_one - 1;
    const storage::EncodedBatch::Entry other = log_->at(slots_[slot].first);
    if (other.table == e.table && other.key == e.key) return slot;
  }
  return -1;
}

void PendingFold::reserve(size_t rows) {
  slots_.reserve(rows);
  size_t want = 1024;
  while (want < rows * 2) want *= 2;
  if (want > buckets_.size()) grow(want);
}

void PendingFold::grow(size_t buckets) {
  std::vector<Bucket> old = std::move(buckets_);
  // Unreserved, a fold starts small: the fold of one row's few entries (Refold) is one.
  buckets_.assign(buckets != 0 ? buckets : old.empty() ? 16 : old.size() * 2, Bucket{});
  const size_t mask = buckets_.size() - 1;
  for (const Bucket& b : old) {
    if (b.slot_plus_one == 0) continue;
    size_t at = b.hash & mask;
    while (buckets_[at].slot_plus_one != 0) at = (at + 1) & mask;
    buckets_[at] = b;
  }
}

Status PendingFold::add_range(size_t begin, size_t end) {
  if (end <= begin) return Status::ok();
  // Sized once for the whole range: the buckets a prefetch touched stay the buckets used.
  reserve(slots_.size() + (end - begin));
  constexpr size_t kAhead = 8;
  uint64_t hashes[kAhead];
  auto prefetch = [&](size_t i) {
    const uint64_t h = hash_of(log_->at(i));
    hashes[i % kAhead] = h;
    __builtin_prefetch(&buckets_[h & (buckets_.size() - 1)]);
  };
  for (size_t i = begin; i < end && i < begin + kAhead; ++i) prefetch(i);
  for (size_t i = begin; i < end; ++i) {
    const uint64_t hash = hashes[i % kAhead];
    if (i + kAhead < end) prefetch(i + kAhead);
    CASSETTE_RETURN_IF_ERROR(add(i, hash).status());
  }
  return Status::ok();
}

namespace {
// Whether any timestamp in `row` was given by the statement rather than left to the commit.
bool has_explicit_timestamp(const storage::Row& row) {
  auto explicit_ts = [](int64_t ts) { return ts != storage::kAutoTimestamp; };
  if (!row.liveness.is_empty() && explicit_ts(row.liveness.timestamp)) return true;
  if (!row.deletion.is_live() && explicit_ts(row.deletion.marked_for_delete_at)) return true;
  for (const storage::ColumnData& c : row.columns) {
    if (c.complex) {
      if (!c.complex_deletion.is_live() && explicit_ts(c.complex_deletion.marked_for_delete_at)) {
        return true;
      }
      for (const storage::Cell& element : c.cells) {
        if (explicit_ts(element.timestamp)) return true;
      }
    } else if (explicit_ts(c.cell.timestamp)) {
      return true;
    }
  }
  return false;
}
}  // namespace

Status PendingFold::merge_header(Slot& slot, std::string_view value) {
  if (slot.merged < 0) {
    storage::PartitionHeader first;
    if (!storage::decode_header(log_->at(slot.first).value, &first)) {
      return Status::corruption("A pending write of the transaction does not decode.");
    }
    slot.merged = static_cast<int32_t>(merged_headers_.size());
    merged_headers_.push_back(std::move(first));
  }
  storage::PartitionHeader next;
  if (!storage::decode_header(value, &next)) {
    return Status::corruption("A pending write of the transaction does not decode.");
  }
  storage::reconcile_headers(merged_headers_[static_cast<size_t>(slot.merged)], next);
  return Status::ok();
}

Result<bool> PendingFold::add(size_t i, uint64_t hash, size_t* row) {
  const storage::EncodedBatch::Entry e = log_->at(i);
  const int64_t found = find(i, hash);
  if (row != nullptr) *row = found < 0 ? slots_.size() : static_cast<size_t>(found);
  if (found < 0) {
    if (log_->entries[i].is_header) has_headers_ = true;
    if ((slots_.size() + 1) * 2 > buckets_.size()) grow();
    const size_t mask = buckets_.size() - 1;
    size_t at = hash & mask;
    while (buckets_[at].slot_plus_one != 0) at = (at + 1) & mask;
    buckets_[at] = Bucket{hash, static_cast<uint32_t>(slots_.size() + 1)};
    slots_.push_back(Slot{static_cast<uint32_t>(i), -1});
    return true;
  }
  Slot& slot = slots_[static_cast<size_t>(found)];
  if (log_->entries[i].is_header) {
    CASSETTE_RETURN_IF_ERROR(merge_header(slot, e.value));
    return false;
  }
  if (slot.merged < 0) {
    storage::Row first;
    if (!storage::decode_row(log_->at(slot.first).value, &first)) {
      return Status::corruption("A pending write of the transaction does not decode.");
    }
    slot.merged = static_cast<int32_t>(merged_.size());
    merged_explicit_timestamps_ |= has_explicit_timestamp(first);
    replaced_.push_back(log_->entries[slot.first].kind == PendingLog::Kind::kDeleteRow);
    merged_.push_back(std::move(first));
  }
  storage::Row next;
  if (!storage::decode_row(e.value, &next)) {
    return Status::corruption("A pending write of the transaction does not decode.");
  }
  merged_explicit_timestamps_ |= has_explicit_timestamp(next);
  const PendingLog::Entry& entry = log_->entries[i];
  if (entry.kind == PendingLog::Kind::kDeleteRow)
    replaced_[static_cast<size_t>(slot.merged)] = true;
  merge(log_->table_of(i), merged_[static_cast<size_t>(slot.merged)], std::move(next), entry.kind,
        entry.is_static);
  return false;
}

bool PendingFold::replaces(size_t row) const {
  const Slot& slot = slots_[row];
  if (log_->entries[slot.first].is_header) return false;
  if (slot.merged < 0) return log_->entries[slot.first].kind == PendingLog::Kind::kDeleteRow;
  return replaced_[static_cast<size_t>(slot.merged)];
}

Result<bool> PendingFold::has_live_row(size_t i) const {
  const storage::EncodedBatch::Entry e = log_->at(i);
  const int64_t found = find(i, hash_of(e));
  if (found < 0) return false;
  const Slot& slot = slots_[static_cast<size_t>(found)];
  storage::Row decoded;
  const storage::Row* row = &decoded;
  if (slot.merged >= 0) {
    row = &merged_[static_cast<size_t>(slot.merged)];
  } else if (!storage::decode_row(log_->at(slot.first).value, &decoded)) {
    return Status::corruption("A pending write of the transaction does not decode.");
  }
  if (!row->liveness.is_empty()) return true;
  for (const auto& c : row->columns) {
    if (!c.complex && !c.cell.is_tombstone()) return true;
    for (const auto& cell : c.cells) {
      if (!cell.is_tombstone()) return true;
    }
  }
  return false;
}

void PendingFold::emit(storage::EncodedBatch* out, size_t from) const {
  std::string value;
  for (size_t s = from; s < slots_.size(); ++s) emit_row(out, s, &value);
}

void PendingFold::emit_rows(storage::EncodedBatch* out, const std::vector<size_t>& rows) const {
  std::string value;
  for (size_t s : rows) emit_row(out, s, &value);
}

void PendingFold::emit_row(storage::EncodedBatch* out, size_t s, std::string* scratch) const {
  const storage::EncodedBatch::Entry e = log_->at(slots_[s].first);
  if (slots_[s].merged < 0) {
    out->add(e.table, e.key, e.value);
    return;
  }
  scratch->clear();
  if (log_->entries[slots_[s].first].is_header) {
    storage::encode_header(merged_headers_[static_cast<size_t>(slots_[s].merged)], scratch);
  } else {
    storage::encode_row(merged_[static_cast<size_t>(slots_[s].merged)], scratch);
  }
  out->add(e.table, e.key, *scratch);
}

void PendingFold::merge_elements(storage::ColumnData& into, storage::ColumnData next) {
  auto by_path = [](const storage::Cell& a, const storage::Cell& b) { return a.path < b.path; };
  for (storage::Cell& cell : next.cells) {
    auto pos = std::lower_bound(into.cells.begin(), into.cells.end(), cell, by_path);
    if (pos != into.cells.end() && pos->path == cell.path) {
      *pos = std::move(cell);
    } else {
      into.cells.insert(pos, std::move(cell));
    }
  }
}

void PendingFold::merge(const schema::TableDef& table, storage::Row& into, storage::Row next,
                        PendingLog::Kind kind, bool is_static) {
  auto by_id = [](const storage::ColumnData& d, storage::ColumnId id) { return d.id < id; };
  if (kind == PendingLog::Kind::kDeleteRow) {
    into = std::move(next);
    return;
  }
  if (!into.deletion.is_live()) {
    // Deleted earlier in this transaction, written now: the row is what this write says, so
    // every other column becomes null (a tombstone), and the deletion goes.
    merged_after_deletion_ = true;
    for (const schema::ColumnDef& c : table.columns) {
      if (c.is_primary_key() || c.is_static() != is_static) continue;
      if (next.find_column(c.id) != nullptr) continue;
      storage::ColumnData data;
      data.id = c.id;
      data.complex = c.type.is_multi_cell();
      if (data.complex) {
        data.complex_deletion = {storage::kAutoTimestamp, now_seconds_};
      } else {
        data.cell = storage::Cell::tombstone(storage::kAutoTimestamp, now_seconds_);
      }
      auto pos = std::lower_bound(next.columns.begin(), next.columns.end(), c.id, by_id);
      next.columns.insert(pos, std::move(data));
    }
    into = std::move(next);
    return;
  }
  if (!next.liveness.is_empty()) into.liveness = next.liveness;
  for (storage::ColumnData& c : next.columns) {
    auto pos = std::lower_bound(into.columns.begin(), into.columns.end(), c.id, by_id);
    if (pos != into.columns.end() && pos->id == c.id) {
      // Counter cells are deltas: two increments of one counter in a transaction add up (as
      // the read overlay shows them); any other cell is replaced by the later statement's.
      const bool both_counters = !c.complex && !pos->complex && c.cell.is_counter() &&
                                 pos->cell.is_counter() && !c.cell.is_tombstone() &&
                                 !pos->cell.is_tombstone();
      if (both_counters) {
        pos->cell = storage::reconcile_cells(pos->cell, c.cell);
        merged_counters_ = true;
      } else if (c.complex && pos->complex && c.complex_deletion.is_live()) {
        // Elements added to a collection (a CQL append, a map entry set) join the ones an
        // earlier statement wrote; a write that replaces the collection carries a deletion.
        merge_elements(*pos, std::move(c));
      } else {
        *pos = std::move(c);
      }
    } else {
      into.columns.insert(pos, std::move(c));
    }
  }
}

}  // namespace cassette::txn
