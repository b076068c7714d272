// Reading a cql virtual table: xBestIndex turns SQLite's constraints into an engine/query
// PlanRequest and reports the plan (idxNum = access path, idxStr = Plan::encode, README.md),
// xFilter binds the argument values and opens a streaming QueryCursor. A GROUP BY or DISTINCT
// that the clustering order does not give is grouped here (grouped_rows.h): idxStr then starts
// with the grouping, "group <columns> keep <columns> | <plan>".
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <thread>

#include "engine/types/scalar.h"
#include "engine/util/hash64.h"
#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/grouped_rows.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

// The engine/query column for an SQL column index: a CQL column, the token, or -2 (none).
int query_column(const CqlTable& t, int sql_column) {
  if (sql_column < 0) return -2;
  size_t n = t.cql_columns();
  if (static_cast<size_t>(sql_column) < n)
    return static_cast<int>(t.sql_order[static_cast<size_t>(sql_column)]);
  size_t h = static_cast<size_t>(sql_column) - n;
  if (h < t.hidden.size() && t.hidden[h].kind == HiddenColumn::Kind::kToken)
    return query::kTokenColumn;
  return -2;
}

// Whether the store may apply LIMIT/OFFSET itself: only when SQLite will not filter the rows it
// returns. That needs every constraint SQLite offered to have gone to the planner as one SQLite
// need not check again (`passed` lists the aConstraint indexes that did) and none of them to be
// a >= or <=: SQLite 3.40 offers a row-value comparison `(c, d) > (3, 'q')` as `c >= 3` and
// re-checks the whole comparison itself whatever `omit` says, while still offering the LIMIT;
// the two cannot be told apart.
bool limit_is_safe(const sqlite3_index_info& info, const std::vector<int>& passed) {
  for (int i = 0; i < info.nConstraint; ++i) {
    int op = info.aConstraint[i].op;
    if (op == SQLITE_INDEX_CONSTRAINT_LIMIT || op == SQLITE_INDEX_CONSTRAINT_OFFSET) continue;
    if (std::find(passed.begin(), passed.end(), i) == passed.end()) return false;
    bool inclusive = op == SQLITE_INDEX_CONSTRAINT_GE || op == SQLITE_INDEX_CONSTRAINT_LE;
    if (inclusive && info.aConstraint[i].usable) return false;
  }
  return true;
}

// An argument value as SQLite compares it with the column: a copy with the column's numeric
// affinity applied when it has one (xFilter's own values must not change: SQLite may use them
// again), else the value itself.
class ComparedValue {
 public:
  ComparedValue(const types::CqlType& type, sqlite3_value* value) : value_(value) {
    if (has_numeric_affinity(type) && sqlite3_value_type(value) == SQLITE_TEXT) {
      copy_ = sqlite3_value_dup(value);
      if (copy_) {
        sqlite3_value_numeric_type(copy_);
        value_ = copy_;
      }
    }
  }
  ~ComparedValue() { sqlite3_value_free(copy_); }
  ComparedValue(const ComparedValue&) = delete;
  ComparedValue& operator=(const ComparedValue&) = delete;
  sqlite3_value* get() const { return value_; }

 private:
  sqlite3_value* value_;
  sqlite3_value* copy_ = nullptr;
};

// The value bound to one argument, by SQLite's comparison rules. A value of another storage
// class than the column's decides the comparison alone: an EQ matches nothing (nullopt); a
// range keeps every row or none. Keeping every row becomes the inclusive bound at the type's
// extreme in the same direction (`*op` changes), so the slice still excludes static-only rows,
// whose clustering columns SQL sees as NULL.
types::Value bound_value(const types::CqlType& type, sqlite3_value* raw, query::Operator* op,
                         bool* every_row) {
  ComparedValue value(type, raw);
  const bool range = *op != query::Operator::kEq && *op != query::Operator::kIn;
  const bool upper = *op == query::Operator::kLt || *op == query::Operator::kLe;
  const ClassOrder order = class_order(type, value.get());
  bool all = upper == (order == ClassOrder::kAboveAll);
  if (order == ClassOrder::kSameClass && range && compares_as_formatted_text(type)) {
    const bool inclusive = *op == query::Operator::kGe || *op == query::Operator::kLe;
    FormattedTextBound bound = formatted_text_bound(type, value.get(), upper, inclusive);
    if (bound.kind != FormattedTextBound::kEveryRow) {
      *op = bound.kind == FormattedTextBound::kFrom ? query::Operator::kGe : query::Operator::kLt;
      return std::move(bound.value);
    }
    all = true;
  } else if (order == ClassOrder::kSameClass) {
    const bool round_up = *op == query::Operator::kGe || *op == query::Operator::kLt;
    return constraint_value(type, value.get(), range, round_up);
  }
  if (!range || !all) return std::nullopt;
  types::Value extreme = extreme_value(type, upper);
  if (extreme) {
    *op = upper ? query::Operator::kLe : query::Operator::kGe;
  } else {
    *every_row = true;  // no greatest value (text): the caller rewrites the bound
  }
  return extreme;
}

