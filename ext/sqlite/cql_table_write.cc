// Writing a cql virtual table: xUpdate turns each SQL row change into a CQL mutation appended to
// the connection's pending writes for the store (engine/txn/transaction.h); the transaction
// callbacks commit them (xSync: one atomic store write per transaction), discard them, or mark and
// truncate them for savepoints.
//
// INSERT = CQL INSERT (row marker + every non-key column; NULL writes a null, except a NULL
// static column, which is left unset so inserting rows does not erase the partition's static
// values). UPDATE = CQL UPDATE of the assigned columns (sqlite3_vtab_nochange tells which).
// DELETE = CQL row deletion. INSERT OR IGNORE / ON CONFLICT DO NOTHING = IF NOT EXISTS.
#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/storage/encoded_row_writer.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/partition_key.h"
#include "engine/types/scalar.h"
#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

using schema::ColumnDef;
using schema::ColumnKind;

struct RowWriter {
  CqlTable& t;
  const schema::TableDef& table;
  int64_t timestamp = storage::kAutoTimestamp;
  bool timestamp_set = false;
  int64_t ttl = 0;
  int64_t now_seconds = 0;
  int64_t now_micros = 0;

  storage::Cell cell(std::optional<std::string>&& value) const {
    if (!value) return storage::Cell::tombstone(timestamp, now_seconds);
    if (ttl > 0) return storage::Cell::expiring(timestamp, ttl, now_seconds, std::move(*value));
    return storage::Cell::live(timestamp, std::move(*value));
  }

  // Adds column `c` set to `value` to `row` (columns kept sorted by id).
  Status set(const ColumnDef& c, types::Value value, storage::Row& row,
             const storage::Row* existing) const {
    storage::ColumnData data;
    data.id = c.id;
    if (c.type.is_multi_cell()) {
      cql::RowBuilder builder;
      cql::ColumnOperation op;
      op.kind = cql::ColumnOperation::Kind::kSetValue;
      op.column = &c;
      op.value = std::move(value);
      cql::WriteParameters params{timestamp, timestamp_set, ttl, now_seconds, now_micros};
      CASSETTE_RETURN_IF_ERROR(cql::apply_operation(op, params, existing, builder));
      storage::Row built = builder.build();
      if (built.columns.empty()) return Status::ok();
      data = std::move(built.columns.front());
    } else {
      data.cell = cell(std::move(value));
    }
    auto pos = std::lower_bound(
        row.columns.begin(), row.columns.end(), c.id,
        [](const storage::ColumnData& d, storage::ColumnId id) { return d.id < id; });
    row.columns.insert(pos, std::move(data));
    return Status::ok();
  }
};

// Buffers write_row reuses from row to row, so that a bulk INSERT allocates nothing per row.
struct RowScratch {
  std::vector<std::string> key_parts, clustering_parts;  // sized up, never shrunk
  std::vector<std::string> values;  // an INSERT's non-key values, as KeyLayout::non_key_columns
  std::vector<char> nulls;
  storage::EncodedRowWriter writer;
  std::string encoded;
};

// The current row at (key, clustering), for collection overwrites.
Result<std::optional<storage::Row>> current_row(CqlTable& t, const std::string& key,
                                                const std::optional<std::string>& clustering,
                                                bool static_row) {
  CASSETTE_ASSIGN_OR_RETURN(auto committed, t.store->snapshot());
  // As this transaction sees it: its own pending writes included.
  CASSETTE_ASSIGN_OR_RETURN(auto snapshot,
                            t.connection->pending(t.store.get()).with_overlay(committed));
  CASSETTE_ASSIGN_OR_RETURN(cql::CurrentRow current,
                            cql::read_current_row(*t.store, *snapshot, *t.table, key,
                                                  static_row ? std::nullopt : clustering));
  return static_row ? std::move(current.static_row) : std::move(current.row);
}

// A write without clustering key is the static row's alone, as in CQL: every clustering column
// NULL, the table has static columns, and no regular column is given a value (an UPDATE of a
// row SQLite read as a static-only partition, or an INSERT of the partition key and statics).
// Otherwise the NULL clustering column is an error, Cassandra's.
Status check_static_only_write(const CqlTable& t, sqlite3_value** argv, size_t clustering_given,
                               const ColumnDef& null_column) {
  const schema::TableDef& table = *t.table;
  const bool is_update = sqlite3_value_type(argv[0]) != SQLITE_NULL;
  bool ok = clustering_given == 0 && table.has_static_columns();
  if (ok && is_update) {
    auto old = t.rowids.find(sqlite3_value_int64(argv[0]));
    ok = old != t.rowids.end() && old->second.static_only;
  }
  for (size_t i = 0; ok && i < t.cql_columns(); ++i) {
    const ColumnDef& c = table.columns[i];
    if (c.kind != ColumnKind::kRegular) continue;
    sqlite3_value* v = argv[2 + t.sql_position[i]];
    if (is_update && sqlite3_value_nochange(v)) continue;
    ok = sqlite3_value_type(v) == SQLITE_NULL;
  }
  if (ok) return Status::ok();
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", null_column.name));
}

