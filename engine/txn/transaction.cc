#include "engine/txn/transaction.h"

#include <algorithm>
#include <unordered_set>

#include "engine/codec/current_row.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/store_directory.h"
#include "engine/types/partition_key.h"
#include "engine/types/value.h"
#include "engine/util/file.h"

namespace cassette::txn {

Status Transaction::add(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
                        std::string_view partition_key, bool is_static, std::string_view clustering,
                        const storage::Row& row, uint64_t statement) {
  scratch_.clear();
  storage::encode_row(row, &scratch_);
  return add_encoded(kind, table, partition_key, is_static, clustering, scratch_, statement);
}

Status Transaction::add_encoded(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
                                std::string_view partition_key, bool is_static,
                                std::string_view clustering, std::string_view encoded_row,
                                uint64_t statement) {
  // Decided at commit in the fold, which needs the rows in memory.
  if (kind == Kind::kInsertIfNotExists && spilled()) {
    CASSETTE_RETURN_IF_ERROR(unspill(kAllStatements));
  }
  // A view's row is a base table's row: static rows have none.
  if (!is_static && has_views(table)) {
    return add_with_views(kind, table, partition_key, clustering, encoded_row, statement);
  }
  const size_t entries_before = log_.entries.size();
  const auto entry_kind = is_static ? storage::EntryKind::kStaticRow : storage::EntryKind::kRow;
  CASSETTE_RETURN_IF_ERROR(append(log_, kind, table, partition_key, entry_kind,
                                  is_static ? std::string_view() : clustering, encoded_row,
                                  statement));
  return maybe_spill(entries_before);
}

Status Transaction::spilled_refusal(std::string_view what, std::string_view advice) const {
  return Status::unsupported(
      fmt::format("{} is not supported yet in a transaction whose pending writes went to disk "
                  "(over {} bytes): {}",
                  what, store_->options().transaction_spill_bytes, advice));
}

Status Transaction::unspill(StatementId visible_before) {
  if (spill_ == nullptr) return Status::ok();
  // PostgreSQL: a statement does not see its own writes, which a run may hold folded with
  // earlier statements' (a statement that spilled and then reads the table it writes).
  if (visible_before != kAllStatements && spill_->max_statement() >= visible_before) {
    return spilled_refusal("Reading the table a statement is writing once it spilled to disk",
                           "split the statement");
  }
  PendingLog log;
  std::vector<size_t> run_starts;
  CASSETTE_RETURN_IF_ERROR(spill_->read_back(log, &run_starts));
  const size_t base = log.entries.size();
  for (size_t i = 0; i < log_.entries.size(); ++i) {
    const PendingLog::Entry& e = log_.entries[i];
    const std::shared_ptr<const schema::TableDef>& table = log_.tables[e.table];
    if (e.kind == Kind::kTruncate) {
      truncate_entry(log, table, e.statement);
      continue;
    }
    const storage::EncodedBatch::Entry entry = log_.at(i);
    uint32_t index = 0;
    while (index < log.tables.size() && log.tables[index] != table) ++index;
    if (index == log.tables.size()) log.tables.push_back(table);
    const size_t offset = log.batch.add(entry.table, entry.key, entry.value);
    log.entries.push_back(
        PendingLog::Entry{e.kind, e.is_static, e.is_header, index, e.statement, offset});
  }
  for (Mark& mark : marks_) {
    mark.entries = mark.runs < run_starts.size() ? run_starts[mark.runs] : base + mark.entries;
    mark.runs = 0;
  }
  log_ = std::move(log);
  spill_.reset();
  spill_blocked_ = true;  // in memory from here on, as it was before the spill
  reset_overlay();
  return Status::ok();
}

Status Transaction::maybe_spill(size_t entries_before) {
  // The read source of a tail that has grown since is not read again: its fold goes now.
  if (spill_source_ != nullptr && spill_source_entries_ != log_.entries.size()) {
    spill_source_.reset();
  }
  const uint64_t limit = store_->options().transaction_spill_bytes;
  if (limit == 0 || log_.batch.byte_size() < limit || spill_blocked_) return Status::ok();
  // What the spill cannot carry yet keeps the whole transaction in memory, as before: INSERT OR
  // IGNORE rows (decided at commit, in the fold), views (kept by reading the transaction's own
  // writes), schema changes (committed by the catalog's one record). An in-memory store has no
  // disk to spill to.
  spill_blocked_ =
      !schema_changes_.empty() || store_->path() == ":memory:" ||
      std::any_of(log_.entries.begin(), log_.entries.end(),
                  [](const PendingLog::Entry& e) { return e.kind == Kind::kInsertIfNotExists; }) ||
      std::any_of(log_.tables.begin(), log_.tables.end(),
                  [this](const auto& table) { return has_views(table); });
  if (spill_blocked_) return Status::ok();
  if (spill_ == nullptr) spill_ = std::make_unique<Spill>(file::join(store_->path(), "data"));
  const size_t runs = spill_->runs();
  // A savepoint whose mark is inside the log gets a run boundary there (ROLLBACK TO it then
  // drops the runs after it): the log is written as one run per segment between such marks.
  std::vector<size_t> splits;
  for (const Mark& mark : marks_) {
    if (mark.runs == runs && mark.entries > 0 && mark.entries < log_.entries.size()) {
      splits.push_back(mark.entries);
    }
  }
  // And, for a host that reads by statement (PostgreSQL), where the last statement's writes
  // begin: a statement that spilled while writing reads the earlier statements' writes without
  // its own, the runs before that split.
  const StatementId last = log_.entries.empty() ? 0 : log_.entries.back().statement;
  const size_t last_begins = static_cast<size_t>(
      std::partition_point(log_.entries.begin(), log_.entries.end(),
                           [&](const PendingLog::Entry& e) { return e.statement < last; }) -
      log_.entries.begin());
  if (reads_by_statement_ && last_begins > 0 && last_begins < log_.entries.size()) {
    splits.push_back(last_begins);
  }
  std::sort(splits.begin(), splits.end());
  splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
  if (Status s = spill_->write_runs(log_, store_->clock().now_seconds(), splits); !s.is_ok()) {
    log_.truncate(entries_before);
    if (spill_->runs() == 0) spill_.reset();
    return s;
  }
  // A mark inside the log or at its end is now at the start of a run (the one after its
  // segment); one at its start already was.
  for (Mark& mark : marks_) {
    if (mark.runs != runs || mark.entries == 0) continue;
    mark.runs = mark.entries == log_.entries.size()
                    ? runs + splits.size() + 1
                    : runs + static_cast<size_t>(
                                 std::upper_bound(splits.begin(), splits.end(), mark.entries) -
                                 splits.begin());
    mark.entries = 0;
  }
  log_.clear();
  reset_overlay();
  return Status::ok();
}

void Transaction::keep_views(std::shared_ptr<const schema::Schema> schema, ViewRows view_rows) {
  if (schema != views_schema_) views_checked_.reset();
  views_schema_ = std::move(schema);
  view_rows_ = view_rows;
}

bool Transaction::has_views(const std::shared_ptr<const schema::TableDef>& table) {
  if (views_schema_ == nullptr || view_rows_ == nullptr || !views_schema_->has_views()) {
    return false;
  }
  if (views_checked_ != table) {
    views_checked_ = table;
    views_checked_result_ = !views_schema_->views_on(*table).empty();
  }
  return views_checked_result_;
}

namespace {
Result<std::string> encoded_current_row(const storage::Store& store,
                                        const storage::Snapshot& snapshot,
                                        const schema::TableDef& table,
                                        const std::string& partition_key,
                                        const std::optional<std::string>& clustering);
}  // namespace

Status Transaction::add_with_views(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
                                   std::string_view partition_key, std::string_view clustering,
                                   std::string_view encoded_row, uint64_t statement) {
  const std::string encoded(encoded_row);  // add()'s row is in scratch_, which append_batch reuses
  storage::Row row;
  if (!storage::decode_row(encoded, &row)) {
    return Status::internal("A row written to a table with materialized views does not decode.");
  }
  // The base row as the transaction reads it now, before this write: the view rows follow from
  // it and the write, as for a CQL statement in the transaction (ExecutionContext::write).
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> committed, committed_view());
  std::optional<std::string> read_then;  // without a pinned snapshot: the committed row now
  if (pinned_ == nullptr) {
    CASSETTE_ASSIGN_OR_RETURN(
        read_then, encoded_current_row(*store_, *committed, *table, std::string(partition_key),
                                       std::string(clustering)));
  }
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> before,
                            with_overlay(std::move(committed)));
  storage::MutationBuilder writes;
  writes.partition(table->table_id, partition_key)
      .rows.push_back({std::string(clustering), std::move(row)});
  CASSETTE_RETURN_IF_ERROR(
      view_rows_(*store_, *before, *views_schema_, store_->clock().now_seconds(), writes));
  storage::MutationBuilder views;  // what view_rows_ added after the base row's update
  std::vector<storage::PartitionUpdate>& updates = writes.mutable_updates();
  for (size_t i = 1; i < updates.size(); ++i) {
    views.mutable_updates().push_back(std::move(updates[i]));
  }
  // The base row first: an INSERT OR IGNORE is decided at its statement's first entry, and its
  // view rows, of the same statement, are skipped with it.
  const size_t entries_before = log_.entries.size();
  Status status = append(log_, kind, table, partition_key, storage::EntryKind::kRow, clustering,
                         encoded, statement);
  if (status.is_ok()) status = append_batch(log_, views, *views_schema_, statement);
  if (!status.is_ok()) {
    log_.truncate(entries_before);
    return status;
  }
  if (read_then) {
    conflict_keys_.push_back(
        {table, std::string(partition_key), std::string(clustering), std::move(read_then)});
  } else {
    add_conflict_key(table, partition_key, false, clustering);
  }
  return Status::ok();
}

