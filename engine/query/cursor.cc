// QueryCursor: executes a Plan as a sequence of storage reads, each a RowCursor (one partition
// and clustering range, or one token-range scan), and decodes the columns a host asks for,
// lazily, from the current storage row.
//
// The reads are computed up front from the bindings (partition keys x clustering ranges, at most
// the product of the IN lists), never the rows: a full scan is one RowCursor over the table.
#include <algorithm>
#include <span>

#include "engine/codec/table_codec.h"
#include "engine/query/access_path.h"
#include "engine/query/query.h"
#include "engine/storage/internal_key.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/partition_key.h"
#include "engine/types/scalar.h"
#include "engine/util/coding.h"

namespace cassette::query {

namespace {

using schema::ColumnDef;
using schema::ColumnKind;
using schema::TableDef;

class Cursor final : public QueryCursor {
 public:
  Cursor(const storage::Store& store, std::shared_ptr<const storage::Snapshot> snapshot,
         std::shared_ptr<const TableDef> table)
      : store_(store),
        snapshot_(std::move(snapshot)),
        table_(std::move(table)),
        layout_(table_->layout()),
        clustering_columns_(layout_.clustering),
        partition_key_columns_(layout_.partition_key),
        clustering_types_(layout_.clustering_types),
        clustering_descending_(layout_.clustering_descending.get()) {
    values_.resize(table_->columns.size());
    decoded_row_.assign(table_->columns.size(), 0);
    clustering_values_.resize(clustering_columns_.size());
  }

  Status prepare(const Plan& plan, Bindings bindings);

  bool next() override {
    if (!status_.is_ok() || done_) return false;
    while (true) {
      if (limit_ && emitted_ >= *limit_) return finish();
      if (!cursor_ && !open_next_read()) return finish();
      if (!cursor_->next()) {
        if (!cursor_->status().is_ok()) return fail(cursor_->status());
        cursor_.reset();
        continue;
      }
      // A new partition (counted by the read, so compared as a number, not as key bytes).
      if (cursor_.get() != partition_read_ || cursor_->partition_number() != partition_number_) {
        partition_read_ = cursor_.get();
        partition_number_ = cursor_->partition_number();
        partition_key_ = cursor_->partition_key();
        auto key = types::split_partition_key(partition_key_, partition_key_columns_.size());
        if (!key.is_ok()) return fail(key.status());
        key_values_ = std::move(key).value();
      }
      ++row_serial_;  // invalidates the decoded values of the previous row
      if (!matches_filters()) {
        if (!status_.is_ok()) return false;
        continue;
      }
      if (skip_ > 0) {
        --skip_;
        continue;
      }
      ++emitted_;
      return true;
    }
  }
  const Status& status() const override { return status_; }
  int64_t token() const override { return cursor_->token(); }

  std::optional<std::string_view> value(size_t column) override {
    const schema::KeyLayout::ColumnAccess& a = layout_.columns[column];
    switch (a.kind) {
      case ColumnKind::kPartitionKey:
        return std::string_view(key_values_[a.position]);
      case ColumnKind::kClustering: {
        if (cursor_->is_static_only()) return std::nullopt;
        if (clustering_row_ != row_serial_ && !decode_clustering()) return std::nullopt;
        if (a.position >= clustering_count_) return std::nullopt;
        return std::string_view(clustering_values_[a.position]);
      }
      case ColumnKind::kStatic:
      case ColumnKind::kRegular: {
        const storage::Row* row = row_for(a.kind);
        if (row == nullptr) return std::nullopt;
        const storage::ColumnData* data = row->find_column(a.id);
        if (data == nullptr) return std::nullopt;
        // The common case, a simple non-counter cell: a view of the stored bytes, no copy.
        if (!data->complex && !data->cell.is_counter()) {
          if (data->cell.is_tombstone()) return std::nullopt;
          return std::string_view(data->cell.value);
        }
        if (decoded_row_[column] != row_serial_) {
          values_[column] = cql::read_column(table_->columns[column], *row);
          decoded_row_[column] = row_serial_;
        }
        if (!values_[column]) return std::nullopt;
        return std::string_view(*values_[column]);
      }
    }
    return std::nullopt;
  }