Status write_row(CqlTable& t, int argc, sqlite3_value** argv) {
  const schema::TableDef& table = *t.table;
  const size_t n = t.cql_columns();
  sqlite3_value** values = argv + 2;
  const bool is_update = sqlite3_value_type(argv[0]) != SQLITE_NULL;
  if (static_cast<size_t>(argc) < 2 + n) return Status::internal("xUpdate got too few values.");

  RowWriter w{t, table};
  w.now_micros = t.store->clock().now_micros();
  w.now_seconds = w.now_micros / 1'000'000;
  w.ttl = table.params.default_time_to_live;
  for (size_t h = 0; h < t.hidden.size(); ++h) {
    sqlite3_value* v = values[n + h];
    if (sqlite3_value_type(v) == SQLITE_NULL) continue;
    if (t.hidden[h].kind == HiddenColumn::Kind::kCqlTtl) {
      if (sqlite3_value_type(v) != SQLITE_INTEGER) {
        return Status::invalid_argument("cql_ttl must be an integer number of seconds");
      }
      int64_t ttl = sqlite3_value_int64(v);
      if (ttl < 0) {
        return Status::invalid_argument(
            fmt::format("A TTL must be greater or equal to 0, but was {}", ttl));
      }
      if (ttl > storage::kMaxTtlSeconds) {
        return Status::invalid_argument(fmt::format("ttl is too large. requested ({}) maximum ({})",
                                                    ttl, storage::kMaxTtlSeconds));
      }
      w.ttl = ttl;
    } else if (t.hidden[h].kind == HiddenColumn::Kind::kCqlTimestamp) {
      if (sqlite3_value_type(v) != SQLITE_INTEGER) {
        return Status::invalid_argument("cql_timestamp must be an integer number of microseconds");
      }
      w.timestamp = sqlite3_value_int64(v);
      w.timestamp_set = true;
    }
  }
  if (table.is_counter_table()) w.ttl = 0;

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
  // No clustering key: a write of the static row alone, as CQL's INSERT/UPDATE naming only the
  // partition key and static columns (README "Writes").
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
  const RowKey* row_read = nullptr;  // an UPDATE's row as the statement read it
  if (is_update) {
    auto old = t.rowids.find(sqlite3_value_int64(argv[0]));
    bool same = old != t.rowids.end() && old->second.partition_key == key &&
                (old->second.static_only || old->second.clustering == clustering);
    if (!same) {
      return Status::invalid_argument(
          "UPDATE cannot change the primary key of a row of a cql table (CQL keys are "
          "immutable); DELETE the row and INSERT the new one");
    }
    row_read = &old->second;
  } else if (table.is_counter_table()) {
    return Status::invalid_argument(
        "INSERT statements are not allowed on counter tables, use UPDATE instead");
  }
  const bool if_not_exists =
      !is_update && sqlite3_vtab_on_conflict(t.connection->db()) == SQLITE_IGNORE;
  const auto kind =
      if_not_exists ? txn::Transaction::Kind::kInsertIfNotExists : txn::Transaction::Kind::kWrite;

  if (!is_update && layout.single_cell_rows && !static_only && !t.any_dropped) {
    // An INSERT of plain columns: the values are converted (in column order, so the first bad
    // one is the one reported, as below) into reused buffers and encoded straight into the
    // row's storage form, the bytes the Row path below would encode: a row marker, then one
    // cell per column in id order (NULL a tombstone, else live or expiring).
    const size_t m = layout.non_key_columns.size();
    if (scratch.values.size() < m) scratch.values.resize(m);
    scratch.nulls.resize(m);
    for (size_t j = 0; j < m; ++j) {
      const ColumnDef& c = table.columns[layout.non_key_columns[j]];
      bool is_null = false;
      CASSETTE_RETURN_IF_ERROR(cql_value_into(c.type,
                                              values[t.sql_position[layout.non_key_columns[j]]],
                                              c.name, &scratch.values[j], &is_null));
      scratch.nulls[j] = is_null;
    }
    storage::EncodedRowWriter& writer = scratch.writer;
    writer.start(storage::LivenessInfo::written(w.timestamp, w.ttl, w.now_seconds));
    for (size_t j : layout.non_key_by_id) {
      const storage::ColumnId id = table.columns[layout.non_key_columns[j]].id;
      if (scratch.nulls[j]) {
        writer.add_tombstone(id, w.timestamp, w.now_seconds);
      } else if (w.ttl > 0) {
        writer.add_expiring(id, w.timestamp, w.ttl, w.now_seconds, scratch.values[j]);
      } else {
        writer.add_live(id, w.timestamp, scratch.values[j]);
      }
    }
    scratch.encoded.clear();
    writer.finish(&scratch.encoded);
    return pending.add_encoded(kind, t.table, key, false, clustering, scratch.encoded, statement);
  }

  storage::Row row, static_row;
  row.columns.reserve(n);
  if (!is_update && !static_only) {
    row.liveness = storage::LivenessInfo::written(w.timestamp, w.ttl, w.now_seconds);
  }
  std::optional<std::optional<storage::Row>> existing, existing_static;  // read lazily
  for (size_t i = 0; i < n; ++i) {
    const ColumnDef& c = table.columns[i];
    if (c.is_primary_key()) continue;
    if (is_update && sqlite3_value_nochange(values[t.sql_position[i]])) continue;
    if (t.dropped[i]) {  // dropped since the table was connected: only NULL fits it
      if (sqlite3_value_type(values[t.sql_position[i]]) == SQLITE_NULL) continue;
      return Status::invalid_argument(
          fmt::format("Undefined column name {} in table {}.{}", c.name, t.keyspace, t.name));
    }
    if (static_only && !c.is_static()) continue;  // NULL (check_static_only_write)
    CASSETTE_ASSIGN_OR_RETURN(types::Value v, cql_value(c.type, values[t.sql_position[i]], c.name));
    const bool is_static = c.is_static();
    if (is_static && !v && !is_update) continue;  // a NULL static in INSERT: left unset
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
      // Counter tables take only UPDATEs, so `row_read` is set: the delta is against the value
      // SQLite computed the new one from, not the store's now (others may have added since).
      const std::vector<int64_t>& before = row_read->counters_read;
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
    CASSETTE_RETURN_IF_ERROR(w.set(c, std::move(v), target, current));
  }

  const bool has_clustering_row =
      !static_only && (!table.clustering().empty() || !is_update || !row.columns.empty());
  if (!row.is_empty() ||
      (kind == txn::Transaction::Kind::kInsertIfNotExists && has_clustering_row)) {
    CASSETTE_RETURN_IF_ERROR(pending.add(kind, t.table, key, false, clustering, row, statement));
  }
  if (!static_row.is_empty()) {
    CASSETTE_RETURN_IF_ERROR(
        pending.add(kind, t.table, key, true, clustering, static_row, statement));
  }
  return Status::ok();
}

