// Scans for the PostgreSQL glue (cassette_api.h), on the shared planner engine/query: the glue's
// restrictions, ORDER BY and LIMIT become a query::PlanRequest, plan_query() chooses the access
// path (partition lookups, clustering prefix and slice, order, limit), and a QueryCursor streams
// its rows. The plan travels to the executor in its encoded text form (Plan::encode/decode),
// which is what PostgreSQL keeps in the plan tree.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "engine/codec/current_row.h"
#include "engine/codec/table_codec.h"
#include "engine/query/query.h"
#include "engine/storage/sai_component.h"
#include "engine/util/hash64.h"
#include "ext/postgres/api_internal.h"

namespace cassette::pg {

namespace {

using query::Operator;

std::set<cas_scan*>& open_scans() {
  static std::set<cas_scan*> scans;
  return scans;
}

struct PlanText {
  std::string description;
  std::string encoded;
};

PlanText& plan_text() {
  static PlanText text;
  return text;
}

Operator to_operator(cas_op op) {
  switch (op) {
    case CAS_OP_EQ:
      return Operator::kEq;
    case CAS_OP_LT:
      return Operator::kLt;
    case CAS_OP_LE:
      return Operator::kLe;
    case CAS_OP_GT:
      return Operator::kGt;
    case CAS_OP_GE:
      return Operator::kGe;
    case CAS_OP_IN:
      return Operator::kIn;
  }
  return Operator::kEq;
}

// A value bound to argument `op` on `column`. CQL timestamps are milliseconds: a PostgreSQL
// bound with microseconds moves to the millisecond that keeps the comparison exact (t >= x.5
// is t >= x+1, t > x.5 is t > x, t < x.5 is t < x+1, t <= x.5 is t <= x) and an = on it
// matches nothing (null). A value the column cannot hold (out of range) equals no row.
Result<types::Value> bound_value(const schema::ColumnDef& column, Operator op, cas_value v,
                                 cas_repr repr) {
  if (v.isnull) return types::Value();
  bool equality = op == Operator::kEq || op == Operator::kIn;
  if (repr == CAS_REPR_TIMESTAMPTZ && v.i % 1000 != 0) {
    if (equality) return types::Value();
    int64_t floor = v.i - ((v.i % 1000) + 1000) % 1000;
    v.i = (op == Operator::kGe || op == Operator::kLt) ? floor + 1000 : floor;
  }
  auto value = from_pg_value(column.type, v, repr, column.name);
  if (!value && equality) return types::Value();
  return value;
}

// Where an integer bound lies that the column's type cannot hold (a bigint parameter against an
// int column): 0 inside the range (or not an integer), +1 above it, -1 below it.
int beyond_range(const schema::ColumnDef& column, const cas_value& v, cas_repr repr) {
  if (v.isnull || (repr != CAS_REPR_INT2 && repr != CAS_REPR_INT4 && repr != CAS_REPR_INT8)) {
    return 0;
  }
  auto range = integer_range(column.type);
  if (!range) return 0;
  return v.i > range->second ? 1 : v.i < range->first ? -1 : 0;
}

// A slice bound beyond the column's range bounds nothing (c < 5000000000 on an int column holds
// for every row) or excludes everything (c > 5000000000): true for the former.
bool bounds_nothing(Operator op, int beyond) {
  bool upper = op == Operator::kLt || op == Operator::kLe;
  bool lower = op == Operator::kGt || op == Operator::kGe;
  return (beyond > 0 && upper) || (beyond < 0 && lower);
}

// By column: whether a cursor of `plan` decodes its values (query::Plan::value_columns): every
// column without a list; else the key, the listed columns and those the plan restricts (bind()
// adds their cells).
std::vector<uint8_t> readable_columns(const schema::TableDef& def, const query::Plan& plan) {
  const size_t n = def.columns.size();
  if (!plan.value_columns) return std::vector<uint8_t>(n, 1);
  std::vector<uint8_t> readable(n, 0);
  for (size_t c = 0; c < n; ++c) readable[c] = def.columns[c].is_primary_key() ? 1 : 0;
  for (int c : *plan.value_columns) {
    if (c >= 0 && static_cast<size_t>(c) < n) readable[static_cast<size_t>(c)] = 1;
  }
  for (const query::Constraint& a : plan.arguments) {
    if (a.column >= 0 && static_cast<size_t>(a.column) < n)
      readable[static_cast<size_t>(a.column)] = 1;
  }
  return readable;
}

}  // namespace

// A scan's column `column` is among those its plan decodes (cas_scan::readable): else the
// internal error a value() of another column would be, before any row (no wrong NULL is read).
Status check_readable(const cas_scan& scan, size_t column) {
  if (column < scan.readable.size() && scan.readable[column]) return Status::ok();
  return Status::internal(
      fmt::format("cassette_fdw: column {} is read but is not among the columns of the scan's plan",
                  column < scan.def->columns.size() ? scan.def->columns[column].name : "?"));
}

// The lock identity of `table` (cas_scan_row_lock_ids): its store's directory, resolved so that
// two spellings of one path agree, and its storage id, which a recreated table does not reuse.
uint64_t table_lock_id(cas_table& table) {
  if (!table.lock_space) {
    std::error_code error;
    std::filesystem::path directory = std::filesystem::weakly_canonical(table.store_path, error);
    if (error) directory = table.store_path;
    const uint64_t id = table.def->table_id;
    table.lock_space = hash64(std::string_view(reinterpret_cast<const char*>(&id), sizeof id),
                              hash64(directory.string()));
  }
  return *table.lock_space;
}

// The row a row-locking scan stopped at, re-read under READ COMMITTED (cas_scan_reread).
Status reread_row(cas_scan& scan, txn::Transaction* transaction, uint32_t command, cas_value* out,
                  int* exists) {
  query::QueryCursor& cursor = *scan.cursor;
  const schema::TableDef& def = *scan.def;
  std::shared_ptr<const storage::Snapshot> snapshot;
  if (transaction != nullptr) {
    CASSETTE_ASSIGN_OR_RETURN(snapshot, transaction->read_view(command));
  } else {
    CASSETTE_ASSIGN_OR_RETURN(snapshot, scan.table->store->snapshot());
  }
  std::optional<std::string> clustering;
  if (!cursor.is_static_only()) clustering = cursor.clustering();
  CASSETTE_ASSIGN_OR_RETURN(cql::CurrentRow current,
                            cql::read_current_row(*scan.table->store, *snapshot, def,
                                                  cursor.partition_key(), clustering));
  *exists = (clustering ? current.row.has_value() : current.static_row.has_value()) ? 1 : 0;
  if (!*exists) return Status::ok();
  static const storage::Row kNoRow;
  for (size_t i : scan.wanted) {
    const schema::ColumnDef& c = def.columns[i];
    if (c.is_primary_key()) continue;  // the key is the one the scan found
    const storage::Row& row = c.is_static() ? (current.static_row ? *current.static_row : kNoRow)
                                            : (current.row ? *current.row : kNoRow);
    const types::Value value = cql::read_column(c, row);
    const std::string_view bytes = value ? std::string_view(*value) : std::string_view();
    CASSETTE_RETURN_IF_ERROR(
        to_pg_value(c.type, value ? &bytes : nullptr, scan.reprs[i], &out[i], &scan.buffers[i]));
    // Raw bytes point into `value`, which ends with this iteration: keep a copy.
    if (!out[i].isnull && (scan.reprs[i] == CAS_REPR_VARLENA || scan.reprs[i] == CAS_REPR_UUID)) {
      scan.buffers[i].assign(out[i].data, out[i].len);
      out[i].data = scan.buffers[i].data();
    }
  }
  return Status::ok();
}

void release_open_scans() {
  for (cas_scan* scan : open_scans()) delete scan;
  open_scans().clear();
}

}  // namespace cassette::pg

