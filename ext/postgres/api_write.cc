// The foreign-table writes of a PostgreSQL transaction (cassette_api.h). Each INSERT, UPDATE,
// DELETE and TRUNCATE goes, when its statement runs, into the txn::Transaction of the table's
// store for the transaction block — the one cql() writes into as well — as storage rows
// (encode_foreign_row), tagged with the statement's CommandId and marked for its
// (sub)transaction level. Reads see them through Transaction::read_view(command): a statement
// sees the writes of the commands before it, never its own, as PostgreSQL's snapshots (curcid)
// treat heap tuples. At pre-commit each store's transaction commits as one commit-log record
// under the store lock, so an aborted transaction writes nothing and a committed one is
// all-or-nothing per store. The fold rules (a later statement wins on the same cell, whichever
// side wrote it; a DELETE replaces what came before; an INSERT after a DELETE writes the whole
// row) are the engine transaction's (docs/ENGINE.md, "Transactions of a host").
#include <algorithm>
#include <utility>
#include <vector>

#include "engine/codec/current_row.h"
#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/cql/vector_checks.h"
#include "engine/cql/view_maintenance.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/store_directory.h"
#include "engine/txn/transaction.h"
#include "engine/write/row_encoder.h"
#include "ext/postgres/api_internal.h"

namespace cassette::pg {

using schema::ColumnDef;
using schema::TableDef;

namespace {

// The transaction block's transaction of each store it touched, in the order it touched them.
std::vector<std::pair<storage::Store*, std::unique_ptr<txn::Transaction>>>& transactions() {
  static std::vector<std::pair<storage::Store*, std::unique_ptr<txn::Transaction>>> list;
  return list;
}

// The isolation the glue last gave (cas_transaction_isolation), for the transactions made next.
txn::Transaction::Isolation& isolation() {
  static txn::Transaction::Isolation level = txn::Transaction::Isolation::kPerStatement;
  return level;
}

// The transaction block's transaction on `store`, made (at the block's isolation) when there
// is none.
txn::Transaction& transaction_for(storage::Store* store) {
  if (txn::Transaction* transaction = find_store_transaction(store)) return *transaction;
  auto transaction = std::make_unique<txn::Transaction>(store);
  transaction->set_isolation(isolation());
  transactions().emplace_back(store, std::move(transaction));
  return *transactions().back().second;
}

// The prepared transactions between PRE_COMMIT and COMMIT (or ABORT), in path order.
std::vector<std::unique_ptr<storage::PreparedCommit>>& prepared_commits() {
  static std::vector<std::unique_ptr<storage::PreparedCommit>> list;
  return list;
}

}  // namespace

txn::Transaction* find_store_transaction(storage::Store* store) {
  for (auto& [s, transaction] : transactions()) {
    if (s == store) return transaction.get();
  }
  return nullptr;
}

txn::Transaction& store_transaction(storage::Store* store, int level) {
  txn::Transaction& transaction = transaction_for(store);
  transaction.savepoint(level - 2);  // subtransaction `level` is savepoint depth level - 2
  return transaction;
}

Result<std::shared_ptr<const storage::Snapshot>> read_snapshot(cas_table* table, uint32_t command) {
  txn::Transaction* transaction = find_store_transaction(table->store.get());
  // A snapshot transaction pins its snapshot at its first read, a write or not.
  if (transaction == nullptr && isolation() == txn::Transaction::Isolation::kSnapshot) {
    transaction = &transaction_for(table->store.get());
  }
  if (transaction == nullptr) return table->store->snapshot();
  return transaction->read_view(command);
}

namespace {

Status null_key_error(const ColumnDef& c) {
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", c.name));
}

// The primary key of a row from the glue's values; Cassandra's messages for missing parts.
// Every clustering value may be null together: the row is then static_only (write_row checks
// that it sets static columns only, or deletes the static row).
Status row_key(const TableDef& table, const cas_value* values, const cas_repr* reprs,
               ForeignRow* entry) {
  std::vector<std::string> key, clustering;
  const ColumnDef* first_null_clustering = nullptr;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnDef& c = table.columns[i];
    if (!c.is_primary_key()) continue;
    CASSETTE_ASSIGN_OR_RETURN(types::Value v, from_pg_value(c.type, values[i], reprs[i], c.name));
    if (!v && c.kind == schema::ColumnKind::kClustering) {
      if (first_null_clustering == nullptr) first_null_clustering = &c;
      continue;
    }
    if (!v) return null_key_error(c);
    if (c.kind == schema::ColumnKind::kClustering && first_null_clustering != nullptr) {
      return null_key_error(*first_null_clustering);  // only some clustering values are null
    }
    (c.kind == schema::ColumnKind::kPartitionKey ? key : clustering).push_back(std::move(*v));
  }
  entry->static_only = first_null_clustering != nullptr;
  CASSETTE_RETURN_IF_ERROR(cql::validate_partition_key_values(key));
  entry->partition_key = cql::partition_key_bytes(key);
  CASSETTE_RETURN_IF_ERROR(cql::validate_clustering_values(clustering));
  CASSETTE_ASSIGN_OR_RETURN(entry->clustering, cql::clustering_key_bytes(table, clustering));
  return Status::ok();
}

Status check_writable(const ColumnDef& c) {
  if (c.type.is_counter()) {
    return Status::invalid_argument(fmt::format(
        "counter column {} cannot be written through cassette_fdw: counters change by increments; "
        "use cql('UPDATE ... SET {} = {} + 1 WHERE ...')",
        c.name, c.name, c.name));
  }
  return Status::ok();
}

// The engine would refuse the commit; a write to a read-only store is refused at its statement.
Status check_store_writable(const storage::Store& store) {
  return store.read_only() ? storage::read_only_store_error(store.path()) : Status::ok();
}

cql::WriteParameters write_parameters(const TableDef& table, int64_t now_micros) {
  return write::RowEncoder::parameters(table, now_micros);
}

// The current row (or static row, `clustering` nullopt) at `partition_key` as the transaction's
// earlier statements left it: what overwriting a non-frozen collection reads (the elements the
// write does not keep are deleted; the commit gives every statement one timestamp).
Result<std::optional<storage::Row>> current_row(const cas_table& table,
                                                txn::Transaction& transaction,
                                                txn::StatementId statement,
                                                std::string_view partition_key,
                                                const std::optional<std::string>& clustering) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> view,
                            transaction.read_view(statement));
  CASSETTE_ASSIGN_OR_RETURN(cql::CurrentRow current,
                            cql::read_current_row(*table.store, *view, *table.def,
                                                  std::string(partition_key), clustering));
  return clustering ? std::move(current.row) : std::move(current.static_row);
}

