// Spill::read_source: reads of a spilled transaction's own writes without bringing the runs back
// into memory (layer 4 of docs/ARCHITECTURE.md, "Transactions larger than memory"). Each run is
// read through its sparse block index (a seek reads one block of about kRunBlockBytes); the
// runs and a fold of the in-memory tail are merged key by key, both ways, with the commit's own
// fold of a row's versions (Refold), and stamped at one provisional timestamp, as the commit
// stamps them at one timestamp.
#include <algorithm>

#include "engine/storage/encoded_batch.h"
#include "engine/txn/spill.h"
#include "engine/txn/spill_format.h"

namespace cassette::txn {
namespace {

// One table's entries of one sorted input (a run, the tail's fold), in both directions.
class TableCursor {
 public:
  virtual ~TableCursor() = default;
  virtual void at_least(std::string_view key) = 0;  // the first entry >= key
  virtual void at_most(std::string_view key) = 0;   // the last entry <= key
  virtual void to_last() = 0;
  virtual void next() = 0;  // REQUIRES: valid()
  virtual void prev() = 0;  // REQUIRES: valid()
  bool valid() const { return valid_; }
  const SortedRun::Item& item() const { return *item_; }
  const Status& status() const { return status_; }

 protected:
  bool valid_ = false;
  const SortedRun::Item* item_ = nullptr;
  Status status_;
};

class RunTableCursor final : public TableCursor {
 public:
  RunTableCursor(std::shared_ptr<const RunFile> run, storage::TableId table)
      : run_(std::move(run)), table_(table) {}

  void at_least(std::string_view key) override {
    // The block that would hold (table, key): the last one starting at or before it.
    const auto& blocks = run_->blocks;
    if (blocks.empty()) return invalidate();
    auto it = std::upper_bound(blocks.begin(), blocks.end(), key,
                               [&](std::string_view k, const RunFile::Block& b) {
                                 return key_less(table_, k, b.table, b.first_key);
                               });
    const size_t b = it == blocks.begin() ? 0 : static_cast<size_t>(it - blocks.begin()) - 1;
    if (!load(b)) return;
    pos_ = lower_bound(table_, key);
    if (pos_ == items_.size()) {
      if (b + 1 == blocks.size()) return invalidate();
      if (!load(b + 1)) return;
      pos_ = 0;
    }
    settle();
  }
  void at_most(std::string_view key) override {
    std::string after(key);
    after.push_back('\0');  // the entries < key + "\0" are those <= key
    last_before(table_, after);
  }
  void to_last() override { last_before(table_ + 1, {}); }
  void next() override {
    if (++pos_ == items_.size()) {
      if (block_ + 1 == run_->blocks.size()) return invalidate();
      if (!load(block_ + 1)) return;
      pos_ = 0;
    }
    settle();
  }
  void prev() override {
    if (pos_ == 0) {
      if (block_ == 0) return invalidate();
      if (!load(block_ - 1)) return;
      pos_ = items_.size();
    }
    --pos_;
    settle();
  }

 private:
  void invalidate() { valid_ = false; }
  // Valid while the entry at pos_ is of the table.
  void settle() {
    item_ = &items_[pos_];
    valid_ = item_->table == table_;
  }
  size_t lower_bound(storage::TableId table, std::string_view key) const {
    return static_cast<size_t>(std::lower_bound(items_.begin(), items_.end(), key,
                                                [&](const SortedRun::Item& i, std::string_view k) {
                                                  return key_less(i.table, i.key, table, k);
                                                }) -
                               items_.begin());
  }
  // The last entry < (table, key).
  void last_before(storage::TableId table, std::string_view key) {
    const auto& blocks = run_->blocks;
    auto it = std::lower_bound(blocks.begin(), blocks.end(), key,
                               [&](const RunFile::Block& b, std::string_view k) {
                                 return key_less(b.table, b.first_key, table, k);
                               });
    if (it == blocks.begin()) return invalidate();
    if (!load(static_cast<size_t>(it - blocks.begin()) - 1)) return;
    pos_ = lower_bound(table, key) - 1;  // the block's first entry is < (table, key)
    settle();
  }
  // Reads and parses block `b` (kept while the cursor stays in it).
  bool load(size_t b) {
    valid_ = false;
    if (b == block_ && !items_.empty()) return true;
    const uint64_t begin = run_->blocks[b].offset;
    const uint64_t end = b + 1 < run_->blocks.size() ? run_->blocks[b + 1].offset : run_->size;
    buffer_.resize(end - begin);
    Result<size_t> n = read_at(*run_, begin, buffer_.data(), buffer_.size());
    if (!n.is_ok()) {
      status_ = n.status();
      return false;
    }
    items_.clear();
    block_ = b;
    std::string_view in(buffer_.data(), *n);
    SortedRun::Item item;
    while (!in.empty() && parse_item(&in, &item)) items_.push_back(item);
    if (!in.empty() || *n != buffer_.size() || items_.empty()) {
      items_.clear();
      status_ = Status::corruption(
          fmt::format("a truncated block in the transaction spill file {}", run_->path));
      return false;
    }
    return true;
  }