Status Transaction::append(PendingLog& log, Kind kind,
                           const std::shared_ptr<const schema::TableDef>& table,
                           std::string_view partition_key, storage::EntryKind entry_kind,
                           std::string_view clustering, std::string_view value,
                           uint64_t statement) {
  // Tables are few: the last one added is nearly always the one.
  uint32_t index = static_cast<uint32_t>(log.tables.size());
  for (uint32_t i = index; i-- > 0;) {
    if (log.tables[i] == table) {
      index = i;
      break;
    }
  }
  if (index == log.tables.size()) log.tables.push_back(table);
  CASSETTE_ASSIGN_OR_RETURN(size_t offset, log.batch.add_row(table->table_id, partition_key,
                                                             entry_kind, clustering, value));
  const bool is_static = entry_kind == storage::EntryKind::kStaticRow;
  const bool is_header = entry_kind == storage::EntryKind::kPartitionHeader;
  log.entries.push_back(PendingLog::Entry{kind, is_static, is_header, index, statement, offset});
  return Status::ok();
}

namespace {

std::shared_ptr<const schema::TableDef> table_with_id(const schema::Schema& schema,
                                                      storage::TableId id) {
  for (const auto& [keyspace_name, keyspace] : schema.keyspaces) {
    for (const auto& [table_name, table] : keyspace->tables) {
      if (table->table_id == id) return table;
    }
  }
  return nullptr;
}

// A CQL row deletion replaces what the transaction wrote to the row before (the fold's
// kDeleteRow); anything else merges into it.
PendingLog::Kind row_kind(const storage::Row& row) {
  return row.deletion.is_live() ? PendingLog::Kind::kWrite : PendingLog::Kind::kDeleteRow;
}

}  // namespace

