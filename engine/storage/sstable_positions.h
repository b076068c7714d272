// Where entries lie in an SSTable: its data blocks as its index names them, and the read of one
// entry straight from the data block a position names (a position an index component recorded,
// sai_component.h), without the index summary, the index block or the bloom filter.
//
//   auto blocks = sstable_data_blocks(reader);  // in file order, each with its index key
//   read_entry_at(reader, handle, key, [&](std::string_view value) { ... });
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/block_format.h"
#include "engine/util/status.h"

namespace cassette::storage {

class SSTableReader;

// A data block and its index key: every key of the block is <= `index_key` < every key of the
// blocks after it.
struct DataBlockRef {
  std::string index_key;
  BlockHandle handle;
};

// Every data block of the file in key order (reads the index blocks, each checked).
Result<std::vector<DataBlockRef>> sstable_data_blocks(const SSTableReader& reader);

// Reads the entry `key` from the data block at `block` (through the block cache) and passes its
// value to `found`. The entry must be there: a block that does not hold it (a position that
// names another block) is Corruption naming the file and the offset, as is a block that fails
// its checksum.
Status read_entry_at(const SSTableReader& reader, const BlockHandle& block, std::string_view key,
                     const std::function<Status(std::string_view value)>& found);

}  // namespace cassette::storage
