#include "engine/storage/row_cache.h"

#include <algorithm>

#include "engine/storage/internal_key.h"

namespace cassette::storage {

namespace {
// Heap bytes of a row, roughly: the containers and the strings they own.
size_t row_bytes(const Row& row) {
  size_t n = sizeof(Row) + row.columns.capacity() * sizeof(ColumnData);
  for (const ColumnData& c : row.columns) {
    n += c.cell.value.capacity() + c.cell.path.capacity();
    n += c.cells.capacity() * sizeof(Cell);
    for (const Cell& cell : c.cells) n += cell.value.capacity() + cell.path.capacity();
  }
  return n;
}

int64_t first_expiry(const Row& row) {
  int64_t out = row.liveness.is_expiring() ? row.liveness.local_expiration_time : kNoDeletionTime;
  auto cell = [&](const Cell& c) {
    if (c.is_expiring()) out = std::min(out, c.local_deletion_time);
  };
  for (const ColumnData& c : row.columns) {
    if (c.complex) {
      for (const Cell& e : c.cells) cell(e);
    } else {
      cell(c.cell);
    }
  }
  return out;
}

// Per cached partition: the LRU node, the map's key and node, the shared_ptr's control block.
constexpr size_t kEntryOverhead = 160;
}  // namespace

void CachedPartition::finish() {
  std::vector<const Row*> all;
  all.reserve(rows.size() + 1);
  for (const Row& row : rows) all.push_back(&row);
  const Row no_static;
  all.push_back(has_static ? &static_row : &no_static);
  flat.build(all);
  expires_at = has_static ? first_expiry(static_row) : kNoDeletionTime;
  bytes = sizeof(CachedPartition) + kEntryOverhead + 2 * prefix.capacity() +
          partition_key.capacity() + (has_static ? row_bytes(static_row) : 0) +
          clustering.capacity() * sizeof(std::string) + rows.capacity() * sizeof(Row) +
          flat.memory_bytes();
  for (size_t i = 0; i < rows.size(); ++i) {
    expires_at = std::min(expires_at, first_expiry(rows[i]));
    bytes += row_bytes(rows[i]) - sizeof(Row) + clustering[i].capacity();
  }
}

void RowCache::set_table_rows(TableId table, uint64_t rows) {
  std::lock_guard lock(mutex_);
  TableState& state = tables_[table];
  if (state.rows == rows) return;
  if ((state.rows == 0) != (rows == 0)) {
    if (rows == 0) {
      cached_tables_.fetch_sub(1, std::memory_order_relaxed);
    } else {
      cached_tables_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  drop_table_locked(state);
  state.rows = rows;
  // Nothing read before now may fill it (a table-wide change may have come while it was off).
  state.epoch = std::max(state.epoch, epoch_.load(std::memory_order_relaxed));
}

uint64_t RowCache::table_rows(TableId table) const {
  if (!enabled()) return 0;
  std::lock_guard lock(mutex_);
  auto it = tables_.find(table);
  return it == tables_.end() ? 0 : it->second.rows;
}

std::shared_ptr<const CachedPartition> RowCache::lookup(TableId table, std::string_view prefix,
                                                        SequenceNumber seq, uint64_t epoch,
                                                        int64_t now_seconds, uint64_t* rows) {
  std::lock_guard lock(mutex_);
  auto t = tables_.find(table);
  *rows = t == tables_.end() ? 0 : t->second.rows;
  if (*rows == 0) return nullptr;
  TableState& state = t->second;
  auto it = state.partitions.find(prefix);
  if (it == state.partitions.end()) {
    ++misses_;
    return nullptr;
  }
  const CachedPartition& entry = *it->second->entry;
  if (now_seconds >= entry.expires_at) {  // a TTL ran out: the head is read again
    erase_locked(state, it->second);
    ++misses_;
    return nullptr;
  }
  // An older snapshot than the read that filled it (the partition may have changed between).
  if (seq < entry.seq || epoch < entry.epoch || now_seconds < entry.read_at_seconds) {
    ++misses_;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++hits_;
  return it->second->entry;
}

void RowCache::insert(TableId table, std::shared_ptr<const CachedPartition> entry) {
  if (entry->bytes > capacity_ / 4) return;  // one partition may not take the whole cache
  std::lock_guard lock(mutex_);
  auto t = tables_.find(table);
  if (t == tables_.end()) return;
  TableState& state = t->second;
  if (state.rows == 0 || entry->seq < state.last_write_seq || entry->epoch < state.epoch) return;
  auto it = state.partitions.find(std::string_view(entry->prefix));
  if (it != state.partitions.end()) {
    if (it->second->entry->seq > entry->seq) return;  // a newer read cached it already
    erase_locked(state, it->second);
  }
  usage_ += entry->bytes;
  std::string key = entry->prefix;
  lru_.push_front(Node{table, std::move(entry)});
  state.partitions.emplace(std::move(key), lru_.begin());
  while (usage_ > capacity_ && !lru_.empty()) {
    auto last = std::prev(lru_.end());
    erase_locked(tables_[last->table], last);
  }
}

void RowCache::invalidate_partition(TableId table, std::string_view prefix, SequenceNumber seq) {
  std::lock_guard lock(mutex_);
  TableState& state = tables_[table];
  state.last_write_seq = std::max(state.last_write_seq, seq);
  if (state.partitions.empty()) return;
  auto it = state.partitions.find(prefix);
  if (it != state.partitions.end()) erase_locked(state, it->second);
}

void RowCache::invalidate_entries(const std::vector<Memtable::BatchEntry>& entries,
                                  SequenceNumber seq) {
  if (entries.empty()) return;
  std::lock_guard lock(mutex_);
  TableState* state = nullptr;
  TableId table = 0;
  std::string_view last_prefix;
  for (const Memtable::BatchEntry& e : entries) {
    if (state == nullptr || e.table != table) {
      table = e.table;
      state = &tables_[table];
      state->last_write_seq = std::max(state->last_write_seq, seq);
      last_prefix = {};
    }
    if (state->partitions.empty()) continue;
    const size_t length = partition_prefix_length(e.key);
    std::string_view prefix = e.key.substr(0, length);
    if (length == 0 || prefix == last_prefix) continue;
    last_prefix = prefix;
    auto it = state->partitions.find(prefix);
    if (it != state->partitions.end()) erase_locked(*state, it->second);
  }
}

uint64_t RowCache::invalidate_table(TableId table) {
  std::lock_guard lock(mutex_);
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
  epoch_.store(epoch, std::memory_order_release);
  TableState& state = tables_[table];
  state.epoch = epoch;
  drop_table_locked(state);
  return epoch;
}

uint64_t RowCache::invalidate_all() {
  std::lock_guard lock(mutex_);
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed) + 1;
  epoch_.store(epoch, std::memory_order_release);
  for (auto& [table, state] : tables_) {
    state.epoch = epoch;
    drop_table_locked(state);
  }
  return epoch;
}

size_t RowCache::usage() const {
  std::lock_guard lock(mutex_);
  return usage_;
}

uint64_t RowCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

uint64_t RowCache::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

void RowCache::erase_locked(TableState& state, Lru::iterator node) {
  usage_ -= node->entry->bytes;
  state.partitions.erase(node->entry->prefix);
  lru_.erase(node);
}

void RowCache::drop_table_locked(TableState& state) {
  for (auto& [prefix, node] : state.partitions) {
    usage_ -= node->entry->bytes;
    lru_.erase(node);
  }
  state.partitions.clear();
}

}  // namespace cassette::storage