Status Transaction::add_batch(const storage::MutationBuilder& batch, const schema::Schema& schema) {
  const size_t entries_before = log_.entries.size();
  const StatementId statement = fixed_statement_ ? *fixed_statement_ : next_statement();
  Status status = append_batch(log_, batch, schema, statement);
  if (!status.is_ok()) {
    log_.truncate(entries_before);
    return status;
  }
  return maybe_spill(entries_before);
}

Status Transaction::truncate(const std::shared_ptr<const schema::TableDef>& table,
                             StatementId statement) {
  if (store_->read_only()) return storage::read_only_store_error(store_->path());
  if (has_views(table)) {
    for (const auto& view : views_schema_->views_on(*table)) truncate_one(view, statement);
  }
  truncate_one(table, statement);
  return Status::ok();
}

void Transaction::truncate_one(const std::shared_ptr<const schema::TableDef>& table,
                               StatementId statement) {
  truncate_entry(log_, table, statement);
}

void Transaction::truncate_entry(PendingLog& log,
                                 const std::shared_ptr<const schema::TableDef>& table,
                                 StatementId statement) {
  uint32_t index = static_cast<uint32_t>(log.tables.size());
  for (uint32_t i = 0; i < log.tables.size(); ++i) {
    if (log.tables[i] == table) index = i;
  }
  if (index == log.tables.size()) log.tables.push_back(table);
  log.truncates.push_back(log.entries.size());
  log.entries.push_back(
      PendingLog::Entry{Kind::kTruncate, false, false, index, statement, log.batch.byte_size()});
}

Status Transaction::append_batch(PendingLog& log, const storage::MutationBuilder& batch,
                                 const schema::Schema& schema, uint64_t statement) {
  std::shared_ptr<const schema::TableDef> table;
  auto append_row = [&](const storage::Row& row, const storage::PartitionUpdate& update,
                        storage::EntryKind kind, std::string_view clustering) {
    scratch_.clear();
    storage::encode_row(row, &scratch_);
    return append(log, row_kind(row), table, update.partition_key, kind, clustering, scratch_,
                  statement);
  };
  for (const storage::PartitionUpdate& update : batch.updates()) {
    if (table == nullptr || table->table_id != update.table) {
      table = table_with_id(schema, update.table);
      if (table == nullptr) {
        return Status::internal("A statement wrote to a table the transaction does not know.");
      }
    }
    if (!update.header.is_empty()) {
      scratch_.clear();
      storage::encode_header(update.header, &scratch_);
      CASSETTE_RETURN_IF_ERROR(append(log, Kind::kWrite, table, update.partition_key,
                                      storage::EntryKind::kPartitionHeader, {}, scratch_,
                                      statement));
    }
    if (!update.static_row.is_empty()) {
      CASSETTE_RETURN_IF_ERROR(
          append_row(update.static_row, update, storage::EntryKind::kStaticRow, {}));
    }
    for (const storage::ClusteringRow& row : update.rows) {
      CASSETTE_RETURN_IF_ERROR(
          append_row(row.row, update, storage::EntryKind::kRow, row.clustering));
    }
  }
  return Status::ok();
}