// Builds one row (the clustering row, or the static row with `is_static`) of `ops`; an
// operation that overwrites a non-frozen collection reads the current row.
Result<storage::Row> build_row(const ForeignRow& w, const std::vector<cql::ColumnOperation>& ops,
                               bool is_static, const cql::WriteParameters& params,
                               txn::Transaction& transaction, const cas_table& table,
                               txn::StatementId statement) {
  std::optional<storage::Row> existing;
  bool needs = false;
  for (const auto& op : ops) needs = needs || cql::operation_needs_row(op, params);
  if (needs) {
    std::optional<std::string> clustering;
    if (!is_static) clustering = w.clustering;
    CASSETTE_ASSIGN_OR_RETURN(
        existing, current_row(table, transaction, statement, w.partition_key, clustering));
  }
  cql::RowBuilder row;
  for (const auto& op : ops) {
    CASSETTE_RETURN_IF_ERROR(
        cql::apply_operation(op, params, existing ? &*existing : nullptr, row));
  }
  return row.build();
}

// Where an INSERT's rows go: the transaction block's transaction on the table's store (made at
// the first row, so that a refused INSERT leaves no trace), as statement `statement`; with
// `written`, decoded there too.
class TransactionSink : public write::RowSink {
 public:
  TransactionSink(const cas_table& table, int level, txn::StatementId statement,
                  WrittenRows* written)
      : table_(table), level_(level), statement_(statement), written_(written) {}

  Status add_row(std::string_view partition_key, bool is_static, std::string_view clustering,
                 std::string_view encoded_row) override {
    CASSETTE_RETURN_IF_ERROR(transaction().add_encoded(txn::Transaction::Kind::kWrite, table_.def,
                                                       partition_key, is_static, clustering,
                                                       encoded_row, statement_));
    if (written_ == nullptr) return Status::ok();
    storage::Row& row = is_static ? written_->static_row : written_->row;
    if (!storage::decode_row(encoded_row, &row)) {
      return Status::internal("a foreign-table row just encoded does not decode");
    }
    return Status::ok();
  }

  txn::Transaction& transaction() {
    if (transaction_ == nullptr) transaction_ = &store_transaction(table_.store.get(), level_);
    return *transaction_;
  }

