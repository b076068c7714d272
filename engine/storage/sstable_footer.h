// The SSTable footer: the fixed-size end of every file, which says where the meta blocks are.
//
//   footer (64 bytes) = summary handle  bloom handle  stats handle   (each fixed64 offset,
//                                                                     fixed64 size)
//                       fixed32 format version (1)
//                       fixed32 masked crc32c of the 52 bytes before it
//                       "CSTSST01"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/storage/block_format.h"

namespace cassette::storage {

constexpr uint32_t kSSTableFormatVersion = 1;
constexpr size_t kSSTableFooterSize = 64;
inline constexpr std::string_view kSSTableMagic{"CSTSST01", 8};

struct SSTableFooter {
  BlockHandle summary;  // the index summary: last key of each index block -> its handle
  BlockHandle bloom;    // the bloom filter over partition prefixes
  BlockHandle stats;    // SSTableStats (sstable_stats.h)
  uint32_t version = kSSTableFormatVersion;
};

enum class FooterError { kNone, kBadMagic, kBadChecksum, kBadVersion };

void encode_footer(const SSTableFooter& footer, std::string* out);
// REQUIRES: bytes.size() == kSSTableFooterSize. Checks magic, then checksum, then version.
FooterError decode_footer(std::string_view bytes, SSTableFooter* footer);

}  // namespace cassette::storage