Result<schema::Schema> apply_schema_changes(const schema::Schema& base,
                                            const std::vector<SchemaChange>& changes) {
  schema::Schema next = base;
  for (const SchemaChange& change : changes) {
    const schema::TableDef& table = *change.table;
    std::shared_ptr<const schema::TableDef> now = next.find_table(table.keyspace, table.name);
    if (change.kind == SchemaChange::Kind::kDropTable) {
      // Gone already, or dropped and created again by someone else: not this table to drop.
      if (now != nullptr && now->table_id == table.table_id) {
        next = schema::without_table(next, table.keyspace, table.name);
      }
      continue;
    }
    if (next.find_keyspace(table.keyspace) == nullptr) {
      if (change.keyspace == nullptr) {
        return Status::invalid_argument(fmt::format("Keyspace '{}' doesn't exist", table.keyspace));
      }
      next.keyspaces[table.keyspace] = change.keyspace;
    }
    if (now != nullptr) {
      return Status::already_exists(
          fmt::format("Cannot add already existing table \"{}\" to keyspace \"{}\"", table.name,
                      table.keyspace));
    }
    next = schema::with_table(next, change.table);
  }
  return next;
}

void Transaction::add_schema_change(SchemaChange change, std::shared_ptr<schema::Catalog> catalog) {
  schema_changes_.push_back(std::move(change));
  catalog_ = std::move(catalog);
  ++schema_generation_;
}

Result<std::shared_ptr<const schema::Schema>> Transaction::schema_view(
    std::shared_ptr<const schema::Schema> committed) {
  if (schema_changes_.empty()) return committed;
  if (view_ == nullptr || view_base_ != committed || view_generation_ != schema_generation_) {
    CASSETTE_ASSIGN_OR_RETURN(schema::Schema view,
                              apply_schema_changes(*committed, schema_changes_));
    view_ = std::make_shared<const schema::Schema>(std::move(view));
    view_base_ = std::move(committed);
    view_generation_ = schema_generation_;
  }
  return view_;
}

void Transaction::savepoint(int level) {
  if (level < 0) return;
  size_t n = static_cast<size_t>(level);
  // A table joining the transaction later reports the current level again: keep the first mark.
  while (marks_.size() <= n) {
    marks_.push_back({log_.entries.size(), schema_changes_.size(), conflict_keys_.size(),
                      spill_ == nullptr ? 0 : spill_->runs()});
  }
}

void Transaction::release(int level) {
  if (level >= 0 && static_cast<size_t>(level) < marks_.size())
    marks_.resize(static_cast<size_t>(level));
}

void Transaction::rollback_to(int level) {
  // Level -1 is a savepoint that began the transaction (SAVEPOINT without BEGIN): undo all. A
  // level with no mark was opened before this store's first change of the transaction (a host may
  // report savepoints to a store only from when it joins): undo all as well.
  if (level < 0 || static_cast<size_t>(level) >= marks_.size()) {
    if (level < 0 || marks_.empty()) {
      log_.truncate(0);
      spill_.reset();
      spill_error_ = Status::ok();
      spill_blocked_ = false;
      reset_overlay();
      truncate_schema_changes(0);
      conflict_keys_.clear();
    }
    return;
  }
  const Mark mark = marks_[static_cast<size_t>(level)];
  spill_blocked_ = false;
  ++spill_generation_;  // the log may grow back to the same size with other entries
  if (spill_ != nullptr && mark.runs < spill_->runs()) {
    spill_->drop_runs_from(mark.runs);
    if (mark.runs == 0) spill_.reset();
    log_.truncate(0);  // all of it came after the mark (at a run's start: mark.entries == 0)
    reset_overlay();
  }
  if (mark.entries < log_.entries.size()) {
    log_.truncate(mark.entries);
    if (mark.entries < overlay_entries_) reset_overlay();  // the overlay holds rows that are gone
  }
  truncate_schema_changes(mark.schema_changes);
  // A row whose write is undone can lose no update: its key goes too.
  if (mark.conflict_keys < conflict_keys_.size()) conflict_keys_.resize(mark.conflict_keys);
  marks_.resize(static_cast<size_t>(level) + 1);
}

void Transaction::truncate_schema_changes(size_t n) {
  if (n >= schema_changes_.size()) return;
  schema_changes_.resize(n);
  ++schema_generation_;
}

