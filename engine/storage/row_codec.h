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

// A read's leave to pass over the cells of the columns it does not want (ValueColumns) without
// recording them at all, in a row whose own marker keeps it alive (marker_keeps_alive with the
// row's own deletion and `outer`, the partition deletion or range tombstone over the row): such a
// row is live whatever those cells say, so they are only walked past (their fields checked).
// That holds of the row as this one version has it. Another version of the row (another source,
// another memtable fragment) may hold a newer row deletion, or a marker that supersedes this one
// and has expired, while one of the passed-over cells is what keeps the row alive: the caller
// checks the merged row with marker_keeps_alive and, when that fails, decodes every version
// again without the leave (RowCursor::consume_group).
struct UnreadSkip {
  int64_t now_seconds = 0;
  DeletionTime outer;
};
// decode_row with `values` and the leave: kSkipped when the row's marker kept it alive and the
// unwanted columns' cells were passed over (the Row holds the wanted columns only), kDecoded when
// every column was decoded as decode_row does, kMalformed on malformed input.
enum class RowDecode : uint8_t { kMalformed, kDecoded, kSkipped };
RowDecode decode_row_skipping(std::string_view in, Row* row, const ValueColumns& values,
                              const UnreadSkip& skip);
// Whether `liveness` keeps its row alive at `now_seconds` under `deletion` (the strongest of the
// row's own deletion and the deletions over it): live (not expired, not a view's expired marker)
// and newer than the deletion. Then purge_for_read keeps the row whatever its cells.
inline bool marker_keeps_alive(const LivenessInfo& liveness, const DeletionTime& deletion,
                               int64_t now_seconds) {
  // is_live() is false for a view's expired markers, strict ones included.
  return liveness.is_live(now_seconds) && !deletion.deletes(liveness.timestamp);
}

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
