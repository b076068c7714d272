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
#include <utility>
#include <vector>

#include "engine/codec/current_row.h"
#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/storage/store_directory.h"
#include "engine/txn/transaction.h"
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

}  // namespace

txn::Transaction* find_store_transaction(storage::Store* store) {
  for (auto& [s, transaction] : transactions()) {
    if (s == store) return transaction.get();
  }
  return nullptr;
}

txn::Transaction& store_transaction(storage::Store* store, int level) {
  txn::Transaction* transaction = find_store_transaction(store);
  if (transaction == nullptr) {
    transactions().emplace_back(store, std::make_unique<txn::Transaction>(store));
    transaction = transactions().back().second.get();
  }
  transaction->savepoint(level - 2);  // subtransaction `level` is savepoint depth level - 2
  return *transaction;
}

Result<std::shared_ptr<const storage::Snapshot>> read_snapshot(cas_table* table, uint32_t command) {
  txn::Transaction* transaction = find_store_transaction(table->store.get());
  if (transaction == nullptr) return table->store->snapshot();
  return transaction->read_view(command);
}

namespace {

Status null_key_error(const ColumnDef& c) {
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", c.name));
}

// The primary key of a row from the glue's values; Cassandra's messages for missing parts.
// With `static_only_allowed`, every clustering value may be null together: the row is then
// static_only (write_row checks that it sets static columns only).
Status row_key(const TableDef& table, const cas_value* values, const cas_repr* reprs,
               bool static_only_allowed, ForeignRow* entry) {
  std::vector<std::string> key, clustering;
  const ColumnDef* first_null_clustering = nullptr;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnDef& c = table.columns[i];
    if (!c.is_primary_key()) continue;
    CASSETTE_ASSIGN_OR_RETURN(types::Value v, from_pg_value(c.type, values[i], reprs[i], c.name));
    if (!v && c.kind == schema::ColumnKind::kClustering && static_only_allowed) {
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
  cql::WriteParameters params;
  params.timestamp = storage::kAutoTimestamp;
  params.ttl = table.params.default_time_to_live;
  params.now_seconds = now_micros / 1'000'000;
  params.now_micros = now_micros;
  return params;
}

// Builds one row (the clustering row, or the static row with `is_static`) of `ops`; an
// operation that overwrites a non-frozen collection reads the current row through `view`,
// made when first needed.
Result<storage::Row> build_row(const ForeignRow& w, const std::vector<cql::ColumnOperation>& ops,
                               bool is_static, const cql::WriteParameters& params,
                               txn::Transaction& transaction, const cas_table& table,
                               txn::StatementId statement) {
  std::optional<storage::Row> existing;
  bool needs = false;
  for (const auto& op : ops) needs = needs || cql::operation_needs_row(op, params);
  if (needs) {
    // The row as the transaction's earlier statements left it: the elements this write does
    // not keep are deleted (the commit gives every statement one timestamp).
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> view,
                              transaction.read_view(statement));
    std::optional<std::string> clustering;
    if (!is_static) clustering = w.clustering;
    CASSETTE_ASSIGN_OR_RETURN(
        cql::CurrentRow current,
        cql::read_current_row(*table.store, *view, *table.def, w.partition_key, clustering));
    existing = is_static ? std::move(current.static_row) : std::move(current.row);
  }
  cql::RowBuilder row;
  if (!is_static && w.kind == ForeignRow::Kind::kInsert) {
    row.set_liveness(
        storage::LivenessInfo::written(params.timestamp, params.ttl, params.now_seconds));
  }
  for (const auto& op : ops) {
    CASSETTE_RETURN_IF_ERROR(
        cql::apply_operation(op, params, existing ? &*existing : nullptr, row));
  }
  return row.build();
}

}  // namespace

