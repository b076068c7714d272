// The bytes of an entry's value: an encoded Row (static row or clustering row) or an encoded
// PartitionHeader, the same in the commit log, memtables and SSTables. Layout in FORMAT.md.
// Decoders return false on malformed input; callers report Corruption with the file's name.
#pragma once

#include <string>
#include <string_view>

#include "engine/storage/row.h"

namespace cassette::storage {

void encode_row(const Row& row, std::string* out);
bool decode_row(std::string_view in, Row* row);

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