void Transaction::clear() {
  log_.clear();
  spill_.reset();
  spill_error_ = Status::ok();
  spill_blocked_ = false;
  marks_.clear();
  reset_overlay();
  truncate_schema_changes(0);
  conflict_keys_.clear();
  pinned_.reset();
}

void Transaction::reset_overlay() {
  ++spill_generation_;
  spill_source_.reset();
  overlay_fold_.reset();
  overlay_entries_ = 0;
  overlay_truncated_.clear();
  overlay_.clear();
}

Status Transaction::commit() {
  if (spill_error_.is_ok() && spilled() && !schema_changes_.empty()) {
    spill_error_ = unspill(kAllStatements);  // the catalog's change is one record
  }
  if (!spill_error_.is_ok()) {
    Status error = spill_error_;
    clear();
    return error;
  }
  if (empty()) {
    clear();
    return Status::ok();
  }
  std::unique_ptr<Spill> spill = std::move(spill_);
  PendingLog log = std::move(log_);
  std::vector<SchemaChange> changes = std::move(schema_changes_);
  std::shared_ptr<const storage::Snapshot> pinned = std::move(pinned_);
  std::vector<ConflictKey> keys = std::move(conflict_keys_);
  clear();
  const CommitCheck check{pinned.get(), &keys};
  if (spill != nullptr) return commit_spilled(log, *spill, check, std::nullopt).status();
  if (!changes.empty()) {
    if (!log.truncates.empty()) {
      return Status::invalid_argument(
          "A transaction cannot both TRUNCATE a table and change the schema.");
    }
    return commit_with_schema_changes(log, std::move(changes), check);
  }
  return commit_writes(log, check);
}

Status Transaction::commit_writes(PendingLog& log, const CommitCheck& check) {
  const bool conditional =
      std::any_of(log.entries.begin(), log.entries.end(),
                  [](const PendingLog::Entry& e) { return e.kind == Kind::kInsertIfNotExists; });
  if (!conditional && log.truncates.empty() && check.keys->empty()) {
    PendingFold fold(&log, store_->clock().now_seconds());
    CASSETTE_RETURN_IF_ERROR(fold.add_range(0, log.entries.size()));
    if (fold.rows() == log.entries.size())
      return store_->apply(log.batch).status();  // no row twice
    storage::EncodedBatch batch;
    fold.emit(&batch);
    return store_->apply(batch).status();
  }
  return store_->apply_prepared(commit_check(log, check), log.truncated_tables(log.entries.size()))
      .status();
}

storage::Store::PrepareWrite Transaction::commit_check(const PendingLog& log,
                                                       const CommitCheck& check) {
  return [this, &log, check](const storage::Snapshot& snapshot,
                             storage::EncodedBatch& batch) -> Result<bool> {
    // Conflicts against what is committed; INSERT OR IGNORE against it after the TRUNCATEs.
    CASSETTE_RETURN_IF_ERROR(check_conflicts(check, snapshot));
    storage::Snapshot truncated = snapshot;
    truncated.truncated = log.truncated_tables(log.entries.size());
    std::sort(truncated.truncated.begin(), truncated.truncated.end());
    CASSETTE_RETURN_IF_ERROR(fold_for_commit(log, truncated, {}, batch));
    return !batch.empty();
  };
}

Result<std::unique_ptr<storage::PreparedCommit>> Transaction::commit_spilled(
    const PendingLog& log, Spill& spill, const CommitCheck& check,
    std::optional<std::string> host_tag) {
  // Truncated first, under the write lock: the runs' TRUNCATEs and the log's.
  std::vector<storage::TableId> truncate = spill.truncated_tables();
  for (storage::TableId table : log.truncated_tables(log.entries.size())) {
    if (std::find(truncate.begin(), truncate.end(), table) == truncate.end()) {
      truncate.push_back(table);
    }
  }
  CASSETTE_ASSIGN_OR_RETURN(std::unique_ptr<storage::SortedEntrySource> merged,
                            spill.merge(log, store_->clock().now_seconds()));
  auto decide = [&](const storage::Snapshot& snapshot) -> Result<bool> {
    CASSETTE_RETURN_IF_ERROR(check_conflicts(check, snapshot));
    return true;
  };
  // Two phases: the merge becomes SSTables now, listed by the prepared record (not carried by
  // it), and the commit installs them (layer 6 of the design).
  if (host_tag) return store_->prepare_sorted(decide, *merged, truncate, std::move(*host_tag));
  CASSETTE_RETURN_IF_ERROR(store_->apply_sorted(decide, *merged, truncate).status());
  return std::unique_ptr<storage::PreparedCommit>();
}

