// The access path of a SELECT from its merged restrictions: the partition keys to read (in
// Cassandra's order), the clustering byte ranges inside each partition, and the predicates every
// row is checked against (see restrictions.h).
#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/cql/restrictions_internal.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/murmur3.h"

namespace cassette::cql {

namespace restrictions_internal {

void Analyzer::add_predicates(const Restriction& r, SelectRestrictions& out) const {
  switch (r.kind) {
    case Restriction::Kind::kEq:
      out.predicates.push_back({RowPredicate::Kind::kEq, r.columns, r.values});
      break;
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
  const std::vector<const ColumnDef*>& key = table_.partition_key();
  std::vector<std::vector<std::string>> tuples = {{}};
  for (const ColumnDef* column : key) {
    const Restriction* r = nullptr;
    for (const Restriction& candidate : partition_) {
      if (candidate.columns.front() == column) r = &candidate;
    }
    if (r == nullptr) return Status::ok();  // not a complete key: a scan
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : tuples) {
      for (const auto& value : r->values) {
        auto extended = prefix;
        extended.push_back(value.front());
        next.push_back(std::move(extended));
      }
    }
    tuples = std::move(next);
  }
  // Cassandra builds IN keys into a sorted set: key value order, no duplicates.
  auto less = [&](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    for (size_t i = 0; i < key.size(); ++i) {
      int c = types::compare_values(key[i]->type, a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return false;
  };
  std::sort(tuples.begin(), tuples.end(), less);
  tuples.erase(
      std::unique(tuples.begin(), tuples.end(),
                  [&](const auto& a, const auto& b) { return !less(a, b) && !less(b, a); }),
      tuples.end());
  std::vector<std::string> keys;
  for (const auto& tuple : tuples) {
    // QueryProcessor.validateKey: a serialized key is not empty and at most 65535 bytes.
    if (key.size() == 1 && tuple[0].empty()) {
      return Status::invalid_argument("Key may not be empty");
    }
    size_t length = 0;
    for (const std::string& component : tuple) {
      length += key.size() > 1 ? component.size() + 3 : component.size();
    }
    if (length > 0xFFFF) {
      return Status::invalid_argument(
          fmt::format("Key length of {} is longer than maximum of 65535", length));
    }
    std::string bytes = partition_key_bytes(tuple);
    if (token_) {
      int64_t t = types::murmur3_token(bytes);
      const storage::TokenRange& range = out.token_range;
      if (range.start && (t < *range.start || (t == *range.start && !range.start_inclusive))) {
        continue;
      }
      if (range.end && (t > *range.end || (t == *range.end && !range.end_inclusive))) continue;
    }
    keys.push_back(std::move(bytes));
  }
  out.partition_keys = std::move(keys);
  return Status::ok();
}

Status Analyzer::compute_clustering_ranges(SelectRestrictions& out) {
  // The prefix of = / IN restrictions, then at most one slice, as long as columns follow on.
  std::vector<std::vector<std::string>> prefixes = {{}};
  const Restriction* slice = nullptr;
  int position = 0;
  for (const Restriction& r : clustering_) {
    if (r.kind == Restriction::Kind::kContains || r.first_position() != position) break;
    if (r.is_slice()) {
      slice = &r;
      break;
    }
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : prefixes) {
      for (const auto& tuple : r.values) {
        auto extended = prefix;
        extended.insert(extended.end(), tuple.begin(), tuple.end());
        next.push_back(std::move(extended));
      }
    }
    prefixes = std::move(next);
    position = r.last_position() + 1;
  }

  auto encode = [&](const std::vector<std::string>& values) -> Result<std::string> {
    return clustering_key_bytes(table_, values);
  };
  std::vector<std::pair<std::string, std::string>> ranges;
  for (const auto& prefix : prefixes) {
    CASSETTE_ASSIGN_OR_RETURN(std::string encoded_prefix, encode(prefix));
    std::string lower = encoded_prefix;
    std::string upper = prefix.empty() ? std::string() : types::prefix_end_bound(encoded_prefix);
    if (slice) {
      // Bounds in value order; a DESC column turns them around in byte order. Over columns of
      // mixed order only the first column bounds the read (the predicates do the rest).
      bool descending = slice->columns.front()->descending;
      bool uniform = true;
      for (const ColumnDef* c : slice->columns) uniform = uniform && c->descending == descending;
      auto bound = [&](const std::vector<std::string>& tuple, bool inclusive, bool is_start,
                       std::string* target) -> Status {
        std::vector<std::string> values = prefix;
        if (uniform) {
          values.insert(values.end(), tuple.begin(), tuple.end());
        } else {
          values.push_back(tuple.front());
          inclusive = true;
        }
        CASSETTE_ASSIGN_OR_RETURN(std::string encoded, encode(values));
        // In byte order, is this bound the lower one?
        bool byte_lower = is_start != descending;
        if (byte_lower) {
          *target = inclusive ? encoded : types::prefix_end_bound(encoded);
        } else {
          *target = inclusive ? types::prefix_end_bound(encoded) : encoded;
        }
        return Status::ok();
      };
      if (slice->start) {
        CASSETTE_RETURN_IF_ERROR(
            bound(*slice->start, slice->start_inclusive, true, descending ? &upper : &lower));
      }
      if (slice->end) {
        CASSETTE_RETURN_IF_ERROR(
            bound(*slice->end, slice->end_inclusive, false, descending ? &lower : &upper));
      }
    }
    if (!upper.empty() && lower >= upper) continue;
    ranges.emplace_back(std::move(lower), std::move(upper));
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::string, std::string>> merged;
  for (auto& range : ranges) {
    if (!merged.empty() && (merged.back().second.empty() || range.first <= merged.back().second)) {
      if (merged.back().second.empty() || range.second.empty()) {
        merged.back().second.clear();
      } else {
        merged.back().second = std::max(merged.back().second, range.second);
      }
      continue;
    }
    merged.push_back(std::move(range));
  }
  out.clustering_ranges = std::move(merged);
  return Status::ok();
}

}  // namespace restrictions_internal

namespace {

using schema::ColumnDef;
using schema::TableDef;

// Compares the row's values of `columns` with `tuple` (shorter tuples compare a prefix).
std::optional<int> compare_tuple(const std::vector<const ColumnDef*>& columns,
                                 const TableDef& table, const RowValues& row,
                                 const std::vector<std::string>& tuple) {
  for (size_t i = 0; i < tuple.size() && i < columns.size(); ++i) {
    size_t index = static_cast<size_t>(columns[i] - table.columns.data());
    const types::Value& v = row[index];
    if (!v) return std::nullopt;
    int c = types::compare_values(columns[i]->type, *v, tuple[i]);
    if (c != 0) return c;
  }
  return 0;
}

}  // namespace

bool row_matches(const RowPredicate& p, const TableDef& table, const RowValues& row) {
  switch (p.kind) {
    case RowPredicate::Kind::kEq: {
      auto c = compare_tuple(p.columns, table, row, p.values[0]);
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
