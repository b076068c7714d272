#include "engine/storage/flat_row_values.h"

#include <algorithm>

namespace cassette::storage {

void FlatRowValues::build(std::span<const Row* const> rows) {
  flattened_ = false;
  stride_ = 0;
  slots_.clear();
  bytes_.clear();
  ColumnId largest = 0;
  size_t total = 0;
  for (const Row* row : rows) {
    if (row->columns.empty()) continue;
    largest = std::max(largest, row->columns.back().id);  // sorted by id
    for (const ColumnData& c : row->columns) total += c.complex ? 0 : c.cell.value.size() + 1;
  }
  // Offsets and sizes are 32-bit (a cached head is far smaller; a larger one stays in its Rows).
  if (largest > kMaxColumnId || total >= kInRowValue) return;
  stride_ = rows.empty() ? 0 : largest + 1;
  slots_.resize(rows.size() * stride_);
  bytes_.reserve(total);
  for (size_t r = 0; r < rows.size(); ++r) {
    for (const ColumnData& c : rows[r]->columns) {
      Slot& slot = slots_[r * stride_ + c.id];
      if (c.complex || c.cell.is_counter() || c.cell.is_tombstone()) {
        slot.size = kInRowValue;
        continue;
      }
      slot.offset = static_cast<uint32_t>(bytes_.size());
      slot.size = static_cast<uint32_t>(c.cell.value.size());
      bytes_.append(c.cell.value);
      bytes_.push_back('\0');
    }
  }
  flattened_ = true;
}

}  // namespace cassette::storage
