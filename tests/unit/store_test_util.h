// Helpers shared by the storage-engine tests: scratch directories, simple keys, rows, and
// reading a partition or a table back as plain values.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/storage/mutation_builder.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/store.h"
#include "engine/util/coding.h"
#include "tests/unit/temp_dir.h"

namespace cassette::test {

using namespace cassette::storage;
using cassette::Status;

// A bigint-like clustering key: 8 bytes big-endian with the sign bit flipped, so memcmp order is
// numeric order (the byte-comparable form of a signed integer).
inline std::string ck(int64_t v) {
  std::string out;
  cassette::coding::put_big_endian64(&out, static_cast<uint64_t>(v) ^ (1ull << 63));
  return out;
}
inline int64_t ck_value(std::string_view bytes) {
  return static_cast<int64_t>(cassette::coding::decode_big_endian64(bytes.data()) ^ (1ull << 63));
}

constexpr ColumnId kValueColumn = 1;

// An INSERT of one regular column (row marker + cell), timestamps assigned by the store.
inline Row insert_row(std::string value, int64_t ts = kAutoTimestamp) {
  Row row;
  row.liveness.timestamp = ts;
  ColumnData col;
  col.id = kValueColumn;
  col.cell = Cell::live(ts, std::move(value));
  row.columns.push_back(std::move(col));
  return row;
}

inline Row insert_row_ttl(std::string value, int64_t ttl, int64_t now_seconds) {
  Row row;
  row.liveness.timestamp = kAutoTimestamp;
  row.liveness.ttl = ttl;
  row.liveness.local_expiration_time = now_seconds + ttl;
  ColumnData col;
  col.id = kValueColumn;
  col.cell = Cell::expiring(kAutoTimestamp, ttl, now_seconds, std::move(value));
  row.columns.push_back(std::move(col));
  return row;
}

inline Row deleted_row(int64_t now_seconds, int64_t ts = kAutoTimestamp) {
  Row row;
  row.deletion = DeletionTime{ts, now_seconds};
  return row;
}

inline Row counter_row(int64_t delta) {
  Row row;
  ColumnData col;
  col.id = kValueColumn;
  col.cell = Cell::counter(kAutoTimestamp, delta);
  row.columns.push_back(std::move(col));
  return row;
}

inline std::string cell_value(const Row& row) {
  const ColumnData* col = row.find_column(kValueColumn);
  return col == nullptr ? "<none>" : col->cell.value;
}

// Applies one row in its own transaction; returns the timestamp.
inline int64_t put(Store& store, TableId table, const std::string& pk, int64_t c, Row row) {
  MutationBuilder batch;
  batch.partition(table, pk).rows.push_back({ck(c), std::move(row)});
  auto ts = apply_mutations(store, batch);
  if (!ts.is_ok()) throw std::runtime_error(ts.status().message());
  return *ts;
}

struct ReadRow {
  std::string partition_key;
  int64_t clustering;
  std::string value;
  friend bool operator==(const ReadRow&, const ReadRow&) = default;
};

// Every row the cursor yields (clustering decoded with ck_value; static-only rows skipped).
inline std::vector<ReadRow> drain(RowCursor& cursor, size_t limit = SIZE_MAX) {
  std::vector<ReadRow> rows;
  while (rows.size() < limit && cursor.next()) {
    if (cursor.is_static_only()) continue;
    rows.push_back(
        {cursor.partition_key(), ck_value(cursor.clustering()), cell_value(cursor.row())});
  }
  if (!cursor.status().is_ok()) throw std::runtime_error(cursor.status().message());
  return rows;
}

inline std::vector<ReadRow> read_partition(Store& store, TableId table, const std::string& pk,
                                           bool reverse = false, size_t limit = SIZE_MAX) {
  auto snap = store.snapshot();
  if (!snap.is_ok()) throw std::runtime_error(snap.status().message());
  ReadSpec spec = Store::partition_spec(pk);
  spec.reverse = reverse;
  auto cursor = store.read(**snap, table, spec);
  return drain(*cursor, limit);
}

inline std::vector<ReadRow> read_table(Store& store, TableId table) {
  auto snap = store.snapshot();
  if (!snap.is_ok()) throw std::runtime_error(snap.status().message());
  auto cursor = store.read(**snap, table, Store::range_spec({}));
  return drain(*cursor);
}

}  // namespace cassette::test
