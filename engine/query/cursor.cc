// QueryCursor: executes a Plan as a sequence of storage reads, each a RowCursor (one partition
// and clustering range, or one token-range scan), and decodes the columns a host asks for,
// lazily, from the current storage row.
//
// The reads are computed up front from the bindings (partition keys x clustering ranges, at most
// the product of the IN lists), never the rows: a full scan is one RowCursor over the table.
#include <algorithm>
#include <memory>
#include <span>
#include <tuple>

#include "engine/codec/table_codec.h"
#include "engine/query/access_path.h"
#include "engine/query/query.h"
#include "engine/schema/index_components.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/keyed_read.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sai_component.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/murmur3.h"
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
    const size_t n = table_->columns.size();
    values_.resize(n);
    decoded_row_.assign(n, 0);
    column_position_.assign(n, 0);
    views_.resize(n);
    column_of_id_.assign(largest_cell_id() + 1, -1);
    for (size_t i = 0; i < n; ++i) {
      const schema::KeyLayout::ColumnAccess& a = layout_.columns[i];
      if (a.kind == ColumnKind::kRegular || a.kind == ColumnKind::kStatic) {
        column_of_id_[a.id] = static_cast<int32_t>(i);
      }
    }
    clustering_values_.resize(clustering_columns_.size());
    for (const types::CqlType& type : clustering_types_) {
      clustering_fixed_.push_back(types::FixedKeyComponent::of(type.kind));
    }
    for (const schema::DroppedColumn& d : table_->dropped) dropped_ids_.push_back(d.id);
    std::sort(dropped_ids_.begin(), dropped_ids_.end());
  }

  Status prepare(AccessPath path);

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
        for (const uint32_t column : read_partition_key_) {
          views_[column] = key_values_[layout_.columns[column].position];
        }
      }
      ++row_serial_;  // invalidates the decoded values of the previous row
      if (!dropped_ids_.empty() && only_dropped_cells()) continue;
      if (!matches_filters()) {
        if (!status_.is_ok()) return false;
        continue;
      }
      if (filter_) {
        Result<bool> matches = filter_->matches(*this);
        if (!matches.is_ok()) return fail(matches.status());
        if (!matches.value()) continue;
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
        if (!column_read_[column]) return unread(column);
        if (const storage::FlatRowValues* cached = cursor_->cached_values()) {
          // A row-cache hit: the value straight from the cached head's flat layout.
          const size_t r =
              a.kind == ColumnKind::kStatic ? cursor_->cached_static_row() : cursor_->cached_row();
          std::string_view flat;
          if (r != storage::RowCursor::kNoCachedRow) {
            switch (cached->find(r, a.id, &flat)) {
              case storage::FlatRowValues::Found::kValue:
                return flat;
              case storage::FlatRowValues::Found::kNull:
                return std::nullopt;
              case storage::FlatRowValues::Found::kInRow:
                break;
            }
          }
        }
        const storage::Row* row = row_for(a.kind);
        if (row == nullptr) return std::nullopt;
        const storage::ColumnData* data = find_column(*row, column, a.id);
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

  // The values of the columns the path reads, indexed once per row: a host reading every value
  // of a row pays one walk over the row's cells instead of a lookup per value.
  const std::string_view* row_values() override {
    if (views_row_ == row_serial_) return views_.data();
    // (The partition key's views are set by next() when the partition changes.)
    if (!read_clustering_.empty()) {
      const bool none = cursor_->is_static_only();
      if (!none && clustering_row_ != row_serial_ && !decode_clustering()) return nullptr;
      for (const uint32_t column : read_clustering_) {
        const uint32_t position = layout_.columns[column].position;
        views_[column] = !none && position < clustering_count_
                             ? std::string_view(clustering_values_[position])
                             : std::string_view();
      }
    }
    if (!read_cells_.empty()) {
      const storage::FlatRowValues* cached = cursor_->cached_values();
      if (cached != nullptr && cursor_->cached_row() != storage::RowCursor::kNoCachedRow) {
        // A row-cache hit: each value one index away in the cached head (value() for the rest).
        const size_t rows[2] = {cursor_->cached_row(), cursor_->cached_static_row()};
        for (const CellRead& cell : cell_reads_) {
          std::string_view& view = views_[cell.column];
          view = {};
          switch (cached->find(rows[cell.is_static], cell.id, &view)) {
            case storage::FlatRowValues::Found::kValue:
            case storage::FlatRowValues::Found::kNull:
              break;
            case storage::FlatRowValues::Found::kInRow:
              if (std::optional<std::string_view> v = value(cell.column)) view = *v;
              if (!status_.is_ok()) return nullptr;
              break;
          }
        }
      } else {
        for (const uint32_t column : read_cells_) views_[column] = {};
        if (!cursor_->is_static_only() && !index_cells(cursor_->row())) return nullptr;
        if (const storage::Row* row = cursor_->static_row(); row != nullptr && !index_cells(*row)) {
          return nullptr;
        }
      }
    }
    views_row_ = row_serial_;
    return views_.data();
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

  void skip_partition() override {
    if (!cursor_) return;
    cursor_->skip_partition();
    // A partition lookup reads each clustering range of a partition as a read of its own.
    const std::string& prefix = reads_[next_read_ - 1].partition_prefix;
    if (prefix.empty()) return;
    while (next_read_ < reads_.size() && reads_[next_read_].partition_prefix == prefix) {
      ++next_read_;
    }
  }
  const storage::Row* stored_row() const override {
    return cursor_->is_static_only() ? nullptr : &cursor_->row();
  }
  const storage::Row* stored_static_row() const override { return cursor_->static_row(); }

 private:
  // The reads of a partition lookup (keys x ranges) and of a scan.
  Status add_partition_reads(const AccessPath& path, const std::vector<ClusteringRange>& ranges);
  Status add_scan_reads(const AccessPath& path, const std::vector<ClusteringRange>& ranges);
  storage::ReadSpec read_of(storage::ReadSpec spec, const AccessPath& path,
                            const ClusteringRange& range) const {
    spec.clustering_start = range.first;
    spec.clustering_end = range.second;
    spec.reverse = path.reverse_rows;
    spec.emit_static_only = path.emit_static_only;
    if (!value_ids_.wanted.empty() || path.value_columns) spec.value_columns = &value_ids_;
    return spec;
  }

  // The largest id of the table's regular and static columns (0 when none).
  storage::ColumnId largest_cell_id() const {
    storage::ColumnId largest = 0;
    for (const schema::KeyLayout::ColumnAccess& a : layout_.columns) {
      if (a.kind == ColumnKind::kRegular || a.kind == ColumnKind::kStatic) {
        largest = std::max(largest, a.id);
      }
    }
    return largest;
  }

  // value() of a column the path does not read: its cells were decoded without values.
  std::optional<std::string_view> unread(size_t column) {
    status_ = Status::internal(
        fmt::format("Column {} was read but is not among the columns of the query plan.",
                    table_->columns[column].name));
    return std::nullopt;
  }

  // Sets views_ of the read columns that have a cell in `row` (the row or the static row), as
  // value() would return them.
  bool index_cells(const storage::Row& row) {
    for (const storage::ColumnData& data : row.columns) {
      if (data.id >= column_of_id_.size()) continue;  // a dropped column's cells
      const int32_t column = column_of_id_[data.id];
      if (column < 0 || !column_read_[static_cast<size_t>(column)]) continue;
      if (!data.complex && !data.cell.is_counter()) {
        if (!data.cell.is_tombstone()) views_[static_cast<size_t>(column)] = data.cell.value;
        continue;
      }
      std::optional<std::string_view> v = value(static_cast<size_t>(column));
      if (!status_.is_ok()) return false;
      if (v) views_[static_cast<size_t>(column)] = *v;
    }
    return true;
  }

  // Decodes the current row's clustering key into clustering_values_ (as types::decode_clustering
  // does, with its errors, but into buffers reused from row to row: no allocation per row).
  bool decode_clustering() {
    std::string_view encoded = cursor_->clustering();
    size_t count = 0;
    while (!encoded.empty()) {
      if (count == clustering_fixed_.size()) {
        status_ = Status::corruption(fmt::format(
            "Malformed clustering key bytes: more than {} clustering components.", count));
        return false;
      }
      const bool descending = clustering_descending_[count];
      std::string* value = &clustering_values_[count];
      if (!types::decode_fixed_key_component(clustering_fixed_[count], descending, &encoded,
                                             value)) {
        Status decoded =
            types::decode_key_component(clustering_types_[count], descending, &encoded, value);
        if (!decoded.is_ok()) {
          status_ = std::move(decoded);
          return false;
        }
      }
      ++count;
    }
    clustering_count_ = count;
    clustering_row_ = row_serial_;
    return true;
  }

  // `row`'s cell of table column `column` (id `id`). Rows of a read mostly hold the same
  // columns, so the cell sits where it sat in the last row: checked first, a search otherwise.
  const storage::ColumnData* find_column(const storage::Row& row, size_t column,
                                         storage::ColumnId id) {
    uint32_t& at = column_position_[column];
    if (at < row.columns.size() && row.columns[at].id == id) return &row.columns[at];
    const storage::ColumnData* data = row.find_column(id);
    if (data != nullptr) at = static_cast<uint32_t>(data - row.columns.data());
    return data;
  }

  // The stored row that holds a column of this kind in the current row (none for key columns).
  const storage::Row* row_for(ColumnKind kind) const {
    if (kind == ColumnKind::kStatic) return cursor_->static_row();
    if (kind == ColumnKind::kRegular && !cursor_->is_static_only()) return &cursor_->row();
    return nullptr;
  }

  bool matches_filters() {
    for (const EqualFilter& f : filters_) {
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
    const size_t read = next_read_++;
    if (read < read_keyed_.size() && read_keyed_[read] >= 0) {
      if (!keyed_reader_) {
        keyed_reader_ = std::make_unique<storage::KeyedReader>(snapshot_, table_->table_id);
      }
      const PartitionKey& keyed = keyed_rows_[static_cast<size_t>(read_keyed_[read])];
      cursor_ = keyed_reader_->read(reads_[read], *keyed.rows, keyed.positions);
    } else {
      cursor_ = store_.read(*snapshot_, table_->table_id, reads_[read]);
    }
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
  // A row (or static-only partition) kept alive only by cells of dropped columns is no row, as
  // Cassandra skips a dropped column's cells when it reads (AlterTest.
  // testAlterOnlyColumnBehaviorWithFlush: an UPDATE's row goes with its only column).
  bool only_dropped_cells() const {
    const storage::Row* row = cursor_->is_static_only() ? cursor_->static_row() : &cursor_->row();
    if (row == nullptr || !row->liveness.is_empty()) return false;
    return std::all_of(row->columns.begin(), row->columns.end(), [&](const storage::ColumnData& c) {
      return std::binary_search(dropped_ids_.begin(), dropped_ids_.end(), c.id);
    });
  }

  const storage::Store& store_;
  std::shared_ptr<const storage::Snapshot> snapshot_;
  std::shared_ptr<const TableDef> table_;
  const schema::KeyLayout& layout_;  // table_'s, computed once per table

  std::vector<storage::ReadSpec> reads_;
  size_t next_read_ = 0;
  // An index read's partitions read by key: by read (when longer than reads_, -1 past its end)
  // the index into keyed_rows_ of the partition's candidate rows, -1 for a read of the ranges.
  std::vector<int32_t> read_keyed_;
  std::vector<PartitionKey> keyed_rows_;  // their `rows` and `positions`
  std::unique_ptr<storage::KeyedReader> keyed_reader_;
  std::vector<EqualFilter> filters_;
  std::shared_ptr<RowFilter> filter_;
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
  std::vector<types::FixedKeyComponent> clustering_fixed_;  // by clustering column
  size_t clustering_count_ = 0;
  uint64_t clustering_row_ = 0;
  std::vector<types::Value> values_;  // decoded complex and counter columns of the current row
  std::vector<uint64_t> decoded_row_;
  std::vector<uint32_t> column_position_;  // by column: where find_column() last found it
  // The columns the path reads (AccessPath::value_columns): by column, non-zero when read; and
  // the read partition key, clustering, and regular and static columns, for row_values().
  std::vector<uint8_t> column_read_;
  std::vector<uint32_t> read_lists_;  // the three lists below, in one allocation
  std::span<const uint32_t> read_partition_key_, read_clustering_, read_cells_;
  struct CellRead {  // a column of read_cells_, as a row-cache hit looks it up
    uint32_t column;
    storage::ColumnId id;
    bool is_static;
  };
  std::vector<CellRead> cell_reads_;
  storage::ValueColumns value_ids_;      // the read regular and static columns' ids
  std::vector<int32_t> column_of_id_;    // by column id: the index in TableDef::columns, or -1
  std::vector<std::string_view> views_;  // row_values(), for the row views_row_
  uint64_t views_row_ = 0;
  std::vector<storage::ColumnId> dropped_ids_;  // sorted: the table's dropped columns
};

Status Cursor::prepare(AccessPath path) {
  limit_ = path.limit;
  skip_ = path.offset;
  filters_ = std::move(path.equal_filters);
  filter_ = std::move(path.filter);
  const size_t n = table_->columns.size();
  column_read_.assign(n, path.value_columns ? 0 : 1);
  if (path.value_columns) {
    for (size_t column : *path.value_columns) {
      if (column >= n) return Status::invalid_argument("A read names a column the table lacks.");
      column_read_[column] = 1;
    }
    for (const EqualFilter& f : filters_) column_read_[f.column] = 1;
  }
  if (path.value_columns) value_ids_.wanted.assign(largest_cell_id() + 1, 0);
  read_lists_.reserve(n);
  size_t ends[3];
  for (int part = 0; part < 3; ++part) {  // partition key, clustering, cells
    for (size_t i = 0; i < n; ++i) {
      if (!column_read_[i]) continue;
      const schema::KeyLayout::ColumnAccess& a = layout_.columns[i];
      const int of = a.kind == ColumnKind::kPartitionKey ? 0
                     : a.kind == ColumnKind::kClustering ? 1
                                                         : 2;
      if (of != part) continue;
      read_lists_.push_back(static_cast<uint32_t>(i));
      if (part == 2 && path.value_columns) value_ids_.wanted[a.id] = 1;
    }
    ends[part] = read_lists_.size();
  }
  const std::span<const uint32_t> lists(read_lists_);
  read_partition_key_ = lists.subspan(0, ends[0]);
  read_clustering_ = lists.subspan(ends[0], ends[1] - ends[0]);
  read_cells_ = lists.subspan(ends[1], ends[2] - ends[1]);
  cell_reads_.reserve(read_cells_.size());
  for (const uint32_t column : read_cells_) {
    const schema::KeyLayout::ColumnAccess& a = layout_.columns[column];
    cell_reads_.push_back({column, a.id, a.kind == ColumnKind::kStatic});
  }
  if (path.ranges.empty()) return Status::ok();  // no reads: no rows
  std::vector<ClusteringRange> ranges = std::move(path.ranges);
  if (path.reverse_rows) std::reverse(ranges.begin(), ranges.end());
  if (path.partitions == AccessPath::Partitions::kKeys) return add_partition_reads(path, ranges);
  return add_scan_reads(path, ranges);
}

// The part of `ranges` (in read order) that lies strictly after the clustering key `after`:
// above it when reading forward, below it when reading in reverse.
std::vector<ClusteringRange> ranges_after(const std::vector<ClusteringRange>& ranges,
                                          const std::string& after, bool reverse) {
  std::vector<ClusteringRange> out;
  for (const ClusteringRange& range : ranges) {
    ClusteringRange r = range;
    if (!reverse) {
      std::string next = after + '\0';  // the smallest key greater than `after`
      if (r.first < next) r.first = std::move(next);
    } else if (r.second.empty() || r.second > after) {
      r.second = after;
    }
    if (!r.second.empty() && r.first >= r.second) continue;
    out.push_back(std::move(r));
  }
  return out;
}

Status Cursor::add_partition_reads(const AccessPath& path,
                                   const std::vector<ClusteringRange>& ranges) {
  const size_t count = path.keys.size();
  auto key = [&](size_t k) -> const PartitionKey& {  // the k-th in read order
    return path.keys[path.reverse_partitions ? count - 1 - k : k];
  };
  size_t first = 0;
  std::vector<ClusteringRange> rest;  // the resumed partition's ranges
  if (path.after) {
    while (first < count && key(first).key != path.after->partition_key) ++first;
    if (first == count) {
      return Status::invalid_argument(
          "The position to resume a read after is not in one of its partitions.");
    }
    if (!path.after->static_only) {
      rest = ranges_after(ranges, path.after->clustering, path.reverse_rows);
    }
  }
  reads_.reserve((count - first) * ranges.size());
  for (size_t k = first; k < count; ++k) {
    const bool resumed = path.after && k == first;
    const std::vector<ClusteringRange>& partition_ranges = resumed ? rest : ranges;
    std::string prefix = storage::partition_prefix(key(k).token, key(k).key);
    const int32_t keyed = key(k).rows ? static_cast<int32_t>(keyed_rows_.size()) : -1;
    if (key(k).rows) keyed_rows_.push_back({{}, 0, key(k).rows, key(k).positions});
    for (const ClusteringRange& range : partition_ranges) {
      storage::ReadSpec spec;
      // The last read of a partition takes its prefix.
      spec.partition_prefix = &range == &partition_ranges.back() ? std::move(prefix) : prefix;
      reads_.push_back(read_of(std::move(spec), path, range));
      // The resumed partition has returned a row already: no static-only row for it.
      if (resumed) reads_.back().emit_static_only = false;
      if (keyed >= 0) {
        read_keyed_.resize(reads_.size(), -1);
        read_keyed_.back() = keyed;
      }
    }
  }
  return Status::ok();
}

Status Cursor::add_scan_reads(const AccessPath& path, const std::vector<ClusteringRange>& ranges) {
  ClusteringRange range = ranges.front();
  if (ranges.size() > 1) {
    if (!path.scan_hull) {
      return Status::invalid_argument("A scan plan can read only one clustering range.");
    }
    // One clustering hull over all ranges; the filter drops what lies between them.
    range = {ranges.front().first, ranges.back().second};
    if (path.reverse_rows) range = {ranges.back().first, ranges.front().second};
  }
  storage::ReadSpec scan = read_of(storage::Store::range_spec(path.tokens), path, range);
  if (path.after) {
    // The rest of the partition read last, then the partitions after it.
    const std::string& key = path.after->partition_key;
    std::string prefix = storage::partition_prefix(types::murmur3_token(key), key);
    if (!path.after->static_only) {
      for (const ClusteringRange& r :
           ranges_after({range}, path.after->clustering, path.reverse_rows)) {
        storage::ReadSpec spec;
        spec.partition_prefix = prefix;
        reads_.push_back(read_of(std::move(spec), path, r));
        reads_.back().emit_static_only = false;
      }
    }
    if (!scan.reverse) {
      std::string next = prefix + '\xFF';  // above every entry key of the partition
      if (scan.start_key < next) scan.start_key = std::move(next);
    } else if (scan.end_key.empty() || scan.end_key > prefix) {
      scan.end_key = std::move(prefix);
    }
    if (!scan.end_key.empty() && scan.start_key >= scan.end_key) return Status::ok();
  }
  reads_.push_back(std::move(scan));
  return Status::ok();
}

// A plan's argument values grouped by column, nulls dropped (they match nothing).
struct Bound {
  std::optional<std::string> value;
  bool inclusive = false;
};
struct ColumnBindings {
  std::optional<std::vector<std::string>> equal;  // EQ/IN: the allowed values
  Bound lower, upper;
};
struct BoundArguments {
  std::vector<ColumnBindings> columns;  // by index in TableDef::columns
  storage::TokenRange tokens;
  bool nothing = false;  // a null value: no row matches
};

// Sorted in the type's order (so IN lists read in clustering order), each serialized value once,
// intersected with an earlier EQ/IN on the same column. Values equal in the type's order but
// different in bytes (decimal 3.14 and 3.140, a varint with a redundant sign byte) are different
// keys in the store and different values to SQL: both stay.
void bind_equal(const types::CqlType& type, std::vector<std::string> present,
                ColumnBindings& column) {
  std::sort(present.begin(), present.end(), [&](const std::string& x, const std::string& y) {
    const int c = types::compare_values(type, x, y);
    return c != 0 ? c < 0 : x < y;
  });
  present.erase(std::unique(present.begin(), present.end()), present.end());
  if (column.equal) {  // two EQ/IN on one column: their intersection
    std::vector<std::string> both;
    for (const std::string& v : present) {
      if (std::find(column.equal->begin(), column.equal->end(), v) != column.equal->end()) {
        both.push_back(v);
      }
    }
    present = std::move(both);
  }
  column.equal = std::move(present);
}

void bind_token(Operator op, int64_t t, storage::TokenRange& tokens) {
  if (op == Operator::kEq || op == Operator::kGt || op == Operator::kGe) {
    if (!tokens.start || t > *tokens.start) {
      tokens.start = t;
      tokens.start_inclusive = op != Operator::kGt;
    }
  }
  if (op == Operator::kEq || op == Operator::kLt || op == Operator::kLe) {
    if (!tokens.end || t < *tokens.end) {
      tokens.end = t;
      tokens.end_inclusive = op != Operator::kLt;
    }
  }
}

// A range on regular or static columns (an index scan's <, <=, >, >=): each row's value must
// lie within it (a null matches nothing). The index read takes its term range from it.
class ColumnRangeFilter final : public RowFilter {
 public:
  struct Range {
    size_t column = 0;  // index in TableDef::columns
    types::CqlType type;
    Bound lower, upper;
  };
  explicit ColumnRangeFilter(std::vector<Range> ranges) : ranges_(std::move(ranges)) {}
  const std::vector<Range>& ranges() const { return ranges_; }

  Result<bool> matches(QueryCursor& row) override {
    for (const Range& r : ranges_) {
      std::optional<std::string_view> v = row.value(r.column);
      if (!v) return false;
      if (r.lower.value) {
        int c = types::compare_values(r.type, *v, *r.lower.value);
        if (c < 0 || (c == 0 && !r.lower.inclusive)) return false;
      }
      if (r.upper.value) {
        int c = types::compare_values(r.type, *v, *r.upper.value);
        if (c > 0 || (c == 0 && !r.upper.inclusive)) return false;
      }
    }
    return true;
  }

 private:
  std::vector<Range> ranges_;
};

Result<BoundArguments> bind_arguments(const TableDef& table, const Plan& plan, Bindings& bindings) {
  static const types::CqlType token_type = types::CqlType::simple(types::TypeKind::kBigint);
  BoundArguments out;
  out.columns.resize(table.columns.size());
  for (size_t i = 0; i < plan.arguments.size(); ++i) {
    const Constraint& a = plan.arguments[i];
    const types::CqlType& type =
        a.column == kTokenColumn ? token_type : table.columns[static_cast<size_t>(a.column)].type;
    std::vector<std::string> present;
    for (types::Value& v : bindings.values[i]) {
      if (!v) continue;
      CASSETTE_RETURN_IF_ERROR(types::validate_value(type, *v));
      present.push_back(std::move(*v));
    }
    if (a.op != Operator::kIn && bindings.values[i].size() != 1) {
      return Status::invalid_argument("A query plan argument needs exactly one value.");
    }
    if (present.empty()) {
      out.nothing = true;
      continue;
    }
    if (a.column == kTokenColumn) {
      bind_token(a.op, types::read_signed(present.front()), out.tokens);
      continue;
    }
    ColumnBindings& column = out.columns[static_cast<size_t>(a.column)];
    switch (a.op) {
      case Operator::kEq:
      case Operator::kIn:
        bind_equal(type, std::move(present), column);
        break;
      case Operator::kGt:
      case Operator::kGe:
        column.lower = {std::move(present.front()), a.op == Operator::kGe};
        break;
      case Operator::kLt:
      case Operator::kLe:
        column.upper = {std::move(present.front()), a.op == Operator::kLe};
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace

Result<AccessPath> bind(const TableDef& table, const Plan& plan, Bindings bindings) {
  if (bindings.values.size() != plan.arguments.size() ||
      plan.limit_consumed != bindings.limit.has_value() ||
      plan.offset_consumed != bindings.offset.has_value()) {
    return Status::invalid_argument("The values bound to a query plan do not match its arguments.");
  }
  AccessPath path;
  if (bindings.limit && *bindings.limit >= 0) path.limit = bindings.limit;  // negative: no limit
  if (bindings.offset) path.offset = std::max<int64_t>(0, *bindings.offset);
  path.reverse_rows = path.reverse_partitions = plan.reverse;
  if (plan.value_columns) {
    // The host's columns, and those of the filters on regular and static columns (below).
    path.value_columns.emplace();
    for (int column : *plan.value_columns) {
      if (column < 0 || static_cast<size_t>(column) >= table.columns.size()) {
        return Status::invalid_argument("A query plan reads a column the table lacks.");
      }
      path.value_columns->push_back(static_cast<size_t>(column));
    }
    for (const Constraint& a : plan.arguments) {
      if (a.column >= 0) path.value_columns->push_back(static_cast<size_t>(a.column));
    }
  }
  CASSETTE_ASSIGN_OR_RETURN(BoundArguments bound, bind_arguments(table, plan, bindings));
  if (bound.nothing) return path;  // no ranges: no rows
  std::vector<ColumnBindings>& restricted = bound.columns;
  path.tokens = bound.tokens;

  // Regular-column EQ (an index scan): a filter on every row.
  for (size_t c = 0; c < restricted.size(); ++c) {
    if (!restricted[c].equal) continue;
    if (table.columns[c].kind == ColumnKind::kRegular ||
        table.columns[c].kind == ColumnKind::kStatic) {
      path.equal_filters.push_back({c, *restricted[c].equal});
    }
  }

  // Regular-column ranges (an index scan's): a filter on every row.
  std::vector<ColumnRangeFilter::Range> column_ranges;
  for (size_t c = 0; c < restricted.size(); ++c) {
    if (!restricted[c].lower.value && !restricted[c].upper.value) continue;
    if (table.columns[c].kind == ColumnKind::kRegular ||
        table.columns[c].kind == ColumnKind::kStatic) {
      column_ranges.push_back({c, table.columns[c].type, std::move(restricted[c].lower),
                               std::move(restricted[c].upper)});
    }
  }
  if (!column_ranges.empty()) {
    path.filter = std::make_shared<ColumnRangeFilter>(std::move(column_ranges));
  }

  // Clustering ranges: the product of the EQ/IN prefix, then a slice on the next column.
  const schema::KeyLayout& layout = table.layout();
  std::vector<const std::vector<std::string>*> prefix_lists;
  size_t position = 0;
  for (; position < layout.clustering.size(); ++position) {
    size_t c = static_cast<size_t>(layout.clustering[position] - table.columns.data());
    if (!restricted[c].equal) break;
    prefix_lists.push_back(&*restricted[c].equal);
  }
  SliceBounds slice;
  if (position < layout.clustering.size()) {
    const ColumnDef* sliced = layout.clustering[position];
    ColumnBindings& b = restricted[static_cast<size_t>(sliced - table.columns.data())];
    if (b.lower.value) slice.lower = SliceBound{{std::move(*b.lower.value)}, b.lower.inclusive};
    if (b.upper.value) slice.upper = SliceBound{{std::move(*b.upper.value)}, b.upper.inclusive};
    slice.descending = sliced->descending;
  }
  path.emit_static_only = prefix_lists.empty() && !slice.lower && !slice.upper;
  if (prefix_lists.empty()) {  // the usual slice: no prefix to build
    static const std::vector<std::string> kNoPrefix;
    CASSETTE_ASSIGN_OR_RETURN(path.ranges, clustering_ranges(table, {&kNoPrefix, 1}, &slice));
  } else {
    CASSETTE_ASSIGN_OR_RETURN(path.ranges,
                              clustering_ranges(table, clustering_prefixes(prefix_lists), &slice));
  }
  if (plan.access != AccessKind::kPartitions) return path;

  path.partitions = AccessPath::Partitions::kKeys;
  std::vector<const std::vector<std::string>*> key_lists;
  for (const ColumnDef* c : layout.partition_key) {
    size_t index = static_cast<size_t>(c - table.columns.data());
    if (!restricted[index].equal) {
      return Status::invalid_argument(fmt::format(
          "A partition lookup plan has no value for partition key column {}.", c->name));
    }
    key_lists.push_back(&*restricted[index].equal);
  }
  // Partitions in storage order (token, key), as a scan would return them.
  CASSETTE_ASSIGN_OR_RETURN(path.keys,
                            partition_keys(table, key_lists, KeyOrder::kToken, BadKey::kSkip));
  return path;
}

namespace {

// schema::sai_column_index of `column` (a component name, closures: allocations each time it is
// built), kept by thread for the last columns read: what it builds depends only on the column's
// id, type and kind, the target and the analysis, all compared here. nullptr: no such index.
std::shared_ptr<const schema::SaiIndex> sai_index_of(const ColumnDef& column,
                                                     schema::IndexDef::Target target,
                                                     uint8_t analysis) {
  struct Entry {
    storage::ColumnId id;
    schema::ColumnKind kind;
    schema::IndexDef::Target target;
    uint8_t analysis;
    types::CqlType type;
    std::shared_ptr<const schema::SaiIndex> index;
  };
  constexpr size_t kEntries = 16;
  thread_local std::vector<Entry> entries;
  thread_local size_t next = 0;
  for (const Entry& e : entries) {
    if (e.id == column.id && e.kind == column.kind && e.target == target &&
        e.analysis == analysis && e.type == column.type) {
      return e.index;
    }
  }
  std::optional<schema::SaiIndex> built = schema::sai_column_index(column, target, analysis);
  Entry entry{
      column.id,   column.kind,
      target,      analysis,
      column.type, built ? std::make_shared<const schema::SaiIndex>(std::move(*built)) : nullptr};
  if (entries.size() < kEntries) {
    entries.push_back(std::move(entry));
    return entries.back().index;
  }
  Entry& slot = entries[next++ % kEntries];
  slot = std::move(entry);
  return slot.index;
}

// Reads the candidate partitions of `terms` from the index of `column` (values or frozen
// target; `analysis`: its text analysis) into `path`; false when no index of it has a component
// in every SSTable.
Result<bool> read_index_terms(const storage::Snapshot& snapshot, const TableDef& table,
                              const ColumnDef& column, std::span<const storage::TermRange> terms,
                              AccessPath& path, uint8_t analysis = 0) {
  for (auto target : {schema::IndexDef::Target::kValues, schema::IndexDef::Target::kFull}) {
    std::shared_ptr<const schema::SaiIndex> sai = sai_index_of(column, target, analysis);
    if (sai == nullptr) continue;
    CASSETTE_ASSIGN_OR_RETURN(
        std::optional<std::vector<storage::SaiPartitionCandidates>> candidates,
        storage::sai_candidate_rows(snapshot, table.table_id, sai->component, sai->column, terms,
                                    path.tokens));
    if (!candidates) continue;
    path.partitions = AccessPath::Partitions::kKeys;
    path.keys.clear();
    path.keys.reserve(candidates->size());
    for (storage::SaiPartitionCandidates& c : *candidates) {
      int64_t token = types::murmur3_token(c.partition_key);
      path.keys.push_back(
          {std::move(c.partition_key), token, std::move(c.rows), std::move(c.positions)});
    }
    return true;
  }
  return false;
}

// An index scan's EQ or IN on a column with an SAI component (engine/schema/index_components.h)
// reads the candidate partitions of the index (one term per value) instead of every partition;
// a range, the candidates of its term range. The filters still check each row. Without a
// component in every SSTable the path stays the filtered scan. An index with text analysis
// (`analysis`, by column: Bindings::index_analysis) is read with the values analyzed as its
// terms are: its candidates hold every row whose value equals as written.
Status read_index(const storage::Snapshot& snapshot, const TableDef& table, AccessPath& path,
                  std::span<const uint8_t> analysis) {
  if (path.partitions != AccessPath::Partitions::kTokenRange) return Status::ok();
  if (path.equal_filters.empty()) {
    const auto* ranges = dynamic_cast<const ColumnRangeFilter*>(path.filter.get());
    if (ranges == nullptr) return Status::ok();
    for (const ColumnRangeFilter::Range& r : ranges->ranges()) {
      storage::TermRange range;
      for (auto [bound, term, inclusive] :
           {std::tuple(&r.lower, &range.lower, &range.lower_inclusive),
            std::tuple(&r.upper, &range.upper, &range.upper_inclusive)}) {
        if (!bound->value) continue;
        std::string encoded;
        if (!types::encode_key_component(r.type, *bound->value, false, &encoded).is_ok()) break;
        *term = std::move(encoded);
        *inclusive = bound->inclusive;
      }
      if (range.lower.has_value() != r.lower.value.has_value() ||
          range.upper.has_value() != r.upper.value.has_value()) {
        continue;
      }
      CASSETTE_ASSIGN_OR_RETURN(
          bool read,
          read_index_terms(snapshot, table, table.columns[r.column], std::span(&range, 1), path));
      if (read) return Status::ok();
    }
    return Status::ok();
  }
  for (const EqualFilter& f : path.equal_filters) {
    if (f.values.empty()) continue;  // matches nothing: the filter says so without an index
    const ColumnDef& column = table.columns[f.column];
    const uint8_t a =
        f.column < analysis.size() && schema::sai_folds_case(column.type) ? analysis[f.column] : 0;
    std::vector<storage::TermRange> terms;
    for (const std::string& value : f.values) {
      std::string term;
      if (!types::encode_key_component(column.type, a != 0 ? schema::sai_analyze(a, value) : value,
                                       false, &term)
               .is_ok()) {
        break;
      }
      terms.push_back(storage::TermRange::equal(std::move(term)));
    }
    if (terms.size() != f.values.size()) continue;
    CASSETTE_ASSIGN_OR_RETURN(bool read, read_index_terms(snapshot, table, column, terms, path, a));
    if (read) return Status::ok();
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<QueryCursor>> QueryCursor::open(
    const storage::Store& store, std::shared_ptr<const storage::Snapshot> snapshot,
    std::shared_ptr<const TableDef> table, const Plan& plan, Bindings bindings) {
  const std::vector<uint8_t> analysis = std::move(bindings.index_analysis);
  CASSETTE_ASSIGN_OR_RETURN(AccessPath path, bind(*table, plan, std::move(bindings)));
  if (plan.access == AccessKind::kIndexScan) {
    CASSETTE_RETURN_IF_ERROR(read_index(*snapshot, *table, path, analysis));
  }
  return open(store, std::move(snapshot), std::move(table), std::move(path));
}

Result<std::unique_ptr<QueryCursor>> QueryCursor::open(
    const storage::Store& store, std::shared_ptr<const storage::Snapshot> snapshot,
    std::shared_ptr<const TableDef> table, AccessPath path) {
  auto cursor = std::make_unique<Cursor>(store, std::move(snapshot), std::move(table));
  CASSETTE_RETURN_IF_ERROR(cursor->prepare(std::move(path)));
  return std::unique_ptr<QueryCursor>(std::move(cursor));
}

}  // namespace cassette::query
