#include "ext/sqlite/pending_writes.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "engine/cql/modification.h"
#include "engine/storage/commit_record.h"
#include "engine/storage/internal_key.h"
#include "engine/util/coding.h"

namespace cassette::sqlite {

void PendingWrites::savepoint(int level) {
  if (level < 0) return;
  size_t n = static_cast<size_t>(level);
  // A table joining the transaction later reports the current level again: keep the first mark.
  while (marks_.size() <= n) marks_.push_back(log_.size());
}

void PendingWrites::release(int level) {
  if (level >= 0 && static_cast<size_t>(level) < marks_.size()) marks_.resize(static_cast<size_t>(level));
}

void PendingWrites::rollback_to(int level) {
  // Level -1 is a savepoint that began the transaction (SAVEPOINT without BEGIN): undo all. A
  // level with no mark was opened before this store's first write of the transaction (SQLite
  // reports savepoints to a table only from when it joins): undo all as well.
  if (level < 0 || static_cast<size_t>(level) >= marks_.size()) {
    if (level < 0 || marks_.empty()) {
      log_.clear();
      ++version_;
    }
    return;
  }
  log_.resize(std::min(log_.size(), marks_[static_cast<size_t>(level)]));
  ++version_;
  marks_.resize(static_cast<size_t>(level) + 1);
}

void PendingWrites::clear() {
  log_.clear();
  marks_.clear();
  ++version_;
  overlay_.reset();
}

namespace {

// Folds log entries into partition updates, later entries overriding earlier ones per row.
class Folder {
 public:
  explicit Folder(int64_t now_seconds) : now_seconds_(now_seconds) {}

  // Folds `w` (its row is moved unless `copy`).
  void add(PendingWrite& w, bool copy = false) {
    std::string pkey;
    coding::put_big_endian64(&pkey, w.table->table_id);
    coding::put_fixed32(&pkey, static_cast<uint32_t>(w.partition_key.size()));
    pkey += w.partition_key;
    auto [pit, new_partition] = partitions_.try_emplace(pkey, updates_.size());
    if (new_partition) {
      storage::PartitionUpdate& u = updates_.emplace_back();
      u.table = w.table->table_id;
      u.partition_key = w.partition_key;
    }
    storage::PartitionUpdate& update = updates_[pit->second];
    storage::Row row = copy ? w.row : std::move(w.row);
    if (w.is_static) {
      merge(*w.table, update.static_row, std::move(row), w.kind, true);
      return;
    }
    std::string rkey = pkey;
    rkey += w.clustering;
    auto [rit, new_row] = rows_.try_emplace(std::move(rkey), update.rows.size());
    if (new_row) {
      update.rows.push_back({w.clustering, std::move(row)});
      return;
    }
    merge(*w.table, update.rows[rit->second].row, std::move(row), w.kind, false);
  }

  // Whether the fold so far has a live row (marker or cell) at (table, key, clustering).
  bool has_row(const PendingWrite& w) const {
    std::string key;
    coding::put_big_endian64(&key, w.table->table_id);
    coding::put_fixed32(&key, static_cast<uint32_t>(w.partition_key.size()));
    key += w.partition_key;
    auto pit = partitions_.find(key);
    if (pit == partitions_.end()) return false;
    key += w.clustering;
    auto rit = rows_.find(key);
    if (rit == rows_.end()) return false;
    const storage::Row& row = updates_[pit->second].rows[rit->second].row;
    if (!row.liveness.is_empty()) return true;
    for (const auto& c : row.columns) {
      if (!c.complex && !c.cell.is_tombstone()) return true;
      for (const auto& e : c.cells) {
        if (!e.is_tombstone()) return true;
      }
    }
    return false;
  }

  std::vector<storage::PartitionUpdate> take() { return std::move(updates_); }