  std::shared_ptr<const RunFile> run_;
  storage::TableId table_;
  size_t block_ = SIZE_MAX;
  std::string buffer_;
  std::vector<SortedRun::Item> items_;  // of block_, views into buffer_
  size_t pos_ = 0;
};

// The tail's fold, sorted: one table's range of its items.
class TailTableCursor final : public TableCursor {
 public:
  TailTableCursor(std::shared_ptr<const SortedRun> tail, storage::TableId table)
      : tail_(std::move(tail)) {
    const auto& items = tail_->items;
    auto [lo, hi] =
        std::equal_range(items.begin(), items.end(), table,
                         [](const auto& a, const auto& b) { return table_of(a) < table_of(b); });
    lo_ = static_cast<size_t>(lo - items.begin());
    hi_ = static_cast<size_t>(hi - items.begin());
  }
  void at_least(std::string_view key) override {
    at(static_cast<size_t>(
        std::lower_bound(begin(), end(), key,
                         [](const SortedRun::Item& i, std::string_view k) { return i.key < k; }) -
        tail_->items.begin()));
  }
  void at_most(std::string_view key) override {
    const size_t after = static_cast<size_t>(
        std::upper_bound(begin(), end(), key,
                         [](std::string_view k, const SortedRun::Item& i) { return k < i.key; }) -
        tail_->items.begin());
    if (after == lo_) return void(valid_ = false);
    at(after - 1);
  }
  void to_last() override {
    if (hi_ == lo_) return void(valid_ = false);
    at(hi_ - 1);
  }
  void next() override { at(pos_ + 1); }
  void prev() override {
    if (pos_ == lo_) return void(valid_ = false);
    at(pos_ - 1);
  }

 private:
  static storage::TableId table_of(storage::TableId t) { return t; }
  static storage::TableId table_of(const SortedRun::Item& i) { return i.table; }
  std::vector<SortedRun::Item>::const_iterator begin() const { return tail_->items.begin() + lo_; }
  std::vector<SortedRun::Item>::const_iterator end() const { return tail_->items.begin() + hi_; }
  void at(size_t pos) {
    pos_ = pos;
    valid_ = pos >= lo_ && pos < hi_;
    if (valid_) item_ = &tail_->items[pos];
  }

  std::shared_ptr<const SortedRun> tail_;
  size_t lo_ = 0, hi_ = 0, pos_ = 0;
};

class SpilledSource;

// The merge of one table's cursors (oldest first, the tail last): each key once, folded.
class SpilledTableIterator final : public storage::EntryIterator {
 public:
  SpilledTableIterator(std::shared_ptr<const SpilledSource> source,
                       std::vector<std::unique_ptr<TableCursor>> inputs);

  bool valid() const override { return valid_; }
  void seek(std::string_view key) override {
    for (auto& in : inputs_) in->at_least(key);
    forward_ = true;
    pick(true);
  }
  void seek_for_prev(std::string_view key) override {
    for (auto& in : inputs_) in->at_most(key);
    forward_ = false;
    pick(false);
  }
  void seek_to_last() override {
    for (auto& in : inputs_) in->to_last();
    forward_ = false;
    pick(false);
  }
  void next() override {
    if (!forward_) {
      for (auto& in : inputs_) in->at_least(key_);
      forward_ = true;
    }
    for (auto& in : inputs_) {
      if (in->valid() && in->item().key == key_) in->next();
    }
    pick(true);
  }
  void prev() override {
    if (forward_) {
      for (auto& in : inputs_) in->at_most(key_);
      forward_ = false;
    }
    for (auto& in : inputs_) {
      if (in->valid() && in->item().key == key_) in->prev();
    }
    pick(false);
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return status_; }

 private:
  // The entry at the least (forward) or greatest key the inputs are at.
  void pick(bool least);

