#include "engine/storage/block.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "engine/util/coding.h"

namespace cassette::storage {

namespace {

Status malformed_block(const std::string* path, std::string_view what, uint64_t offset) {
  return Status::corruption(fmt::format("sstable {}: malformed block ({}) at offset {}",
                                        path != nullptr ? *path : "?", what, offset));
}

// What is wrong with `block`'s restart array; nullptr when nothing is.
const char* restart_array_error(std::string_view block) {
  const size_t size = block.size();
  if (size < 4 || size > UINT32_MAX) return "bad block size";
  const uint32_t count = coding::decode_fixed32(block.data() + size - 4);
  if (count == 0 || count > (size - 4) / 4) return "bad restart count";
  const size_t restarts_offset = size - 4 - 4ull * count;
  // Restart points start at 0 and strictly increase inside the entries area; an empty block has
  // just the one at 0.
  const char* restarts = block.data() + restarts_offset;
  uint32_t previous = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t point = coding::decode_fixed32(restarts + 4ull * i);
    const bool ok = i == 0 ? point == 0 && (restarts_offset > 0 || count == 1)
                           : point > previous && point < restarts_offset;
    if (!ok) return "bad restart point";
    previous = point;
  }
  return nullptr;
}

}  // namespace

Status check_block(std::string_view block, const std::string& path, uint64_t offset) {
  const char* error = restart_array_error(block);
  return error == nullptr ? Status::ok() : malformed_block(&path, error, offset);
}

void BlockIterator::reset(std::shared_ptr<const std::string> block, const std::string* path,
                          uint64_t offset) {
  start(std::move(block), path, offset, /*check=*/true);
}

void BlockIterator::reset_checked(std::shared_ptr<const std::string> block, const std::string* path,
                                  uint64_t offset) {
  start(std::move(block), path, offset, /*check=*/false);
}

void BlockIterator::start(std::shared_ptr<const std::string> block, const std::string* path,
                          uint64_t offset, bool check) {
  block_ = std::move(block);
  path_ = path;
  block_offset_ = offset;
  status_ = Status::ok();
  data_ = block_->data();
  restarts_offset_ = restart_count_ = 0;
  interval_.clear();
  interval_keys_.clear();
  invalidate();
  if (check) {
    if (const char* error = restart_array_error(*block_)) return corrupt(error);
  }
  const size_t size = block_->size();
  restart_count_ = coding::decode_fixed32(data_ + size - 4);
  restarts_offset_ = static_cast<uint32_t>(size - 4 - 4ull * restart_count_);
  current_ = next_ = restarts_offset_;
}

void BlockIterator::clear() {
  block_.reset();
  data_ = nullptr;
  restarts_offset_ = restart_count_ = 0;
  interval_.clear();
  interval_keys_.clear();
  status_ = Status::ok();
  invalidate();
}

void BlockIterator::invalidate() {
  current_ = next_ = restarts_offset_;
  key_ = {};
  value_ = {};
  interval_position_ = kNoPosition;
}

void BlockIterator::corrupt(std::string_view what) {
  if (status_.is_ok()) status_ = malformed_block(path_, what, block_offset_);
  invalidate();
}

uint32_t BlockIterator::restart_point(uint32_t index) const {
  return coding::decode_fixed32(data_ + restarts_offset_ + 4ull * index);
}

bool BlockIterator::decode_entry(uint32_t offset, uint32_t* shared, uint32_t* unshared,
                                 uint32_t* value_size, uint32_t* key_delta) const {
  if (offset >= restarts_offset_) return false;
  const char* p = data_ + offset;
  const char* limit = data_ + restarts_offset_;
  if (limit - p >= 3 && ((p[0] | p[1] | p[2]) & 0x80) == 0) {
    // The common case: all three lengths below 128, one byte each.
    *shared = static_cast<uint8_t>(p[0]);
    *unshared = static_cast<uint8_t>(p[1]);
    *value_size = static_cast<uint8_t>(p[2]);
    p += 3;
  } else {
    std::string_view in(p, limit - p);
    if (!coding::get_varint32(&in, shared) || !coding::get_varint32(&in, unshared) ||
        !coding::get_varint32(&in, value_size)) {
      return false;
    }
    p = in.data();
  }
  if (static_cast<uint64_t>(*unshared) + *value_size > static_cast<uint64_t>(limit - p)) {
    return false;
  }
  *key_delta = static_cast<uint32_t>(p - data_);
  return true;
}

