#include "engine/storage/sstable_iterator.h"

#include <algorithm>

#include "engine/storage/block.h"

namespace cassette::storage {
namespace {

constexpr size_t kNone = SIZE_MAX;
constexpr uint64_t kNoOffset = UINT64_MAX;

class SSTableIterator final : public EntryIterator {
 public:
  explicit SSTableIterator(const SSTableReader::Impl* table) : table_(table) {}

  bool valid() const override { return status_.is_ok() && data_.valid(); }
  Status status() const override { return status_; }
  std::string_view key() const override { return data_.key(); }
  std::string_view value() const override { return data_.value(); }

  void seek(std::string_view target) override {
    if (!position_index(target)) return;
    data_.seek(target);
    skip_forward();
  }

  void seek_for_prev(std::string_view target) override {
    if (!status_.is_ok()) return;
    if (first_index_block_at_or_after(target) == table_->summary_keys.size()) {
      return seek_to_last();  // every key is < target
    }
    if (!position_index(target)) return;
    data_.seek_for_prev(target);
    skip_backward();  // the block's keys may all be > target: then the answer ends the one before
  }

  void seek_to_last() override {
    if (!status_.is_ok()) return;
    const size_t blocks = table_->summary_keys.size();
    if (blocks == 0) return invalidate();
    if (!load_index_block(blocks - 1)) return;
    index_.seek_to_last();
    blocks_in_order_ = 0;
    if (!load_data_block()) return;
    data_.seek_to_last();
    skip_backward();
  }

  void next() override {
    if (!valid()) return;
    data_.next();
    skip_forward();
  }

  void prev() override {
    if (!valid()) return;
    data_.prev();
    skip_backward();
  }

 private:
  size_t first_index_block_at_or_after(std::string_view target) const {
    const auto& keys = table_->summary_keys;
    auto it = std::lower_bound(keys.begin(), keys.end(), target,
                               [](const std::string& a, std::string_view b) { return a < b; });
    return static_cast<size_t>(it - keys.begin());
  }

  // Loads the data block whose index key is the first >= target (not positioned in it); false
  // when there is none (past the end) or on error.
  bool position_index(std::string_view target) {
    if (!status_.is_ok()) return false;
    const size_t block = first_index_block_at_or_after(target);
    if (block == table_->summary_keys.size()) {
      invalidate();
      return false;
    }
    if (!load_index_block(block)) return false;
    index_.seek(target);
    blocks_in_order_ = 0;
    return load_data_block();
  }

  void invalidate() {
    data_.clear();
    data_offset_ = kNoOffset;
  }

  bool fail(Status status) {
    if (status_.is_ok()) status_ = std::move(status);
    data_.clear();
    index_.clear();
    data_offset_ = kNoOffset;
    index_number_ = kNone;
    return false;
  }

  bool load_index_block(size_t number) {
    if (number == index_number_) return true;  // already loaded: only reposition
    auto block = table_->read_block(table_->summary_handles[number]);
    if (!block.is_ok()) return fail(block.status());
    index_.reset_checked(std::move(block).value(), &table_->path,
                         table_->summary_handles[number].offset);
    index_number_ = number;
    return true;
  }

  // Loads the data block index_ points at. index_ must be valid: the summary says the index
  // block holds a key >= every target that led here, and the writer never writes an empty one.
  // `forward`: the direction of a walk from block to block (skip_forward / skip_backward).
  bool load_data_block(bool forward = true) {
    const uint64_t index_offset = table_->summary_handles[index_number_].offset;
    if (!index_.valid()) {
      if (!index_.status().is_ok()) return fail(index_.status());
      return fail(table_->corruption("index block does not match the index summary", index_offset));
    }
    std::string_view value = index_.value();
    BlockHandle handle;
    if (!decode_block_handle(&value, &handle) || !value.empty()) {
      return fail(table_->corruption("malformed block handle in index block", index_offset));
    }
    if (handle.offset == data_offset_ && data_.status().is_ok()) return true;
    // Once a walk has moved on from block to block a few times it is a scan: read ahead.
    ReadAhead* ahead = blocks_in_order_ >= kBlocksBeforeReadAhead ? &ahead_ : nullptr;
    auto block = table_->read_block(handle, ahead, forward);
    if (!block.is_ok()) return fail(block.status());
    data_.reset_checked(std::move(block).value(), &table_->path, handle.offset);
    data_offset_ = handle.offset;
    return true;
  }

  // Moves forward past exhausted data blocks to the next entry, if any.
  void skip_forward() {
    while (status_.is_ok() && !data_.valid()) {
      if (!data_.status().is_ok()) return (void)fail(data_.status());
      if (index_number_ == kNone) return;
      index_.next();
      if (!index_.valid()) {
        if (!index_.status().is_ok()) return (void)fail(index_.status());
        if (index_number_ + 1 >= table_->summary_keys.size()) return invalidate();  // the end
        if (!load_index_block(index_number_ + 1)) return;
        index_.seek_to_first();
      }
      ++blocks_in_order_;
      if (!load_data_block(true)) return;
      data_.seek_to_first();
    }
  }

  // Moves backward past exhausted data blocks to the previous entry, if any.
  void skip_backward() {
    while (status_.is_ok() && !data_.valid()) {
      if (!data_.status().is_ok()) return (void)fail(data_.status());
      if (index_number_ == kNone) return;
      index_.prev();
      if (!index_.valid()) {
        if (!index_.status().is_ok()) return (void)fail(index_.status());
        if (index_number_ == 0) return invalidate();  // before the first entry
        if (!load_index_block(index_number_ - 1)) return;
        index_.seek_to_last();
      }
      ++blocks_in_order_;
      if (!load_data_block(false)) return;
      data_.seek_to_last();
    }
  }

  const SSTableReader::Impl* table_;
  size_t index_number_ = kNone;  // the index block index_ holds
  BlockIterator index_;
  uint64_t data_offset_ = kNoOffset;  // the data block data_ holds
  BlockIterator data_;
  // Data blocks entered by walking since the last seek, and the window read ahead for them.
  static constexpr size_t kBlocksBeforeReadAhead = 2;
  size_t blocks_in_order_ = 0;
  ReadAhead ahead_;
  Status status_;
};

}  // namespace

std::unique_ptr<EntryIterator> new_sstable_iterator(const SSTableReader::Impl* table) {
  return std::make_unique<SSTableIterator>(table);
}

}  // namespace cassette::storage
