// Transaction: what an open SQL transaction of a host (SQLite, PostgreSQL) changes on one store,
// buffered until it commits: its writes, whether a SQL statement or a CQL statement made them,
// and its schema changes. docs/ARCHITECTURE.md ("Transactions") shows where it sits.
//
// Each row change (a row write, a row deletion, an INSERT OR IGNORE, a partition header with a
// partition deletion or range tombstones) is appended to a log kept in storage form
// (pending_fold.h); a savepoint marks a position in the log and rolling back to it truncates,
// so savepoints cost nothing. At commit the log is folded — later entries for the same row
// override earlier ones, as SQL statements do — and applied as one commit-log record
// (Store::apply of an EncodedBatch: when no row was written twice, the log's own bytes).
// Timestamps: every entry a statement did not stamp itself (USING TIMESTAMP) carries
// kAutoTimestamp until the commit, when the store gives the whole transaction one timestamp.
// INSERT OR IGNORE entries are decided at commit, under the store's write lock
// (Store::apply_prepared), like CQL's IF NOT EXISTS.
//
// Schema changes (a table created or dropped by the host's DDL) are kept beside the log,
// marked and truncated by the same savepoints, and seen by the transaction's own statements
// (schema_view). At commit they become one catalog change whose transaction also carries the
// writes (Catalog::change with its ExtraWrites): a table created and filled in one transaction
// appears with its rows or not at all, and a rolled-back DROP TABLE never touched the store.
//
// Reads see the transaction's own writes through with_overlay() / read_view(), all of them or
// only those of the statements before a given one (PostgreSQL: a statement never sees its own
// writes). A TRUNCATE is an entry of the log too: reads after it see none of the table's
// committed rows nor the transaction's earlier writes to it, and the commit truncates the
// table under the same write lock as it writes the rest. Not thread-safe: one transaction
// belongs to one host session.
//
// Materialized views. A host that set keep_views() writes base tables as CQL does in a
// transaction: each row it adds to a table with views (add, add_encoded) comes with the view
// rows it implies, in the same statement, computed from the base row as the transaction reads
// it just before (read_view(): the committed state, pinned or latest, with the transaction's
// own writes on top). Later writes to the same row see the earlier ones, so the log folds to
// the right final view rows (a view key changed twice, a row deleted and written again), and a
// savepoint or ROLLBACK undoes the view rows with their base rows. Such a row is also a conflict
// key, under a pinned snapshot or not (kPerStatement: the committed row each write read): when
// another commit changed it since, the view rows were computed from a stale row and the commit
// fails with a serialization failure (a READ COMMITTED transaction too: its view rows cannot be
// recomputed at commit). A TRUNCATE of a base table truncates its views too.
//
// Transactions larger than memory (docs/ARCHITECTURE.md). Once the pending log reaches the
// store's StoreOptions::transaction_spill_bytes, it is folded and written to disk as a sorted
// run (spill.h) and starts again empty; the commit merges the runs and the log into SSTables
// installed by one manifest change (Store::apply_sorted), stamping the commit timestamp as it
// writes them. Conflict keys, TRUNCATE and savepoints work as in memory: a spill writes one run
// per segment between the savepoint marks inside the log, so that every mark is at a run's
// boundary and ROLLBACK TO drops the runs after it. Reads of the transaction's own writes see
// the runs where they are (Spill::read_source on the snapshot: the runs and the in-memory tail
// folded key by key). PREPARE (two-phase commit, prepare()) writes the merge as SSTables that
// the prepared record lists and the commit installs (Store::prepare_sorted). What the runs cannot
// do yet brings them back into memory (unspill(): the transaction then holds everything in
// memory, as before the spill existed): INSERT OR IGNORE, a commit with schema changes. Refused
// with kUnsupported rather than done wrong: a read of the writes before a statement that a run
// folded with later ones' (see with_overlay). A transaction that keeps views, holds INSERT OR
// IGNORE rows or changes the schema does not spill.
//
// Isolation. kPerStatement (the default; PostgreSQL's READ COMMITTED) reads the store's latest
// committed state at each read_view(). kSnapshot (PostgreSQL's REPEATABLE READ, a SQLite
// transaction) pins the committed state at the transaction's first read (committed_view()) and
// reads it, with the transaction's own writes on top, until the commit or clear() releases it.
// Write conflicts (snapshot isolation's first-committer-wins): the host records each row it read
// and then wrote or deleted (add_conflict_key: a SQL UPDATE or DELETE, a read-modify-write). At
// commit, under the store's write lock, each such row is read as the pinned snapshot had it and
// as it is committed now; when the two differ (a cell, its timestamp or TTL, a deletion that
// covers the row) another commit changed it since the snapshot, and the commit fails with
// StatusCode::kSerializationFailure (Status::serialization_failure) and a message that starts
// "could not serialize access", writing nothing: the host rolls back, the application retries.
// A row the other commit wrote with an older USING TIMESTAMP reads the same (it lost by
// last-write-wins) and is no conflict. Blind writes (INSERT, an upsert) record no key and never
// conflict: Cassandra's last-write-wins. Counter increments are deltas that add up whatever came
// between: no key either. Without a pinned snapshot (kPerStatement) keys are not recorded. Cost:
// none for a transaction without keys; two point reads per key at commit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schema/catalog.h"
#include "engine/schema/schema.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/overlay.h"
#include "engine/storage/spilled_writes.h"
#include "engine/storage/store.h"
#include "engine/txn/pending_fold.h"
#include "engine/txn/spill.h"

