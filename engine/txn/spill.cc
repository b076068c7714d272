#include "engine/txn/spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "engine/storage/internal_key.h"
#include "engine/txn/entry_sort.h"
#include "engine/txn/spill_format.h"
#include "engine/util/coding.h"
#include "engine/util/file.h"

namespace cassette::txn {
namespace {
constexpr uint8_t kReplaces = 1;
}  // namespace

bool key_less(storage::TableId at, std::string_view ak, storage::TableId bt, std::string_view bk) {
  if (at != bt) return at < bt;
  return ak < bk;
}

storage::EntryKind kind_of(std::string_view key) {
  return static_cast<storage::EntryKind>(key[storage::partition_prefix_length(key)]);
}

// One entry of a run file (the header comment's format) from the front of `in`.
bool parse_item(std::string_view* in, SortedRun::Item* item) {
  uint8_t flags = 0;
  uint64_t table = 0;
  if (!coding::get_byte(in, &flags) || !coding::get_varint64(in, &table) ||
      !coding::get_length_prefixed(in, &item->key) ||
      !coding::get_length_prefixed(in, &item->value)) {
    return false;
  }
  item->table = static_cast<storage::TableId>(table);
  item->replaces = (flags & kReplaces) != 0;
  return true;
}

// Up to `n` bytes of `run` at `offset` (fewer at its end).
Result<size_t> read_at(const RunFile& run, uint64_t offset, char* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got =
        ::pread(run.fd.get(), out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return file::errno_status("read", run.path);
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

Status Refold::fold(std::span<const SortedRun::Item* const> versions,
                    storage::SortedEntrySource::Entry* entry, bool* replaces) {
  size_t from = versions.size() - 1;
  while (from > 0 && !versions[from]->replaces) --from;
  const SortedRun::Item& first = *versions[from];
  *entry = {first.table, first.key, first.value};
  if (replaces != nullptr) *replaces = first.replaces;
  if (from + 1 == versions.size()) return Status::ok();
  auto table = tables_->find(entry->table);
  if (table == tables_->end()) {
    return Status::internal("A spilled write of the transaction is of a table it does not know.");
  }
  mini_.clear();
  mini_.tables.assign(1, table->second);
  const storage::EntryKind kind = kind_of(entry->key);
  for (size_t k = from; k < versions.size(); ++k) {
    const SortedRun::Item& it = *versions[k];
    PendingLog::Entry e;
    e.kind = k == from && it.replaces ? PendingLog::Kind::kDeleteRow : PendingLog::Kind::kWrite;
    e.is_static = kind == storage::EntryKind::kStaticRow;
    e.is_header = kind == storage::EntryKind::kPartitionHeader;
    e.offset = mini_.batch.add(it.table, it.key, it.value);
    mini_.entries.push_back(e);
  }
  PendingFold fold(&mini_, now_seconds_);
  CASSETTE_RETURN_IF_ERROR(fold.add_range(0, mini_.entries.size()));
  folded_.clear();
  fold.emit(&folded_);
  entry->value = folded_.entry_at(0).value;
  entry->key = folded_.entry_at(0).key;
  return Status::ok();
}

namespace {

constexpr size_t kWriteBuffer = 1 << 20;
constexpr size_t kReadBuffer = 256 << 10;

// One input of the merge: a run file or the in-memory tail.
class Cursor {
 public:
  virtual ~Cursor() = default;
  // Moves to the next item (the first, on the first call); false at the end. The item's views
  // stay valid until the next call.
  virtual Result<bool> next() = 0;
  SortedRun::Item item;
};

class TailCursor final : public Cursor {
 public:
  explicit TailCursor(const SortedRun* run) : run_(run) {}
  Result<bool> next() override {
    if (i_ >= run_->items.size()) return false;
    item = run_->items[i_++];
    return true;
  }

 private:
  const SortedRun* run_;
  size_t i_ = 0;
};

class RunCursor final : public Cursor {
 public:
  // Entries of the tables in `dropped` (cut by a later TRUNCATE) are skipped.
  RunCursor(std::shared_ptr<const RunFile> run, std::vector<storage::TableId> dropped)
      : run_(std::move(run)), dropped_(std::move(dropped)) {}
  Result<bool> next() override {
    for (;;) {
      CASSETTE_ASSIGN_OR_RETURN(bool more, read_one());
      if (!more) return false;
      if (std::find(dropped_.begin(), dropped_.end(), item.table) == dropped_.end()) return true;
    }
  }

 private:
  Result<bool> read_one() {
    for (;;) {
      std::string_view in(buffer_.data() + pos_, buffer_.size() - pos_);
      const size_t before = in.size();
      if (parse_item(&in, &item)) {
        pos_ += before - in.size();
        return true;
      }
      if (eof_) {
        if (before == 0) return false;
        return Status::corruption(
            fmt::format("a truncated entry in the transaction spill file {}", run_->path));
      }
      // Keep the partial entry, read more behind it (views handed out before are dead now: the
      // merge has moved past them).
      buffer_.erase(0, pos_);
      pos_ = 0;
      const size_t have = buffer_.size();
      const size_t want = std::max(kReadBuffer, have);
      buffer_.resize(have + want);
      CASSETTE_ASSIGN_OR_RETURN(size_t n, read_at(*run_, offset_, buffer_.data() + have, want));
      buffer_.resize(have + n);
      offset_ += n;
      if (n == 0) eof_ = true;
    }
  }

  std::shared_ptr<const RunFile> run_;
  std::vector<storage::TableId> dropped_;
  std::string buffer_;
  size_t pos_ = 0;
  uint64_t offset_ = 0;
  bool eof_ = false;
};

// The k-way merge: each key once, its versions (oldest input first) folded with the fold's
// rules from the last one that replaces the row.
class MergedRuns final : public storage::SortedEntrySource {
 public:
  MergedRuns(std::vector<std::unique_ptr<Cursor>> inputs, std::unique_ptr<SortedRun> tail,
             const std::map<storage::TableId, std::shared_ptr<const schema::TableDef>>* tables,
             int64_t now_seconds)
      : inputs_(std::move(inputs)), tail_(std::move(tail)), refold_(tables, now_seconds) {}

  Status start() {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      CASSETTE_ASSIGN_OR_RETURN(bool more, inputs_[i]->next());
      if (more) push(i);
    }
    return Status::ok();
  }

  Result<bool> next(Entry* entry) override {
    if (advance_.size() == 1) {
      // One input had the last key. When its next key is below every other input's, it is the
      // next entry, alone: no heap operation (a bulk load's runs hand out long stretches of one
      // partition's keys each).
      const size_t i = advance_[0];
      CASSETTE_ASSIGN_OR_RETURN(bool more, inputs_[i]->next());
      if (more && (heap_.empty() || before_all(i))) {
        versions_.assign(1, &inputs_[i]->item);
        CASSETTE_RETURN_IF_ERROR(refold_.fold(versions_, entry));
        return true;
      }
      if (more) push(i);
    } else {
      for (size_t i : advance_) {
        CASSETTE_ASSIGN_OR_RETURN(bool more, inputs_[i]->next());
        if (more) push(i);
      }
    }
    advance_.clear();
    // A heap of the live inputs by their current key (a bulk load's commit merges dozens of
    // runs: a scan of them all for each entry would compare each key dozens of times).
    if (heap_.empty()) return false;
    advance_.push_back(pop());
    const SortedRun::Item* least = &inputs_[advance_[0]]->item;
    while (!heap_.empty()) {
      const SortedRun::Item& it = inputs_[heap_.front()]->item;
      if (it.table != least->table || it.key != least->key) break;
      advance_.push_back(pop());
    }
    // (Equal keys leave the heap oldest input first: advance_ is in age order.)
    versions_.clear();
    for (size_t i : advance_) versions_.push_back(&inputs_[i]->item);
    CASSETTE_RETURN_IF_ERROR(refold_.fold(versions_, entry));
    return true;
  }

 private:
  std::vector<std::unique_ptr<Cursor>> inputs_;  // oldest first; the tail last
  std::unique_ptr<SortedRun> tail_;
  // Heap order: the greater (table, key), or the newer input for the same key, sinks.
  bool after(size_t a, size_t b) const {
    const SortedRun::Item& x = inputs_[a]->item;
    const SortedRun::Item& y = inputs_[b]->item;
    if (x.table != y.table) return x.table > y.table;
    const int c = x.key.compare(y.key);
    return c != 0 ? c > 0 : a > b;
  }
  // Whether input `i`'s key is below the heap's least (REQUIRES: a heap), not equal to it.
  bool before_all(size_t i) const {
    const SortedRun::Item& x = inputs_[i]->item;
    const SortedRun::Item& y = inputs_[heap_.front()]->item;
    return x.table != y.table ? x.table < y.table : x.key < y.key;
  }
  void push(size_t i) {
    heap_.push_back(i);
    std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return after(a, b); });
  }
  size_t pop() {
    std::pop_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return after(a, b); });
    const size_t i = heap_.back();
    heap_.pop_back();
    return i;
  }

  std::vector<size_t> heap_;     // the live inputs not in advance_
  std::vector<size_t> advance_;  // the inputs at the entry handed out last
  std::vector<const SortedRun::Item*> versions_;
  Refold refold_;
};

