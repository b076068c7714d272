// Writing a cql virtual table: xUpdate turns each SQL row change into a CQL mutation appended to
// the connection's pending writes for the store (engine/txn/transaction.h); the transaction
// callbacks commit them (xSync: one atomic store write per transaction), discard them, or mark and
// truncate them for savepoints.
//
// INSERT = CQL INSERT, encoded by the engine's RowEncoder (row marker + every non-key column;
// NULL writes a null, except a NULL static column, which is left unset so inserting rows does not
// erase the partition's static values). UPDATE = CQL UPDATE of the assigned columns
// (sqlite3_vtab_nochange tells which). DELETE = CQL row deletion. INSERT OR IGNORE / ON CONFLICT DO
// NOTHING = IF NOT EXISTS.
#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/cql/vector_checks.h"
#include "engine/cql/view_maintenance.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/partition_key.h"
#include "engine/types/scalar.h"
#include "engine/write/row_encoder.h"
#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

using schema::ColumnDef;
using schema::ColumnKind;

storage::Cell simple_cell(const cql::WriteParameters& w, types::Value&& value) {
  if (!value) return storage::Cell::tombstone(w.timestamp, w.now_seconds);
  if (w.ttl > 0)
    return storage::Cell::expiring(w.timestamp, w.ttl, w.now_seconds, std::move(*value));
  return storage::Cell::live(w.timestamp, std::move(*value));
}

// Adds column `c` set to `value` to `row` (columns kept sorted by id).
Status set_column(const cql::WriteParameters& w, const ColumnDef& c, types::Value value,
                  storage::Row& row, const storage::Row* existing) {
  storage::ColumnData data;
  data.id = c.id;
  if (c.type.is_multi_cell()) {
    cql::RowBuilder builder;
    cql::ColumnOperation op;
    op.kind = cql::ColumnOperation::Kind::kSetValue;
    op.column = &c;
    op.value = std::move(value);
    CASSETTE_RETURN_IF_ERROR(cql::apply_operation(op, w, existing, builder));
    storage::Row built = builder.build();
    if (built.columns.empty()) return Status::ok();
    data = std::move(built.columns.front());
  } else {
    data.cell = simple_cell(w, std::move(value));
  }
  auto pos = std::lower_bound(
      row.columns.begin(), row.columns.end(), c.id,
      [](const storage::ColumnData& d, storage::ColumnId id) { return d.id < id; });
  row.columns.insert(pos, std::move(data));
  return Status::ok();
}

// Buffers update_row reuses from row to row.
struct RowScratch {
  std::vector<std::string> key_parts, clustering_parts;  // sized up, never shrunk
};

// The current row at (key, clustering), for collection overwrites.
Result<std::optional<storage::Row>> current_row(CqlTable& t, const std::string& key,
                                                const std::optional<std::string>& clustering,
                                                bool static_row) {
  // As this transaction sees it: its snapshot and its own pending writes.
  CASSETTE_ASSIGN_OR_RETURN(txn::Transaction * transaction,
                            t.connection->reading(t.store.get(), t.in_transaction));
  CASSETTE_ASSIGN_OR_RETURN(auto snapshot, transaction->read_view());
  CASSETTE_ASSIGN_OR_RETURN(cql::CurrentRow current,
                            cql::read_current_row(*t.store, *snapshot, *t.table, key,
                                                  static_row ? std::nullopt : clustering));
  return static_row ? std::move(current.static_row) : std::move(current.row);
}

// An UPDATE without clustering key is the static row's alone, as in CQL: every clustering column
// NULL, the row SQLite read is a static-only partition, and no regular column is assigned a
// value. Otherwise the NULL clustering column is an error, Cassandra's. (An INSERT's rule is
// RowEncoder's.)
Status check_static_only_write(const CqlTable& t, sqlite3_value** argv, size_t clustering_given,
                               const ColumnDef& null_column) {
  const schema::TableDef& table = *t.table;
  bool ok = clustering_given == 0 && table.has_static_columns();
  if (ok) {
    auto old = t.rowids.find(sqlite3_value_int64(argv[0]));
    ok = old != t.rowids.end() && old->second.static_only;
  }
  for (size_t i = 0; ok && i < t.cql_columns(); ++i) {
    const ColumnDef& c = table.columns[i];
    if (c.kind != ColumnKind::kRegular) continue;
    sqlite3_value* v = argv[2 + t.sql_position[i]];
    if (sqlite3_value_nochange(v)) continue;
    ok = sqlite3_value_type(v) == SQLITE_NULL;
  }
  if (ok) return Status::ok();
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", null_column.name));
}

