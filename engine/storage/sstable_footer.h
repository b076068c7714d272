// The SSTable footer and the statistics block codec, shared by the writer and the reader.
//
//   footer (60 bytes) = fixed64 × 2 summary handle  fixed64 × 2 bloom handle  fixed64 × 2 stats
//                       handle  fixed32 format version (1)  "CSTSST01"
#pragma once

#include <string>
#include <string_view>

#include "engine/storage/sstable_block.h"
#include "engine/storage/sstable_format.h"

namespace cassette::storage {

constexpr uint32_t kSSTableFormatVersion = 1;
constexpr size_t kSSTableFooterSize = 60;
inline constexpr std::string_view kSSTableMagic{"CSTSST01", 8};

struct SSTableFooter {
  BlockHandle summary;  // the index summary: last key of each index block -> its handle
  BlockHandle bloom;
  BlockHandle stats;
  uint32_t version = kSSTableFormatVersion;
};

void encode_footer(const SSTableFooter& footer, std::string* out);
// Returns false when the magic or the size is wrong; the caller checks the version.
bool decode_footer(std::string_view bytes, SSTableFooter* footer);

void encode_stats(const SSTableStats& stats, std::string* out);
bool decode_stats(std::string_view in, SSTableStats* stats);

}  // namespace cassette::storage
