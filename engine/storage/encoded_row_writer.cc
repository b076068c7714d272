#include "engine/storage/encoded_row_writer.h"

#include "engine/util/coding.h"

namespace cassette::storage {

namespace {
// row_codec.cc's row flags.
constexpr uint8_t kHasLiveness = 1, kExpiringLiveness = 2;

int64_t relative(int64_t ts, int64_t base) {
  return static_cast<int64_t>(static_cast<uint64_t>(ts) - static_cast<uint64_t>(base));
}
}  // namespace

void EncodedRowWriter::start(const LivenessInfo& liveness) {
  head_.clear();
  body_.clear();
  columns_ = 0;
  uint8_t flags = 0;
  if (!liveness.is_empty()) flags |= kHasLiveness;
  if (liveness.is_expiring()) flags |= kExpiringLiveness;
  head_.push_back(static_cast<char>(flags));
  if (flags & kHasLiveness) {
    coding::put_signed_varint64(&head_, liveness.timestamp);
    if (flags & kExpiringLiveness) {
      coding::put_varint64(&head_, static_cast<uint64_t>(liveness.ttl));
      coding::put_signed_varint64(&head_, liveness.local_expiration_time);
    }
  }
  base_ = liveness.is_empty() ? 0 : liveness.timestamp;
}

void EncodedRowWriter::column_header(ColumnId id, uint8_t flags, int64_t timestamp) {
  coding::put_varint64(&body_, id);
  body_.push_back(0);  // simple
  body_.push_back(static_cast<char>(flags));
  coding::put_signed_varint64(&body_, relative(timestamp, base_));
  ++columns_;
}

void EncodedRowWriter::add_live(ColumnId id, int64_t timestamp, std::string_view value) {
  column_header(id, 0, timestamp);
  coding::put_length_prefixed(&body_, value);
}

void EncodedRowWriter::add_expiring(ColumnId id, int64_t timestamp, int64_t ttl,
                                    int64_t now_seconds, std::string_view value) {
  column_header(id, Cell::kExpiring, timestamp);
  coding::put_varint64(&body_, static_cast<uint64_t>(ttl));
  coding::put_signed_varint64(&body_, now_seconds + ttl);
  coding::put_length_prefixed(&body_, value);
}

void EncodedRowWriter::add_tombstone(ColumnId id, int64_t timestamp, int64_t now_seconds) {
  column_header(id, Cell::kTombstone, timestamp);
  coding::put_signed_varint64(&body_, now_seconds);
}

void EncodedRowWriter::finish(std::string* out) const {
  out->append(head_);
  coding::put_varint64(out, columns_);
  out->append(body_);
}

}  // namespace cassette::storage
