#include "engine/storage/encoded_batch.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "engine/storage/commit_record.h"
#include "engine/storage/row.h"
#include "engine/types/murmur3.h"
#include "engine/util/coding.h"

namespace cassette::storage {

Result<size_t> EncodedBatch::add_row(TableId table, std::string_view partition_key, EntryKind kind,
                                     std::string_view clustering, std::string_view value) {
  CASSETTE_RETURN_IF_ERROR(validate_partition_key(partition_key));
  scratch_.clear();
  append_partition_prefix(&scratch_, types::murmur3_token(partition_key), partition_key);
  scratch_.push_back(static_cast<char>(kind));
  scratch_.append(clustering);
  return add(table, scratch_, value);
}

void EncodedBatch::Free::operator()(char* p) const {
  std::free(p);
}

EncodedBatch& EncodedBatch::operator=(EncodedBatch&& other) noexcept {
  if (this == &other) return *this;
  data_ = std::move(other.data_);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  entries_ = std::exchange(other.entries_, 0);
  return *this;
}

void EncodedBatch::append(const char* p, size_t n) {
  if (size_ + n > capacity_) {
    size_t capacity = std::max<size_t>({capacity_ * 2, size_ + n, 4096});
    char* grown = static_cast<char*>(std::realloc(data_.get(), capacity));
    if (grown == nullptr) throw std::bad_alloc();
    (void)data_.release();
    data_.reset(grown);
    capacity_ = capacity;
  }
  if (n > 0) std::memcpy(data_.get() + size_, p, n);
  size_ += n;
}

void EncodedBatch::append_varint(uint64_t v) {
  char buf[coding::kMaxVarint64Bytes];
  append(buf, coding::encode_varint64(buf, v));
}

size_t EncodedBatch::add(TableId table, std::string_view key, std::string_view value) {
  size_t offset = size_;
  append_varint(table);
  append_varint(key.size());
  append(key.data(), key.size());
  append_varint(value.size());
  append(value.data(), value.size());
  ++entries_;
  return offset;
}

EncodedBatch::Entry EncodedBatch::entry_at(size_t offset, size_t* next) const {
  std::string_view in = body().substr(offset);
  Entry e;
  // Written by add(): cannot fail.
  (void)coding::get_varint64(&in, &e.table);
  (void)coding::get_length_prefixed(&in, &e.key);
  (void)coding::get_length_prefixed(&in, &e.value);
  if (next != nullptr) *next = size_ - in.size();
  return e;
}

// ---- restamping ------------------------------------------------------------------------------
//
// A walk over the layout in FORMAT.md ("Entry values") that copies every byte but the
// timestamps. Cell timestamps are stored relative to the row's liveness timestamp, so a cell is
// re-based on the restamped liveness even when its own timestamp is explicit.

namespace {

class Restamper {
 public:
  Restamper(std::string_view in, int64_t timestamp, std::string* out, int64_t* min_timestamp)
      : in_(in), timestamp_(timestamp), out_(out), min_(min_timestamp) {}

  bool row() {
    uint8_t flags;
    if (!byte(&flags) || flags > 7) return false;
    int64_t old_base = 0, new_base = 0;
    if (flags & 1) {  // liveness
      int64_t ts;
      if (!coding::get_signed_varint64(&in_, &ts)) return false;
      old_base = ts;
      new_base = fix(ts);
      coding::put_signed_varint64(out_, new_base);
      if ((flags & 2) && !(copy_varint() && copy_varint())) return false;  // ttl, expiration
    }
    if ((flags & 4) && !deletion()) return false;
    uint64_t columns;
    if (!copy_varint(&columns) || columns > in_.size()) return false;
    for (uint64_t i = 0; i < columns; ++i) {
      uint8_t complex;
      if (!copy_varint() || !byte(&complex) || complex > 1) return false;
      if (complex == 0) {
        if (!cell(false, old_base, new_base)) return false;
        continue;
      }
      uint64_t cells;
      if (!deletion() || !copy_varint(&cells) || cells > in_.size()) return false;
      for (uint64_t j = 0; j < cells; ++j) {
        if (!cell(true, old_base, new_base)) return false;
      }
    }
    return in_.empty();
  }

  bool header() {
    uint64_t n;
    if (!deletion() || !copy_varint(&n) || n > in_.size()) return false;
    for (uint64_t i = 0; i < n; ++i) {
      if (!copy_length_prefixed() || !copy_length_prefixed() || !deletion()) return false;
    }
    return in_.empty();
  }

 private:
  int64_t fix(int64_t ts) {
    if (ts == kAutoTimestamp) ts = timestamp_;
    if (ts != kNoTimestamp) *min_ = std::min(*min_, ts);
    return ts;
  }

  bool byte(uint8_t* b) {
    if (!coding::get_byte(&in_, b)) return false;
    out_->push_back(static_cast<char>(*b));
    return true;
  }
  bool copy_varint(uint64_t* v = nullptr) {
    const char* start = in_.data();
    uint64_t x;
    if (!coding::get_varint64(&in_, &x)) return false;
    out_->append(start, static_cast<size_t>(in_.data() - start));
    if (v != nullptr) *v = x;
    return true;
  }
  bool copy_length_prefixed() {
    const char* start = in_.data();
    std::string_view bytes;
    if (!coding::get_length_prefixed(&in_, &bytes)) return false;
    out_->append(start, static_cast<size_t>(in_.data() - start));
    return true;
  }
  // A deletion: marked_for_delete_at (restamped unless "live"), local deletion time.
  bool deletion() {
    int64_t at;
    if (!coding::get_signed_varint64(&in_, &at)) return false;
    if (at != kNoTimestamp) at = fix(at);
    coding::put_signed_varint64(out_, at);
    return copy_varint();
  }
  bool cell(bool with_path, int64_t old_base, int64_t new_base) {
    uint8_t flags;
    int64_t delta;
    if (!byte(&flags) || flags > 7 || !coding::get_signed_varint64(&in_, &delta)) return false;
    int64_t ts =
        fix(static_cast<int64_t>(static_cast<uint64_t>(delta) + static_cast<uint64_t>(old_base)));
    coding::put_signed_varint64(
        out_, static_cast<int64_t>(static_cast<uint64_t>(ts) - static_cast<uint64_t>(new_base)));
    const bool tombstone = flags & Cell::kTombstone, expiring = flags & Cell::kExpiring;
    if (expiring && !copy_varint()) return false;
    if ((expiring || tombstone) && !copy_varint()) return false;
    if (with_path && !copy_length_prefixed()) return false;
    if (!tombstone && !copy_length_prefixed()) return false;
    return true;
  }

  std::string_view in_;
  int64_t timestamp_;
  std::string* out_;
  int64_t* min_;
};

}  // namespace

bool restamp_value(std::string_view value, bool header, int64_t timestamp, std::string* out,
                   int64_t* min_timestamp) {
  Restamper r(value, timestamp, out, min_timestamp);
  return header ? r.header() : r.row();
}

}  // namespace cassette::storage