// An upper bound that keeps every row of a type without a greatest value (`text_column <
// x'00'`, a blob above every text) becomes a lower one: a copy of the column's other lower
// bound when there is one (the cursor keeps one bound per side), else `>= ''`.
void keep_every_row(query::Plan& plan, query::Bindings& bindings, size_t i) {
  query::Constraint& a = plan.arguments[i];
  for (size_t j = 0; j < plan.arguments.size(); ++j) {
    const query::Constraint& other = plan.arguments[j];
    if (j == i || other.column != a.column) continue;
    if (other.op == query::Operator::kGt || other.op == query::Operator::kGe) {
      a.op = other.op;
      bindings.values[i] = bindings.values[j];
      return;
    }
  }
  a.op = query::Operator::kGe;
  bindings.values[i] = {types::Value(std::string())};
}

// How much of a read the store groups in memory for SQLite (grouped_rows.h): reads estimated
// bigger are left to SQLite's sorter, and a read that turns out bigger spills to a file.
constexpr size_t kGroupingMemory = 256 << 20;

// The grouping for an ORDER BY that SQLite wants only for GROUP BY or DISTINCT and the plan's
// order does not give: "group 3,0d keep 0 1 3 w4 t4 | " (grouping columns, 'd' for descending;
// the columns whose values, writetimes (w) and TTLs (t) the statement uses, from colUsed, and
// "token" when it uses the token). None when a term is not a groupable column or the read looks
// too big to group in memory.
std::optional<std::string> grouping_prefix(const CqlTable& t, const sqlite3_index_info* info,
                                           const query::Plan& plan,
                                           const query::TableStatistics& stats) {
  if (info->nOrderBy == 0 || plan.order_satisfied) return std::nullopt;
  // 1: GROUP BY; 3: DISTINCT with an ORDER BY of the same columns. (For a bare DISTINCT, 2,
  // SQLite 3.40 keeps its own b-tree whatever the table does: grouping would only add work.)
  const int distinct = sqlite3_vtab_distinct(const_cast<sqlite3_index_info*>(info));
  if (distinct != 1 && distinct != 3) return std::nullopt;
  const double row_bytes = stats.rows > 0 ? stats.bytes / stats.rows : 100;
  if (plan.estimated_rows * row_bytes > static_cast<double>(kGroupingMemory)) return std::nullopt;
  const schema::TableDef& table = *t.table;
  std::string prefix = "group ";
  std::vector<size_t> grouped;
  for (int i = 0; i < info->nOrderBy; ++i) {
    int column = query_column(t, info->aOrderBy[i].iColumn);
    if (column < 0 || !groupable(table.columns[static_cast<size_t>(column)].type)) {
      return std::nullopt;
    }
    prefix += fmt::format("{}{}{}", i > 0 ? "," : "", column, info->aOrderBy[i].desc ? "d" : "");
    grouped.push_back(static_cast<size_t>(column));
  }
  auto used = [&](size_t sql_column) {
    return ((info->colUsed >> std::min<size_t>(sql_column, 63)) & 1) != 0;
  };
  prefix += " keep";
  const size_t n = t.cql_columns();
  for (size_t j = 0; j < n; ++j) {
    const size_t column = t.sql_order[j];
    const bool term = std::find(grouped.begin(), grouped.end(), column) != grouped.end();
    if (used(j) || term) prefix += fmt::format(" {}", column);
  }
  for (size_t h = 0; h < t.hidden.size(); ++h) {
    if (!used(n + h)) continue;
    if (t.hidden[h].kind == HiddenColumn::Kind::kToken) prefix += " token";
    if (t.hidden[h].kind == HiddenColumn::Kind::kWritetime)
      prefix += fmt::format(" w{}", t.hidden[h].column);
    if (t.hidden[h].kind == HiddenColumn::Kind::kTtl)
      prefix += fmt::format(" t{}", t.hidden[h].column);
  }
  return prefix + " | ";
}