std::string run_path(const std::string& data_dir) {
  static std::atomic<uint64_t> counter{0};
  return file::join(data_dir, fmt::format("tmp-{}-spill-{}.run", ::getpid(), ++counter));
}

}  // namespace

Status fold_sorted(const PendingLog& log, int64_t now_seconds, SortedRun* out, RunBytes bytes) {
  return fold_sorted(log, 0, log.entries.size(), now_seconds, out, bytes);
}

namespace {

// The entries [begin, end) of `log` that count (its TRUNCATEs before `end` drop the others), in
// log order, as items viewing the log.
std::vector<SortedRun::Item> entries_as_items(const PendingLog& log, size_t begin, size_t end) {
  std::vector<SortedRun::Item> items;
  items.reserve(end - begin);
  const std::vector<size_t> first_kept = log.first_kept(end);
  for (size_t i = begin; i < end; ++i) {
    if (!log.counts(i, first_kept)) continue;
    const PendingLog::Entry& entry = log.entries[i];
    const storage::EncodedBatch::Entry e = log.at(i);
    // A deletion replaces what earlier runs wrote to the row (PendingFold::replaces).
    items.push_back(
        {e.table, e.key, e.value, entry.kind == PendingLog::Kind::kDeleteRow && !entry.is_header});
  }
  return items;
}

// Points every item of `run` into bytes of its own (run->folded).
void own_bytes(SortedRun* run) {
  storage::EncodedBatch owned;
  std::vector<size_t> offsets;
  offsets.reserve(run->items.size());
  for (const SortedRun::Item& item : run->items) {
    offsets.push_back(owned.add(item.table, item.key, item.value));
  }
  for (size_t i = 0; i < offsets.size(); ++i) {
    const storage::EncodedBatch::Entry e = owned.entry_at(offsets[i]);
    run->items[i].key = e.key;
    run->items[i].value = e.value;
  }
  run->folded = std::move(owned);
}

}  // namespace