namespace cassette::txn {

// A schema change made by a statement of the transaction, applied when it commits.
struct SchemaChange {
  enum class Kind : uint8_t { kCreateTable, kDropTable };
  Kind kind = Kind::kCreateTable;
  // kCreateTable: the table to add (its storage id reserved: Catalog::reserve_table_id).
  // kDropTable: the table to remove, only if the store's table of that name is still this one.
  std::shared_ptr<const schema::TableDef> table;
  // kCreateTable: its keyspace (without tables), added too when the store has none of that name.
  std::shared_ptr<const schema::KeyspaceDef> keyspace;
};

// `base` with `changes` applied in order. Fails as CQL would when a created table's name is
// taken (Cassandra's AlreadyExists message) or its keyspace is gone and not to be created.
Result<schema::Schema> apply_schema_changes(const schema::Schema& base,
                                            const std::vector<SchemaChange>& changes);

// Which statement of the transaction wrote an entry (PendingLog::Entry::statement).
using StatementId = uint64_t;
// read_view(kAllStatements): every write of the transaction so far.
constexpr StatementId kAllStatements = UINT64_MAX;

class Transaction {
 public:
  using Kind = PendingLog::Kind;
  // See the header comment.
  enum class Isolation : uint8_t { kPerStatement, kSnapshot };

  explicit Transaction(storage::Store* store) : store_(store), overlay_(&store->clock()) {}

  // Buffers one row change: `row` (timestamps kAutoTimestamp unless the statement gave one) for
  // the static row or the row at `clustering` of a partition. Fails, buffering nothing, when the
  // partition key cannot be stored (empty, over 65535 bytes).
  Status add(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
             std::string_view partition_key, bool is_static, std::string_view clustering,
             const storage::Row& row, uint64_t statement);
  // add() of a row already encoded (encode_row's format, e.g. by storage::EncodedRowWriter).
  Status add_encoded(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
                     std::string_view partition_key, bool is_static, std::string_view clustering,
                     std::string_view encoded_row, uint64_t statement);
  // Buffers the writes of one CQL statement (a MutationBuilder as the CQL executors build it: per
  // partition, a header with a partition deletion or range tombstones, a static row, rows) as
  // one statement of the transaction. Tables are found in `schema` by storage id. All or
  // nothing: on failure (a partition key that cannot be stored) nothing of `batch` is buffered.
  Status add_batch(const storage::MutationBuilder& batch, const schema::Schema& schema);
  // Buffers a TRUNCATE of `table` as statement `statement`: from here on the transaction reads
  // none of the table's committed rows nor its own earlier writes to it, and the commit empties
  // the table before writing the rest. Fails, buffering nothing, for a read-only store.
  Status truncate(const std::shared_ptr<const schema::TableDef>& table, StatementId statement);
  StatementId next_statement() { return ++statements_; }
  // The view rows of base-table writes (cql::add_view_mutations: engine/cql sits above this
  // layer, and hosts set it through cql::keep_views): the rows of the views of `schema` that
  // `writes` imply, read from `snapshot` as before the writes, added to `writes`.
  using ViewRows = Status (*)(const storage::Store& store, const storage::Snapshot& snapshot,
                              const schema::Schema& schema, int64_t now_seconds,
                              storage::MutationBuilder& writes);
  // From here on the host's row writes (add, add_encoded, truncate) keep the views of `schema`
  // (the schema the host's statement runs under): see the header comment. A null `schema` stops it.
  void keep_views(std::shared_ptr<const schema::Schema> schema, ViewRows view_rows);
  // The statement add_batch() gives the writes that follow: by default each call is a new one
  // (next_statement()); a host that numbers its statements itself (PostgreSQL's CommandId,
  // given to cql() too) sets it before each. Ids must not decrease along the log.
  void set_statement(StatementId statement) { fixed_statement_ = statement; }
  bool empty() const {
    return log_.entries.empty() && schema_changes_.empty() && spill_ == nullptr;
  }
  // Whether part of the writes went to disk (a run of spill.h).
  bool spilled() const { return spill_ != nullptr; }
  bool changes_schema() const { return !schema_changes_.empty(); }

