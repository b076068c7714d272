// A MutationBuilder's entries handed over in (table, key) order, as a spilled transaction's merge
// hands its entries to Store::apply_sorted / prepare_sorted: for the storage tests of those paths.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "engine/storage/sorted_entry_source.h"
#include "tests/unit/store_test_util.h"

namespace cassette::test {

class BatchSource final : public SortedEntrySource {
 public:
  explicit BatchSource(const MutationBuilder& rows) {
    REQUIRE(rows.encode_to(&batch_).is_ok());
    size_t offset = 0;
    for (size_t i = 0; i < batch_.entry_count(); ++i) {
      entries_.push_back(batch_.entry_at(offset, &offset));
    }
    std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
      return a.table != b.table ? a.table < b.table : a.key < b.key;
    });
  }
  cassette::Result<bool> next(Entry* entry) override {
    if (next_ == entries_.size()) return false;
    const EncodedBatch::Entry& e = entries_[next_++];
    *entry = {e.table, e.key, e.value};
    return true;
  }

 private:
  EncodedBatch batch_;
  std::vector<EncodedBatch::Entry> entries_;
  size_t next_ = 0;
};

}  // namespace cassette::test
