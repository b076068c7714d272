#include "engine/storage/block_format.h"

#include <fmt/format.h>
#include <zstd.h>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace cassette::storage {
namespace {

constexpr uint8_t kRawBlock = 0;
constexpr uint8_t kZstdBlock = 1;

void append_trailer(uint8_t type, size_t payload_start, std::string* out) {
  out->push_back(static_cast<char>(type));
  std::string_view framed(out->data() + payload_start, out->size() - payload_start);
  coding::put_fixed32(out, crc32c::mask(crc32c::value(framed)));
}

// One decompression context per thread: creating one per block would cost more than the work.
struct DecompressionContext {
  ZSTD_DCtx* context = ZSTD_createDCtx();
  ~DecompressionContext() { ZSTD_freeDCtx(context); }
};

}  // namespace

void encode_block_handle(const BlockHandle& handle, std::string* out) {
  coding::put_varint64(out, handle.offset);
  coding::put_varint64(out, handle.size);
}

bool decode_block_handle(std::string_view* in, BlockHandle* handle) {
  return coding::get_varint64(in, &handle->offset) && coding::get_varint64(in, &handle->size);
}

void BlockCompressor::FreeContext::operator()(ZSTD_CCtx_s* context) const {
  ZSTD_freeCCtx(context);
}

BlockCompressor::BlockCompressor(int level) : level_(level) {
  if (level_ > 0) context_.reset(ZSTD_createCCtx());
}

BlockCompressor::~BlockCompressor() = default;

uint64_t BlockCompressor::append_framed(std::string_view block, std::string* out) {
  const size_t start = out->size();
  if (context_ != nullptr) {
    coding::put_varint64(out, block.size());
    const size_t frame_start = out->size();
    out->resize(frame_start + ZSTD_compressBound(block.size()));
    size_t n = ZSTD_compressCCtx(context_.get(), out->data() + frame_start,
                                 out->size() - frame_start, block.data(), block.size(), level_);
    if (!ZSTD_isError(n) && frame_start + n - start < block.size()) {
      out->resize(frame_start + n);
      const uint64_t payload_size = out->size() - start;
      append_trailer(kZstdBlock, start, out);
      return payload_size;
    }
    out->resize(start);  // compression did not pay: store it raw
  }
  out->append(block);
  append_trailer(kRawBlock, start, out);
  return block.size();
}

Status unframe_block_into(std::string_view stored, const BlockHandle& handle,
                          const std::string& path, std::string* out) {
  auto corrupt = [&](std::string_view what) {
    return Status::corruption(
        fmt::format("sstable {}: {} in block at offset {}", path, what, handle.offset));
  };
  if (stored.size() < kBlockTrailerSize || stored.size() - kBlockTrailerSize != handle.size) {
    return corrupt("truncated block");
  }
  const uint32_t expected = crc32c::unmask(coding::decode_fixed32(stored.data() + handle.size + 1));
  if (crc32c::value(stored.substr(0, handle.size + 1)) != expected) {
    return corrupt("block checksum mismatch");
  }
  std::string_view payload = stored.substr(0, handle.size);
  const auto type = static_cast<uint8_t>(stored[handle.size]);
  if (type == kRawBlock) {
    if (payload.size() > kMaxBlockBytes) return corrupt("oversized block");
    out->assign(payload);
    return Status::ok();
  }
  if (type != kZstdBlock) return corrupt(fmt::format("unknown compression type {}", type));
  uint64_t length;
  if (!coding::get_varint64(&payload, &length) || length > kMaxBlockBytes) {
    return corrupt("bad uncompressed block length");
  }
  const unsigned long long frame_length = ZSTD_getFrameContentSize(payload.data(), payload.size());
  if (frame_length != length) return corrupt("zstd frame length mismatch");
  thread_local DecompressionContext dctx;
  if (dctx.context == nullptr)
    return Status::internal("zstd: cannot create a decompression context");
  out->resize(length);  // a reused buffer of about this size: little or nothing to zero-fill
  size_t n =
      ZSTD_decompressDCtx(dctx.context, out->data(), out->size(), payload.data(), payload.size());
  if (ZSTD_isError(n) || n != length) return corrupt("zstd decompression failed");
  return Status::ok();
}

Result<std::string> unframe_block(std::string_view stored, const BlockHandle& handle,
                                  const std::string& path) {
  std::string block;
  CASSETTE_RETURN_IF_ERROR(unframe_block_into(stored, handle, path, &block));
  return block;
}

}  // namespace cassette::storage
