// SSTable blocks: sorted (key, value) entries with prefix compression and restart points, as in
// LevelDB, plus the framing every block is stored with (compression type and checksum).
//
//   entry   = varint(shared key bytes) varint(unshared) varint(value length) unshared-key value
//   block   = entries  fixed32 × restart offsets  fixed32(restart count)
//   stored  = payload  u8 type (0 raw, 1 zstd: varint(raw length) + zstd frame)  fixed32 masked crc
//
// A restart point (every 16 entries) stores its key whole, so seeks binary-search the restarts and
// prev() rescans from the restart before.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/status.h"

namespace cassette::storage {

// Where a block is in its file: the offset and size of its payload (the type byte and checksum
// follow it: kBlockTrailerSize more bytes).
struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};
constexpr size_t kBlockTrailerSize = 5;
void encode_block_handle(const BlockHandle& handle, std::string* out);
bool decode_block_handle(std::string_view* in, BlockHandle* handle);

class BlockBuilder {
 public:
  // REQUIRES: key > every key added since the last reset().
  void add(std::string_view key, std::string_view value);
  // The block's bytes; the builder must be reset() before reuse.
  std::string_view finish();
  void reset();
  size_t size_estimate() const { return buffer_.size() + restarts_.size() * 4 + 4; }
  bool empty() const { return count_ == 0; }
  const std::string& last_key() const { return last_key_; }

 private:
  static constexpr int kRestartInterval = 16;
  std::string buffer_;
  std::vector<uint32_t> restarts_{0};
  int since_restart_ = 0;
  size_t count_ = 0;
  std::string last_key_;
};

// Frames a block for the file: compresses it at `level` (0 = never) when that saves space.
std::string frame_block(std::string_view block, int compression_level);
// Checks and undoes frame_block on the bytes read at `handle` (payload + trailer). Errors are
// Corruption naming `path` and the offset.
Result<std::string> unframe_block(std::string_view stored, const BlockHandle& handle, const std::string& path);

// Iterates one uncompressed block. A malformed block makes the iterator invalid with a
// Corruption status.
class BlockIterator {
 public:
  BlockIterator() = default;
  // `block` must stay alive as long as the iterator; `where` names it in errors.
  void reset(std::shared_ptr<const std::string> block, std::string where);
  bool valid() const { return current_ < restarts_offset_ && status_.is_ok(); }
  const Status& status() const { return status_; }
  void seek_to_first();
  void seek_to_last();
  void seek(std::string_view target);  // first key >= target
  void next();
  void prev();
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }

 private:
  uint32_t restart_point(uint32_t index) const;
  void seek_to_restart(uint32_t index);
  bool parse_next();  // parses the entry at next_; false at the end or on corruption
  void corrupt();

  std::shared_ptr<const std::string> block_;
  std::string where_;
  const char* data_ = nullptr;
  uint32_t restarts_offset_ = 0;  // entries end here
  uint32_t restart_count_ = 0;
  uint32_t current_ = 0;  // offset of the current entry (== restarts_offset_ when invalid)
  uint32_t next_ = 0;     // offset just past it
  uint32_t restart_index_ = 0;
  std::string key_;
  std::string_view value_;
  Status status_;
};

}  // namespace cassette::storage
