#include "engine/storage/encoded_row_writer.h"

#include "engine/storage/row_codec.h"
#include "engine/util/coding.h"

namespace cassette::storage {

void EncodedRowWriter::start(const LivenessInfo& liveness) {
  head_.clear();
  body_.clear();
  columns_ = 0;
  base_ = encode_row_head(liveness, DeletionTime{}, &head_);
}

void EncodedRowWriter::add_cell(ColumnId id, uint8_t flags, int64_t timestamp, int64_t ttl,
                                int64_t local_deletion_time, std::string_view value) {
  coding::put_varint64(&body_, id);
  body_.push_back(0);  // a simple column
  encode_cell_fields(flags, timestamp, base_, ttl, local_deletion_time, nullptr, value, &body_);
  ++columns_;
}

void EncodedRowWriter::add_live(ColumnId id, int64_t timestamp, std::string_view value) {
  add_cell(id, 0, timestamp, 0, kNoDeletionTime, value);
}

void EncodedRowWriter::add_expiring(ColumnId id, int64_t timestamp, int64_t ttl,
                                    int64_t now_seconds, std::string_view value) {
  add_cell(id, Cell::kExpiring, timestamp, ttl, now_seconds + ttl, value);
}

void EncodedRowWriter::add_tombstone(ColumnId id, int64_t timestamp, int64_t now_seconds) {
  add_cell(id, Cell::kTombstone, timestamp, 0, now_seconds, {});
}

void EncodedRowWriter::finish(std::string* out) const {
  out->append(head_);
  coding::put_varint64(out, columns_);
  out->append(body_);
}

}  // namespace cassette::storage
