// The access path of a SELECT from its merged restrictions: the partition keys to read (in
// Cassandra's order), the clustering byte ranges inside each partition, and the predicates every
// row is checked against (see restrictions.h).
#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/cql/restrictions_internal.h"
#include "engine/query/access_path.h"
#include "engine/schema/index_components.h"
#include "engine/types/byte_comparable.h"

namespace cassette::cql {

namespace restrictions_internal {

void Analyzer::add_predicates(const Restriction& r, SelectRestrictions& out) const {
  switch (r.kind) {
    case Restriction::Kind::kEq: {
      RowPredicate p{RowPredicate::Kind::kEq, r.columns, r.values};
      if (r.columns.size() == 1) {
        for (const auto& index : indexes_) {
          if (index->column == r.columns.front()->name) {
            p.text_analysis |= schema::sai_text_analysis(*index, *r.columns.front());
          }
        }
      }
      out.predicates.push_back(std::move(p));
      break;
    }
    case Restriction::Kind::kIn:
      out.predicates.push_back({RowPredicate::Kind::kIn, r.columns, r.values});
      break;
    case Restriction::Kind::kContains:
      out.predicates.insert(out.predicates.end(), r.contains.begin(), r.contains.end());
      break;
    case Restriction::Kind::kSlice: {
      auto columns_for = [&](const std::vector<std::string>& tuple) {
        return std::vector<const ColumnDef*>(r.columns.begin(), r.columns.begin() + tuple.size());
      };
      if (r.start) {
        out.predicates.push_back(
            {r.start_inclusive ? RowPredicate::Kind::kGte : RowPredicate::Kind::kGt,
             columns_for(*r.start),
             {*r.start}});
      }
      if (r.end) {
        out.predicates.push_back(
            {r.end_inclusive ? RowPredicate::Kind::kLte : RowPredicate::Kind::kLt,
             columns_for(*r.end),
             {*r.end}});
      }
      break;
    }
  }
}

Status Analyzer::compute_partition_keys(SelectRestrictions& out) {
  std::vector<std::vector<std::string>> values;  // per key column, in key order
  for (const ColumnDef* column : table_.partition_key()) {
    const Restriction* r = nullptr;
    for (const Restriction& candidate : partition_) {
      if (candidate.columns.front() == column) r = &candidate;
    }
    if (r == nullptr) return Status::ok();  // not a complete key: a scan
    std::vector<std::string>& list = values.emplace_back();
    for (const std::vector<std::string>& tuple : r->values) list.push_back(tuple.front());
  }
  std::vector<const std::vector<std::string>*> lists;
  for (const std::vector<std::string>& list : values) lists.push_back(&list);
  // With a token restriction as well, the keys outside its range are left out.
  CASSETTE_ASSIGN_OR_RETURN(
      std::vector<query::PartitionKey> keys,
      query::partition_keys(table_, lists, query::KeyOrder::kKeyValue, query::BadKey::kError,
                            token_ ? &out.token_range : nullptr));
  std::vector<std::string> bytes;
  bytes.reserve(keys.size());
  for (query::PartitionKey& key : keys) bytes.push_back(std::move(key.key));
  out.partition_keys = std::move(bytes);
  return Status::ok();
}

Status Analyzer::compute_clustering_ranges(SelectRestrictions& out) {
  // The prefix of = / IN restrictions, then at most one slice, as long as columns follow on.
  std::vector<const std::vector<std::vector<std::string>>*> tuple_lists;
  const Restriction* slice = nullptr;
  int position = 0;
  for (const Restriction& r : clustering_) {
    if (r.kind == Restriction::Kind::kContains || r.first_position() != position) break;
    if (r.is_slice()) {
      slice = &r;
      break;
    }
    tuple_lists.push_back(&r.values);
    position = r.last_position() + 1;
  }
  query::SliceBounds bounds;
  if (slice) {
    // Over columns of mixed order only the first column bounds the read (the predicates do the
    // rest).
    bounds.descending = slice->columns.front()->descending;
    for (const ColumnDef* c : slice->columns) {
      bounds.only_first_column = bounds.only_first_column || c->descending != bounds.descending;
    }
    if (slice->start) bounds.lower = query::SliceBound{*slice->start, slice->start_inclusive};
    if (slice->end) bounds.upper = query::SliceBound{*slice->end, slice->end_inclusive};
  }
  CASSETTE_ASSIGN_OR_RETURN(
      out.clustering_ranges,
      query::clustering_ranges(table_, query::clustering_prefixes(tuple_lists), &bounds));
  return Status::ok();
}

}  // namespace restrictions_internal

namespace {

using schema::ColumnDef;
using schema::TableDef;

// Compares the row's values of `columns` with `tuple` (shorter tuples compare a prefix).
std::optional<int> compare_tuple(const std::vector<const ColumnDef*>& columns,
                                 const TableDef& table, const RowValues& row,
                                 const std::vector<std::string>& tuple, uint8_t analysis = 0) {
  for (size_t i = 0; i < tuple.size() && i < columns.size(); ++i) {
    size_t index = static_cast<size_t>(columns[i] - table.columns.data());
    const types::Value& v = row[index];
    if (!v) return std::nullopt;
    int c = analysis != 0 && schema::sai_folds_case(columns[i]->type)
                ? schema::sai_analyze(analysis, *v).compare(schema::sai_analyze(analysis, tuple[i]))
                : types::compare_values(columns[i]->type, *v, tuple[i]);
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace

bool row_matches(const RowPredicate& p, const TableDef& table, const RowValues& row) {
  switch (p.kind) {
    case RowPredicate::Kind::kEq: {
      auto c = compare_tuple(p.columns, table, row, p.values[0], p.text_analysis);
      return c && *c == 0;
    }
    case RowPredicate::Kind::kIn:
      for (const auto& tuple : p.values) {
        auto c = compare_tuple(p.columns, table, row, tuple);
        if (c && *c == 0) return true;
      }
      return false;
    case RowPredicate::Kind::kLt:
    case RowPredicate::Kind::kLte:
    case RowPredicate::Kind::kGt:
    case RowPredicate::Kind::kGte: {
      auto c = compare_tuple(p.columns, table, row, p.values[0]);
      if (!c) return false;
      switch (p.kind) {
        case RowPredicate::Kind::kLt:
          return *c < 0;
        case RowPredicate::Kind::kLte:
          return *c <= 0;
        case RowPredicate::Kind::kGt:
          return *c > 0;
        default:
          return *c >= 0;
      }
    }
    case RowPredicate::Kind::kContains:
    case RowPredicate::Kind::kContainsKey:
    case RowPredicate::Kind::kMapEntry: {
      const ColumnDef* column = p.columns.front();
      const types::Value& v = row[static_cast<size_t>(column - table.columns.data())];
      if (!v) return false;
      const types::CqlType& type = column->type;
      if (type.kind == types::TypeKind::kMap) {
        auto entries = types::deserialize_map(*v);
        if (!entries.is_ok()) return false;
        for (const auto& [key, value] : *entries) {
          if (p.kind == RowPredicate::Kind::kContainsKey) {
            if (types::compare_values(type.params[0], key, p.values[0][0]) == 0) return true;
          } else if (p.kind == RowPredicate::Kind::kContains) {
            if (types::compare_values(type.params[1], value, p.values[0][0]) == 0) return true;
          } else if (types::compare_values(type.params[0], key, p.values[0][0]) == 0) {
            return types::compare_values(type.params[1], value, p.values[0][1]) == 0;
          }
        }
        return false;
      }
      auto elements = types::deserialize_list(*v);
      if (!elements.is_ok()) return false;
      for (const std::string& e : *elements) {
        if (types::compare_values(type.params[0], e, p.values[0][0]) == 0) return true;
      }
      return false;
    }
  }
  return false;
}

}  // namespace cassette::cql