// The columns the statement reads, as Plan::value_columns: from SQLite's colUsed (bit i for SQL
// column i, bit 63 for every column from the 63rd on; a writetime_<c> or ttl_<c> column reads
// c's cell) and the ORDER BY terms (the store may group by them). nullopt when that is every
// column, and for a counter table (xRowid remembers every counter the statement read).
std::optional<std::vector<int>> value_columns(const CqlTable& t, const sqlite3_index_info& info) {
  if (t.table->is_counter_table()) return std::nullopt;
  auto used = [&](size_t sql_column) {
    return ((info.colUsed >> std::min<size_t>(sql_column, 63)) & 1) != 0;
  };
  const size_t n = t.cql_columns();
  std::vector<uint8_t> read(n, 0);
  for (size_t j = 0; j < n; ++j) {
    if (used(j)) read[t.sql_order[j]] = 1;
  }
  for (size_t h = 0; h < t.hidden.size(); ++h) {
    const HiddenColumn::Kind kind = t.hidden[h].kind;
    if (used(n + h) &&
        (kind == HiddenColumn::Kind::kWritetime || kind == HiddenColumn::Kind::kTtl)) {
      read[t.hidden[h].column] = 1;
    }
  }
  for (int i = 0; i < info.nOrderBy; ++i) {
    const int column = query_column(t, info.aOrderBy[i].iColumn);
    if (column >= 0) read[static_cast<size_t>(column)] = 1;
  }
  if (std::find(read.begin(), read.end(), 0) == read.end()) return std::nullopt;
  std::vector<int> columns;
  for (size_t i = 0; i < n; ++i) {
    if (read[i]) columns.push_back(static_cast<int>(i));
  }
  return columns;
}

// idxNum: the access path (AccessKind + 1), and this bit when colUsed names every column, as
// SQLite's UPDATE does: only then may xColumn be asked for a value the UPDATE does not change
// (sqlite3_vtab_nochange), a call xColumn otherwise saves.
constexpr int kMayKeepValues = 0x100;

// Splits idxStr into the grouping grouping_prefix() wrote (if any) and the plan.
struct Grouping {
  std::vector<GroupTerm> terms;
  KeptColumns keep;
};
Result<std::optional<Grouping>> parse_grouping(std::string_view* idx_str, size_t columns) {
  if (!idx_str->starts_with("group ")) return std::optional<Grouping>();
  const size_t bar = idx_str->find(" | ");
  auto bad = [&] {
    return Status::invalid_argument(fmt::format("Malformed query plan \"{}\"", *idx_str));
  };
  if (bar == std::string_view::npos) return bad();
  std::string_view spec = idx_str->substr(6, bar - 6);
  *idx_str = idx_str->substr(bar + 3);
  Grouping g;
  auto number = [&](std::string_view text, size_t* out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
    return ec == std::errc() && end == text.data() + text.size() && *out < columns;
  };
  const size_t keep = spec.find(" keep");
  if (keep == std::string_view::npos) return bad();
  std::string_view terms = spec.substr(0, keep);
  while (!terms.empty()) {
    const size_t comma = terms.find(',');
    std::string_view term = terms.substr(0, comma);
    terms = comma == std::string_view::npos ? std::string_view() : terms.substr(comma + 1);
    GroupTerm t;
    t.descending = term.ends_with('d');
    if (t.descending) term.remove_suffix(1);
    if (!number(term, &t.column)) return bad();
    g.terms.push_back(t);
  }
  std::string_view kept = spec.substr(keep + 5);
  while (!kept.empty()) {
    if (kept[0] != ' ') return bad();
    kept.remove_prefix(1);
    std::string_view item = kept.substr(0, kept.find(' '));
    kept.remove_prefix(item.size());
    if (item == "token") {
      g.keep.token = true;
      continue;
    }
    std::vector<size_t>* list = &g.keep.values;
    if (item.starts_with('w')) list = &g.keep.writetimes;
    if (item.starts_with('t')) list = &g.keep.ttls;
    if (list != &g.keep.values) item.remove_prefix(1);
    size_t column;
    if (!number(item, &column)) return bad();
    list->push_back(column);
  }
  if (g.terms.empty()) return bad();
  return std::optional<Grouping>(std::move(g));
}

