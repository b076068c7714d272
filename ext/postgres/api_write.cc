// The write buffer of a PostgreSQL transaction (cassette_api.h). INSERT, UPDATE, DELETE and
// TRUNCATE on foreign tables are logged here, in statement order, and applied at pre-commit as
// one atomic write per store (Store::apply_prepared: one commit-log record under the store
// lock), so an aborted transaction writes nothing and a committed one is all-or-nothing.
//
// All writes of a transaction get the store's one timestamp, as a CQL BATCH does; so that later
// statements still win over earlier ones of the same transaction (PostgreSQL's semantics), the
// log is first folded row by row: an UPDATE after an INSERT of the same row replaces the value,
// a DELETE forgets what came before it, and an INSERT after a DELETE writes the whole row,
// with tombstones for the columns it leaves null, instead of a deletion that would shadow it.
// The same fold feeds the transaction's reads (api_overlay.cc), so they see what commit writes.
#include <map>

#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/storage/store_directory.h"
#include "ext/postgres/api_internal.h"
#include "ext/postgres/api_write_log.h"

namespace cassette::pg {

using schema::ColumnDef;
using schema::TableDef;

std::vector<WriteEntry>& write_log() {
  static std::vector<WriteEntry> log;
  return log;
}

namespace {

std::map<storage::Store*, std::unique_ptr<txn::Transaction>>& cql_transactions() {
  static std::map<storage::Store*, std::unique_ptr<txn::Transaction>> map;
  return map;
}

}  // namespace

txn::Transaction& cql_transaction(storage::Store* store) {
  std::unique_ptr<txn::Transaction>& transaction = cql_transactions()[store];
  if (transaction == nullptr) transaction = std::make_unique<txn::Transaction>(store);
  return *transaction;
}

txn::Transaction* find_cql_transaction(storage::Store* store) {
  auto it = cql_transactions().find(store);
  return it == cql_transactions().end() ? nullptr : it->second.get();
}

namespace {

Status null_key_error(const ColumnDef& c) {
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", c.name));
}

// The primary key of a row from the glue's values; Cassandra's messages for missing parts.
// With `static_only_allowed`, every clustering value may be null together: the entry is then
// static_only (log_row checks that it sets static columns only).
Status row_key(const TableDef& table, const cas_value* values, const cas_repr* reprs,
               bool static_only_allowed, WriteEntry* entry) {
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

Status log_row(cas_table* table, WriteEntry::Kind kind, const cas_value* values,
               const cas_repr* reprs, const int* present, int level, uint32_t command) {
  CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
  WriteEntry entry;
  entry.kind = kind;
  entry.table = table;
  entry.def = table->def;
  entry.level = level;
  entry.command = command;
  const TableDef& def = *entry.def;
  CASSETTE_RETURN_IF_ERROR(row_key(def, values, reprs, kind != WriteEntry::Kind::kDelete, &entry));
  if (kind != WriteEntry::Kind::kDelete) {
    for (size_t i = 0; i < def.columns.size(); ++i) {
      const ColumnDef& c = def.columns[i];
      if (kind == WriteEntry::Kind::kUpdate && !present[i]) continue;
      if (c.is_primary_key()) {
        if (kind == WriteEntry::Kind::kUpdate) {
          return Status::invalid_argument(
              fmt::format("PRIMARY KEY part {} found in SET part", c.name));
        }
        continue;
      }
      CASSETTE_ASSIGN_OR_RETURN(types::Value v, from_pg_value(c.type, values[i], reprs[i], c.name));
      if (kind == WriteEntry::Kind::kInsert && !v) continue;  // a null INSERT value is unset
      CASSETTE_RETURN_IF_ERROR(check_writable(c));
      entry.sets.emplace_back(i, std::move(v));
    }
  }
  if (entry.static_only) {
    // Without clustering values only static columns can be written (CQL's rule), and at least
    // one must be; otherwise the row needs its clustering values, as before.
    bool statics = !entry.sets.empty();
    for (const auto& [column, value] : entry.sets)
      statics = statics && def.columns[column].is_static();
    if (!statics) return null_key_error(*def.clustering().front());
  }
  write_log().push_back(std::move(entry));
  return Status::ok();
}

}  // namespace

PendingRow& WriteFold::row(const WriteEntry& e, bool is_static, const Touched& touched) {
  auto [it, inserted] = rows_.try_emplace(RowKey{e.def->table_id, e.partition_key, is_static,
                                                 is_static ? std::string() : e.clustering});
  PendingRow& p = it->second;
  if (inserted) {
    p.def = e.def;
    p.partition_key = e.partition_key;
    if (!is_static) p.clustering = e.clustering;
  }
  if (touched) touched(p, inserted);
  return p;
}

bool WriteFold::add(const WriteEntry& e, const Touched& touched) {
  storage::TableId id = e.def->table_id;
  if (e.kind == WriteEntry::Kind::kTruncate) {
    truncated_[id] = e.def;
    return std::erase_if(rows_, [&](const auto& r) { return std::get<0>(r.first) == id; }) != 0;
  }
  // Static columns belong to the partition: statements on different rows of it set the same
  // cells, and the later one wins there too.
  bool sets_static = false;
  for (const auto& [column, value] : e.sets) sets_static |= e.def->columns[column].is_static();
  if (e.static_only) {  // the partition's static row alone
    PendingRow& statics = row(e, true, touched);
    for (const auto& [column, value] : e.sets) statics.sets[column] = value;
    return false;
  }
  PendingRow& p = row(e, false, touched);
  switch (e.kind) {
    case WriteEntry::Kind::kInsert:
      p.live = true;
      break;
    case WriteEntry::Kind::kDelete:
      p.deleted = true;
      p.live = false;
      p.sets.clear();
      break;
    default:
      break;
  }
  PendingRow* statics = sets_static ? &row(e, true, touched) : nullptr;
  for (const auto& [column, value] : e.sets) {
    (e.def->columns[column].is_static() ? *statics : p).sets[column] = value;
  }
  return false;
}

cql::WriteParameters write_parameters(const TableDef& table, int64_t now_micros) {
  cql::WriteParameters params;
  params.timestamp = storage::kAutoTimestamp;
  params.ttl = table.params.default_time_to_live;
  params.now_seconds = now_micros / 1'000'000;
  params.now_micros = now_micros;
  return params;
}

Status add_row(const PendingRow& p, const cql::WriteParameters& params, const storage::Store& store,
               const storage::Snapshot& snapshot, storage::WriteBatch& batch) {
  const TableDef& table = *p.def;
  storage::PartitionUpdate& update = batch.partition(table.table_id, p.partition_key);
  storage::DeletionTime deletion{params.timestamp, params.now_seconds};
  bool has_clustering = !table.clustering().empty();
  if (p.deleted && !p.live && p.sets.empty()) {
    if (!has_clustering) {
      update.header.deletion = storage::max_deletion(update.header.deletion, deletion);
    } else {
      cql::RowBuilder row;
      row.set_deletion(deletion);
      cql::merge_row(update, p.clustering, row.build());
    }
    return Status::ok();
  }
  std::vector<cql::ColumnOperation> regular, statics;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnDef& c = table.columns[i];
    if (c.is_primary_key()) continue;
    auto it = p.sets.find(i);
    // A row re-inserted after its deletion: the columns it leaves out are deleted too.
    if (it == p.sets.end() && !(p.deleted && !c.is_static() && !c.type.is_counter())) continue;
    cql::ColumnOperation op;
    op.kind = cql::ColumnOperation::Kind::kSetValue;
    op.column = &c;
    if (it != p.sets.end()) op.value = it->second;
    (c.is_static() ? statics : regular).push_back(std::move(op));
  }
  auto build = [&](const std::vector<cql::ColumnOperation>& ops, bool is_static) -> Status {
    if (ops.empty() && (is_static || !p.live)) return Status::ok();
    std::optional<std::string> clustering;
    if (!is_static) clustering = p.clustering;
    std::optional<storage::Row> existing;
    bool needs = false;
    for (const auto& op : ops) needs = needs || cql::operation_needs_row(op, params);
    if (needs) {
      CASSETTE_ASSIGN_OR_RETURN(
          cql::CurrentRow current,
          cql::read_current_row(store, snapshot, table, p.partition_key, clustering));
      existing = is_static ? std::move(current.static_row) : std::move(current.row);
    }
    cql::RowBuilder row;
    if (!is_static && p.live) {
      row.set_liveness(
          storage::LivenessInfo::written(params.timestamp, params.ttl, params.now_seconds));
    }
    for (const auto& op : ops) {
      CASSETTE_RETURN_IF_ERROR(
          cql::apply_operation(op, params, existing ? &*existing : nullptr, row));
    }
    if (!row.empty()) cql::merge_row(update, clustering, row.build());
    return Status::ok();
  };
  CASSETTE_RETURN_IF_ERROR(build(regular, false));
  CASSETTE_RETURN_IF_ERROR(build(statics, true));
  return Status::ok();
}

namespace {

// The folded foreign-table rows, as add_row writes them under the store's lock.
Status add_rows(const WriteFold& fold, const storage::Store& store,
                const storage::Snapshot& snapshot, int64_t now_micros, storage::WriteBatch& batch) {
  for (const auto& [key, p] : fold.rows()) {
    CASSETTE_RETURN_IF_ERROR(
        add_row(p, write_parameters(*p.def, now_micros), store, snapshot, batch));
  }
  return Status::ok();
}

// Commits one store's part of the transaction: its foreign-table `entries` and its cql()
// writes (`cql_writes`, may be null) as one commit-log record; TRUNCATEs run before it.
Status commit_store(storage::Store& store, const std::vector<const WriteEntry*>& entries,
                    txn::Transaction* cql_writes) {
  WriteFold fold;
  for (const WriteEntry* e : entries) fold.add(*e);
  for (const auto& [id, def] : fold.truncated()) CASSETTE_RETURN_IF_ERROR(store.truncate(id));
  const int64_t now_micros = store.clock().now_micros();
  if (cql_writes != nullptr && !cql_writes->empty()) {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> schema,
                              entries.empty() ? std::shared_ptr<const schema::Schema>()
                                              : entries.front()->table->catalog->current());
    if (schema == nullptr) return cql_writes->commit();
    return cql_writes->commit(
        [&](const storage::Snapshot& snapshot, storage::WriteBatch& batch) {
          return add_rows(fold, store, snapshot, now_micros, batch);
        },
        *schema);
  }
  if (fold.rows().empty()) return Status::ok();
  auto written = store.apply_prepared(
      [&](const storage::Snapshot& snapshot, storage::WriteBatch& batch) -> Result<bool> {
        CASSETTE_RETURN_IF_ERROR(add_rows(fold, store, snapshot, now_micros, batch));
        return !batch.empty();
      });
  return written.status();
}

}  // namespace

}  // namespace cassette::pg