// The write parameters of a row change: the table's default TTL unless the hidden columns give
// cql_ttl, and cql_timestamp if given.
Result<cql::WriteParameters> row_parameters(const CqlTable& t, sqlite3_value** hidden_values) {
  std::optional<int64_t> ttl, timestamp;
  for (size_t h = 0; h < t.hidden.size(); ++h) {
    sqlite3_value* v = hidden_values[h];
    if (sqlite3_value_type(v) == SQLITE_NULL) continue;
    if (t.hidden[h].kind == HiddenColumn::Kind::kCqlTtl) {
      if (sqlite3_value_type(v) != SQLITE_INTEGER) {
        return Status::invalid_argument("cql_ttl must be an integer number of seconds");
      }
      ttl = sqlite3_value_int64(v);
      if (*ttl < 0) {
        return Status::invalid_argument(
            fmt::format("A TTL must be greater or equal to 0, but was {}", *ttl));
      }
      if (*ttl > storage::kMaxTtlSeconds) {
        return Status::invalid_argument(fmt::format("ttl is too large. requested ({}) maximum ({})",
                                                    *ttl, storage::kMaxTtlSeconds));
      }
    } else if (t.hidden[h].kind == HiddenColumn::Kind::kCqlTimestamp) {
      if (sqlite3_value_type(v) != SQLITE_INTEGER) {
        return Status::invalid_argument("cql_timestamp must be an integer number of microseconds");
      }
      timestamp = sqlite3_value_int64(v);
    }
  }
  return write::RowEncoder::parameters(*t.table, t.store->clock().now_micros(), ttl, timestamp);
}

// Where an INSERT's rows go: the connection's transaction on the store.
class PendingSink : public write::RowSink {
 public:
  PendingSink(CqlTable& t, txn::Transaction::Kind kind)
      : t_(t),
        pending_(t.connection->pending(t.store.get())),
        kind_(kind),
        statement_(pending_.next_statement()) {}
  Status add_row(std::string_view partition_key, bool is_static, std::string_view clustering,
                 std::string_view encoded_row) override {
    return pending_.add_encoded(kind_, t_.table, partition_key, is_static, clustering, encoded_row,
                                statement_);
  }

 private:
  CqlTable& t_;
  txn::Transaction& pending_;
  txn::Transaction::Kind kind_;
  uint64_t statement_;
};

// The engine's INSERT encoder over the table's columns not dropped since it was connected
// (SQLite gives every column: NULL clustering values mean the static row alone).
Status make_insert_encoder(CqlTable& t) {
  std::vector<size_t> columns;
  for (size_t i = 0; i < t.cql_columns(); ++i) {
    if (!t.dropped[i]) columns.push_back(i);
  }
  CASSETTE_ASSIGN_OR_RETURN(t.insert_encoder,
                            write::RowEncoder::make(t.table, std::move(columns),
                                                    write::NullPolicy::kTombstoneExceptStatic));
  t.insert_values.resize(t.insert_encoder->column_count());
  return Status::ok();
}