  // Keys, clustering values and cells are all held in std::strings.
  bool values_nul_terminated() const override { return true; }

  std::optional<int64_t> writetime(size_t column) const override {
    const ColumnDef& c = table_->columns[column];
    const storage::Row* row = row_for(c.kind);
    if (row == nullptr) return std::nullopt;
    return cql::column_writetime(c, *row);
  }
  std::optional<int64_t> ttl(size_t column) const override {
    const ColumnDef& c = table_->columns[column];
    const storage::Row* row = row_for(c.kind);
    if (row == nullptr) return std::nullopt;
    return cql::column_ttl(c, *row, snapshot_->now_seconds);
  }
  const std::string& partition_key() const override { return partition_key_; }
  const std::string& clustering() const override { return cursor_->clustering(); }
  bool is_static_only() const override { return cursor_->is_static_only(); }

 private:
  struct Filter {
    size_t column;
    std::vector<std::string> values;  // EQ: one value
  };

  // Decodes the current row's clustering key into clustering_values_ (as types::decode_clustering
  // does, with its errors, but into buffers reused from row to row: no allocation per row).
  bool decode_clustering() {
    std::string_view encoded = cursor_->clustering();
    size_t count = 0;
    while (!encoded.empty()) {
      if (count == clustering_types_.size()) {
        status_ = Status::corruption(fmt::format(
            "Malformed clustering key bytes: more than {} clustering components.", count));
        return false;
      }
      Status decoded =
          types::decode_key_component(clustering_types_[count], clustering_descending_[count],
                                      &encoded, &clustering_values_[count]);
      if (!decoded.is_ok()) {
        status_ = std::move(decoded);
        return false;
      }
      ++count;
    }
    clustering_count_ = count;
    clustering_row_ = row_serial_;
    return true;
  }

  // The stored row that holds a column of this kind in the current row (none for key columns).
  const storage::Row* row_for(ColumnKind kind) const {
    if (kind == ColumnKind::kStatic) return cursor_->static_row();
    if (kind == ColumnKind::kRegular && !cursor_->is_static_only()) return &cursor_->row();
    return nullptr;
  }

  bool matches_filters() {
    for (const Filter& f : filters_) {
      std::optional<std::string_view> v = value(f.column);
      if (!status_.is_ok()) return false;
      if (!v) return false;
      const types::CqlType& type = table_->columns[f.column].type;
      bool any = false;
      for (const std::string& candidate : f.values) {
        if (types::compare_values(type, *v, candidate) == 0) {
          any = true;
          break;
        }
      }
      if (!any) return false;
    }
    return true;
  }

  bool open_next_read() {
    if (next_read_ >= reads_.size()) return false;
    cursor_ = store_.read(*snapshot_, table_->table_id, reads_[next_read_++]);
    partition_read_ = nullptr;  // a new read may reuse the old one's address
    return true;
  }
  bool finish() {
    done_ = true;
    cursor_.reset();
    return false;
  }
  bool fail(Status status) {
    status_ = std::move(status);
    done_ = true;
    return false;
  }

  const storage::Store& store_;
  std::shared_ptr<const storage::Snapshot> snapshot_;
  std::shared_ptr<const TableDef> table_;
  const schema::KeyLayout& layout_;  // table_'s, computed once per table

  std::vector<storage::ReadSpec> reads_;
  size_t next_read_ = 0;
  std::vector<Filter> filters_;
  std::optional<int64_t> limit_;
  int64_t skip_ = 0;
  int64_t emitted_ = 0;
  bool done_ = false;
  Status status_;