using namespace cassette;
using namespace cassette::pg;

extern "C" {

int cas_plan(cas_table* table, const cas_constraint* constraints, int count,
             const cas_order_term* order, int norder, int64_t limit, cas_plan_info* out) {
  return guarded([&]() -> Status {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot,
                              table->store->snapshot());
    query::TableStatistics stats = query::table_statistics(*snapshot, *table->def);
    query::PlanRequest request;
    for (size_t c = 0; c < table->columns.size(); ++c) {
      if (table->columns[c].indexed) request.indexed_columns.push_back(static_cast<int>(c));
    }
    count = std::min(count, CAS_MAX_CONSTRAINTS);
    for (int i = 0; i < count; ++i) {
      query::Constraint c;
      c.column = constraints[i].column;
      c.op = to_operator(constraints[i].op);
      if (constraints[i].known_count >= 0) c.known_count = constraints[i].known_count;
      request.constraints.push_back(c);
    }
    if (limit >= 0) {
      query::Constraint c;
      c.column = 0;
      c.op = Operator::kLimit;
      c.known_count = limit;
      request.constraints.push_back(c);
    }
    for (int i = 0; i < norder; ++i) {
      request.order_by.push_back(query::OrderTerm{order[i].column, order[i].descending != 0});
    }
    query::Plan plan = query::plan_query(*table->def, request, stats);
    out->partition_lookup = plan.access == query::AccessKind::kPartitions ? 1 : 0;
    for (int i = 0; i < CAS_MAX_CONSTRAINTS; ++i) {
      out->argument_of[i] = i < count ? plan.argument_of[static_cast<size_t>(i)] : -1;
    }
    out->arguments = static_cast<int>(plan.arguments.size());  // LIMIT/OFFSET are not among them
    out->order_satisfied = plan.order_satisfied ? 1 : 0;
    out->limit_consumed = plan.limit_consumed ? 1 : 0;
    out->rows = plan.estimated_rows;
    out->cost = plan.estimated_cost;
    out->table_rows = stats.rows;
    PlanText& text = plan_text();
    text.description = plan.explain(*table->def);
    text.encoded = plan.encode(*table->def);
    out->description = text.description.c_str();
    out->encoded = text.encoded.c_str();
    return Status::ok();
  });
}