// The reads a grouped full scan is split into, to be read at the same time (grouped_rows.h):
// token ranges of about equal size, one per core (at most 4) and per 50,000 rows. None (empty)
// for other plans and small tables: the plan is read as one cursor.
Result<std::vector<std::unique_ptr<query::QueryCursor>>> token_range_parts(
    const CqlTable& t, const std::shared_ptr<const storage::Snapshot>& snapshot,
    const query::Plan& plan) {
  std::vector<std::unique_ptr<query::QueryCursor>> parts;
  constexpr double kRowsPerPart = 50'000;
  if (plan.access != query::AccessKind::kFullScan || !plan.arguments.empty() ||
      plan.limit_consumed || plan.offset_consumed) {
    return parts;
  }
  const double table_rows = query::table_statistics(*snapshot, *t.table).rows;
  const auto cores = static_cast<uint64_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  const uint64_t n =
      std::min<uint64_t>(cores, static_cast<uint64_t>(table_rows / kRowsPerPart) + 1);
  if (n < 2) return parts;
  auto bigint = [](int64_t v) {
    return types::Value(types::store_be(static_cast<uint64_t>(v), 8));
  };
  const uint64_t step = UINT64_MAX / n + 1;  // tokens span 2^64 values
  for (uint64_t k = 0; k < n; ++k) {
    const auto lo = static_cast<int64_t>(static_cast<uint64_t>(INT64_MIN) + k * step);
    const auto hi = static_cast<int64_t>(static_cast<uint64_t>(lo) + step);
    // The plan "token-range token()>= token()<" (the first part has no lower bound, the last
    // no upper one).
    query::Plan range;
    range.access = query::AccessKind::kTokenRange;
    range.order_satisfied = true;
    range.value_columns = plan.value_columns;
    query::Bindings bindings;
    if (k > 0) {
      range.arguments.push_back({query::kTokenColumn, query::Operator::kGe, true, std::nullopt});
      bindings.values.push_back({bigint(lo)});
    }
    if (k + 1 < n) {
      range.arguments.push_back({query::kTokenColumn, query::Operator::kLt, true, std::nullopt});
      bindings.values.push_back({bigint(hi)});
    }
    CASSETTE_ASSIGN_OR_RETURN(auto part, query::QueryCursor::open(*t.store, snapshot, t.table,
                                                                  range, std::move(bindings)));
    parts.push_back(std::move(part));
  }
  return parts;
}

// The counters of the cursor's row as this statement reads them (RowKey::counters_read).
void remember_counters(const CqlTable& t, query::QueryCursor& rows, RowKey& key) {
  const auto& columns = t.table->columns;
  key.counters_read.assign(columns.size(), 0);
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i].type.is_counter()) continue;
    std::optional<std::string_view> v = rows.value(i);
    if (!v || v->size() != 8) continue;
    key.counters_read[i] = types::read_int64(*v);
  }
}

}  // namespace