// The entries are sorted rather than folded through a hash of every row (PendingFold): a key's
// entries end up side by side in log order, and only a key written more than once is folded, by
// the Refold of the runs' versions, which gives what PendingFold gives that row (a row's fold
// depends on its own entries alone). A bulk load's rows, each written once, are never copied.
Status fold_sorted(const PendingLog& log, size_t begin, size_t end, int64_t now_seconds,
                   SortedRun* out, RunBytes bytes) {
  out->folded.clear();
  out->items.clear();
  const std::vector<SortedRun::Item> entries = entries_as_items(log, begin, end);
  std::vector<uint32_t> order;
  const bool repeats = sort_order(entries, &order);
  out->items.reserve(order.size());
  // Entries of one partition were written far apart: fetch a few ahead (a cache miss each).
  constexpr size_t kAhead = 16;
  if (!repeats) {
    for (size_t k = 0; k < order.size(); ++k) {
      if (k + kAhead < order.size()) __builtin_prefetch(&entries[order[k + kAhead]]);
      out->items.push_back(entries[order[k]]);
    }
  } else {
    std::map<storage::TableId, std::shared_ptr<const schema::TableDef>> tables;
    for (const auto& table : log.tables) tables.emplace(table->table_id, table);
    Refold refold(&tables, now_seconds);
    std::vector<const SortedRun::Item*> versions;
    std::vector<std::pair<size_t, size_t>> refolded;  // (item, offset in out->folded)
    for (size_t k = 0; k < order.size();) {
      const SortedRun::Item& first = entries[order[k]];
      versions.assign(1, &first);
      while (k + versions.size() < order.size()) {
        const SortedRun::Item& next = entries[order[k + versions.size()]];
        if (next.table != first.table || next.key != first.key) break;
        versions.push_back(&next);
      }
      k += versions.size();
      if (versions.size() == 1) {
        out->items.push_back(first);
        continue;
      }
      storage::SortedEntrySource::Entry folded;
      bool replaces = false;
      CASSETTE_RETURN_IF_ERROR(refold.fold(versions, &folded, &replaces));
      refolded.emplace_back(out->items.size(),
                            out->folded.add(folded.table, folded.key, folded.value));
      out->items.push_back({first.table, {}, {}, replaces});
    }
    // out->folded is complete: its views stay valid from here on.
    for (const auto& [item, offset] : refolded) {
      const storage::EncodedBatch::Entry e = out->folded.entry_at(offset);
      out->items[item].key = e.key;
      out->items[item].value = e.value;
    }
  }
  if (bytes == RunBytes::kOwn) own_bytes(out);
  return Status::ok();
}