 private:
  const cas_table& table_;
  int level_;
  txn::StatementId statement_;
  WrittenRows* written_;
  txn::Transaction* transaction_ = nullptr;
};

// The encoder of the table's INSERTs: every column, a NULL leaving its column unset.
Result<write::RowEncoder*> insert_encoder(cas_table* table) {
  if (table->insert_encoder == nullptr) {
    std::vector<size_t> columns(table->def->columns.size());
    for (size_t i = 0; i < columns.size(); ++i) columns[i] = i;
    CASSETTE_ASSIGN_OR_RETURN(
        table->insert_encoder,
        write::RowEncoder::make(table->def, std::move(columns), write::NullPolicy::kUnset));
    table->insert_values.resize(table->def->columns.size());
  }
  return table->insert_encoder.get();
}

// An INSERT: CQL's INSERT of the non-null values (RowEncoder: the key checks, the row marker,
// a static-only row when every clustering value is NULL), into reused buffers.
Status insert_row(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                  uint32_t command, WrittenRows* written) {
  CASSETTE_ASSIGN_OR_RETURN(write::RowEncoder * encoder, insert_encoder(table));
  const TableDef& def = *table->def;
  std::vector<types::Value>& row = table->insert_values;
  for (size_t i = 0; i < def.columns.size(); ++i) {
    const ColumnDef& c = def.columns[i];
    CASSETTE_ASSIGN_OR_RETURN(row[i], from_pg_value(c.type, values[i], reprs[i], c.name));
    if (row[i] && !c.is_primary_key()) CASSETTE_RETURN_IF_ERROR(check_writable(c));
    if (c.type.kind == types::TypeKind::kVector && table->schema) {
      CASSETTE_RETURN_IF_ERROR(cql::check_indexable_vector(*table->schema, def, c, row[i]));
    }
  }
  encoder->set_parameters(write_parameters(def, table->store->clock().now_micros()));
  TransactionSink sink(*table, level, command, written);
  if (!encoder->needs_read()) return encoder->insert(row, sink);
  const write::CurrentRowReader read = [&](std::string_view key,
                                           const std::optional<std::string>& clustering) {
    return current_row(*table, sink.transaction(), command, key, clustering);
  };
  return encoder->insert(row, sink, &read);
}

}  // namespace

Status encode_foreign_row(const ForeignRow& w, const cas_table& table,
                          txn::Transaction& transaction, txn::StatementId statement,
                          WrittenRows* written) {
  const TableDef& def = *table.def;
  const cql::WriteParameters params = write_parameters(def, table.store->clock().now_micros());
  if (w.kind == ForeignRow::Kind::kDelete && w.static_only) {
    // A partition the scan showed only through its static row: its static columns deleted (as
    // CQL's DELETE of the partition would leave it).
    return transaction.add(txn::Transaction::Kind::kWrite, table.def, w.partition_key, true, {},
                           write::static_row_deletion(def, params.timestamp, params.now_seconds),
                           statement);
  }
  if (w.kind == ForeignRow::Kind::kDelete) {
    // A row deletion, also for a table without clustering columns (its one row, at clustering
    // ""): reads see what a partition deletion would leave, and an INSERT of the row later in
    // the transaction folds over it (a partition deletion would shadow it at commit).
    storage::Row deletion;
    deletion.deletion = storage::DeletionTime{params.timestamp, params.now_seconds};
    return transaction.add(txn::Transaction::Kind::kDeleteRow, table.def, w.partition_key, false,
                           w.clustering, deletion, statement);
  }
  std::vector<cql::ColumnOperation> regular, statics;
  for (const auto& [column, value] : w.sets) {
    cql::ColumnOperation op;
    op.kind = cql::ColumnOperation::Kind::kSetValue;
    op.column = &def.columns[column];
    op.value = value;
    (op.column->is_static() ? statics : regular).push_back(std::move(op));
  }
  if (!w.static_only && !regular.empty()) {
    CASSETTE_ASSIGN_OR_RETURN(storage::Row row,
                              build_row(w, regular, false, params, transaction, table, statement));
    CASSETTE_RETURN_IF_ERROR(transaction.add(txn::Transaction::Kind::kWrite, table.def,
                                             w.partition_key, false, w.clustering, row, statement));
    if (written != nullptr) written->row = std::move(row);
  }
  if (!statics.empty()) {
    CASSETTE_ASSIGN_OR_RETURN(storage::Row row,
                              build_row(w, statics, true, params, transaction, table, statement));
    CASSETTE_RETURN_IF_ERROR(transaction.add(txn::Transaction::Kind::kWrite, table.def,
                                             w.partition_key, true, {}, row, statement));
    if (written != nullptr) written->static_row = std::move(row);
  }
  return Status::ok();
}