int cql_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guarded(vtab, [&] {
    auto* t = reinterpret_cast<CqlTable*>(vtab);
    if (Status s = t->refresh(); !s.is_ok()) return t->error(s.message());
    t->redeclare_columns();  // this statement is prepared again before it runs
    const schema::TableDef& table = *t->table;
    query::PlanRequest request;
    request.indexed_columns = t->indexed_columns;
    std::vector<int> sqlite_index;  // request constraint -> aConstraint index
    std::vector<bool> rechecked;    // request constraint -> SQLite must check it again
    bool equal_on_float = false;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      query::Constraint q;
      q.usable = c.usable != 0;
      switch (c.op) {
        case SQLITE_INDEX_CONSTRAINT_LIMIT:
        case SQLITE_INDEX_CONSTRAINT_OFFSET: {
          q.op = c.op == SQLITE_INDEX_CONSTRAINT_LIMIT ? query::Operator::kLimit
                                                       : query::Operator::kOffset;
          sqlite3_value* v = nullptr;
          if (sqlite3_vtab_rhs_value(info, i, &v) == SQLITE_OK && v &&
              sqlite3_value_type(v) == SQLITE_INTEGER) {
            q.known_count = sqlite3_value_int64(v);
          }
          request.constraints.push_back(q);
          sqlite_index.push_back(i);
          rechecked.push_back(false);
          continue;
        }
        default:
          break;
      }
      int column = query_column(*t, c.iColumn);
      if (column == -2) continue;
      const types::CqlType* type = column == query::kTokenColumn
                                       ? nullptr
                                       : &table.columns[static_cast<size_t>(column)].type;
      bool text_like =
          type && (type->kind == types::TypeKind::kText || type->kind == types::TypeKind::kAscii);
      if (text_like) {
        const char* collation = sqlite3_vtab_collation(info, i);
        if (collation && sqlite3_stricmp(collation, "BINARY") != 0) continue;
      }
      q.column = column;
      switch (c.op) {
        case SQLITE_INDEX_CONSTRAINT_EQ:
          q.op = sqlite3_vtab_in(info, i, -1) ? query::Operator::kIn : query::Operator::kEq;
          break;
        case SQLITE_INDEX_CONSTRAINT_LT:
          q.op = query::Operator::kLt;
          break;
        case SQLITE_INDEX_CONSTRAINT_LE:
          q.op = query::Operator::kLe;
          break;
        case SQLITE_INDEX_CONSTRAINT_GT:
          q.op = query::Operator::kGt;
          break;
        case SQLITE_INDEX_CONSTRAINT_GE:
          q.op = query::Operator::kGe;
          break;
        default:
          continue;
      }
      bool range = q.op != query::Operator::kEq && q.op != query::Operator::kIn;
      if (range && type && !sql_order_matches_cql(*type)) continue;
      if (type && (type->is_multi_cell() || type->kind == types::TypeKind::kCounter)) continue;
      request.constraints.push_back(q);
      sqlite_index.push_back(i);
      // SQLite checks these again, the store only narrowing the read: ranges on formatted text
      // (formatted_text_bound says why) and on floats (NaN, NULL to SQL, is above all in the
      // store).
      rechecked.push_back(range && type &&
                          (compares_as_formatted_text(*type) || has_two_zeros(*type)));
      // SQL's zero is two values of a float column, so EQ may read two clustering prefixes.
      if (!range && type && has_two_zeros(*type)) equal_on_float = true;
    }
    std::vector<int> exact;  // the aConstraint indexes the store's read satisfies alone
    for (size_t r = 0; r < sqlite_index.size(); ++r) {
      if (!rechecked[r]) exact.push_back(sqlite_index[r]);
    }
    // ORDER BY is the store's order only on columns whose SQL values sort as CQL orders them
    // (not uuid, inet or decimal text, ...), and not after an EQ on a float (two prefixes).
    bool order_mappable = !equal_on_float;
    for (int i = 0; i < info->nOrderBy; ++i) {
      int column = query_column(*t, info->aOrderBy[i].iColumn);
      if (column == -2 ||
          (column >= 0 && !sql_sort_matches_cql(table.columns[static_cast<size_t>(column)].type))) {
        order_mappable = false;
      }
      request.order_by.push_back({column == -2 ? 0 : column, info->aOrderBy[i].desc != 0});
    }
    if (!order_mappable || !limit_is_safe(*info, exact)) {
      // SQLite checks what the store does not (IS NULL, LIKE, a hidden column, an ORDER BY term
      // the store cannot give...) on the rows the cursor returns: cutting those rows short at
      // LIMIT/OFFSET first would lose rows that pass. SQLite still stops reading at the LIMIT.
      for (query::Constraint& c : request.constraints) {
        if (c.op == query::Operator::kLimit || c.op == query::Operator::kOffset) c.usable = false;
      }
    }
    auto snapshot = t->store->snapshot();
    if (!snapshot.is_ok()) return t->error(snapshot.status().message());
    query::TableStatistics stats = query::table_statistics(*snapshot.value(), table);
    query::Plan plan = query::plan_query(table, request, stats);
    if (plan.access != query::AccessKind::kPartitions && equal_on_float) {
      // SQL's zero is both of a float's zeros: two clustering prefixes, which only a partition
      // lookup reads (xFilter turns the EQ into an IN); a scan leaves such an EQ to SQLite.
      bool dropped = false;
      for (size_t r = 0; r < request.constraints.size(); ++r) {
        const query::Constraint& c = request.constraints[r];
        if (plan.argument_of[r] < 0 || c.column < 0 || c.op != query::Operator::kEq) continue;
        const schema::ColumnDef& column = table.columns[static_cast<size_t>(c.column)];
        if (column.kind != schema::ColumnKind::kClustering || !has_two_zeros(column.type)) continue;
        request.constraints[r].usable = false;
        dropped = true;
      }
      if (dropped) plan = query::plan_query(table, request, stats);
    }
    if (!order_mappable) plan.order_satisfied = false;

    for (size_t r = 0; r < request.constraints.size(); ++r) {
      int argument = plan.argument_of[r];
      if (argument < 0) continue;
      int i = sqlite_index[r];
      info->aConstraintUsage[i].argvIndex = argument + 1;
      info->aConstraintUsage[i].omit = rechecked[r] ? 0 : 1;
      if (request.constraints[r].op == query::Operator::kIn) sqlite3_vtab_in(info, i, 1);
    }
    info->idxNum = static_cast<int>(plan.access) + 1;
    if (info->colUsed == ~sqlite3_uint64{0}) info->idxNum |= kMayKeepValues;
    plan.value_columns = value_columns(*t, *info);
    std::string encoded = plan.encode(table);
    std::optional<std::string> grouping =
        order_mappable ? grouping_prefix(*t, info, plan, stats) : std::nullopt;
    if (grouping) encoded = *grouping + encoded;
    info->idxStr = sqlite3_mprintf("%s", encoded.c_str());
    info->needToFreeIdxStr = 1;
    info->orderByConsumed = (plan.order_satisfied && info->nOrderBy > 0) || grouping ? 1 : 0;
    // Grouping reads every row once more, from memory: linear, where SQLite's sort is not.
    info->estimatedCost = plan.estimated_cost + (grouping ? plan.estimated_rows : 0);
    info->estimatedRows = static_cast<sqlite3_int64>(plan.estimated_rows);
    // One row at most: every primary key column given by equality.
    if (plan.access == query::AccessKind::kPartitions) {
      size_t eq = 0;
      for (const query::Constraint& a : plan.arguments) {
        if (a.op == query::Operator::kEq && a.column >= 0 &&
            table.columns[static_cast<size_t>(a.column)].is_primary_key()) {
          ++eq;
        }
      }
      size_t keys = table.partition_key().size() + table.clustering().size();
      if (eq == keys) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    }
    return SQLITE_OK;
  });
}

