// RowEncoder: the one INSERT encoder. Every writer of whole rows — CQL's INSERT, SQLite's INSERT
// into a cql table, pg-import, PostgreSQL's foreign-table INSERT — turns one row's values into
// storage entries here, with Cassandra's checks in CQL's order and with CQL's messages:
//
//   1. each key column in the encoder's column order: a NULL partition key value is "Invalid
//      null value in condition for column k"; so is a NULL clustering value, unless the NULL
//      policy lets every clustering value be NULL together (the static row alone, below);
//   2. "Key may not be empty", "Key length of N is longer than maximum of 65535" (partition key,
//      then clustering: validate_partition_key_values, validate_clustering_values), then the
//      clustering encoding's own errors;
//   3. a counter table takes no INSERT ("INSERT statements are not allowed on counter tables,
//      use UPDATE instead").
//
// The row then goes straight into a RowSink: a row marker (liveness) and one cell per non-key
// column given, in column id order, encoded by storage::EncodedRowWriter into reused buffers
// when every column given is a regular single-cell one (no allocation per row), else built as a
// storage::Row (collections through write::apply_operation) and encoded with encode_row. The two
// give the same bytes for the same row.
//
// Static-only rows: when the encoder's columns leave out the clustering columns (CQL, pg-import:
// allowed by make() only when they give static columns and no regular one), or — under the SQL
// hosts' policies, whose rows carry every column — when every clustering value of a row is NULL
// and no regular column has a value, the row writes the partition's static row alone.
//
//   auto encoder = RowEncoder::make(table, columns, NullPolicy::kTombstone);
//   encoder->set_parameters(RowEncoder::parameters(*table, now_micros, ttl, timestamp));
//   BatchSink sink(batch, table->table_id);
//   for (...) CASSETTE_RETURN_IF_ERROR(encoder->insert(values, sink));
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/encoded_row_writer.h"
#include "engine/storage/row.h"
#include "engine/types/value.h"
#include "engine/util/status.h"
#include "engine/write/operation.h"

namespace cassette::write {

// What a NULL value of a non-key column writes, and whether NULL clustering values may stand for
// "no clustering key" (the static row alone).
enum class NullPolicy : uint8_t {
  // A tombstone, as CQL's INSERT (and pg-import, which is CQL's INSERT); a NULL clustering value
  // is an error.
  kTombstone,
  // A tombstone, except that a NULL static column is left unset, so that inserting rows does not
  // erase the partition's static values (SQLite). Every clustering value NULL: the static row
  // alone, when the table has static columns and no regular column has a value.
  kTombstoneExceptStatic,
  // Nothing: a NULL column keeps what it had (PostgreSQL's foreign tables). Every clustering
  // value NULL: the static row alone, when no regular column and some static column has a value.
  kUnset,
};

// Where encoded rows go: one call per storage entry (a row, or a partition's static row), in
// encode_row's format with the encoder's timestamps (kAutoTimestamp unless one was given).
// A sink that wants_rows() (CQL's statements, which merge rows into a MutationBuilder) is given
// storage::Rows instead (add_built_row), and the encoder takes the Row path for every row.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual Status add_row(std::string_view partition_key, bool is_static,
                         std::string_view clustering, std::string_view encoded_row) = 0;
  virtual bool wants_rows() const { return false; }
  virtual Status add_built_row(std::string_view partition_key, bool is_static,
                               std::string_view clustering, storage::Row row) {
    return Status::internal("this RowSink takes encoded rows");
  }
};

// A RowSink appending to an EncodedBatch (pg-import, tests).
class BatchSink : public RowSink {
 public:
  BatchSink(storage::EncodedBatch& batch, storage::TableId table) : batch_(batch), table_(table) {}
  Status add_row(std::string_view partition_key, bool is_static, std::string_view clustering,
                 std::string_view encoded_row) override;

 private:
  storage::EncodedBatch& batch_;
  storage::TableId table_;
};

// Reads the current row (or static row, `clustering` empty) of a partition: what overwriting a
// non-frozen collection with a store-assigned timestamp needs (operation_needs_row). nullopt:
// there is none.
using CurrentRowReader = std::function<Result<std::optional<storage::Row>>(
    std::string_view partition_key, const std::optional<std::string>& clustering)>;

class RowEncoder {
 public:
  // An encoder of rows giving `columns` (indexes into table->columns, in insert()'s order),
  // or CQL's error for a column list an INSERT cannot have: "Some partition key parts are
  // missing: k", "Some clustering keys are missing: c" (unless the columns give static columns
  // and no regular one). REQUIRES: each index valid and given once.
  static Result<std::unique_ptr<RowEncoder>> make(std::shared_ptr<const schema::TableDef> table,
                                                  std::vector<size_t> columns, NullPolicy nulls);

