#include "engine/storage/sstable_block.h"

#include <zstd.h>

#include <fmt/format.h>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace cassette::storage {
namespace {
constexpr uint8_t kRawBlock = 0;
constexpr uint8_t kZstdBlock = 1;
constexpr uint64_t kMaxBlockBytes = 256ull << 20;  // sanity bound on a decompressed block

// zstd contexts are large (about a megabyte to compress at level 3): one per thread, reused,
// instead of the fresh one ZSTD_compress/ZSTD_decompress would set up for every block.
struct ZstdContexts {
  ZSTD_CCtx* compress = ZSTD_createCCtx();
  ZSTD_DCtx* decompress = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(compress);
    ZSTD_freeDCtx(decompress);
  }
};
ZstdContexts& zstd_contexts() {
  thread_local ZstdContexts contexts;
  return contexts;
}
}  // namespace

void encode_block_handle(const BlockHandle& h, std::string* out) {
  coding::put_varint64(out, h.offset);
  coding::put_varint64(out, h.size);
}

bool decode_block_handle(std::string_view* in, BlockHandle* h) {
  return coding::get_varint64(in, &h->offset) && coding::get_varint64(in, &h->size);
}

// ---- building ----------------------------------------------------------------------------

void BlockBuilder::add(std::string_view key, std::string_view value) {
  size_t shared = 0;
  if (since_restart_ < kRestartInterval) {
    size_t limit = std::min(last_key_.size(), key.size());
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
  last_key_.assign(key);
  ++since_restart_;
  ++count_;
}

std::string_view BlockBuilder::finish() {
  for (uint32_t r : restarts_) coding::put_fixed32(&buffer_, r);
  coding::put_fixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
  return buffer_;
}

void BlockBuilder::reset() {
  buffer_.clear();
  restarts_.assign(1, 0);
  since_restart_ = 0;
  count_ = 0;
  last_key_.clear();
}

std::string frame_block(std::string_view block, int level) {
  std::string out;
  uint8_t type = kRawBlock;
  if (level > 0) {
    coding::put_varint64(&out, block.size());
    size_t header = out.size();
    out.resize(header + ZSTD_compressBound(block.size()));
    size_t n = ZSTD_compressCCtx(zstd_contexts().compress, out.data() + header, out.size() - header,
                                 block.data(), block.size(), level);
    if (!ZSTD_isError(n) && header + n < block.size()) {
      out.resize(header + n);
      type = kZstdBlock;
    }
  }
  if (type == kRawBlock) out.assign(block);
  out.push_back(static_cast<char>(type));
  coding::put_fixed32(&out, crc32c::mask(crc32c::value(out)));
  return out;
}

Result<std::string> unframe_block(std::string_view stored, const BlockHandle& handle, const std::string& path) {
  auto corrupt = [&](std::string_view what) {
    return Status::corruption(fmt::format("sstable {}: {} in block at offset {}", path, what, handle.offset));
  };
  if (stored.size() != handle.size + kBlockTrailerSize) return corrupt("truncated block");
  std::string_view payload_and_type = stored.substr(0, handle.size + 1);
  uint32_t stored_crc = coding::decode_fixed32(stored.data() + handle.size + 1);
  if (crc32c::unmask(stored_crc) != crc32c::value(payload_and_type)) return corrupt("checksum mismatch");
  std::string_view payload = stored.substr(0, handle.size);
  uint8_t type = static_cast<uint8_t>(stored[handle.size]);
  if (type == kRawBlock) return std::string(payload);
  if (type != kZstdBlock) return corrupt("unknown compression type");
  uint64_t raw_size;
  if (!coding::get_varint64(&payload, &raw_size) || raw_size > kMaxBlockBytes) return corrupt("bad block length");
  std::string raw(raw_size, '\0');
  size_t n = ZSTD_decompressDCtx(zstd_contexts().decompress, raw.data(), raw.size(), payload.data(),
                                 payload.size());
  if (ZSTD_isError(n) || n != raw_size) return corrupt("zstd decompression failed");
  return raw;
}

// ---- iterating -----------------------------------------------------------------------------

void BlockIterator::reset(std::shared_ptr<const std::string> block, std::string where) {
  block_ = std::move(block);
  where_ = std::move(where);
  status_ = Status::ok();
  data_ = block_->data();
  size_t size = block_->size();
  restart_count_ = 0;
  restarts_offset_ = current_ = next_ = 0;
  if (size < 4) return corrupt();
  restart_count_ = coding::decode_fixed32(data_ + size - 4);
  if (restart_count_ == 0 || restart_count_ > (size - 4) / 4) return corrupt();
  restarts_offset_ = static_cast<uint32_t>(size - 4 - 4ull * restart_count_);
  current_ = next_ = restarts_offset_;
}

void BlockIterator::corrupt() {
  if (status_.is_ok()) status_ = Status::corruption(fmt::format("sstable {}: malformed block", where_));
  current_ = next_ = restarts_offset_;
  key_.clear();
  value_ = {};
}

uint32_t BlockIterator::restart_point(uint32_t index) const {
  return coding::decode_fixed32(data_ + restarts_offset_ + 4ull * index);
}

void BlockIterator::seek_to_restart(uint32_t index) {
  key_.clear();
  restart_index_ = index;
  next_ = restart_point(index);
  if (next_ > restarts_offset_) corrupt();
}

bool BlockIterator::parse_next() {
  current_ = next_;
  if (current_ >= restarts_offset_) {
    current_ = next_ = restarts_offset_;
    return false;
  }
  std::string_view in(data_ + current_, restarts_offset_ - current_);
  uint64_t shared, unshared, value_length;
  if (!coding::get_varint64(&in, &shared) || !coding::get_varint64(&in, &unshared) ||
      !coding::get_varint64(&in, &value_length) || shared > key_.size() || unshared > in.size() ||
      value_length > in.size() - unshared) {
    corrupt();
    return false;
  }
  key_.resize(shared);
  key_.append(in.data(), unshared);
  value_ = std::string_view(in.data() + unshared, value_length);
  next_ = static_cast<uint32_t>((value_.data() + value_length) - data_);
  while (restart_index_ + 1 < restart_count_ && restart_point(restart_index_ + 1) <= current_) ++restart_index_;
  return true;
}

void BlockIterator::seek_to_first() {
  if (!status_.is_ok() || restart_count_ == 0) return;
  seek_to_restart(0);
  parse_next();
}

void BlockIterator::seek_to_last() {
  if (!status_.is_ok() || restart_count_ == 0) return;
  seek_to_restart(restart_count_ - 1);
  while (parse_next() && next_ < restarts_offset_) {
  }
}

void BlockIterator::seek(std::string_view target) {
  if (!status_.is_ok() || restart_count_ == 0) return;
  // The last restart whose key is < target; scan forward from it.
  uint32_t left = 0, right = restart_count_ - 1;
  while (left < right) {
    uint32_t mid = (left + right + 1) / 2;
    uint32_t offset = restart_point(mid);
    std::string_view in(data_ + offset, offset < restarts_offset_ ? restarts_offset_ - offset : 0);
    uint64_t shared, unshared, value_length;
    if (!coding::get_varint64(&in, &shared) || !coding::get_varint64(&in, &unshared) ||
        !coding::get_varint64(&in, &value_length) || shared != 0 || unshared > in.size()) {
      return corrupt();
    }
    if (std::string_view(in.data(), unshared) < target) {
      left = mid;
    } else {
      right = mid - 1;
    }
  }
  seek_to_restart(left);
  while (parse_next()) {
    if (std::string_view(key_) >= target) return;
  }
}

void BlockIterator::next() {
  if (valid()) parse_next();
}

void BlockIterator::prev() {
  if (!valid()) return;
  uint32_t original = current_;
  while (restart_point(restart_index_) >= original) {
    if (restart_index_ == 0) {  // no entry before the first
      current_ = next_ = restarts_offset_;
      return;
    }
    --restart_index_;
  }
  seek_to_restart(restart_index_);
  while (parse_next() && next_ < original) {
  }
}

}  // namespace cassette::storage