int cql_open(sqlite3_vtab*, sqlite3_vtab_cursor** cursor) {
  auto* c = new (std::nothrow) CqlCursor();
  if (c == nullptr) return SQLITE_NOMEM;
  *cursor = &c->base;
  return SQLITE_OK;
}

int cql_close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<CqlCursor*>(cursor);
  return SQLITE_OK;
}

Result<const query::Plan*> CqlTable::decoded_plan(std::string_view text) {
  auto found = plans.find(text);
  if (found != plans.end()) return &found->second;
  CASSETTE_ASSIGN_OR_RETURN(query::Plan plan, query::Plan::decode(text, *table));
  // SQLite makes a handful of idxStr per table (one per access path a statement uses); the
  // bound only guards against a host that keeps inventing new ones.
  constexpr size_t kMaxPlans = 64;
  if (plans.size() >= kMaxPlans) plans.clear();
  return &plans.emplace(std::string(text), std::move(plan)).first->second;
}

int cql_filter(sqlite3_vtab_cursor* cursor, int idx_num, const char* idx_str, int argc,
               sqlite3_value** argv) {
  auto* c = reinterpret_cast<CqlCursor*>(cursor);
  CqlTable* t = c->table();
  return guarded(&t->base, [&] {
    c->rows.reset();
    c->eof = true;
    c->may_keep_values = (idx_num & kMayKeepValues) != 0;
    auto committed = t->store->snapshot();
    if (!committed.is_ok()) return t->error(committed.status().message());
    if (Status s = t->refresh(committed.value()->seq); !s.is_ok()) return t->error(s.message());
    t->redeclare_columns();  // for the next statement: this one has begun
    const schema::TableDef& table = *t->table;
    std::string_view plan_text = idx_str ? idx_str : "scan";
    auto grouping = parse_grouping(&plan_text, table.columns.size());
    if (!grouping.is_ok()) return t->error(grouping.status().message());
    Result<const query::Plan*> decoded = t->decoded_plan(plan_text);
    if (!decoded.is_ok()) return t->error(decoded.status().message());
    // The decoded plan, or a copy of it once binding rewrites one of its arguments' operators
    // (most statements bind without rewriting: no copy).
    const query::Plan* bound_plan = decoded.value();
    std::optional<query::Plan> rewritten;
    auto rewrite = [&](size_t i, query::Operator op) {
      if (!rewritten) bound_plan = &rewritten.emplace(*bound_plan);
      rewritten->arguments[i].op = op;
    };
    query::Bindings bindings;
    const size_t arguments = bound_plan->arguments.size();
    size_t needed = arguments + bound_plan->limit_consumed + bound_plan->offset_consumed;
    if (static_cast<size_t>(argc) != needed) {
      return t->error("The cql module got a different number of values than its plan needs.");
    }
    bindings.values.reserve(arguments);
    std::vector<size_t> every_row;  // arguments keep_every_row() must rewrite
    for (size_t i = 0; i < arguments; ++i) {
      const query::Constraint& a = bound_plan->arguments[i];
      query::Operator op = a.op;
      static const types::CqlType token_type = types::CqlType::simple(types::TypeKind::kBigint);
      const types::CqlType& type = a.column == query::kTokenColumn
                                       ? token_type
                                       : table.columns[static_cast<size_t>(a.column)].type;
      std::vector<types::Value> values;
      if (op == query::Operator::kIn) {
        sqlite3_value* v = nullptr;
        for (int rc = sqlite3_vtab_in_first(argv[i], &v); rc == SQLITE_OK && v;
             rc = sqlite3_vtab_in_next(argv[i], &v)) {
          query::Operator in_op = op;
          bool all = false;
          values.push_back(bound_value(type, v, &in_op, &all));
        }
      } else {
        bool all = false;
        values.push_back(bound_value(type, argv[i], &op, &all));
        if (all) every_row.push_back(i);
      }
      if (op == query::Operator::kEq || op == query::Operator::kIn) {
        // SQL's zero equals both of a float's zeros: look both up.
        const size_t given = values.size();
        for (size_t j = 0; j < given && has_two_zeros(type); ++j) {
          if (types::Value other = values[j] ? other_zero(type, *values[j]) : std::nullopt) {
            values.push_back(std::move(other));
            op = query::Operator::kIn;
          }
        }
      }
      if (op != bound_plan->arguments[i].op) rewrite(i, op);
      bindings.values.push_back(std::move(values));
    }
    if (!every_row.empty() && !rewritten) rewritten.emplace(*bound_plan);
    for (size_t i : every_row) keep_every_row(*rewritten, bindings, i);
    const query::Plan& plan = rewritten ? *rewritten : *bound_plan;
    size_t next = plan.arguments.size();
    if (plan.limit_consumed) bindings.limit = sqlite3_value_int64(argv[next++]);
    if (plan.offset_consumed) bindings.offset = sqlite3_value_int64(argv[next++]);
    if (plan.access == query::AccessKind::kIndexScan) bindings.index_analysis = t->index_analysis;
    // Reads see the transaction's snapshot and its own pending writes.
    auto transaction = t->connection->reading(t->store.get(), t->in_transaction);
    if (!transaction.is_ok()) return t->error(transaction.status().message());
    auto base = transaction.value()->committed_view(committed.value());
    if (!base.is_ok()) return t->error(base.status().message());
    auto snapshot = transaction.value()->with_overlay(base.value());
    if (!snapshot.is_ok()) return t->error(snapshot.status().message());
    std::optional<Grouping>& g = grouping.value();
    // A column dropped since the table connected reads as NULL: one value for SQLite, whatever
    // is stored, so it groups nothing (and grouping on its stored values would split groups).
    if (g) std::erase_if(g->terms, [&](const GroupTerm& term) { return t->dropped[term.column]; });
    const bool grouped = g && !g->terms.empty();
    std::vector<std::unique_ptr<query::QueryCursor>> parts;
    if (grouped) {
      auto split = token_range_parts(*t, snapshot.value(), plan);
      if (!split.is_ok()) return t->error(split.status().message());
      parts = std::move(split).value();
    }
    if (parts.empty()) {
      auto rows = query::QueryCursor::open(*t->store, snapshot.value(), t->table, plan,
                                           std::move(bindings));
      if (!rows.is_ok()) return t->error(rows.status().message());
      parts.push_back(std::move(rows).value());
    }
    c->rows = grouped ? group_rows(std::move(parts), t->table, std::move(g->terms),
                                   std::move(g->keep), kGroupingMemory)
                      : std::move(parts.front());
    c->values_terminated = c->rows->values_nul_terminated();
    return cql_next(cursor);
  });
}

