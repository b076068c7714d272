// BlockIterator: reads one uncompressed SSTable block (block_builder.h has its layout) in both
// directions. Seeks binary-search the restart points and decode at most one restart interval.
// Going backwards decodes the interval before the current entry once and then steps through it,
// so a run of prev() calls costs about what the same run of next() calls does.
//
// Every read is bounds-checked: a malformed block (which its checksum should already have
// caught) makes the iterator invalid with a Corruption status naming the file and the block's
// offset, never a crash or a key that was not written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/status.h"

namespace cassette::storage {

// Checks the restart array of an uncompressed block against FORMAT.md's invariants: OK, or the
// Corruption "sstable <path>: malformed block (<what>) at offset <offset>" a BlockIterator would
// report for it.
Status check_block(std::string_view block, const std::string& path, uint64_t offset);

class BlockIterator {
 public:
  BlockIterator() = default;
  BlockIterator(const BlockIterator&) = delete;
  BlockIterator& operator=(const BlockIterator&) = delete;

  // Starts over on `block` (not positioned). `path` must outlive the iterator; it and `offset`
  // name the block in errors. Checks the restart array at once (check_block).
  void reset(std::shared_ptr<const std::string> block, const std::string* path, uint64_t offset);
  // The same for a block that passed check_block already: SSTableReader::Impl::read_block checks
  // every block it reads, so a block served from the cache is checked once, not at every seek.
  void reset_checked(std::shared_ptr<const std::string> block, const std::string* path,
                     uint64_t offset);
  // Drops the block.
  void clear();

  bool valid() const { return status_.is_ok() && current_ < restarts_offset_; }
  const Status& status() const { return status_; }

  void seek_to_first();
  void seek_to_last();
  void seek(std::string_view target);           // first entry >= target
  void seek_for_prev(std::string_view target);  // last entry <= target
  void next();                                  // REQUIRES: valid()
  void prev();                                  // REQUIRES: valid()

  std::string_view key() const { return key_; }      // REQUIRES: valid()
  std::string_view value() const { return value_; }  // REQUIRES: valid()

 private:
  // One entry of the decoded interval (see decode_interval).
  struct DecodedEntry {
    uint32_t offset;   // of the entry in the block
    uint32_t next;     // of the entry after it
    uint32_t key_end;  // its key ends here in interval_keys_ (and the next one starts)
    uint32_t value_offset;
    uint32_t value_size;
  };
  static constexpr size_t kNoPosition = SIZE_MAX;

  // Takes `block`; corrupt when `check` is set and its restart array is malformed.
  void start(std::shared_ptr<const std::string> block, const std::string* path, uint64_t offset,
             bool check);
  uint32_t restart_point(uint32_t index) const;
  // Decodes the entry header at `offset`; false when it does not fit in the entries area.
  bool decode_entry(uint32_t offset, uint32_t* shared, uint32_t* unshared, uint32_t* value_size,
                    uint32_t* key_delta) const;
  // The last restart point whose key is < target (<= when `inclusive`); nullopt when none is
  // (or the block is malformed: then status() says so).
  std::optional<uint32_t> last_restart_before(std::string_view target, bool inclusive);
  void seek_to_restart(uint32_t index);
  bool parse_next();  // moves to the entry at next_; false at the end or on corruption
  // Decodes the entries of restart interval `index` that start before `limit` into interval_;
  // false (and corrupt) when they do not end exactly at `limit` or at the interval's end.
  bool decode_interval(uint32_t index, uint32_t limit);
  void position_at_decoded(size_t i);
  void invalidate();
  void corrupt(std::string_view what);

  std::shared_ptr<const std::string> block_;
  const std::string* path_ = nullptr;
  uint64_t block_offset_ = 0;
  const char* data_ = nullptr;
  uint32_t restarts_offset_ = 0;  // the entries end here
  uint32_t restart_count_ = 0;

  uint32_t current_ = 0;        // offset of the current entry; restarts_offset_ when not valid
  uint32_t next_ = 0;           // offset of the entry after it
  uint32_t restart_index_ = 0;  // the restart interval holding the current entry
  uint32_t next_restart_ = 0;   // where the interval after it starts (parse_next's positions)
  std::string key_buffer_;      // starts with the key of the last entry parse_next() decoded
  std::string_view key_;        // into key_buffer_ or interval_keys_
  std::string_view value_;      // into the block

  std::vector<DecodedEntry> interval_;
  std::string interval_keys_;
  uint32_t interval_restart_ = 0;
  size_t interval_position_ = kNoPosition;  // the current entry's index in interval_, if there

  Status status_;
};

}  // namespace cassette::storage