using namespace cassette;
using namespace cassette::pg;

extern "C" {

int cas_write_insert(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                     uint32_t command) {
  return guarded([&] {
    return log_row(table, WriteEntry::Kind::kInsert, values, reprs, nullptr, level, command);
  });
}

int cas_write_update(cas_table* table, const cas_value* values, const cas_repr* reprs,
                     const int* present, int level, uint32_t command) {
  return guarded([&] {
    return log_row(table, WriteEntry::Kind::kUpdate, values, reprs, present, level, command);
  });
}

int cas_write_delete(cas_table* table, const cas_value* values, const cas_repr* reprs, int level,
                     uint32_t command) {
  return guarded([&] {
    return log_row(table, WriteEntry::Kind::kDelete, values, reprs, nullptr, level, command);
  });
}

int cas_write_truncate(cas_table* table, int level, uint32_t command) {
  return guarded([&]() -> Status {
    CASSETTE_RETURN_IF_ERROR(check_store_writable(*table->store));
    WriteEntry entry;
    entry.kind = WriteEntry::Kind::kTruncate;
    entry.table = table;
    entry.def = table->def;
    entry.level = level;
    entry.command = command;
    write_log().push_back(std::move(entry));
    return Status::ok();
  });
}

int cas_transaction_commit(void) {
  return guarded([&]() -> Status {
    std::map<storage::Store*, std::vector<const WriteEntry*>> by_store;
    std::vector<storage::Store*> order;
    for (const WriteEntry& e : write_log()) {
      auto& list = by_store[e.table->store.get()];
      if (list.empty()) order.push_back(e.table->store.get());
      list.push_back(&e);
    }
    for (const auto& [store, transaction] : cql_transactions()) {
      if (!transaction->empty() && by_store.count(store) == 0) order.push_back(store);
    }
    Status status;
    for (storage::Store* store : order) {
      status = commit_store(*store, by_store[store], find_cql_transaction(store));
      if (!status) break;
    }
    write_log().clear();
    cql_transactions().clear();
    reset_overlays();
    return status;
  });
}

void cas_subtransaction_end(int level, int committed) {
  try {
    for (WriteEntry& e : write_log()) {
      if (e.level >= level && committed) e.level = level - 1;
    }
    if (!committed) {
      std::erase_if(write_log(), [&](const WriteEntry& e) { return e.level >= level; });
      overlay_log_truncated(write_log().size());
    }
    // cql() marks savepoint depth level - 2 for its writes at `level` (cas_cql).
    const int depth = level - 2;
    for (auto& [store, transaction] : cql_transactions()) {
      if (depth < 0 || static_cast<size_t>(depth) >= transaction->savepoint_depth()) continue;
      if (!committed) transaction->rollback_to(depth);
      transaction->release(depth);
    }
  } catch (...) {
  }
}

void cas_end_of_transaction(void) {
  try {
    write_log().clear();
    write_log().shrink_to_fit();
    cql_transactions().clear();
    reset_overlays();
    release_open_scans();
  } catch (...) {
  }
}

int cas_transaction_has_writes(void) {
  if (!write_log().empty()) return 1;
  for (const auto& [store, transaction] : cql_transactions()) {
    if (!transaction->empty()) return 1;
  }
  return 0;
}

}  // extern "C"