int cql_next(sqlite3_vtab_cursor* cursor) {
  auto* c = reinterpret_cast<CqlCursor*>(cursor);
  return guarded(cursor->pVtab, [&] {
    c->eof = !c->rows || !c->rows->next();
    c->values_indexed = false;
    if (c->eof && c->rows && !c->rows->status().is_ok()) {
      return c->table()->error(c->rows->status().message());
    }
    return SQLITE_OK;
  });
}

int cql_eof(sqlite3_vtab_cursor* cursor) {
  return reinterpret_cast<CqlCursor*>(cursor)->eof;
}

int cql_column(sqlite3_vtab_cursor* cursor, sqlite3_context* context, int column) {
  auto* c = reinterpret_cast<CqlCursor*>(cursor);
  return guarded(cursor->pVtab, [&] {
    CqlTable* t = c->table();
    const size_t n = t->reads.size();
    size_t i = static_cast<size_t>(column);
    if (i < n) {
      const CqlTable::ColumnRead& read = t->reads[i];
      // An UPDATE that does not assign this column: no need to produce it (xUpdate keeps it).
      // A column dropped since the table was connected reads as NULL.
      if (!read.key &&
          (t->dropped[read.column] || (c->may_keep_values && sqlite3_vtab_nochange(context)))) {
        return SQLITE_OK;
      }
      // The row's values indexed once (QueryCursor::row_values), at its first value.
      if (!c->values_indexed) {
        c->values = c->rows->row_values();
        c->values_indexed = true;
      }
      if (c->values != nullptr) {
        const std::string_view v = c->values[read.column];
        if (v.data() != nullptr)
          result_value(context, read.kind, *read.type, v, c->values_terminated);
        return SQLITE_OK;
      }
      std::optional<std::string_view> v = c->rows->value(read.column);
      if (v) {
        result_value(context, read.kind, *read.type, *v, c->values_terminated);
      } else if (!c->rows->status().is_ok()) {  // a value that fails to decode reads as none
        return t->error(c->rows->status().message());
      }
      return SQLITE_OK;
    }
    if (i - n >= t->hidden.size()) return SQLITE_OK;
    const HiddenColumn& h = t->hidden[i - n];
    std::optional<int64_t> v;
    switch (h.kind) {
      case HiddenColumn::Kind::kToken:
        v = c->rows->token();
        break;
      case HiddenColumn::Kind::kWritetime:
        if (!t->dropped[h.column]) v = c->rows->writetime(h.column);
        break;
      case HiddenColumn::Kind::kTtl:
        if (!t->dropped[h.column]) v = c->rows->ttl(h.column);
        break;
      default:
        break;
    }
    if (v) sqlite3_result_int64(context, *v);
    return SQLITE_OK;
  });
}