 private:
  void merge(const schema::TableDef& table, storage::Row& into, storage::Row next,
             PendingWrite::Kind kind, bool is_static) {
    if (kind == PendingWrite::Kind::kDeleteRow) {
      into = std::move(next);
      return;
    }
    if (!into.deletion.is_live()) {
      // Deleted earlier in this transaction, written now: the row is what this write says, so
      // every other column becomes null (a tombstone), and the deletion goes.
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
        auto pos = std::lower_bound(next.columns.begin(), next.columns.end(), c.id,
                                    [](const storage::ColumnData& d, storage::ColumnId id) { return d.id < id; });
        next.columns.insert(pos, std::move(data));
      }
      into = std::move(next);
      return;
    }
    if (!next.liveness.is_empty()) into.liveness = next.liveness;
    for (storage::ColumnData& c : next.columns) {
      auto pos = std::lower_bound(into.columns.begin(), into.columns.end(), c.id,
                                  [](const storage::ColumnData& d, storage::ColumnId id) { return d.id < id; });
      if (pos != into.columns.end() && pos->id == c.id) {
        *pos = std::move(c);
      } else {
        into.columns.insert(pos, std::move(c));
      }
    }
  }

  int64_t now_seconds_;
  std::vector<storage::PartitionUpdate> updates_;
  std::unordered_map<std::string, size_t> partitions_;
  std::unordered_map<std::string, size_t> rows_;
};

}  // namespace

Status PendingWrites::commit() {
  if (log_.empty()) {
    clear();
    return Status::ok();
  }
  std::vector<PendingWrite> log = std::move(log_);
  clear();
  bool conditional = std::any_of(log.begin(), log.end(), [](const PendingWrite& w) {
    return w.kind == PendingWrite::Kind::kInsertIfNotExists;
  });
  const int64_t now_seconds = store_->clock().now_seconds();
  if (!conditional) {
    Folder folder(now_seconds);
    for (PendingWrite& w : log) folder.add(w);
    storage::WriteBatch batch;
    batch.mutable_updates() = folder.take();
    return store_->apply(batch).status();
  }
  auto result = store_->apply_prepared(
      [&](const storage::Snapshot& snapshot, storage::WriteBatch& batch) -> Result<bool> {
        Folder folder(now_seconds);
        std::unordered_set<uint64_t> skipped, decided;
        for (PendingWrite& w : log) {
          if (w.kind == PendingWrite::Kind::kInsertIfNotExists && !decided.count(w.statement)) {
            decided.insert(w.statement);
            bool exists = folder.has_row(w);
            if (!exists) {
              CASSETTE_ASSIGN_OR_RETURN(
                  cql::CurrentRow current,
                  cql::read_current_row(*store_, snapshot, *w.table, w.partition_key, w.clustering));
              exists = current.row.has_value();
            }
            if (exists) skipped.insert(w.statement);
          }
          if (skipped.count(w.statement)) continue;
          folder.add(w);
        }
        batch.mutable_updates() = folder.take();
        return !batch.empty();
      });
  return result.status();
}

Result<std::shared_ptr<const storage::Snapshot>> PendingWrites::with_overlay(
    std::shared_ptr<const storage::Snapshot> snapshot) {
  if (log_.empty()) return snapshot;
  if (overlay_version_ != version_ || !overlay_) {
    const int64_t now_micros = store_->clock().now_micros();
    Folder folder(now_micros / 1'000'000);
    for (PendingWrite& w : log_) folder.add(w, /*copy=*/true);
    storage::WriteBatch batch;
    batch.mutable_updates() = folder.take();
    const int64_t timestamp = now_micros + 1;
    batch.assign_timestamp(timestamp);
    CASSETTE_ASSIGN_OR_RETURN(storage::EncodedTransaction tx,
                              storage::encode_transaction(batch, timestamp));
    storage::DecodedTransaction decoded;
    if (!storage::decode_transaction(tx.payload, &decoded)) {
      return Status::internal("Could not decode the pending writes of a transaction.");
    }
    auto overlay = std::make_shared<storage::Memtable>();
    bool metadata = false;
    for (const storage::TransactionEntry& e : decoded.entries) {
      overlay->add(0, e.table, e.key, e.value);
      storage::DecodedKey key;
      if (storage::decode_entry_key(e.key, &key) && key.kind != storage::EntryKind::kRow) metadata = true;
    }
    overlay->has_partition_metadata.store(metadata);
    overlay_ = std::move(overlay);
    overlay_version_ = version_;
  }
  auto copy = std::make_shared<storage::Snapshot>(*snapshot);
  copy->overlay = overlay_;
  return std::shared_ptr<const storage::Snapshot>(std::move(copy));
}

}  // namespace cassette::sqlite