std::optional<uint32_t> BlockIterator::last_restart_before(std::string_view target,
                                                           bool inclusive) {
  std::optional<uint32_t> found;
  uint32_t low = 0, high = restart_count_;  // the answer's successor is in [low, high]
  while (low < high) {
    const uint32_t mid = low + (high - low) / 2;
    uint32_t shared, unshared, value_size, key_delta;
    if (!decode_entry(restart_point(mid), &shared, &unshared, &value_size, &key_delta) ||
        shared != 0) {
      corrupt("bad restart entry");
      return std::nullopt;
    }
    std::string_view key(data_ + key_delta, unshared);
    if (key < target || (inclusive && key == target)) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return found;
}

void BlockIterator::seek_to_restart(uint32_t index) {
  restart_index_ = index;
  next_restart_ = index + 1 < restart_count_ ? restart_point(index + 1) : restarts_offset_;
  next_ = restart_point(index);
  key_ = {};  // a restart entry shares nothing
}

bool BlockIterator::parse_next() {
  interval_position_ = kNoPosition;
  current_ = next_;
  if (current_ >= restarts_offset_) {
    invalidate();
    return false;
  }
  uint32_t shared, unshared, value_size, key_delta;
  if (!decode_entry(current_, &shared, &unshared, &value_size, &key_delta) ||
      shared > key_.size()) {  // key_: the previous entry's key (empty after a restart)
    corrupt("bad entry");
    return false;
  }
  // The key is rebuilt in place: its first `shared` bytes are already there, and the buffer only
  // grows (key_ carries the length), so a scan's keys cost one memcpy of their new bytes.
  const size_t length = static_cast<size_t>(shared) + unshared;
  if (key_buffer_.size() < length) key_buffer_.resize(std::max(length, 2 * key_buffer_.size()));
  std::memcpy(key_buffer_.data() + shared, data_ + key_delta, unshared);
  key_ = std::string_view(key_buffer_.data(), length);
  value_ = std::string_view(data_ + key_delta + unshared, value_size);
  next_ = key_delta + unshared + value_size;
  if (current_ >= next_restart_) {  // entered the next restart interval (or more, if malformed)
    while (restart_index_ + 1 < restart_count_ && restart_point(restart_index_ + 1) <= current_) {
      ++restart_index_;
    }
    next_restart_ =
        restart_index_ + 1 < restart_count_ ? restart_point(restart_index_ + 1) : restarts_offset_;
  }
  return true;
}

bool BlockIterator::decode_interval(uint32_t index, uint32_t limit) {
  interval_.clear();
  interval_keys_.clear();
  interval_restart_ = index;
  const uint32_t interval_end =
      index + 1 < restart_count_ ? restart_point(index + 1) : restarts_offset_;
  const uint32_t end = std::min(limit, interval_end);
  uint32_t offset = restart_point(index);
  key_buffer_.clear();
  while (offset < end) {
    uint32_t shared, unshared, value_size, key_delta;
    if (!decode_entry(offset, &shared, &unshared, &value_size, &key_delta) ||
        shared > key_buffer_.size()) {
      corrupt("bad entry");
      return false;
    }
    key_buffer_.resize(shared);
    key_buffer_.append(data_ + key_delta, unshared);
    interval_keys_.append(key_buffer_);
    const uint32_t next = key_delta + unshared + value_size;
    interval_.push_back(DecodedEntry{offset, next, static_cast<uint32_t>(interval_keys_.size()),
                                     key_delta + unshared, value_size});
    offset = next;
  }
  if (offset != end || interval_.empty()) {
    corrupt("entry crosses a restart point");
    return false;
  }
  return true;
}

void BlockIterator::position_at_decoded(size_t i) {
  const DecodedEntry& entry = interval_[i];
  const uint32_t key_begin = i == 0 ? 0 : interval_[i - 1].key_end;
  current_ = entry.offset;
  next_ = entry.next;
  restart_index_ = interval_restart_;
  next_restart_ =
      restart_index_ + 1 < restart_count_ ? restart_point(restart_index_ + 1) : restarts_offset_;
  key_ = std::string_view(interval_keys_.data() + key_begin, entry.key_end - key_begin);
  value_ = std::string_view(data_ + entry.value_offset, entry.value_size);
  interval_position_ = i;
}

void BlockIterator::seek_to_first() {
  if (!status_.is_ok() || data_ == nullptr) return;
  seek_to_restart(0);
  parse_next();
}

void BlockIterator::seek_to_last() {
  if (!status_.is_ok() || data_ == nullptr) return;
  if (restarts_offset_ == 0) return invalidate();
  if (!decode_interval(restart_count_ - 1, restarts_offset_)) return;
  position_at_decoded(interval_.size() - 1);
}

void BlockIterator::seek(std::string_view target) {
  if (!status_.is_ok() || data_ == nullptr) return;
  if (restarts_offset_ == 0) return invalidate();
  std::optional<uint32_t> restart = last_restart_before(target, /*inclusive=*/false);
  if (!status_.is_ok()) return;
  seek_to_restart(restart.value_or(0));
  while (parse_next()) {
    if (key_ >= target) return;
  }
}

void BlockIterator::seek_for_prev(std::string_view target) {
  if (!status_.is_ok() || data_ == nullptr) return;
  if (restarts_offset_ == 0) return invalidate();
  std::optional<uint32_t> restart = last_restart_before(target, /*inclusive=*/true);
  if (!status_.is_ok()) return;
  if (!restart.has_value()) return invalidate();  // every key is > target
  if (!decode_interval(*restart, restarts_offset_)) return;
  size_t i = interval_.size();
  while (i > 0) {
    const uint32_t key_begin = i == 1 ? 0 : interval_[i - 2].key_end;
    std::string_view key(interval_keys_.data() + key_begin, interval_[i - 1].key_end - key_begin);
    if (key <= target) break;
    --i;
  }
  if (i == 0) return corrupt("restart key out of order");  // the restart's key was <= target
  position_at_decoded(i - 1);
}

void BlockIterator::next() {
  if (!valid()) return;
  if (interval_position_ != kNoPosition) {
    if (interval_position_ + 1 < interval_.size())
      return position_at_decoded(interval_position_ + 1);
    // parse_next() extends the current key, which is in interval_keys_.
    if (key_buffer_.size() < key_.size()) key_buffer_.resize(key_.size());
    std::memcpy(key_buffer_.data(), key_.data(), key_.size());
    key_ = std::string_view(key_buffer_.data(), key_.size());
  }
  parse_next();
}

void BlockIterator::prev() {
  if (!valid()) return;
  if (interval_position_ != kNoPosition && interval_position_ > 0) {
    return position_at_decoded(interval_position_ - 1);
  }
  uint32_t restart = restart_index_;
  if (restart_point(restart) >= current_) {
    if (restart == 0) return invalidate();  // the first entry has no predecessor
    --restart;
  }
  if (!decode_interval(restart, current_)) return;
  position_at_decoded(interval_.size() - 1);
}

}  // namespace cassette::storage