// An INSERT: CQL's INSERT of every column (RowEncoder: the checks, the row marker, NULL a
// tombstone except on static columns). The values are converted in column order into reused
// buffers, so a bulk INSERT allocates nothing per row.
Status insert_row(CqlTable& t, sqlite3_value** values, const cql::WriteParameters& params) {
  if (t.insert_encoder == nullptr) CASSETTE_RETURN_IF_ERROR(make_insert_encoder(t));
  write::RowEncoder& encoder = *t.insert_encoder;
  std::vector<types::Value>& row = t.insert_values;
  size_t j = 0;
  for (size_t i = 0; i < t.cql_columns(); ++i) {
    const ColumnDef& c = t.table->columns[i];
    sqlite3_value* v = values[t.sql_position[i]];
    if (t.dropped[i]) {  // dropped since the table was connected: only NULL fits it
      if (sqlite3_value_type(v) == SQLITE_NULL) continue;
      return Status::invalid_argument(
          fmt::format("Undefined column name {} in table {}.{}", c.name, t.keyspace, t.name));
    }
    types::Value& value = row[j++];
    if (!value) value.emplace();
    bool is_null = false;
    CASSETTE_RETURN_IF_ERROR(cql_value_into(c.type, v, c.name, &*value, &is_null));
    if (is_null) value.reset();
    if (c.type.kind == types::TypeKind::kVector && t.schema_seen) {
      CASSETTE_RETURN_IF_ERROR(cql::check_indexable_vector(*t.schema_seen, *t.table, c, value));
    }
  }
  encoder.set_parameters(params);
  const bool if_not_exists = sqlite3_vtab_on_conflict(t.connection->db()) == SQLITE_IGNORE;
  PendingSink sink(t, if_not_exists ? txn::Transaction::Kind::kInsertIfNotExists
                                    : txn::Transaction::Kind::kWrite);
  if (!encoder.needs_read()) return encoder.insert(row, sink);
  const write::CurrentRowReader read = [&](std::string_view key,
                                           const std::optional<std::string>& clustering) {
    return current_row(t, std::string(key), clustering, !clustering.has_value());
  };
  return encoder.insert(row, sink, &read);
}

