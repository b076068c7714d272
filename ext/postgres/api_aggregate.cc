// Aggregates folded by the engine for the PostgreSQL glue (cas_scan_aggregate, cassette_api.h):
// count(*), count(col), sum, min and max over the rows of a scan, or over each partition's rows
// (GROUP BY the partition key: a scan returns a partition's rows together), computed exactly as
// PostgreSQL's own aggregates would compute them over the same scan without pushdown.
//
// Why each rule holds:
//  - every value goes through the conversion the row scan uses (to_pg_number / to_pg_value), so
//    "null" is what PostgreSQL would have seen as NULL (a missing cell, a tombstone, an expired
//    TTL, an empty value of a fixed-width type) and numbers are the ones it would have summed;
//  - sums start from the first non-null value (PostgreSQL's strict transition functions with a
//    NULL initial state), so sum(float) of a single -0 is -0, and add in scan order, the order
//    the unpushed scan feeds PostgreSQL's executor; sum(int2/int4) adds in 64 bits as int4_sum
//    does, sum(int8) exactly (numeric, here 128 bits: it cannot overflow before 2^64 rows);
//  - a float sum that becomes infinite from finite operands is PostgreSQL's "value out of range:
//    overflow" (float4_pl / float8_pl), reported as CAS_AGGREGATE_FLOAT_OVERFLOW for the glue;
//  - min/max keep PostgreSQL's tie rule (its *larger / *smaller functions return the new value
//    unless the kept one is strictly greater / smaller: visible for numeric 1.5 vs 1.50), and
//    its order: integers and times as numbers, floats with NaN above everything and -0 = 0,
//    text and bytes by unsigned bytes (the glue pushes text down only under a C collation),
//    varint and decimal (numeric) by value.
// Results travel as the glue expects them (see cassette_api.h).
#include <cmath>
#include <cstring>

#include "engine/query/query.h"
#include "engine/types/value.h"
#include "ext/postgres/api_internal.h"