Spill::~Spill() {
  drop_runs_from(0);
}

void Spill::add_tables(const PendingLog& log) {
  for (const auto& table : log.tables) tables_.emplace(table->table_id, table);
}

void Spill::add_cuts(const PendingLog& log, size_t begin, size_t end) {
  for (size_t i : log.truncates) {
    if (i >= begin && i < end) cuts_.push_back({log.table_of(i).table_id, runs_.size()});
  }
}

Status Spill::write_runs(const PendingLog& log, int64_t now_seconds,
                         const std::vector<size_t>& splits) {
  const size_t runs_before = runs_.size();
  size_t begin = 0;
  for (size_t k = 0; k <= splits.size(); ++k) {
    const size_t end = k < splits.size() ? splits[k] : log.entries.size();
    if (Status s = write_run(log, begin, end, now_seconds); !s.is_ok()) {
      drop_runs_from(runs_before);
      return s;
    }
    begin = end;
  }
  add_tables(log);
  return Status::ok();
}

Status Spill::write_run(const PendingLog& log, size_t begin, size_t end, int64_t now_seconds) {
  SortedRun run;
  CASSETTE_RETURN_IF_ERROR(fold_sorted(log, begin, end, now_seconds, &run, RunBytes::kLog));
  auto file = std::make_shared<RunFile>();
  file->path = run_path(data_dir_);
  CASSETTE_ASSIGN_OR_RETURN(file->fd,
                            file::open_file(file->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC));
  std::string buffer;
  buffer.reserve(kWriteBuffer + 4096);
  Status status;
  uint64_t block_start = 0;
  // The rows are scattered over the log: fetch a few ahead (a cache miss or two each).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < run.items.size(); ++i) {
    if (i + kAhead < run.items.size()) {
      const SortedRun::Item& ahead = run.items[i + kAhead];
      __builtin_prefetch(ahead.key.data());
      __builtin_prefetch(ahead.value.data());
      if (ahead.value.size() > 64) __builtin_prefetch(ahead.value.data() + 64);
    }
    const SortedRun::Item& item = run.items[i];
    const uint64_t at = file->size + buffer.size();
    if (file->blocks.empty() || at - block_start >= kRunBlockBytes) {
      file->blocks.push_back({item.table, std::string(item.key), at});
      block_start = at;
    }
    if (file->tables.empty() || file->tables.back() != item.table)
      file->tables.push_back(item.table);
    buffer.push_back(static_cast<char>(item.replaces ? kReplaces : 0));
    coding::put_varint64(&buffer, item.table);
    coding::put_length_prefixed(&buffer, item.key);
    coding::put_length_prefixed(&buffer, item.value);
    if (buffer.size() >= kWriteBuffer) {
      status = file::write_all(file->fd.get(), buffer, file->path);
      if (!status.is_ok()) break;
      file->size += buffer.size();
      buffer.clear();
    }
  }
  if (status.is_ok() && !buffer.empty()) {
    status = file::write_all(file->fd.get(), buffer, file->path);
    file->size += buffer.size();
  }
  if (!status.is_ok()) {
    (void)file::remove_file(file->path);
    return status;
  }
  add_cuts(log, begin, end);
  // An empty segment (none: splits are inside the log) would keep the statement before it.
  file->min_statement = end > begin ? log.entries[begin].statement : max_statement();
  file->max_statement = end > begin ? log.entries[end - 1].statement : max_statement();
  runs_.push_back(std::move(file));
  return Status::ok();
}