  // Buffers a schema change of the store whose catalog is `catalog`.
  void add_schema_change(SchemaChange change, std::shared_ptr<schema::Catalog> catalog);
  // `committed` (the store's schema) as this transaction sees it: with its schema changes.
  Result<std::shared_ptr<const schema::Schema>> schema_view(
      std::shared_ptr<const schema::Schema> committed);

  // Savepoints by nesting depth (0 for the outermost open savepoint, as the host counts them):
  // savepoint(d) marks the log for depths up to d (a depth marked already keeps its mark),
  // release(d) forgets the marks of depth d and deeper, rollback_to(d) undoes every change made
  // since depth d was marked (keeping the mark). A negative depth, or any depth while none is
  // marked (the host opened it before this store's first change), undoes everything.
  void savepoint(int level);
  void release(int level);
  void rollback_to(int level);

  // Applies the log and the schema changes as one atomic write and empties them (also when the
  // write fails). The tables the log TRUNCATEs are emptied first under the same write lock
  // (Store::apply_prepared with truncate_first). A log with TRUNCATEs cannot commit
  // with schema changes (InvalidArgument, nothing written).
  Status commit();
  // commit()'s checks and writes as the first phase of a two-phase commit
  // (storage::Store::prepare_commit, tagged `host_tag`; a spilled transaction's runs become the
  // SSTables of Store::prepare_sorted): the transaction is durable but not
  // visible until the returned object commits, and the store stays locked until then. Empties
  // the transaction, as commit() does. nullptr when there was nothing to write. A transaction
  // with schema changes commits here at once (the catalog change has one phase) and returns
  // nullptr.
  Result<std::unique_ptr<storage::PreparedCommit>> prepare(std::string host_tag);
  void clear();

  // `snapshot` plus this transaction's writes of the statements before `visible_before` on top
  // (reads see their own transaction's writes; they are a prefix of the log): a private
  // memtable of their fold, at a provisional timestamp just above now. Tables those writes
  // TRUNCATEd read no committed rows of `snapshot`.
  // Kept up to date incrementally: entries added since the last call are folded and added to
  // the memtable at a new sequence number (snapshots handed out earlier do not see them); a row
  // written again goes in again at a higher timestamp. It starts over only after a ROLLBACK TO,
  // when a rewritten row carries a statement's own timestamp (cql_timestamp: it might not
  // shadow), when shadowed versions outnumber the rows, after a TRUNCATE, or when a view of
  // fewer statements than the last is asked for. Returns `snapshot` when nothing is visible.
  Result<std::shared_ptr<const storage::Snapshot>> with_overlay(
      std::shared_ptr<const storage::Snapshot> snapshot,
      StatementId visible_before = kAllStatements);
  // with_overlay() of committed_view().
  Result<std::shared_ptr<const storage::Snapshot>> read_view(
      StatementId visible_before = kAllStatements);

