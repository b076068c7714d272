// Fuzz target: SSTable block decoding. The input's first byte chooses what the rest is:
//   0: an uncompressed block (BlockIterator);
//   1: a footer (decode_footer), padded or cut to 64 bytes;
//   2: a stored block (payload, type byte, checksum) whose checksum is put right first, so that
//      unframe_block's decompression is reached; what it returns is then iterated as in 0;
//   3: a run of block handles (decode_block_handle).
//
// Beyond "no crash", it checks:
//  - a block iterates to the same entries forwards (seek_to_first, next) and backwards
//    (seek_to_last, prev); when its keys increase, seek(k) and seek_for_prev(k) land on k for
//    every key k; a malformed block is a Corruption naming the file and offset, and then the
//    iterator is not valid;
//  - a footer that decodes encodes back to the same 64 bytes;
//  - a handle that decodes encodes to bytes that decode to it again.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/storage/block.h"
#include "engine/storage/block_format.h"
#include "engine/storage/sstable_footer.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::storage;

const std::string kPath = "fuzz.sst";
constexpr size_t kMaxSeeks = 32;

using Entries = std::vector<std::pair<std::string, std::string>>;

void check_status(const BlockIterator& it) {
  if (it.status().is_ok()) return;
  FUZZ_CHECK(it.status().is_corruption(), it.status().message());
  FUZZ_CHECK(it.status().message().starts_with("sstable " + kPath + ": "), it.status().message());
  FUZZ_CHECK(!it.valid(), "an iterator with a bad status is valid");
}

void check_block(std::string_view bytes) {
  auto block = std::make_shared<const std::string>(bytes);
  BlockIterator it;
  it.reset(block, &kPath, 4096);
  Entries forward;
  for (it.seek_to_first(); it.valid(); it.next()) forward.emplace_back(it.key(), it.value());
  check_status(it);
  const bool forward_ok = it.status().is_ok();

  it.reset(block, &kPath, 4096);
  Entries backward;
  for (it.seek_to_last(); it.valid(); it.prev()) backward.emplace_back(it.key(), it.value());
  check_status(it);
  if (!forward_ok || !it.status().is_ok()) return;
  FUZZ_CHECK(Entries(backward.rbegin(), backward.rend()) == forward,
             "a block reads differently backwards");

  bool increasing = true;
  for (size_t i = 1; i < forward.size(); ++i) increasing &= forward[i - 1].first < forward[i].first;
  if (!increasing) return;
  for (size_t i = 0; i < forward.size() && i < kMaxSeeks; ++i) {
    const size_t k = i * forward.size() / std::min(forward.size(), kMaxSeeks);
    it.seek(forward[k].first);
    FUZZ_CHECK(it.valid() && it.key() == forward[k].first && it.value() == forward[k].second,
               "seek does not find a key of the block");
    it.seek_for_prev(forward[k].first);
    FUZZ_CHECK(it.valid() && it.key() == forward[k].first,
               "seek_for_prev does not find a key of the block");
    if (k + 1 < forward.size()) {
      it.next();
      FUZZ_CHECK(it.valid() && it.key() == forward[k + 1].first, "next after a seek");
    }
  }
}

void check_footer(std::string_view bytes) {
  std::string footer_bytes(bytes.substr(0, kSSTableFooterSize));
  footer_bytes.resize(kSSTableFooterSize);
  SSTableFooter footer;
  if (decode_footer(footer_bytes, &footer) != FooterError::kNone) return;
  std::string encoded;
  encode_footer(footer, &encoded);
  FUZZ_CHECK(encoded == footer_bytes, "a footer does not encode back to its bytes");
}

void check_stored_block(std::string_view bytes) {
  if (bytes.size() < kBlockTrailerSize) return;
  std::string stored(bytes);
  const size_t payload_size = stored.size() - kBlockTrailerSize;
  std::string crc;
  coding::put_fixed32(
      &crc, crc32c::mask(crc32c::value(std::string_view(stored).substr(0, payload_size + 1))));
  stored.replace(payload_size + 1, 4, crc);
  auto block = unframe_block(stored, BlockHandle{4096, payload_size}, kPath);
  if (!block.is_ok()) {
    FUZZ_CHECK(block.status().is_corruption(), block.status().message());
    FUZZ_CHECK(block.status().message().starts_with("sstable " + kPath + ": "),
               block.status().message());
    return;
  }
  if (stored[payload_size] == 0) {
    FUZZ_CHECK(*block == std::string_view(stored).substr(0, payload_size), "a raw block changed");
  }
  check_block(*block);
}

void check_handles(std::string_view bytes) {
  BlockHandle handle;
  while (decode_block_handle(&bytes, &handle)) {
    std::string encoded;
    encode_block_handle(handle, &encoded);
    std::string_view in = encoded;
    BlockHandle again;
    FUZZ_CHECK(decode_block_handle(&in, &again) && in.empty() && again.offset == handle.offset &&
                   again.size == handle.size,
               "a block handle does not decode back from its encoding");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  switch (in.byte() % 4) {
    case 0:
      check_block(in.take_rest());
      break;
    case 1:
      check_footer(in.take_rest());
      break;
    case 2:
      check_stored_block(in.take_rest());
      break;
    default:
      check_handles(in.take_rest());
      break;
  }
  return 0;
}
