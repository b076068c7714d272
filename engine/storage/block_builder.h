// BlockBuilder: lays out sorted (key, value) entries as one SSTable block, LevelDB-style. Each
// entry stores only the bytes of its key that differ from the previous key; every
// `restart_interval` entries a restart point stores the key whole, so a reader binary-searches
// the restart points and scans at most one interval:
//
//   entry = varint(shared key bytes) varint(unshared key bytes) varint(value length)
//           unshared key bytes  value
//   block = entry*  fixed32 restart offset × n  fixed32 n        (n >= 1; the first offset is 0)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cassette::storage {

class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval = 16);

  // REQUIRES: key > every key added since the last reset(); the block stays below 4 GiB.
  void add(std::string_view key, std::string_view value);
  // Appends the restart array and returns the block's bytes, valid until reset().
  std::string_view finish();
  // Starts a new, empty block.
  void reset();

  // The block's size if finish() were called now.
  size_t size_estimate() const { return buffer_.size() + 4 * restarts_.size() + 4; }
  bool empty() const { return entries_ == 0; }
  const std::string& last_key() const { return last_key_; }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int since_restart_ = 0;
  size_t entries_ = 0;
  std::string last_key_;
  bool finished_ = false;
};

}  // namespace cassette::storage
