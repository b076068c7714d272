// EncodedRowWriter: writes an encoded row (row_codec.h's format) cell by cell, without building
// a Row: for bulk writers that have each cell's value at hand (the SQLite extension's INSERT
// writes a million rows this way without an allocation per row or per value). For the same
// liveness and cells it writes exactly the bytes encode_row writes for the equivalent Row
// (tests/unit/encoded_row_writer_test.cc holds it to that).
//
// Rows with a deletion or with complex (multi-cell) columns are not supported: build a Row and
// use encode_row for those.
//
//   EncodedRowWriter w;                          // reused row after row
//   w.start(LivenessInfo::written(ts, ttl, now));
//   w.add_live(1, ts, value);                    // column ids increasing
//   w.add_tombstone(3, ts, now);
//   w.finish(&out);                              // appends the encoded row
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/storage/row.h"

namespace cassette::storage {

class EncodedRowWriter {
 public:
  // Starts a new row (forgetting the previous one) with `liveness` (empty: none) and no
  // deletion.
  void start(const LivenessInfo& liveness);

  // Append simple column `id`; ids must be increasing. The three are encode_row's encodings of
  // Cell::live(timestamp, value), Cell::expiring(timestamp, ttl, now_seconds, value) and
  // Cell::tombstone(timestamp, now_seconds).
  void add_live(ColumnId id, int64_t timestamp, std::string_view value);
  void add_expiring(ColumnId id, int64_t timestamp, int64_t ttl, int64_t now_seconds,
                    std::string_view value);
  void add_tombstone(ColumnId id, int64_t timestamp, int64_t now_seconds);

  size_t columns() const { return columns_; }
  // Appends the encoded row to `out`.
  void finish(std::string* out) const;

 private:
  void add_cell(ColumnId id, uint8_t flags, int64_t timestamp, int64_t ttl,
                int64_t local_deletion_time, std::string_view value);

  std::string head_;  // flags and liveness
  std::string body_;  // the columns
  size_t columns_ = 0;
  int64_t base_ = 0;  // cell timestamps are relative to the liveness timestamp (0 without one)
};

}  // namespace cassette::storage