namespace cassette::pg {

struct AggregateState {
  struct Fold {
    cas_aggregate spec{};
    int64_t count = 0;      // count / count(*): rows counted
    bool has = false;       // sum, min, max: a non-null value was seen
    uint64_t sum_int = 0;   // sum(int2/int4): int8, wrapping as PostgreSQL's int4_sum
    __int128 sum_wide = 0;  // sum(int8): exact
    float sum_float4 = 0;   // sum(float4), in single precision as float4pl
    double sum_float8 = 0;  // sum(float8)
    cas_value best{};       // min/max: the kept value (numbers), converted
    std::string best_raw;   // min/max: the kept value's serialized bytes
    std::string text;       // the result's text (sum(int8)) or bytes
  };
  std::vector<Fold> folds;
  bool float_overflow = false;
  bool ended = false;     // the cursor has no more rows
  bool pending = false;   // the cursor's row starts the next group and is not folded yet
  bool in_group = false;  // grouped: rows of the current partition were folded
  bool emitted = false;   // ungrouped: the one group was returned
  std::vector<int> group_columns;
  std::string group_partition;          // the current group's serialized partition key
  std::vector<std::string> group_raw;   // its key columns' serialized values
  std::vector<std::string> group_text;  // their converted forms (text, bytes)
};

namespace {

bool float_lt(double a, double b) {
  return !std::isnan(a) && (std::isnan(b) || a < b);
}
bool float_gt(double a, double b) {
  return !std::isnan(b) && (std::isnan(a) || a > b);
}

// -1, 0 or 1 as PostgreSQL orders the kept value `kept` against `next` (both non-null).
int compare(const types::CqlType& type, cas_repr repr, const AggregateState::Fold& fold,
            const cas_value& next, std::string_view next_raw) {
  switch (repr) {
    case CAS_REPR_FLOAT4:
    case CAS_REPR_FLOAT8:
      return float_lt(fold.best.d, next.d) ? -1 : float_gt(fold.best.d, next.d) ? 1 : 0;
    case CAS_REPR_VARLENA: {
      std::string_view kept = fold.best_raw;
      int c = kept.compare(next_raw);  // char_traits<char>::compare is memcmp: unsigned bytes
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case CAS_REPR_TEXT:  // varint, decimal: numeric order is the value's
      return types::compare_values(type, fold.best_raw, next_raw);
    default:
      return fold.best.i < next.i ? -1 : fold.best.i > next.i ? 1 : 0;
  }
}

std::string int128_text(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

// Folds the current row of `cursor` into `fold`.
Status fold_row(query::QueryCursor& cursor, const schema::TableDef& def, AggregateState& state,
                AggregateState::Fold& fold, std::string* scratch) {
  const cas_aggregate& spec = fold.spec;
  if (spec.kind == CAS_AGG_COUNT_ROWS) {
    ++fold.count;
    return Status::ok();
  }
  const types::CqlType& type = def.columns[static_cast<size_t>(spec.column)].type;
  const std::optional<std::string_view> raw = cursor.value(static_cast<size_t>(spec.column));
  if (!raw) return Status::ok();
  cas_value v{};
  if (!to_pg_number(*raw, spec.repr, &v)) {
    CASSETTE_RETURN_IF_ERROR(to_pg_value(type, &*raw, spec.repr, &v, scratch));
  }
  if (v.isnull) return Status::ok();
  switch (spec.kind) {
    case CAS_AGG_COUNT_ROWS:
    case CAS_AGG_COUNT:
      ++fold.count;
      break;
    case CAS_AGG_SUM:
      if (spec.repr == CAS_REPR_FLOAT4) {
        const float x = static_cast<float>(v.d);
        if (!fold.has) {
          fold.sum_float4 = x;
        } else {
          const float r = fold.sum_float4 + x;
          if (std::isinf(r) && !std::isinf(fold.sum_float4) && !std::isinf(x)) {
            state.float_overflow = true;
          }
          fold.sum_float4 = r;
        }
      } else if (spec.repr == CAS_REPR_FLOAT8) {
        if (!fold.has) {
          fold.sum_float8 = v.d;
        } else {
          const double r = fold.sum_float8 + v.d;
          if (std::isinf(r) && !std::isinf(fold.sum_float8) && !std::isinf(v.d)) {
            state.float_overflow = true;
          }
          fold.sum_float8 = r;
        }
      } else if (spec.repr == CAS_REPR_INT8) {
        fold.sum_wide += v.i;
      } else {
        fold.sum_int += static_cast<uint64_t>(v.i);
      }
      fold.has = true;
      break;
    case CAS_AGG_MIN:
    case CAS_AGG_MAX: {
      bool keep = false;
      if (fold.has) {
        const int c = compare(type, spec.repr, fold, v, *raw);
        keep = spec.kind == CAS_AGG_MIN ? c < 0 : c > 0;
      }
      if (!keep) {
        fold.best = v;
        fold.best_raw.assign(raw->data(), raw->size());
        fold.has = true;
      }
      break;
    }
  }
  return Status::ok();
}

Status result_of(const schema::TableDef& def, AggregateState::Fold& fold, cas_value* out) {
  const cas_aggregate& spec = fold.spec;
  *out = cas_value{};
  if (spec.kind == CAS_AGG_COUNT_ROWS || spec.kind == CAS_AGG_COUNT) {
    out->i = fold.count;
    return Status::ok();
  }
  if (!fold.has) {
    out->isnull = 1;  // sum, min, max of no values: NULL
    return Status::ok();
  }
  if (spec.kind == CAS_AGG_SUM) {
    switch (spec.repr) {
      case CAS_REPR_FLOAT4:
        out->d = fold.sum_float4;
        break;
      case CAS_REPR_FLOAT8:
        out->d = fold.sum_float8;
        break;
      case CAS_REPR_INT8:
        fold.text = int128_text(fold.sum_wide);
        out->data = fold.text.data();
        out->len = fold.text.size();
        break;
      default:
        out->i = static_cast<int64_t>(fold.sum_int);
        break;
    }
    return Status::ok();
  }
  // min/max: the kept value converted again, into storage that outlives this call.
  const std::string_view kept = fold.best_raw;
  return to_pg_value(def.columns[static_cast<size_t>(spec.column)].type, &kept, spec.repr, out,
                     &fold.text);
}

bool valid_spec(const cas_aggregate& spec, size_t ncolumns) {
  if (spec.kind == CAS_AGG_COUNT_ROWS) return true;
  if (spec.column < 0 || static_cast<size_t>(spec.column) >= ncolumns) return false;
  switch (spec.kind) {
    case CAS_AGG_SUM:
      return spec.repr == CAS_REPR_INT2 || spec.repr == CAS_REPR_INT4 ||
             spec.repr == CAS_REPR_INT8 || spec.repr == CAS_REPR_FLOAT4 ||
             spec.repr == CAS_REPR_FLOAT8;
    case CAS_AGG_MIN:
    case CAS_AGG_MAX:
      return spec.repr != CAS_REPR_BOOL && spec.repr != CAS_REPR_UUID &&
             spec.repr != CAS_REPR_INTERVAL;
    default:
      return true;
  }
}

}  // namespace
}  // namespace cassette::pg

using namespace cassette;
using namespace cassette::pg;

namespace cassette::pg {
namespace {

// The finished group: results[k] per aggregate, group_values[g] per group column.
Status emit_group(const schema::TableDef& def, AggregateState& state, cas_value* results,
                  cas_value* group_values) {
  for (size_t k = 0; k < state.folds.size(); ++k) {
    CASSETTE_RETURN_IF_ERROR(result_of(def, state.folds[k], &results[k]));
  }
  for (size_t g = 0; g < state.group_columns.size(); ++g) {
    const schema::ColumnDef& column = def.columns[static_cast<size_t>(state.group_columns[g])];
    const std::string_view raw = state.group_raw[g];
    group_values[g] = cas_value{};
    CASSETTE_RETURN_IF_ERROR(to_pg_value(column.type, &raw, natural_repr(column.type),
                                         &group_values[g], &state.group_text[g]));
    // Raw bytes point into group_raw, which lives until the next group starts.
  }
  return Status::ok();
}

// A new group starts at the cursor's row: fresh folds, the partition's key values.
void start_group(query::QueryCursor& cursor, AggregateState& state) {
  for (AggregateState::Fold& fold : state.folds) {
    AggregateState::Fold fresh;
    fresh.spec = fold.spec;
    fold = std::move(fresh);
  }
  state.group_partition = cursor.partition_key();
  for (size_t g = 0; g < state.group_columns.size(); ++g) {
    std::optional<std::string_view> v = cursor.value(static_cast<size_t>(state.group_columns[g]));
    state.group_raw[g].assign(v ? v->data() : "", v ? v->size() : 0);
  }
  state.in_group = true;
}

}  // namespace
}  // namespace cassette::pg

extern "C" int cas_scan_aggregate(cas_scan* scan, const cas_aggregate* aggregates, int count,
                                  const int* group_columns, int ngroup, int max_rows,
                                  cas_value* results, cas_value* group_values, int* outcome) {
  return guarded([&]() -> Status {
    *outcome = CAS_AGGREGATE_MORE;
    const schema::TableDef& def = *scan->def;
    if (!scan->aggregate) {
      auto state = std::make_shared<AggregateState>();
      for (int k = 0; k < count; ++k) {
        if (!valid_spec(aggregates[k], def.columns.size())) {
          return Status::invalid_argument("cassette_fdw: an aggregate the engine cannot compute");
        }
        if (aggregates[k].kind != CAS_AGG_COUNT_ROWS) {
          CASSETTE_RETURN_IF_ERROR(
              check_readable(*scan, static_cast<size_t>(aggregates[k].column)));
        }
        AggregateState::Fold fold;
        fold.spec = aggregates[k];
        state->folds.push_back(std::move(fold));
      }
      for (int g = 0; g < ngroup; ++g) {
        const int c = group_columns[g];
        if (c < 0 || static_cast<size_t>(c) >= def.columns.size() ||
            def.columns[static_cast<size_t>(c)].kind != schema::ColumnKind::kPartitionKey) {
          return Status::invalid_argument("cassette_fdw: groups are partitions");
        }
        state->group_columns.push_back(c);
      }
      state->group_raw.resize(state->group_columns.size());
      state->group_text.resize(state->group_columns.size());
      scan->aggregate = std::move(state);
    }
    AggregateState& state = *scan->aggregate;
    const bool grouped = !state.group_columns.empty();
    query::QueryCursor& cursor = *scan->cursor;
    std::string scratch;
    for (int r = 0; r < max_rows && !state.ended; ++r) {
      if (!state.pending && !cursor.next()) {
        CASSETTE_RETURN_IF_ERROR(cursor.status());
        state.ended = true;
        break;
      }
      state.pending = false;
      if (grouped) {
        if (state.in_group && cursor.partition_key() != state.group_partition) {
          state.pending = true;  // this row is the next group's first
          state.in_group = false;
          CASSETTE_RETURN_IF_ERROR(emit_group(def, state, results, group_values));
          *outcome = CAS_AGGREGATE_GROUP;
          return Status::ok();
        }
        if (!state.in_group) start_group(cursor, state);
      }
      for (AggregateState::Fold& fold : state.folds) {
        CASSETTE_RETURN_IF_ERROR(fold_row(cursor, def, state, fold, &scratch));
      }
      if (state.float_overflow) {
        *outcome = CAS_AGGREGATE_FLOAT_OVERFLOW;
        return Status::ok();
      }
    }
    if (!state.ended) return Status::ok();
    // The end: the last partition's group, or the one group of an ungrouped aggregate (even
    // over no rows: count 0, the others null).
    if (grouped ? state.in_group : !state.emitted) {
      state.in_group = false;
      state.emitted = true;
      CASSETTE_RETURN_IF_ERROR(emit_group(def, state, results, group_values));
      *outcome = CAS_AGGREGATE_GROUP;
      return Status::ok();
    }
    *outcome = CAS_AGGREGATE_END;
    return Status::ok();
  });
}