Status encode_foreign_row(const ForeignRow& w, const cas_table& table,
                          txn::Transaction& transaction, txn::StatementId statement) {
  const TableDef& def = *table.def;
  const cql::WriteParameters params = write_parameters(def, table.store->clock().now_micros());
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
  if (!w.static_only && (!regular.empty() || w.kind == ForeignRow::Kind::kInsert)) {
    CASSETTE_ASSIGN_OR_RETURN(storage::Row row,
                              build_row(w, regular, false, params, transaction, table, statement));
    CASSETTE_RETURN_IF_ERROR(transaction.add(txn::Transaction::Kind::kWrite, table.def,
                                             w.partition_key, false, w.clustering, row, statement));
  }
  if (!statics.empty()) {
    CASSETTE_ASSIGN_OR_RETURN(storage::Row row,
                              build_row(w, statics, true, params, transaction, table, statement));
    CASSETTE_RETURN_IF_ERROR(transaction.add(txn::Transaction::Kind::kWrite, table.def,
                                             w.partition_key, true, {}, row, statement));
  }
  return Status::ok();
}

namespace {

Status write_row(cas_table* table, ForeignRow::Kind kind, const cas_value* values,
                 const cas_repr* reprs, const int* present, int level, uint32_t command) {
  CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
  ForeignRow row;
  row.kind = kind;
  const TableDef& def = *table->def;
  CASSETTE_RETURN_IF_ERROR(row_key(def, values, reprs, kind != ForeignRow::Kind::kDelete, &row));
  if (kind != ForeignRow::Kind::kDelete) {
    for (size_t i = 0; i < def.columns.size(); ++i) {
      const ColumnDef& c = def.columns[i];
      if (kind == ForeignRow::Kind::kUpdate && !present[i]) continue;
      if (c.is_primary_key()) {
        if (kind == ForeignRow::Kind::kUpdate) {
          return Status::invalid_argument(
              fmt::format("PRIMARY KEY part {} found in SET part", c.name));
        }
        continue;
      }
      CASSETTE_ASSIGN_OR_RETURN(types::Value v, from_pg_value(c.type, values[i], reprs[i], c.name));
      if (kind == ForeignRow::Kind::kInsert && !v) continue;  // a null INSERT value is unset
      CASSETTE_RETURN_IF_ERROR(check_writable(c));
      row.sets.emplace_back(i, std::move(v));
    }
  }
  if (row.static_only) {
    // Without clustering values only static columns can be written (CQL's rule), and at least
    // one must be; otherwise the row needs its clustering values, as before.
    bool statics = !row.sets.empty();
    for (const auto& [column, value] : row.sets)
      statics = statics && def.columns[column].is_static();
    if (!statics) return null_key_error(*def.clustering().front());
  }
  txn::Transaction& transaction = store_transaction(table->store.get(), level);
  return encode_foreign_row(row, *table, transaction, command);
}

}  // namespace

}  // namespace cassette::pg

using namespace cassette;
using namespace cassette::pg;

extern "C" {

int cas_write_insert(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                     uint32_t command) {
  return guarded([&] {
    return write_row(table, ForeignRow::Kind::kInsert, values, reprs, nullptr, level, command);
  });
}

int cas_write_update(cas_table* table, const cas_value* values, const cas_repr* reprs,
                     const int* present, int level, uint32_t command) {
  return guarded([&] {
    return write_row(table, ForeignRow::Kind::kUpdate, values, reprs, present, level, command);
  });
}

int cas_write_delete(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                     uint32_t command) {
  return guarded([&] {
    return write_row(table, ForeignRow::Kind::kDelete, values, reprs, nullptr, level, command);
  });
}

int cas_write_truncate(cas_table* table, int level, uint32_t command) {
  return guarded([&]() -> Status {
    CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
    return store_transaction(table->store.get(), level).truncate(table->def, command);
  });
}

int cas_transaction_commit(void) {
  return guarded([&]() -> Status {
    Status status;
    for (auto& [store, transaction] : transactions()) {
      status = transaction->commit();
      if (!status) break;
    }
    transactions().clear();
    return status;
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
    release_open_scans();
  } catch (...) {
  }
}

int cas_transaction_has_writes(void) {
  for (const auto& [store, transaction] : transactions()) {
    if (!transaction->empty()) return 1;
  }
  return 0;
}

}  // extern "C"