void Spill::drop_runs_from(size_t n) {
  while (runs_.size() > n) {
    // Read sources made earlier keep the descriptor: they read on after the unlink.
    (void)file::remove_file(runs_.back()->path);
    runs_.pop_back();
  }
  std::erase_if(cuts_, [n](const Cut& c) { return c.runs_before >= n; });
}

size_t Spill::runs_before(uint64_t statement) const {
  size_t n = 0;
  while (n < runs_.size() && runs_[n]->max_statement < statement) ++n;
  return n;
}

std::vector<storage::TableId> Spill::dropped_tables(
    size_t run, size_t visible_runs, const std::vector<storage::TableId>& also) const {
  std::vector<storage::TableId> dropped = also;
  for (const Cut& c : cuts_) {
    if (run < c.runs_before && c.runs_before < visible_runs) dropped.push_back(c.table);
  }
  return dropped;
}

std::vector<storage::TableId> Spill::truncated_tables(size_t visible_runs) const {
  std::vector<storage::TableId> tables;
  for (const Cut& c : cuts_) {
    if (c.runs_before >= visible_runs) continue;
    if (std::find(tables.begin(), tables.end(), c.table) == tables.end()) tables.push_back(c.table);
  }
  return tables;
}

void append_entry(PendingLog& log, PendingLog::Kind kind,
                  const std::shared_ptr<const schema::TableDef>& table, std::string_view key,
                  std::string_view value, uint64_t statement) {
  uint32_t index = 0;
  while (index < log.tables.size() && log.tables[index] != table) ++index;
  if (index == log.tables.size()) log.tables.push_back(table);
  PendingLog::Entry e;
  e.kind = kind;
  e.table = index;
  e.statement = statement;
  if (kind == PendingLog::Kind::kTruncate) {
    e.offset = log.batch.byte_size();
    log.truncates.push_back(log.entries.size());
  } else {
    const storage::EntryKind entry_kind = kind_of(key);
    e.is_static = entry_kind == storage::EntryKind::kStaticRow;
    e.is_header = entry_kind == storage::EntryKind::kPartitionHeader;
    e.offset = log.batch.add(table->table_id, key, value);
  }
  log.entries.push_back(e);
}

Status Spill::read_back(PendingLog& log, std::vector<size_t>* run_starts) const {
  for (size_t r = 0; r < runs_.size(); ++r) {
    run_starts->push_back(log.entries.size());
    for (const Cut& c : cuts_) {
      if (c.runs_before == r) {
        append_entry(log, PendingLog::Kind::kTruncate, tables_.at(c.table), {}, {},
                     runs_[r]->max_statement);
      }
    }
    RunCursor cursor(runs_[r], {});
    for (;;) {
      CASSETTE_ASSIGN_OR_RETURN(bool more, cursor.next());
      if (!more) break;
      const SortedRun::Item& it = cursor.item;
      auto table = tables_.find(it.table);
      if (table == tables_.end()) {
        return Status::internal(
            "A spilled write of the transaction is of a table it does not know.");
      }
      append_entry(log, it.replaces ? PendingLog::Kind::kDeleteRow : PendingLog::Kind::kWrite,
                   table->second, it.key, it.value, runs_[r]->max_statement);
    }
  }
  return Status::ok();
}

Result<std::unique_ptr<storage::SortedEntrySource>> Spill::merge(const PendingLog& tail,
                                                                 int64_t now_seconds) {
  add_tables(tail);
  const std::vector<storage::TableId> tail_truncated = tail.truncated_tables(tail.entries.size());
  std::vector<std::unique_ptr<Cursor>> inputs;
  for (size_t r = 0; r < runs_.size(); ++r) {
    inputs.push_back(
        std::make_unique<RunCursor>(runs_[r], dropped_tables(r, runs_.size(), tail_truncated)));
  }
  auto tail_run = std::make_unique<SortedRun>();
  CASSETTE_RETURN_IF_ERROR(fold_sorted(tail, now_seconds, tail_run.get(), RunBytes::kLog));
  inputs.push_back(std::make_unique<TailCursor>(tail_run.get()));
  auto merged =
      std::make_unique<MergedRuns>(std::move(inputs), std::move(tail_run), &tables_, now_seconds);
  CASSETTE_RETURN_IF_ERROR(merged->start());
  return std::unique_ptr<storage::SortedEntrySource>(std::move(merged));
}

}  // namespace cassette::txn