  std::shared_ptr<const SpilledSource> source_;
  std::vector<std::unique_ptr<TableCursor>> inputs_;
  Refold refold_;
  bool forward_ = true;
  bool valid_ = false;
  std::string key_, value_;
  std::vector<const SortedRun::Item*> versions_;
  Status status_;
};

class SpilledSource final : public storage::SpilledWrites,
                            public std::enable_shared_from_this<SpilledSource> {
 public:
  struct Run {
    std::shared_ptr<const RunFile> file;
    std::vector<storage::TableId> dropped;
  };
  std::vector<Run> runs;
  std::shared_ptr<const SortedRun> tail;  // nullptr: nothing of the tail visible
  std::map<storage::TableId, std::shared_ptr<const schema::TableDef>> tables;
  std::vector<storage::TableId> held;  // sorted
  int64_t timestamp = 0;
  int64_t now_seconds = 0;

  bool holds(storage::TableId table) const override {
    return std::binary_search(held.begin(), held.end(), table);
  }
  std::unique_ptr<storage::EntryIterator> new_iterator(storage::TableId table) const override {
    std::vector<std::unique_ptr<TableCursor>> inputs;
    for (const Run& run : runs) {
      if (!std::binary_search(run.file->tables.begin(), run.file->tables.end(), table)) continue;
      if (std::find(run.dropped.begin(), run.dropped.end(), table) != run.dropped.end()) continue;
      inputs.push_back(std::make_unique<RunTableCursor>(run.file, table));
    }
    if (tail != nullptr) inputs.push_back(std::make_unique<TailTableCursor>(tail, table));
    return std::make_unique<SpilledTableIterator>(shared_from_this(), std::move(inputs));
  }
};

SpilledTableIterator::SpilledTableIterator(std::shared_ptr<const SpilledSource> source,
                                           std::vector<std::unique_ptr<TableCursor>> inputs)
    : source_(std::move(source)),
      inputs_(std::move(inputs)),
      refold_(&source_->tables, source_->now_seconds) {}

void SpilledTableIterator::pick(bool least) {
  valid_ = false;
  versions_.clear();
  for (const auto& in : inputs_) {
    if (!in->status().is_ok()) {
      status_ = in->status();
      return;
    }
    if (!in->valid()) continue;
    const SortedRun::Item& it = in->item();
    if (versions_.empty() || (least ? it.key < versions_[0]->key : it.key > versions_[0]->key)) {
      versions_.assign(1, &it);
    } else if (it.key == versions_[0]->key) {
      versions_.push_back(&it);  // inputs are in age order: versions_ stays oldest first
    }
  }
  if (versions_.empty()) return;
  storage::SortedEntrySource::Entry entry;
  if (Status s = refold_.fold(versions_, &entry); !s.is_ok()) {
    status_ = s;
    return;
  }
  key_.assign(entry.key);
  value_.clear();
  int64_t min_timestamp = INT64_MAX;
  const bool header = kind_of(entry.key) == storage::EntryKind::kPartitionHeader;
  if (!storage::restamp_value(entry.value, header, source_->timestamp, &value_, &min_timestamp)) {
    status_ = Status::internal("Could not decode the spilled writes of a transaction.");
    return;
  }
  valid_ = true;
}

}  // namespace

Result<std::shared_ptr<const storage::SpilledWrites>> Spill::read_source(
    const PendingLog& tail, size_t visible_runs, size_t tail_visible, int64_t timestamp,
    int64_t now_seconds) const {
  auto source = std::make_shared<SpilledSource>();
  source->tables = tables_;
  for (const auto& table : tail.tables) source->tables.emplace(table->table_id, table);
  source->timestamp = timestamp;
  source->now_seconds = now_seconds;
  const std::vector<storage::TableId> tail_truncated = tail.truncated_tables(tail_visible);
  for (size_t r = 0; r < visible_runs && r < runs_.size(); ++r) {
    source->runs.push_back({runs_[r], dropped_tables(r, visible_runs, tail_truncated)});
    for (storage::TableId t : runs_[r]->tables) source->held.push_back(t);
  }
  std::sort(source->held.begin(), source->held.end());
  source->held.erase(std::unique(source->held.begin(), source->held.end()), source->held.end());
  if (tail_visible > 0) {
    auto run = std::make_shared<SortedRun>();
    // Owned: the source outlives later writes of the transaction.
    CASSETTE_RETURN_IF_ERROR(
        fold_sorted(tail, 0, tail_visible, now_seconds, run.get(), RunBytes::kOwn));
    source->tail = std::move(run);
  }
  return std::shared_ptr<const storage::SpilledWrites>(std::move(source));
}

}  // namespace cassette::txn