  // An INSERT's write parameters: the given TTL, else the table's default_time_to_live (none on
  // a counter table); the given timestamp, else kAutoTimestamp (the store's, at commit).
  static WriteParameters parameters(const schema::TableDef& table, int64_t now_micros,
                                    std::optional<int64_t> ttl = std::nullopt,
                                    std::optional<int64_t> timestamp = std::nullopt);
  // CQL's refusal of an INSERT into a counter table.
  static Status counter_table_error();

  // The timestamp, TTL and "now" of the rows inserted next.
  void set_parameters(const WriteParameters& params) { params_ = params; }
  const WriteParameters& parameters() const { return params_; }

  // Whether insert() needs a CurrentRowReader: a non-frozen collection is given and the
  // timestamp is the store's.
  bool needs_read() const;
  const std::shared_ptr<const schema::TableDef>& table() const { return table_; }
  size_t column_count() const { return slots_.size(); }

  // Checks one row (one value per column of make(), in that order) and writes its entries to
  // `out`; an error writes nothing. The values may be left changed (key values swapped with
  // the encoder's buffers, others moved from on the Row path). `read` is used when needs_read().
  Status insert(std::span<types::Value> values, RowSink& out,
                const CurrentRowReader* read = nullptr);
  // insert() for a caller that resolved and checked the key itself (CQL's INSERT, whose key
  // relations are checked with its other WHERE-like relations): the row at `clustering` of
  // partition `partition_key` (nullopt: the static row alone) from `values`, whose key columns'
  // entries are ignored.
  Status insert_checked(std::string_view partition_key,
                        const std::optional<std::string>& clustering,
                        std::span<types::Value> values, RowSink& out,
                        const CurrentRowReader* read = nullptr);

 private:
  // Where one of insert()'s values goes.
  struct Slot {
    enum class Kind : uint8_t { kPartition, kClustering, kRegular, kStatic } kind;
    uint32_t index;  // kPartition, kClustering: key component; else the value's index
    storage::ColumnId id;
    const schema::ColumnDef* column;
  };
  RowEncoder() = default;

  Status check_key(std::span<types::Value> values, bool* static_only);
  Status check_static_only(std::span<const types::Value> values, size_t clustering_given,
                           const schema::ColumnDef& null_clustering) const;
  std::string_view partition_key();
  bool any_multi_cell(bool statics) const;
  Status encode_direct(std::string_view key, std::span<const types::Value> values, RowSink& out);
  Status encode_rows(std::string_view key, std::span<types::Value> values, bool static_only,
                     RowSink& out, const CurrentRowReader* read);
  Status emit(std::string_view key, bool is_static, storage::Row row, RowSink& out);
  Status add_cells(std::string_view key, std::span<types::Value> values, bool statics,
                   const CurrentRowReader* read, storage::Row& row) const;

  std::shared_ptr<const schema::TableDef> table_;
  NullPolicy nulls_ = NullPolicy::kTombstone;
  WriteParameters params_;
  std::vector<Slot> slots_;          // per value of insert()
  std::vector<uint32_t> keys_;       // the key columns' values' indexes
  std::vector<uint32_t> cells_;      // the non-key values' indexes, in column id order
  bool clustering_omitted_ = false;  // the columns leave out the clustering columns
  bool direct_ = false;              // every non-key column given is regular and single-cell
  bool multi_cell_ = false;          // some column given is a non-frozen collection or UDT

  // Reused from row to row.
  std::vector<std::string> partition_, clustering_;  // key components, in key order
  std::string key_, clustering_key_, encoded_;
  storage::EncodedRowWriter writer_;
};

// What deleting a partition's static row writes — a SQL host's DELETE of a row it showed only
// through the static row (a partition without clustering rows): every static column deleted at
// `timestamp`, as SQLite and PostgreSQL both delete it.
storage::Row static_row_deletion(const schema::TableDef& table, int64_t timestamp,
                                 int64_t now_seconds);

// Merges the entries of `batch` that have the same key (a row given twice in one batch) into one,
// reconciled by Cassandra's rules (storage::reconcile_rows), as a MutationBuilder merges the rows
// of one statement batch: what a bulk writer of RowEncoder's rows does before applying its batch.
// Leaves a batch with no such entries as it is (the common case: one sort of the keys).
Status fold_same_rows(storage::EncodedBatch& batch);

}  // namespace cassette::write