int cas_plan_reads(cas_table* table, const char* encoded, const int* read, const char** out) {
  return guarded([&]() -> Status {
    const schema::TableDef& def = *table->def;
    CASSETTE_ASSIGN_OR_RETURN(query::Plan plan, query::Plan::decode(encoded, def));
    std::vector<int> columns;
    for (size_t c = 0; c < def.columns.size(); ++c) {
      if (read[c]) columns.push_back(static_cast<int>(c));
    }
    if (columns.size() == def.columns.size()) {
      plan.value_columns.reset();  // every column: no list
    } else {
      plan.value_columns = std::move(columns);
    }
    PlanText& text = plan_text();
    text.encoded = plan.encode(def);
    *out = text.encoded.c_str();
    return Status::ok();
  });
}

int cas_scan_open(cas_table* table, const char* encoded, const cas_value* const* values,
                  const int* value_counts, const cas_repr* value_reprs, int nargs, int64_t limit,
                  const cas_repr* reprs, const int* wanted, uint32_t command, cas_scan** out) {
  return guarded([&]() -> Status {
    const schema::TableDef& def = *table->def;
    CASSETTE_ASSIGN_OR_RETURN(query::Plan plan, query::Plan::decode(encoded, def));
    query::Bindings bindings;
    std::vector<query::Constraint> arguments;  // without the slice bounds that bound nothing
    for (size_t p = 0; p < plan.arguments.size(); ++p) {
      const query::Constraint& argument = plan.arguments[p];
      arguments.push_back(argument);
      if (p >= static_cast<size_t>(nargs)) continue;  // the cursor refuses the missing values
      const schema::ColumnDef& column = def.columns[static_cast<size_t>(argument.column)];
      if (argument.op != query::Operator::kEq && argument.op != query::Operator::kIn &&
          value_counts[p] == 1 &&
          bounds_nothing(argument.op, beyond_range(column, values[p][0], value_reprs[p]))) {
        arguments.pop_back();
        continue;
      }
      std::vector<types::Value> bound;
      for (int j = 0; j < value_counts[p]; ++j) {
        // Beyond the range, = matches nothing and so does a slice that is not dropped above.
        types::Value v;
        if (beyond_range(column, values[p][j], value_reprs[p]) == 0) {
          CASSETTE_ASSIGN_OR_RETURN(v,
                                    bound_value(column, argument.op, values[p][j], value_reprs[p]));
        }
        bound.push_back(std::move(v));
      }
      bindings.values.push_back(std::move(bound));
    }
    plan.arguments = std::move(arguments);
    if (plan.limit_consumed) bindings.limit = limit;
    auto scan = std::make_unique<cas_scan>();
    scan->table = table;
    scan->def = table->def;
    size_t n = def.columns.size();
    scan->reprs.assign(reprs, reprs + n);
    scan->readable = readable_columns(def, plan);
    for (size_t i = 0; i < n; ++i) {
      if (!wanted[i]) continue;
      CASSETTE_RETURN_IF_ERROR(check_readable(*scan, i));
      scan->wanted.push_back(i);
      if (reprs[i] == CAS_REPR_TEXT || reprs[i] == CAS_REPR_VARLENA || reprs[i] == CAS_REPR_UUID) {
        scan->needs_buffers = true;
      }
    }
    scan->buffers.resize(n);
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot,
                              read_snapshot(table, command));
    if (plan.access == query::AccessKind::kIndexScan) {
      bindings.index_analysis = table->index_analysis;
    }
    const uint64_t index_reads = storage::sai_index_reads();
    CASSETTE_ASSIGN_OR_RETURN(
        scan->cursor,
        query::QueryCursor::open(*table->store, snapshot, table->def, plan, std::move(bindings)));
    scan->index_reads = static_cast<int64_t>(storage::sai_index_reads() - index_reads);
    open_scans().insert(scan.get());
    *out = scan.release();
    return Status::ok();
  });
}