Status delete_row(CqlTable& t, sqlite3_int64 rowid) {
  auto it = t.rowids.find(rowid);
  if (it == t.rowids.end()) return Status::ok();  // a row SQLite never saw here: nothing to do
  const RowKey& k = it->second;
  const schema::TableDef& table = *t.table;
  txn::Transaction& pending = t.connection->pending(t.store.get());
  const uint64_t statement = pending.next_statement();
  int64_t now = t.store->clock().now_seconds();
  storage::Row row;
  if (k.static_only) {
    // A partition shown only through its static row: deleting it nulls the static columns.
    for (const ColumnDef& c : table.columns) {
      if (!c.is_static()) continue;
      storage::ColumnData data;
      data.id = c.id;
      data.complex = c.type.is_multi_cell();
      if (data.complex) {
        data.complex_deletion = {storage::kAutoTimestamp, now};
      } else {
        data.cell = storage::Cell::tombstone(storage::kAutoTimestamp, now);
      }
      row.columns.push_back(std::move(data));
    }
    return pending.add(txn::Transaction::Kind::kWrite, t.table, k.partition_key, true, {}, row,
                       statement);
  }
  row.deletion = {storage::kAutoTimestamp, now};
  return pending.add(txn::Transaction::Kind::kDeleteRow, t.table, k.partition_key, false,
                     k.clustering, row, statement);
}

}  // namespace

int cql_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64*) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
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
    if (!s.is_ok()) return t->error(s.message());
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