Result<std::unique_ptr<storage::PreparedCommit>> Transaction::prepare(std::string host_tag) {
  if (!spill_error_.is_ok()) {
    Status error = spill_error_;
    clear();
    return error;
  }
  if (empty()) {
    clear();
    return std::unique_ptr<storage::PreparedCommit>();
  }
  if (!schema_changes_.empty()) {
    CASSETTE_RETURN_IF_ERROR(commit());
    return std::unique_ptr<storage::PreparedCommit>();
  }
  std::unique_ptr<Spill> spill = std::move(spill_);
  PendingLog log = std::move(log_);
  std::shared_ptr<const storage::Snapshot> pinned = std::move(pinned_);
  std::vector<ConflictKey> keys = std::move(conflict_keys_);
  clear();
  const CommitCheck check{pinned.get(), &keys};
  // The runs are not needed once their SSTables are written: `spill` removes them on return.
  if (spill != nullptr) return commit_spilled(log, *spill, check, std::move(host_tag));
  return store_->prepare_commit(commit_check(log, check), log.truncated_tables(log.entries.size()),
                                std::move(host_tag));
}

Status Transaction::commit_with_schema_changes(PendingLog& log, std::vector<SchemaChange> changes,
                                               const CommitCheck& check) {
  std::vector<storage::TableId> dropped;  // their rows need not be written
  for (const SchemaChange& change : changes) {
    if (change.kind == SchemaChange::Kind::kDropTable) dropped.push_back(change.table->table_id);
  }
  auto result = catalog_->change(
      [&](const schema::Schema& now) { return apply_schema_changes(now, changes); },
      [&](const storage::Snapshot& snapshot, storage::EncodedBatch& batch) -> Status {
        CASSETTE_RETURN_IF_ERROR(check_conflicts(check, snapshot));
        return fold_for_commit(log, snapshot, dropped, batch);
      });
  return result.status();
}

Status Transaction::fold_for_commit(const PendingLog& log, const storage::Snapshot& snapshot,
                                    const std::vector<storage::TableId>& dropped,
                                    storage::EncodedBatch& batch) {
  PendingFold fold(&log, store_->clock().now_seconds());
  std::unordered_set<uint64_t> skipped, decided;
  const std::vector<size_t> first_kept = log.first_kept(log.entries.size());
  for (size_t i = 0; i < log.entries.size(); ++i) {
    const PendingLog::Entry& w = log.entries[i];
    if (!log.counts(i, first_kept)) continue;
    if (std::find(dropped.begin(), dropped.end(), log.table_of(i).table_id) != dropped.end()) {
      continue;
    }
    if (w.kind == Kind::kInsertIfNotExists && !decided.count(w.statement)) {
      decided.insert(w.statement);
      CASSETTE_ASSIGN_OR_RETURN(bool exists, fold.has_live_row(i));
      if (!exists) {
        storage::DecodedKey key;
        if (!storage::decode_entry_key(log.at(i).key, &key)) {
          return Status::internal("A pending write of the transaction has a malformed key.");
        }
        std::optional<std::string> clustering;
        if (key.kind == storage::EntryKind::kRow) clustering = std::string(key.clustering);
        CASSETTE_ASSIGN_OR_RETURN(cql::CurrentRow current,
                                  cql::read_current_row(*store_, snapshot, log.table_of(i),
                                                        key.partition_key, clustering));
        exists = clustering ? current.row.has_value() : current.static_row.has_value();
      }
      if (exists) skipped.insert(w.statement);
    }
    if (skipped.count(w.statement)) continue;
    CASSETTE_RETURN_IF_ERROR(fold.add(i).status());
  }
  fold.emit(&batch);
  return Status::ok();
}

Result<std::shared_ptr<const storage::Snapshot>> Transaction::read_view(
    StatementId visible_before) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> committed, committed_view());
  return with_overlay(std::move(committed), visible_before);
}

Result<std::shared_ptr<const storage::Snapshot>> Transaction::committed_view(
    std::shared_ptr<const storage::Snapshot> latest) {
  if (pinned_ != nullptr) return pinned_;
  if (latest == nullptr) {
    CASSETTE_ASSIGN_OR_RETURN(latest, store_->snapshot());
  }
  if (isolation_ == Isolation::kSnapshot) pinned_ = latest;
  return latest;
}

void Transaction::add_conflict_key(const std::shared_ptr<const schema::TableDef>& table,
                                   std::string_view partition_key, bool is_static,
                                   std::string_view clustering) {
  if (pinned_ == nullptr) return;         // nothing read at a snapshot older than the commit's
  if (table->is_counter_table()) return;  // increments are deltas: none is lost
  ConflictKey key{table, std::string(partition_key), std::nullopt, std::nullopt};
  if (!is_static) key.clustering = std::string(clustering);
  conflict_keys_.push_back(std::move(key));
}