int cas_scan_next(cas_scan* scan, cas_value* out, int* has_row) {
  return guarded([&]() -> Status {
    *has_row = 0;
    if (!scan->cursor->next()) return scan->cursor->status();
    const schema::TableDef& def = *scan->def;
    for (size_t i : scan->wanted) {  // a full scan's cost is per row: only what the query reads
      const std::optional<std::string_view> value = scan->cursor->value(i);
      CASSETTE_RETURN_IF_ERROR(to_pg_value(def.columns[i].type, value ? &*value : nullptr,
                                           scan->reprs[i], &out[i], &scan->buffers[i]));
    }
    *has_row = 1;
    return Status::ok();
  });
}

int cas_scan_next_batch(cas_scan* scan, cas_value* out, int max_rows, int* nrows) {
  return guarded([&]() -> Status {
    *nrows = 0;
    if (!scan->deferred.is_ok()) return std::exchange(scan->deferred, Status::ok());
    if (scan->ended) return Status::ok();
    const schema::TableDef& def = *scan->def;
    const size_t ncolumns = def.columns.size();
    // Buffers only for the columns that need them (text forms, bytes copied out of the row).
    std::string unused;
    const bool buffered = scan->needs_buffers;
    if (buffered && scan->batch_buffers.size() < static_cast<size_t>(max_rows) * ncolumns) {
      scan->batch_buffers.resize(static_cast<size_t>(max_rows) * ncolumns);
    }
    query::QueryCursor& cursor = *scan->cursor;
    int r = 0;
    for (; r < max_rows; ++r) {
      if (!cursor.next()) {
        scan->ended = true;
        break;
      }
      cas_value* row = out + static_cast<size_t>(r) * ncolumns;
      std::string* buffers =
          buffered ? scan->batch_buffers.data() + static_cast<size_t>(r) * ncolumns : nullptr;
      for (size_t i : scan->wanted) {
        const std::optional<std::string_view> value = cursor.value(i);
        if (value && to_pg_number(*value, scan->reprs[i], &row[i])) continue;
        Status status = to_pg_value(def.columns[i].type, value ? &*value : nullptr, scan->reprs[i],
                                    &row[i], buffered ? &buffers[i] : &unused);
        if (!status.is_ok()) {
          *nrows = r;
          if (r == 0) return status;
          scan->deferred = std::move(status);
          return Status::ok();
        }
        // Raw bytes point into the cursor's row, which the next row replaces: keep a copy.
        if (!row[i].isnull &&
            (scan->reprs[i] == CAS_REPR_VARLENA || scan->reprs[i] == CAS_REPR_UUID)) {
          buffers[i].assign(row[i].data, row[i].len);
          row[i].data = buffers[i].data();
        }
      }
    }
    *nrows = r;
    if (scan->ended && !cursor.status().is_ok()) {
      if (r == 0) return cursor.status();
      scan->deferred = cursor.status();
    }
    return Status::ok();
  });
}

int cas_scan_row_lock_ids(cas_scan* scan, uint64_t* table_id, uint64_t* row_id) {
  return guarded([&]() -> Status {
    const query::QueryCursor& cursor = *scan->cursor;
    *table_id = table_lock_id(*scan->table);
    // Unambiguous: the partition key's length first; a static row has no clustering.
    std::string identity = std::to_string(cursor.partition_key().size());
    identity += ':';
    identity += cursor.partition_key();
    identity += cursor.is_static_only() ? 'S' : 'R';
    if (!cursor.is_static_only()) identity += cursor.clustering();
    *row_id = hash64(identity, *table_id);
    return Status::ok();
  });
}

int cas_scan_reread(cas_scan* scan, uint32_t command, cas_value* values, int* exists) {
  return guarded([&]() -> Status {
    *exists = 1;
    txn::Transaction* transaction = find_store_transaction(scan->table->store.get());
    if (transaction != nullptr && transaction->snapshot_pinned()) {
      const query::QueryCursor& cursor = *scan->cursor;
      return transaction->check_row_unchanged(scan->def, cursor.partition_key(),
                                              cursor.is_static_only(), cursor.clustering());
    }
    return reread_row(*scan, transaction, command, values, exists);
  });
}

void cas_scan_close(cas_scan* scan) {
  if (open_scans().erase(scan)) delete scan;
}

int64_t cas_scan_index_reads(const cas_scan* scan) {
  return scan->index_reads;
}

int cas_table_estimate(cas_table* table, double* rows) {
  return guarded([&]() -> Status {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot,
                              table->store->snapshot());
    *rows = query::table_statistics(*snapshot, *table->def).rows;
    return Status::ok();
  });
}

}  // extern "C"
