// Frame body compression (native_protocol_v4.spec §5), chosen by STARTUP's COMPRESSION option:
// "lz4" - a 4-byte big-endian uncompressed length, then one LZ4 block - or "snappy" - one raw
// Snappy block. STARTUP itself and the frames before READY are never compressed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/util/status.h"

namespace cassette::server {

enum class Compression { kNone, kLz4, kSnappy };

// The algorithm STARTUP names ("lz4", "snappy", case-insensitive); nullopt for any other name.
std::optional<Compression> compression_by_name(std::string_view name);

std::string compress_body(Compression algorithm, std::string_view body);

// The uncompressed body; InvalidArgument when `compressed` is not a valid block of the
// algorithm or would uncompress to more than `max_bytes` (no allocation beyond that).
Result<std::string> decompress_body(Compression algorithm, std::string_view compressed,
                                    uint32_t max_bytes);

}  // namespace cassette::server