namespace {

// The row of `key` a read under `snapshot` sees, encoded with its timestamps and TTLs (empty:
// none): the static row, or the row at the key's clustering.
Result<std::string> encoded_current_row(const storage::Store& store,
                                        const storage::Snapshot& snapshot,
                                        const schema::TableDef& table,
                                        const std::string& partition_key,
                                        const std::optional<std::string>& clustering) {
  // The static row alone is read with nullopt; a table without clustering columns keys its one
  // row with an empty clustering.
  CASSETTE_ASSIGN_OR_RETURN(
      cql::CurrentRow current,
      cql::read_current_row(store, snapshot, table, partition_key, clustering));
  const std::optional<storage::Row>& row = clustering ? current.row : current.static_row;
  std::string encoded;
  if (row) storage::encode_row(*row, &encoded);
  return encoded;
}

// The partition key as CQL prints it, components joined by ':' (as Cassandra's messages do).
std::string printed_partition_key(const schema::TableDef& table, std::string_view key) {
  const std::vector<const schema::ColumnDef*> columns = table.partition_key();
  auto components = types::split_partition_key(key, columns.size());
  if (!components.is_ok()) return "?";
  std::string text;
  for (size_t i = 0; i < components->size(); ++i) {
    if (i > 0) text += ':';
    text += types::format_value(columns[i]->type, (*components)[i], types::ValueStyle::kString);
  }
  return text;
}

}  // namespace

Status Transaction::check_conflicts(const CommitCheck& check, const storage::Snapshot& now) const {
  for (const ConflictKey& key : *check.keys) {
    if (check.pinned == nullptr && !key.read_then) continue;
    std::string then;
    if (key.read_then) {
      then = *key.read_then;
    } else {
      CASSETTE_ASSIGN_OR_RETURN(then, encoded_current_row(*store_, *check.pinned, *key.table,
                                                          key.partition_key, key.clustering));
    }
    CASSETTE_ASSIGN_OR_RETURN(
        std::string current,
        encoded_current_row(*store_, now, *key.table, key.partition_key, key.clustering));
    if (then == current) continue;
    return Status::serialization_failure(
        fmt::format("could not serialize access due to a concurrent update of {}.{} (key {}); the "
                    "transaction was rolled back: retry it",
                    key.table->keyspace, key.table->name,
                    printed_partition_key(*key.table, key.partition_key)));
  }
  return Status::ok();
}

Status Transaction::check_row_unchanged(const std::shared_ptr<const schema::TableDef>& table,
                                        std::string_view partition_key, bool is_static,
                                        std::string_view clustering) {
  if (pinned_ == nullptr) return Status::ok();
  std::vector<ConflictKey> keys(1);
  keys[0].table = table;
  keys[0].partition_key = std::string(partition_key);
  if (!is_static) keys[0].clustering = std::string(clustering);
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> now, store_->snapshot());
  return check_conflicts(CommitCheck{pinned_.get(), &keys}, *now);
}

Result<std::shared_ptr<const storage::Snapshot>> Transaction::with_overlay(
    std::shared_ptr<const storage::Snapshot> snapshot, StatementId visible_before) {
  // The runs a read sees (layer 4 of the design): those of the statements before
  // `visible_before`. A spill splits its log where the last statement's writes begin (see
  // maybe_spill), so a statement that spilled reads what the earlier ones wrote.
  if (visible_before != kAllStatements) reads_by_statement_ = true;
  size_t visible_runs = 0;
  if (spilled()) {
    visible_runs = spill_->runs();
    if (visible_before != kAllStatements) {
      visible_runs = spill_->runs_before(visible_before);
      if (spill_->run_mixes(visible_runs, visible_before)) {
        return spilled_refusal("Reading from a statement before the last one that spilled",
                               "split the transaction");
      }
    }
  }
  // Statement ids never decrease along the log: the visible entries are a prefix.
  size_t visible = log_.entries.size();
  if (visible_before != kAllStatements) {
    visible = static_cast<size_t>(std::partition_point(log_.entries.begin(), log_.entries.end(),
                                                       [&](const PendingLog::Entry& e) {
                                                         return e.statement < visible_before;
                                                       }) -
                                  log_.entries.begin());
  }
  if (spilled() && visible_runs < spill_->runs()) visible = 0;  // the tail comes after the runs
  std::shared_ptr<const storage::Snapshot> view = std::move(snapshot);
  if (visible_runs > 0) {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> spilled_view,
                              with_spilled(*view, visible_runs, visible));
    // The read source folds the tail in for the tables the runs hold: the overlay memtable (a
    // second copy of the tail) is only made for a tail that writes other tables.
    const bool overlay_needed =
        visible > 0 && std::any_of(log_.tables.begin(), log_.tables.end(), [&](const auto& t) {
          return !spill_source_->holds(t->table_id);
        });
    if (!overlay_needed) return spilled_view;
  }
  if (visible > 0) {
    if (overlay_entries_ != visible || !overlay_.started()) {
      CASSETTE_RETURN_IF_ERROR(extend_overlay(visible));
    }
    view = overlay_.on(*view, overlay_truncated_);
  }
  if (visible_runs == 0) return view;
  return with_spilled(*view, visible_runs, visible);
}

