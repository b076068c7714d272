// How every SSTable block is stored: where it is (a BlockHandle) and how its bytes are framed in
// the file (compression type and checksum). Layout in FORMAT.md, "SSTable":
//
//   stored block = payload  u8 type  fixed32 masked crc32c(payload + type)
//   type 0 (raw):  payload = the block's bytes
//   type 1 (zstd): payload = varint(block length) + one zstd frame of the block's bytes
//
// A handle names the payload (offset, size); the 5-byte trailer follows it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/util/status.h"

struct ZSTD_CCtx_s;

namespace cassette::storage {

struct BlockHandle {
  uint64_t offset = 0;  // of the payload in the file
  uint64_t size = 0;    // of the payload, without the trailer
};

constexpr size_t kBlockTrailerSize = 5;  // u8 type + fixed32 checksum
// The largest block a reader accepts (uncompressed); the writer never writes a bigger one.
constexpr uint64_t kMaxBlockBytes = 1ull << 30;

// varint(offset) varint(size).
void encode_block_handle(const BlockHandle& handle, std::string* out);
// Consumes one handle from *in; false when the varints are malformed.
bool decode_block_handle(std::string_view* in, BlockHandle* handle);

// Frames blocks for one file. Keeps a zstd context so that many small blocks compress cheaply.
// Not thread-safe.
class BlockCompressor {
 public:
  // `level` is the zstd level; 0 stores every block raw.
  explicit BlockCompressor(int level);
  ~BlockCompressor();
  BlockCompressor(const BlockCompressor&) = delete;
  BlockCompressor& operator=(const BlockCompressor&) = delete;

  // Appends the stored form of `block` to *out (compressed when that makes it smaller) and
  // returns the payload's size (the handle's size).
  uint64_t append_framed(std::string_view block, std::string* out);

 private:
  struct FreeContext {
    void operator()(ZSTD_CCtx_s* context) const;
  };
  int level_;
  std::unique_ptr<ZSTD_CCtx_s, FreeContext> context_;
};

// Checks the checksum of `stored` (a block's payload and trailer, read at `handle`) and returns
// the block's bytes, decompressed. Every failure is Corruption naming `path` and the offset.
Result<std::string> unframe_block(std::string_view stored, const BlockHandle& handle,
                                  const std::string& path);
// The same into `*out`, whose buffer is reused: a scan decompresses every block into one of a
// few buffers instead of allocating (and zero-filling) one per block.
Status unframe_block_into(std::string_view stored, const BlockHandle& handle,
                          const std::string& path, std::string* out);

}  // namespace cassette::storage