// An UPDATE of the assigned columns (sqlite3_vtab_nochange tells which) of the row SQLite read.
Status update_row(CqlTable& t, sqlite3_value** argv, const cql::WriteParameters& w) {
  const schema::TableDef& table = *t.table;
  const size_t n = t.cql_columns();
  sqlite3_value** values = argv + 2;

  // The primary key.
  thread_local RowScratch scratch;
  size_t key_count = 0, clustering_count = 0;
  const ColumnDef* null_clustering = nullptr;  // the first clustering column given as NULL
  for (size_t i = 0; i < n; ++i) {
    const ColumnDef& c = table.columns[i];
    if (!c.is_primary_key()) continue;
    const bool partition = c.kind == ColumnKind::kPartitionKey;
    std::vector<std::string>& parts = partition ? scratch.key_parts : scratch.clustering_parts;
    size_t& count = partition ? key_count : clustering_count;
    if (parts.size() <= count) parts.resize(count + 1);
    std::string& v = parts[count++];
    bool is_null = false;
    CASSETTE_RETURN_IF_ERROR(
        cql_value_into(c.type, values[t.sql_position[i]], c.name, &v, &is_null));
    if (is_null && !partition) {
      if (null_clustering == nullptr) null_clustering = &c;
      --count;
      continue;
    }
    if (is_null) {
      return Status::invalid_argument(
          fmt::format("Invalid null value in condition for column {}", c.name));
    }
  }
  // No clustering key: an UPDATE of the static row alone (of a row SQLite read as a
  // static-only partition), as CQL's UPDATE naming only the partition key and static columns.
  const bool static_only = null_clustering != nullptr;
  if (static_only) {
    CASSETTE_RETURN_IF_ERROR(check_static_only_write(t, argv, clustering_count, *null_clustering));
  }
  const std::span<const std::string> key_parts(scratch.key_parts.data(), key_count);
  const std::span<const std::string> clustering_parts(scratch.clustering_parts.data(),
                                                      clustering_count);
  CASSETTE_RETURN_IF_ERROR(cql::validate_partition_key_values(key_parts));
  CASSETTE_RETURN_IF_ERROR(cql::validate_clustering_values(clustering_parts));
  std::string key = cql::partition_key_bytes(key_parts);
  const schema::KeyLayout& layout = table.layout();
  std::string clustering;
  if (!static_only) {
    CASSETTE_RETURN_IF_ERROR(types::encode_clustering(
        layout.clustering_types, layout.clustering_orders(), clustering_parts, &clustering));
  }

  txn::Transaction& pending = t.connection->pending(t.store.get());
  const uint64_t statement = pending.next_statement();
  auto old = t.rowids.find(sqlite3_value_int64(argv[0]));
  bool same = old != t.rowids.end() && old->second.partition_key == key &&
              (old->second.static_only || old->second.clustering == clustering);
  if (!same) {
    return Status::invalid_argument(
        "UPDATE cannot change the primary key of a row of a cql table (CQL keys are "
        "immutable); DELETE the row and INSERT the new one");
  }
  const RowKey& row_read = old->second;  // the row as the statement read it

  storage::Row row, static_row;
  row.columns.reserve(n);
  std::optional<std::optional<storage::Row>> existing, existing_static;  // read lazily
  for (size_t i = 0; i < n; ++i) {
    const ColumnDef& c = table.columns[i];
    if (c.is_primary_key()) continue;
    if (sqlite3_value_nochange(values[t.sql_position[i]])) continue;
    if (t.dropped[i]) {  // dropped since the table was connected: only NULL fits it
      if (sqlite3_value_type(values[t.sql_position[i]]) == SQLITE_NULL) continue;
      return Status::invalid_argument(
          fmt::format("Undefined column name {} in table {}.{}", c.name, t.keyspace, t.name));
    }
    if (static_only && !c.is_static()) continue;  // NULL (check_static_only_write)
    CASSETTE_ASSIGN_OR_RETURN(types::Value v, cql_value(c.type, values[t.sql_position[i]], c.name));
    if (c.type.kind == types::TypeKind::kVector && t.schema_seen) {
      CASSETTE_RETURN_IF_ERROR(cql::check_indexable_vector(*t.schema_seen, table, c, v));
    }
    const bool is_static = c.is_static();
    auto& cache = is_static ? existing_static : existing;
    bool needs_row = c.type.is_multi_cell() && !w.timestamp_set;
    if (needs_row && !cache) {
      CASSETTE_ASSIGN_OR_RETURN(auto r, current_row(t, key, clustering, is_static));
      cache = std::move(r);
    }
    storage::Row& target = is_static ? static_row : row;
    if (c.type.is_counter()) {
      if (!v) {
        // Mostly `SET c = c + 1` on a counter the row does not have yet (SQL's NULL + 1).
        return Status::invalid_argument(fmt::format(
            "Invalid null value for counter increment/decrement of {0} (a counter this row does "
            "not have yet reads as NULL: SET {0} = coalesce({0}, 0) + n)",
            c.name));
      }
      const int64_t now_value = types::read_signed(*v);
      // The delta is against the value SQLite computed the new one from, not the store's now
      // (others may have added since).
      const std::vector<int64_t>& before = row_read.counters_read;
      int64_t delta = now_value - (before.empty() ? 0 : before[i]);
      storage::ColumnData data;
      data.id = c.id;
      data.cell = storage::Cell::counter(w.timestamp, delta);
      auto pos = std::lower_bound(
          target.columns.begin(), target.columns.end(), c.id,
          [](const storage::ColumnData& d, storage::ColumnId id) { return d.id < id; });
      target.columns.insert(pos, std::move(data));
      continue;
    }
    const storage::Row* current = cache && *cache ? &**cache : nullptr;
    CASSETTE_RETURN_IF_ERROR(set_column(w, c, std::move(v), target, current));
  }

  const auto kind = txn::Transaction::Kind::kWrite;
  // Rows read and then written: the commit fails if another changed them since the snapshot.
  if (!row.is_empty()) {
    CASSETTE_RETURN_IF_ERROR(pending.add(kind, t.table, key, false, clustering, row, statement));
    pending.add_conflict_key(t.table, key, false, clustering);
  }
  if (!static_row.is_empty()) {
    CASSETTE_RETURN_IF_ERROR(
        pending.add(kind, t.table, key, true, clustering, static_row, statement));
    pending.add_conflict_key(t.table, key, true, {});
  }
  return Status::ok();
}