  // Takes effect from the next committed_view(); a pinned snapshot stays pinned until commit()
  // or clear().
  void set_isolation(Isolation isolation) { isolation_ = isolation; }
  Isolation isolation() const { return isolation_; }
  // The committed state the transaction reads: kSnapshot: the one pinned by the first call
  // (pinning it); kPerStatement: the store's latest (`latest`, when the caller has just taken
  // the store's snapshot).
  Result<std::shared_ptr<const storage::Snapshot>> committed_view(
      std::shared_ptr<const storage::Snapshot> latest = nullptr);
  bool snapshot_pinned() const { return pinned_ != nullptr; }
  // Records that the transaction read the static row (`is_static`) or the row at `clustering` of
  // a partition and wrote or deleted it: the commit fails if another commit changed that row
  // after the pinned snapshot (header comment). Ignored while no snapshot is pinned. A
  // savepoint rolled back drops the keys recorded since.
  void add_conflict_key(const std::shared_ptr<const schema::TableDef>& table,
                        std::string_view partition_key, bool is_static,
                        std::string_view clustering);
  size_t conflict_key_count() const { return conflict_keys_.size(); }
  // The conflict check of one row now, before the commit: the commit's serialization failure
  // when the row (the static row with `is_static`) of the store's latest commit differs from the
  // pinned snapshot's. OK while no snapshot is pinned. A host that waited for another writer of
  // the row (PostgreSQL's row locks) fails at once, as PostgreSQL's REPEATABLE READ does.
  Status check_row_unchanged(const std::shared_ptr<const schema::TableDef>& table,
                             std::string_view partition_key, bool is_static,
                             std::string_view clustering);

  // The number of savepoint depths marked (savepoint(d) marks up to d; release and rollback_to
  // shrink it): a host that cannot tell whether a depth was marked asks before rolling back.
  size_t savepoint_depth() const { return marks_.size(); }

 private:
  // Appends one storage entry of `kind` to `log`.
  static Status append(PendingLog& log, Kind kind,
                       const std::shared_ptr<const schema::TableDef>& table,
                       std::string_view partition_key, storage::EntryKind entry_kind,
                       std::string_view clustering, std::string_view value, uint64_t statement);
  void reset_overlay();
  // Whether `table` has views in views_schema_ (the last table asked is remembered).
  bool has_views(const std::shared_ptr<const schema::TableDef>& table);
  // truncate() of one table.
  void truncate_one(const std::shared_ptr<const schema::TableDef>& table, StatementId statement);
  // Appends a kTruncate entry of `table` to `log`.
  static void truncate_entry(PendingLog& log, const std::shared_ptr<const schema::TableDef>& table,
                             StatementId statement);
  // add_encoded() of a row of a base table with views: the row, then its view rows.
  Status add_with_views(Kind kind, const std::shared_ptr<const schema::TableDef>& table,
                        std::string_view partition_key, std::string_view clustering,
                        std::string_view encoded_row, uint64_t statement);
  void truncate_schema_changes(size_t n);
  // Writes the log as a spill run when it reached transaction_spill_bytes and nothing keeps it
  // in memory. On failure the log is cut back to `entries_before` (the statement's entries).
  Status maybe_spill(size_t entries_before);
  // Brings the runs back into the log (Spill::read_back), for what the runs cannot do yet:
  // INSERT OR IGNORE, schema changes. The transaction then stays in memory, as before the
  // spill existed. kUnsupported when a run holds writes of a statement at or after `visible_before`
  // (its own writes).
  Status unspill(StatementId visible_before);
  // kUnsupported: `what` in a transaction whose writes went to disk; `advice` ends the message.
  Status spilled_refusal(std::string_view what, std::string_view advice) const;
  // The log's rows as one store transaction's writes: folded, INSERT OR IGNORE decided against
  // `snapshot` (the committing one), rows of tables in `dropped` left out.
  Status fold_for_commit(const PendingLog& log, const storage::Snapshot& snapshot,
                         const std::vector<storage::TableId>& dropped,
                         storage::EncodedBatch& batch);
  // Appends the writes of `batch` to `log` as statement `statement`, tables found in `schema`.
  Status append_batch(PendingLog& log, const storage::MutationBuilder& batch,
                      const schema::Schema& schema, uint64_t statement);
  // `view` with the read source of the first `visible_runs` runs and the log's first `visible`
  // entries on top (Spill::read_source; kept while nothing changed), and the tables the runs'
  // logs truncated.
  Result<std::shared_ptr<const storage::Snapshot>> with_spilled(const storage::Snapshot& view,
                                                                size_t visible_runs,
                                                                size_t visible);
  // Folds the overlay's entries up to `visible` (the log's first entries), starting over when
  // it must (see with_overlay) and adding what is new to the memtable otherwise.
  Status extend_overlay(size_t visible);
  // A row the transaction read and then wrote (add_conflict_key).
  struct ConflictKey {
    std::shared_ptr<const schema::TableDef> table;
    std::string partition_key;
    std::optional<std::string> clustering;  // nullopt: the static row
    // Without a pinned snapshot (kPerStatement), a base row whose view rows a write computed:
    // the committed row it read then (encoded; empty: none), checked whatever `pinned` is.
    std::optional<std::string> read_then;
  };
  // What a commit checks under the write lock: the rows of `keys` as `pinned` had them (no
  // check when nullptr) or as their `read_then` says.
  struct CommitCheck {
    const storage::Snapshot* pinned;
    const std::vector<ConflictKey>* keys;
  };
  // SerializationFailure when a key's row reads differently in `now` than in check.pinned.
  Status check_conflicts(const CommitCheck& check, const storage::Snapshot& now) const;
  Status commit_writes(PendingLog& log, const CommitCheck& check);
  // The store's `prepare` for a commit of `log`: the write conflicts, then the fold.
  storage::Store::PrepareWrite commit_check(const PendingLog& log, const CommitCheck& check);
  Status commit_with_schema_changes(PendingLog& log, std::vector<SchemaChange> changes,
                                    const CommitCheck& check);
  // The commit of a spilled transaction: the runs and `log` merged into SSTables, installed
  // now (returning nullptr), or with a `host_tag` prepared (Store::prepare_sorted).
  Result<std::unique_ptr<storage::PreparedCommit>> commit_spilled(
      const PendingLog& log, Spill& spill, const CommitCheck& check,
      std::optional<std::string> host_tag);