int cql_rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  auto* c = reinterpret_cast<CqlCursor*>(cursor);
  return guarded(cursor->pVtab, [&] {
    CqlTable* t = c->table();
    const std::string& key = c->rows->partition_key();
    const std::string& clustering = c->rows->clustering();
    bool static_only = c->rows->is_static_only();
    uint64_t h = hash64(key, 0x5eed) ^ (hash64(clustering, 0xc1a5) * 31) ^ (static_only ? 1 : 0);
    int64_t id = static_cast<int64_t>(h >> 1);  // non-negative
    // Probe past the (astronomically rare) collision with another row.
    while (true) {
      auto it = t->rowids.find(id);
      if (it == t->rowids.end()) {
        if (t->rowids.size() > 4'000'000 && !t->in_transaction) t->rowids.clear();
        RowKey row{key, static_only ? std::string() : clustering, static_only, {}};
        it = t->rowids.emplace(id, std::move(row)).first;
      } else if (it->second.partition_key != key || it->second.static_only != static_only ||
                 (!static_only && it->second.clustering != clustering)) {
        ++id;
        continue;
      }
      if (t->table->is_counter_table()) remember_counters(*t, *c->rows, it->second);
      break;
    }
    *rowid = id;
    return SQLITE_OK;
  });
}

}  // namespace cassette::sqlite