namespace {

// The rows an UPDATE or a DELETE read (its scan found them) and then changed, for the commit's
// conflict check (Transaction::add_conflict_key: the static row, the clustering row or both).
void add_conflict_keys(const ForeignRow& row, const TableDef& def, txn::Transaction& transaction,
                       const std::shared_ptr<const TableDef>& table) {
  bool regular = row.kind == ForeignRow::Kind::kDelete && !row.static_only;
  bool statics = row.kind == ForeignRow::Kind::kDelete && row.static_only;
  for (const auto& [column, value] : row.sets) {
    (def.columns[column].is_static() ? statics : regular) = true;
  }
  if (row.static_only) regular = false;
  if (regular) transaction.add_conflict_key(table, row.partition_key, false, row.clustering);
  if (statics) transaction.add_conflict_key(table, row.partition_key, true, {});
}

// An UPDATE or a DELETE of the row with the key in `values`.
Status write_row(cas_table* table, ForeignRow::Kind kind, const cas_value* values,
                 const cas_repr* reprs, const int* present, int level, uint32_t command,
                 WrittenRows* written) {
  ForeignRow row;
  row.kind = kind;
  const TableDef& def = *table->def;
  CASSETTE_RETURN_IF_ERROR(row_key(def, values, reprs, &row));
  if (kind == ForeignRow::Kind::kUpdate) {
    for (size_t i = 0; i < def.columns.size(); ++i) {
      const ColumnDef& c = def.columns[i];
      if (!present[i]) continue;
      if (c.is_primary_key()) {
        return Status::invalid_argument(
            fmt::format("PRIMARY KEY part {} found in SET part", c.name));
      }
      CASSETTE_ASSIGN_OR_RETURN(types::Value v, from_pg_value(c.type, values[i], reprs[i], c.name));
      CASSETTE_RETURN_IF_ERROR(check_writable(c));
      if (c.type.kind == types::TypeKind::kVector && table->schema) {
        CASSETTE_RETURN_IF_ERROR(cql::check_indexable_vector(*table->schema, def, c, v));
      }
      row.sets.emplace_back(i, std::move(v));
    }
  }
  if (row.static_only) {
    // Without clustering values only static columns can be written (CQL's rule), and at least
    // one must be; otherwise the row needs its clustering values, as before. A DELETE without
    // clustering values deletes the static row.
    bool statics = kind == ForeignRow::Kind::kDelete ? def.has_static_columns() : !row.sets.empty();
    for (const auto& [column, value] : row.sets)
      statics = statics && def.columns[column].is_static();
    if (!statics) return null_key_error(*def.clustering().front());
  }
  txn::Transaction& transaction = store_transaction(table->store.get(), level);
  CASSETTE_RETURN_IF_ERROR(encode_foreign_row(row, *table, transaction, command, written));
  add_conflict_keys(row, def, transaction, table->def);
  return Status::ok();
}

// A foreign table's writes keep its materialized views, in the same transaction
// (cql::keep_views); a view's foreign table takes none.
Status check_views(const cas_table& table, bool truncate = false) {
  CASSETTE_RETURN_IF_ERROR(cql::check_not_view(*table.def, truncate));
  cql::keep_views(transaction_for(table.store.get()), table.schema);
  return Status::ok();
}

// The values a SELECT reads of the row just written, for RETURNING: each key column's value
// converted to CQL and back (a timestamp keeps milliseconds), each written column's value as
// read from the rows written (`written`: a set sorted without duplicates, an empty collection
// NULL), in the scan's conversions. `present` (nullptr: every column) names the columns wanted.
Status stored_values(cas_table* table, const cas_value* values, const cas_repr* reprs,
                     const int* present, const WrittenRows& written, cas_value* out) {
  const TableDef& def = *table->def;
  table->stored_values.resize(def.columns.size());
  table->stored_buffers.resize(def.columns.size());
  for (size_t i = 0; i < def.columns.size(); ++i) {
    const ColumnDef& c = def.columns[i];
    if (present != nullptr && !present[i] && !c.is_primary_key()) continue;
    types::Value& value = table->stored_values[i];  // out[i] may point into it
    if (c.is_primary_key()) {
      CASSETTE_ASSIGN_OR_RETURN(value, from_pg_value(c.type, values[i], reprs[i], c.name));
    } else {
      value = cql::read_column(c, c.is_static() ? written.static_row : written.row);
    }
    const std::string_view bytes = value ? std::string_view(*value) : std::string_view();
    CASSETTE_RETURN_IF_ERROR(to_pg_value(c.type, value ? &bytes : nullptr, reprs[i], &out[i],
                                         &table->stored_buffers[i]));
  }
  return Status::ok();
}

}  // namespace

}  // namespace cassette::pg