  storage::Store* store_;
  PendingLog log_;
  std::vector<SchemaChange> schema_changes_;
  std::shared_ptr<schema::Catalog> catalog_;  // the store's, once a schema change came
  // Each open savepoint level: the log's and the schema changes' sizes when it began.
  struct Mark {
    size_t entries;
    size_t schema_changes;
    size_t conflict_keys;
    // Spill runs written when it began (`entries` counts after them). A spill puts a run
    // boundary at a mark inside the log (Spill::write_runs): marks stay at runs' starts.
    size_t runs = 0;
  };
  std::vector<Mark> marks_;
  uint64_t schema_generation_ = 0;  // bumped whenever schema_changes_ changes
  std::shared_ptr<const schema::Schema> view_, view_base_;  // schema_view()'s last answer
  uint64_t view_generation_ = 0;
  uint64_t statements_ = 0;
  std::optional<StatementId> fixed_statement_;  // set_statement()
  std::string scratch_;                         // the row being encoded by add()
  Isolation isolation_ = Isolation::kPerStatement;
  std::shared_ptr<const storage::Snapshot> pinned_;  // kSnapshot: since the first read
  std::vector<ConflictKey> conflict_keys_;
  // keep_views(): the schema whose views the host's writes keep, and how to compute them.
  std::shared_ptr<const schema::Schema> views_schema_;
  ViewRows view_rows_ = nullptr;
  std::shared_ptr<const schema::TableDef> views_checked_;  // has_views(): the last table asked
  bool views_checked_result_ = false;

  // The overlay: the fold of log_.entries[0, overlay_entries_), its rows in overlay_; the
  // tables those entries truncated.
  std::unique_ptr<PendingFold> overlay_fold_;
  size_t overlay_entries_ = 0;
  std::vector<storage::TableId> overlay_truncated_;
  storage::Overlay overlay_;
  bool overlay_advanced_ = false;  // a rewrite moved its timestamp since the last reset

  // The runs written to disk (nullptr: none), and what the commit must fail with instead (the
  // runs could not be brought back into memory).
  std::unique_ptr<Spill> spill_;
  Status spill_error_;
  bool spill_blocked_ = false;  // maybe_spill found the log must stay in memory
  // with_spilled()'s last read source, and what it was made of; spill_generation_ moves when
  // the log or the runs change other than by growing.
  std::shared_ptr<const storage::SpilledWrites> spill_source_;
  bool reads_by_statement_ = false;  // a read asked for the writes before a statement
  uint64_t spill_generation_ = 0, spill_source_generation_ = 0;
  size_t spill_source_runs_ = 0, spill_source_entries_ = 0;
};

}  // namespace cassette::txn
