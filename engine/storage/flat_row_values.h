// FlatRowValues: the simple cells of a few rows laid out for readers that ask for one value at a
// time (the row cache's heads, row_cache.h). A decoded Row keeps its cells in a vector of
// ColumnData, each holding its value in a std::string of its own: a reader that finds a column by
// id walks the vector and then follows a pointer to the bytes, two or three cache lines apart,
// per value per row. Here the value of (row, column id) is one index away, and the bytes of every
// value sit together, each followed by a NUL byte (text goes on to SQLite as a C string).
//
//   FlatRowValues flat;
//   flat.build(rows);                          // purged rows (row.h: purge_for_read)
//   std::string_view v;
//   switch (flat.find(0, id, &v)) {
//     case FlatRowValues::Found::kValue: ...   // v: the cell's bytes
//     case FlatRowValues::Found::kNull: ...    // the row has no cell in this column
//     case FlatRowValues::Found::kInRow: ...   // a collection or a counter: read the Row
//   }
//
// Only what a purged row holds is flattened: live cells (a tombstone found in a row is left to
// the Row, kInRow). Immutable once built; any number of threads may read it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/row.h"

namespace cassette::storage {

class FlatRowValues {
 public:
  enum class Found : uint8_t { kValue, kNull, kInRow };

  // Flattens `rows` (row i of `rows` becomes row i here). Column ids above kMaxColumnId (a table
  // altered many times over) are not flattened: every find() then says kInRow.
  void build(std::span<const Row* const> rows);

  // The value of column `id` in row `row`. REQUIRES: row < the number of rows built.
  Found find(size_t row, ColumnId id, std::string_view* value) const {
    if (!flattened_) return Found::kInRow;
    if (id >= stride_) return Found::kNull;
    const Slot& slot = slots_[row * stride_ + id];
    if (slot.size == kNoValue) return Found::kNull;
    if (slot.size == kInRowValue) return Found::kInRow;
    *value = std::string_view(bytes_.data() + slot.offset, slot.size);
    return Found::kValue;
  }

  // Heap bytes held, for a cache's budget.
  size_t memory_bytes() const { return bytes_.capacity() + slots_.capacity() * sizeof(Slot); }

  static constexpr ColumnId kMaxColumnId = 255;

 private:
  static constexpr uint32_t kNoValue = UINT32_MAX;
  static constexpr uint32_t kInRowValue = UINT32_MAX - 1;
  struct Slot {
    uint32_t offset = 0;
    uint32_t size = kNoValue;
  };
  bool flattened_ = false;
  uint32_t stride_ = 0;      // slots per row: the largest column id + 1
  std::vector<Slot> slots_;  // row * stride_ + id
  std::string bytes_;        // the values, each followed by a NUL
};

}  // namespace cassette::storage
