#include "engine/storage/block_builder.h"

#include <algorithm>
#include <cassert>

#include "engine/util/coding.h"

namespace cassette::storage {

BlockBuilder::BlockBuilder(int restart_interval)
    : restart_interval_(std::max(1, restart_interval)), restarts_{0} {}

void BlockBuilder::add(std::string_view key, std::string_view value) {
  assert(!finished_);
  assert(entries_ == 0 || key > std::string_view(last_key_));
  size_t shared = 0;
  if (since_restart_ < restart_interval_) {
    const size_t limit = std::min(last_key_.size(), key.size());
    while (shared < limit && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    since_restart_ = 0;
  }
  coding::put_varint64(&buffer_, shared);
  coding::put_varint64(&buffer_, key.size() - shared);
  coding::put_varint64(&buffer_, value.size());
  buffer_.append(key.substr(shared));
  buffer_.append(value);
  last_key_.resize(shared);
  last_key_.append(key.substr(shared));
  ++since_restart_;
  ++entries_;
}

std::string_view BlockBuilder::finish() {
  if (!finished_) {
    for (uint32_t restart : restarts_) coding::put_fixed32(&buffer_, restart);
    coding::put_fixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    finished_ = true;
  }
  return buffer_;
}

void BlockBuilder::reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  since_restart_ = 0;
  entries_ = 0;
  last_key_.clear();
  finished_ = false;
}

}  // namespace cassette::storage