using namespace cassette;
using namespace cassette::pg;

extern "C" {

int cas_write_insert(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                     uint32_t command, cas_value* stored) {
  return guarded([&]() -> Status {
    CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
    CASSETTE_RETURN_IF_ERROR(check_views(*table));
    WrittenRows written;
    CASSETTE_RETURN_IF_ERROR(
        insert_row(table, values, reprs, level, command, stored ? &written : nullptr));
    if (stored == nullptr) return Status::ok();
    return stored_values(table, values, reprs, nullptr, written, stored);
  });
}

int cas_write_update(cas_table* table, const cas_value* values, const cas_repr* reprs,
                     const int* present, int level, uint32_t command, cas_value* stored) {
  return guarded([&]() -> Status {
    CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
    CASSETTE_RETURN_IF_ERROR(check_views(*table));
    WrittenRows written;
    CASSETTE_RETURN_IF_ERROR(write_row(table, ForeignRow::Kind::kUpdate, values, reprs, present,
                                       level, command, stored ? &written : nullptr));
    if (stored == nullptr) return Status::ok();
    return stored_values(table, values, reprs, present, written, stored);
  });
}

int cas_write_delete(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                     uint32_t command) {
  return guarded([&]() -> Status {
    CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
    CASSETTE_RETURN_IF_ERROR(check_views(*table));
    return write_row(table, ForeignRow::Kind::kDelete, values, reprs, nullptr, level, command,
                     nullptr);
  });
}

int cas_write_truncate(cas_table* table, int level, uint32_t command) {
  return guarded([&]() -> Status {
    CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
    CASSETTE_RETURN_IF_ERROR(check_views(*table, /*truncate=*/true));
    return store_transaction(table->store.get(), level).truncate(table->def, command);
  });
}

int cas_transaction_prepare(const char* host_tag) {
  return guarded([&]() -> Status {
    // Path order: two backends preparing the same stores wait for each other, never deadlock.
    std::sort(transactions().begin(), transactions().end(),
              [](const auto& a, const auto& b) { return a.first->path() < b.first->path(); });
    // A schema change commits in one phase (Transaction::prepare): after the others prepared.
    for (bool schema_pass : {false, true}) {
      for (auto& [store, transaction] : transactions()) {
        if (transaction->changes_schema() != schema_pass) continue;
        auto prepared = transaction->prepare(host_tag);
        if (!prepared.is_ok()) {
          prepared_commits().clear();  // aborts the ones prepared already
          return prepared.status();
        }
        if (*prepared != nullptr) prepared_commits().push_back(std::move(prepared).value());
      }
    }
    transactions().clear();
    return Status::ok();
  });
}

int cas_transaction_finish(int commit) {
  return guarded([&]() -> Status {
    Status first;
    for (auto& prepared : prepared_commits()) {
      Status s = commit ? prepared->commit() : prepared->abort();
      if (!s.is_ok() && first.is_ok()) first = s;
    }
    prepared_commits().clear();
    return first;
  });
}

void cas_subtransaction_end(int level, int committed) {
  try {
    // Writes at `level` marked savepoint depth level - 2 (store_transaction).
    const int depth = level - 2;
    for (auto& [store, transaction] : transactions()) {
      if (depth < 0 || static_cast<size_t>(depth) >= transaction->savepoint_depth()) continue;
      if (!committed) transaction->rollback_to(depth);
      transaction->release(depth);
    }
  } catch (...) {
  }
}

void cas_end_of_transaction(void) {
  try {
    transactions().clear();
    transactions().shrink_to_fit();
    prepared_commits().clear();  // aborts what an error between the two phases left
    release_open_scans();
  } catch (...) {
  }
}

void cas_transaction_isolation(int snapshot) {
  isolation() = snapshot ? txn::Transaction::Isolation::kSnapshot
                         : txn::Transaction::Isolation::kPerStatement;
}

int cas_transaction_has_writes(void) {
  for (const auto& [store, transaction] : transactions()) {
    if (!transaction->empty()) return 1;
  }
  return 0;
}

}  // extern "C"