Result<std::shared_ptr<const storage::Snapshot>> Transaction::with_spilled(
    const storage::Snapshot& view, size_t visible_runs, size_t visible) {
  if (spill_source_ == nullptr || spill_source_generation_ != spill_generation_ ||
      spill_source_runs_ != visible_runs || spill_source_entries_ != visible) {
    CASSETTE_ASSIGN_OR_RETURN(spill_source_, spill_->read_source(log_, visible_runs, visible,
                                                                 store_->clock().now_micros() + 1,
                                                                 store_->clock().now_seconds()));
    spill_source_generation_ = spill_generation_;
    spill_source_runs_ = visible_runs;
    spill_source_entries_ = visible;
  }
  auto spilled_view = std::make_shared<storage::Snapshot>(view);
  spilled_view->spilled = spill_source_;
  // A TRUNCATE in a run's log or in the tail hides the table's committed rows.
  std::vector<storage::TableId>& truncated = spilled_view->truncated;
  for (storage::TableId t : spill_->truncated_tables(visible_runs)) truncated.push_back(t);
  for (storage::TableId t : log_.truncated_tables(visible)) truncated.push_back(t);
  std::sort(truncated.begin(), truncated.end());
  truncated.erase(std::unique(truncated.begin(), truncated.end()), truncated.end());
  return std::shared_ptr<const storage::Snapshot>(std::move(spilled_view));
}

Status Transaction::extend_overlay(size_t visible) {
  // Start over for an older statement's view (fewer entries than the fold holds), and after a
  // TRUNCATE: its table's rows already in the memtable must go.
  const bool truncates_new = !log_.truncates.empty() && log_.truncates.back() >= overlay_entries_;
  if (visible < overlay_entries_ || (truncates_new && overlay_entries_ > 0)) reset_overlay();
  if (overlay_fold_ == nullptr) {
    overlay_fold_ = std::make_unique<PendingFold>(&log_, store_->clock().now_seconds());
    overlay_entries_ = 0;
  }
  const std::vector<size_t> first_kept = log_.first_kept(visible);
  const size_t first_new_row = overlay_fold_->rows();
  std::vector<size_t> rewritten;  // rows already in the overlay, written again
  for (size_t i = overlay_entries_; i < visible; ++i) {
    if (!log_.counts(i, first_kept)) continue;
    size_t row = 0;
    CASSETTE_ASSIGN_OR_RETURN(bool is_new, overlay_fold_->add(i, &row));
    if (!is_new && row < first_new_row) rewritten.push_back(row);
  }
  std::sort(rewritten.begin(), rewritten.end());
  rewritten.erase(std::unique(rewritten.begin(), rewritten.end()), rewritten.end());
  overlay_entries_ = visible;
  overlay_truncated_ = log_.truncated_tables(visible);
  // New rows go in at a new sequence number. A memtable cannot forget a row, so a rewritten
  // row's folded state goes in again at a higher timestamp, shadowing what the overlay held
  // (older snapshots keep seeing the old state). The whole fold goes into a fresh memtable
  // instead when a rewrite could not be trusted to shadow (a statement gave the rows their
  // own timestamps; counter deltas, which add up rather than shadow; a row deleted and then
  // updated without being written again, whose older row marker would stay) or when shadowed
  // versions pile up. It does so on every change once the fold holds a partition header (a
  // CQL partition or range deletion): the commit gives the header and every row one
  // timestamp, at which the deletion shadows the rows it covers, written before it or after;
  // rows added later at a later provisional timestamp would escape it.
  storage::EncodedBatch rows;
  const bool restart =
      !overlay_.started() || overlay_fold_->has_headers() ||
      (!rewritten.empty() &&
       (overlay_fold_->merged_explicit_timestamps() || overlay_fold_->merged_counters() ||
        overlay_fold_->merged_after_deletion() ||
        overlay_.entry_count() > 2 * overlay_fold_->rows() + 64));
  if (restart) {
    overlay_.reset();
    overlay_advanced_ = false;
    overlay_fold_->emit(&rows);
  } else {
    // Once a rewrite moved the timestamp past the clock, it only goes up: a later rewrite of
    // the same row must not land on the same timestamp (a tie is not settled by order).
    if (!rewritten.empty() || overlay_advanced_) {
      overlay_.advance_timestamp();
      overlay_advanced_ = true;
    } else {
      overlay_.refresh_timestamp();
    }
    overlay_fold_->emit_rows(&rows, rewritten);
    overlay_fold_->emit(&rows, first_new_row);
  }
  return overlay_.add(rows);
}

}  // namespace cassette::txn