  // The parts of layout_ (table_'s key layout) the cursor reads.
  const std::vector<const ColumnDef*>& clustering_columns_;
  const std::vector<const ColumnDef*>& partition_key_columns_;
  const std::vector<types::CqlType>& clustering_types_;
  const bool* clustering_descending_;
  std::unique_ptr<storage::RowCursor> cursor_;
  std::string partition_key_;
  const storage::RowCursor* partition_read_ = nullptr;  // the read partition_number_ counts in
  uint64_t partition_number_ = 0;
  std::vector<std::string> key_values_;
  // Decoded values are tagged with the serial number of the row they belong to, so moving to the
  // next row invalidates them all without touching them.
  uint64_t row_serial_ = 1;
  std::vector<std::string> clustering_values_;  // the first clustering_count_ are the row's
  size_t clustering_count_ = 0;
  uint64_t clustering_row_ = 0;
  std::vector<types::Value> values_;  // decoded complex and counter columns of the current row
  std::vector<uint64_t> decoded_row_;
};

Status Cursor::prepare(const Plan& plan, Bindings bindings) {
  const TableDef& table = *table_;
  static const types::CqlType token_type = types::CqlType::simple(types::TypeKind::kBigint);
  if (bindings.values.size() != plan.arguments.size() ||
      plan.limit_consumed != bindings.limit.has_value() ||
      plan.offset_consumed != bindings.offset.has_value()) {
    return Status::invalid_argument("The values bound to a query plan do not match its arguments.");
  }
  if (bindings.limit && *bindings.limit >= 0) limit_ = bindings.limit;  // negative: no limit (SQL)
  if (bindings.offset) skip_ = std::max<int64_t>(0, *bindings.offset);

  // Group the argument values by column, dropping nulls (they match nothing).
  const size_t n = table.columns.size();
  struct Bound {
    std::optional<std::string> value;
    bool inclusive = false;
  };
  struct ColumnBindings {
    std::optional<std::vector<std::string>> equal;  // EQ/IN: the allowed values
    Bound lower, upper;
  };
  std::vector<ColumnBindings> restricted(n);
  storage::TokenRange tokens;
  bool nothing = false;
  for (size_t i = 0; i < plan.arguments.size(); ++i) {
    const Constraint& a = plan.arguments[i];
    std::vector<std::string> present;
    for (types::Value& v : bindings.values[i]) {
      if (!v) continue;
      const types::CqlType& type =
          a.column == kTokenColumn ? token_type : table.columns[static_cast<size_t>(a.column)].type;
      Status valid = types::validate_value(type, *v);
      if (!valid.is_ok()) return valid;
      present.push_back(std::move(*v));
    }
    if (a.op != Operator::kIn && bindings.values[i].size() != 1) {
      return Status::invalid_argument("A query plan argument needs exactly one value.");
    }
    if (present.empty()) {
      nothing = true;
      continue;
    }
    if (a.column == kTokenColumn) {
      int64_t t = types::read_signed(present.front());
      if (a.op == Operator::kEq || a.op == Operator::kGt || a.op == Operator::kGe) {
        if (!tokens.start || t > *tokens.start) {
          tokens.start = t;
          tokens.start_inclusive = a.op != Operator::kGt;
        }
      }
      if (a.op == Operator::kEq || a.op == Operator::kLt || a.op == Operator::kLe) {
        if (!tokens.end || t < *tokens.end) {
          tokens.end = t;
          tokens.end_inclusive = a.op != Operator::kLt;
        }
      }
      continue;
    }
    size_t column = static_cast<size_t>(a.column);
    const types::CqlType& type = table.columns[column].type;
    switch (a.op) {
      case Operator::kEq:
      case Operator::kIn: {
        // Sorted and unique, in the type's order (so IN lists read in clustering order).
        std::sort(present.begin(), present.end(), [&](const std::string& x, const std::string& y) {
          return types::compare_values(type, x, y) < 0;
        });
        present.erase(std::unique(present.begin(), present.end(),
                                  [&](const std::string& x, const std::string& y) {
                                    return types::compare_values(type, x, y) == 0;
                                  }),
                      present.end());
        if (restricted[column].equal) {  // two EQ/IN on one column: their intersection
          std::vector<std::string> both;
          for (const std::string& v : present) {
            for (const std::string& w : *restricted[column].equal) {
              if (types::compare_values(type, v, w) == 0) both.push_back(v);
            }
          }
          present = std::move(both);
        }
        restricted[column].equal = std::move(present);
        break;
      }
      case Operator::kGt:
      case Operator::kGe:
        restricted[column].lower = {std::move(present.front()), a.op == Operator::kGe};
        break;
      case Operator::kLt:
      case Operator::kLe:
        restricted[column].upper = {std::move(present.front()), a.op == Operator::kLe};
        break;
      default:
        break;
    }
  }
  if (nothing) return Status::ok();  // no reads: no rows

  // Regular-column EQ (an index scan): a filter on every row.
  for (size_t c = 0; c < n; ++c) {
    if (!restricted[c].equal) continue;
    if (table.columns[c].kind == ColumnKind::kRegular ||
        table.columns[c].kind == ColumnKind::kStatic) {
      filters_.push_back({c, *restricted[c].equal});
    }
  }

  // Clustering ranges: the product of the EQ/IN prefix, then a slice on the next column.
  const std::vector<const ColumnDef*>& clustering = clustering_columns_;
  std::vector<const std::vector<std::string>*> prefix_lists;
  size_t position = 0;
  for (; position < clustering.size(); ++position) {
    size_t c = static_cast<size_t>(clustering[position] - table.columns.data());
    if (!restricted[c].equal) break;
    prefix_lists.push_back(&*restricted[c].equal);
  }
  SliceBounds slice;
  if (position < clustering.size()) {
    const ColumnDef* sliced = clustering[position];
    ColumnBindings& b = restricted[static_cast<size_t>(sliced - table.columns.data())];
    if (b.lower.value) slice.lower = SliceBound{{std::move(*b.lower.value)}, b.lower.inclusive};
    if (b.upper.value) slice.upper = SliceBound{{std::move(*b.upper.value)}, b.upper.inclusive};
    slice.descending = sliced->descending;
  }
  bool clustering_restricted = !prefix_lists.empty() || slice.lower || slice.upper;
  CASSETTE_ASSIGN_OR_RETURN(std::vector<ClusteringRange> ranges,
                            clustering_ranges(table, clustering_prefixes(prefix_lists), &slice));
  if (ranges.empty()) return Status::ok();
  if (plan.reverse) std::reverse(ranges.begin(), ranges.end());

  auto add_read = [&](storage::ReadSpec spec, const ClusteringRange& range) {
    spec.clustering_start = range.first;
    spec.clustering_end = range.second;
    spec.reverse = plan.reverse;
    spec.emit_static_only = !clustering_restricted;
    reads_.push_back(std::move(spec));
  };

  if (plan.access == AccessKind::kPartitions) {
    std::vector<const std::vector<std::string>*> key_lists;
    for (const ColumnDef* c : partition_key_columns_) {
      size_t index = static_cast<size_t>(c - table.columns.data());
      if (!restricted[index].equal) {
        return Status::invalid_argument(fmt::format(
            "A partition lookup plan has no value for partition key column {}.", c->name));
      }
      key_lists.push_back(&*restricted[index].equal);
    }
    // Partitions in storage order (token, key), as a scan would return them.
    CASSETTE_ASSIGN_OR_RETURN(std::vector<PartitionKey> keys,
                              partition_keys(table, key_lists, KeyOrder::kToken, BadKey::kSkip));
    if (plan.reverse) std::reverse(keys.begin(), keys.end());
    reads_.reserve(keys.size() * ranges.size());
    for (const PartitionKey& key : keys) {
      std::string prefix = storage::partition_prefix(key.token, key.key);
      for (const ClusteringRange& range : ranges) {
        storage::ReadSpec spec;
        // The last read of a partition takes its prefix.
        spec.partition_prefix = &range == &ranges.back() ? std::move(prefix) : prefix;
        add_read(std::move(spec), range);
      }
    }
    return Status::ok();
  }
  // A scan reads one clustering range per partition (the planner never gives a scan an IN).
  if (ranges.size() != 1) {
    return Status::invalid_argument("A scan plan can read only one clustering range.");
  }
  add_read(storage::Store::range_spec(tokens), ranges.front());
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<QueryCursor>> QueryCursor::open(
    const storage::Store& store, std::shared_ptr<const storage::Snapshot> snapshot,
    std::shared_ptr<const TableDef> table, const Plan& plan, Bindings bindings) {
  auto cursor = std::make_unique<Cursor>(store, std::move(snapshot), std::move(table));
  CASSETTE_RETURN_IF_ERROR(cursor->prepare(plan, std::move(bindings)));
  return std::unique_ptr<QueryCursor>(std::move(cursor));
}

}  // namespace cassette::query
