// Keys of the SSTable block index. A data block's index key is any key k with
// last key of the block <= k < first key of the next block; choosing a short one (LevelDB's
// FindShortestSeparator) keeps index blocks small. A seek for t picks the first block whose
// index key is >= t: the first entry >= t is in that block or is the next block's first.
#pragma once

#include <string>
#include <string_view>

namespace cassette::storage {

// A short key k with start <= k < limit. REQUIRES: start < limit.
std::string shortest_separator(std::string_view start, std::string_view limit);
// A short key k >= key (for the last block, which has no next key).
std::string short_successor(std::string_view key);

}  // namespace cassette::storage
