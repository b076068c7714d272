// The bytes of an entry's value: an encoded Row (static row or clustering row) or an encoded
// PartitionHeader, the same in the commit log, memtables and SSTables. Layout in FORMAT.md.
// Decoders return false on malformed input; callers report Corruption with the file's name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/row.h"

namespace cassette::storage {

// The columns whose cell values a read decodes, by ColumnId (`wanted[id]` non-zero; an id past
// the end is not wanted). The cells of the other columns are decoded without their values: a
// simple non-counter cell keeps its timestamp, TTL and tombstone, which decide whether the row
// is live and which version wins, and an empty value (Cassandra's ColumnFilter likewise fetches
// every column to know a row's liveness but queries only some). Counter cells and complex
// columns are always decoded whole (a counter's merge sums values; elements merge by path).
struct ValueColumns {
  std::vector<uint8_t> wanted;
  bool wants(ColumnId id) const { return id < wanted.size() && wanted[id] != 0; }
};

void encode_row(const Row& row, std::string* out);
// `values`: decode only those columns' values (nullptr: every column's).
bool decode_row(std::string_view in, Row* row, const ValueColumns* values = nullptr);

// encode_row's parts, for writers that encode a row without building a Row (EncodedRowWriter):
// the row's flags and liveness (and deletion), returning the base the cells' timestamps are
// stored relative to; then, after the column count and each column's id and simple/complex
// byte, a cell's fields (`path` only in a complex column).
int64_t encode_row_head(const LivenessInfo& liveness, const DeletionTime& deletion,
                        std::string* out);
void encode_cell_fields(uint8_t flags, int64_t timestamp, int64_t base, int64_t ttl,
                        int64_t local_deletion_time, const std::string_view* path,
                        std::string_view value, std::string* out);

void encode_header(const PartitionHeader& header, std::string* out);
bool decode_header(std::string_view in, PartitionHeader* header);

// Timestamps, deletion times and TTLs of a row, for SSTable statistics.
struct RowTimes {
  int64_t min_timestamp = INT64_MAX;
  int64_t max_timestamp = INT64_MIN;
  int64_t max_local_deletion_time = INT64_MIN;  // of tombstones and expiring cells
  uint64_t tombstones = 0;
  void add_timestamp(int64_t ts);
};
void collect_row_times(const Row& row, RowTimes* times);
void collect_header_times(const PartitionHeader& header, RowTimes* times);

}  // namespace cassette::storage