Status write_row(CqlTable& t, int argc, sqlite3_value** argv) {
  const size_t n = t.cql_columns();
  if (static_cast<size_t>(argc) < 2 + n) return Status::internal("xUpdate got too few values.");
  CASSETTE_ASSIGN_OR_RETURN(cql::WriteParameters params, row_parameters(t, argv + 2 + n));
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return insert_row(t, argv + 2, params);
  return update_row(t, argv, params);
}

Status delete_row(CqlTable& t, sqlite3_int64 rowid) {
  auto it = t.rowids.find(rowid);
  if (it == t.rowids.end()) return Status::ok();  // a row SQLite never saw here: nothing to do
  const RowKey& k = it->second;
  const schema::TableDef& table = *t.table;
  txn::Transaction& pending = t.connection->pending(t.store.get());
  // A row read and then deleted: the commit fails if another changed it since the snapshot.
  pending.add_conflict_key(t.table, k.partition_key, k.static_only, k.clustering);
  const uint64_t statement = pending.next_statement();
  int64_t now = t.store->clock().now_seconds();
  if (k.static_only) {
    // A partition shown only through its static row: deleting it nulls the static columns.
    return pending.add(txn::Transaction::Kind::kWrite, t.table, k.partition_key, true, {},
                       write::static_row_deletion(table, storage::kAutoTimestamp, now), statement);
  }
  storage::Row row;
  row.deletion = {storage::kAutoTimestamp, now};
  return pending.add(txn::Transaction::Kind::kDeleteRow, t.table, k.partition_key, false,
                     k.clustering, row, statement);
}

}  // namespace

int cql_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64*) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    if (t->schema_seen != nullptr && t->table != nullptr) {
      Status view = cql::check_not_view(*t->table);
      if (!view.is_ok()) return t->error(view.message());
      // A base table's writes bring their view rows (Transaction::keep_views).
      cql::keep_views(t->connection->pending(t->store.get()), t->schema_seen);
    }
    Status s = argc == 1 ? delete_row(*t, sqlite3_value_int64(argv[0])) : write_row(*t, argc, argv);
    if (!s.is_ok()) return t->error(s.message());
    return SQLITE_OK;
  });
}

int cql_begin(sqlite3_vtab* vtab) {
  auto* t = reinterpret_cast<CqlTable*>(vtab);
  // Once per transaction rather than per row: a table dropped since it connected takes no
  // writes, a dropped column no values.
  int rc = guarded(vtab, [&] {
    Status s = t->refresh();
    return s.is_ok() ? SQLITE_OK : t->error(s.message());
  });
  if (rc != SQLITE_OK) return rc;
  t->in_transaction = true;
  return SQLITE_OK;
}

// The transaction callbacks report to the Connection, for every store: whichever table of the
// transaction hears of a savepoint, the commit or the rollback first acts on it for all
// (transaction_listener.cc explains why one table's view is not enough).
int cql_sync(sqlite3_vtab* vtab) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    Status s = t->connection->commit();
    if (!s.is_ok()) return commit_error(vtab, s);
    return SQLITE_OK;
  });
}

int cql_commit(sqlite3_vtab* vtab) {
  auto* t = reinterpret_cast<CqlTable*>(vtab);
  t->in_transaction = false;
  t->rowids.clear();
  return SQLITE_OK;
}

int cql_rollback(sqlite3_vtab* vtab) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    t->connection->rollback();
    t->in_transaction = false;
    t->rowids.clear();
    return SQLITE_OK;
  });
}

int cql_savepoint(sqlite3_vtab* vtab, int level) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    if (t->store) t->connection->pending(t->store.get());  // its store gets this mark too
    t->connection->savepoint(level);
    return SQLITE_OK;
  });
}

int cql_release(sqlite3_vtab* vtab, int level) {
  return guarded(vtab, [&] {
    reinterpret_cast<CqlTable*>(vtab)->connection->release(level);
    return SQLITE_OK;
  });
}

int cql_rollback_to(sqlite3_vtab* vtab, int level) {
  return guarded(vtab, [&] {
    reinterpret_cast<CqlTable*>(vtab)->connection->rollback_to(level);
    return SQLITE_OK;
  });
}

}  // namespace cassette::sqlite
