#include "engine/storage/sstable_positions.h"

#include "engine/storage/block.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/sstable_reader_impl.h"

namespace cassette::storage {

Result<std::vector<DataBlockRef>> sstable_data_blocks(const SSTableReader& reader) {
  const SSTableReader::Impl& table = reader.impl();
  std::vector<DataBlockRef> blocks;
  for (const BlockHandle& index_handle : table.summary_handles) {
    CASSETTE_ASSIGN_OR_RETURN(BlockCache::Block block, table.read_block(index_handle));
    BlockIterator it;
    it.reset_checked(std::move(block), &table.path, index_handle.offset);
    for (it.seek_to_first(); it.valid(); it.next()) {
      std::string_view value = it.value();
      BlockHandle handle;
      if (!decode_block_handle(&value, &handle) || !value.empty() ||
          !table.handle_in_range(handle)) {
        return table.corruption("malformed block handle in index block", index_handle.offset);
      }
      blocks.push_back({std::string(it.key()), handle});
    }
    CASSETTE_RETURN_IF_ERROR(it.status());
  }
  return blocks;
}

Status read_entry_at(const SSTableReader& reader, const BlockHandle& block, std::string_view key,
                     const std::function<Status(std::string_view value)>& found) {
  const SSTableReader::Impl& table = reader.impl();
  CASSETTE_ASSIGN_OR_RETURN(BlockCache::Block bytes, table.read_block(block));
  BlockIterator it;
  it.reset_checked(std::move(bytes), &table.path, block.offset);
  it.seek(key);
  if (!it.valid() || it.key() != key) {
    CASSETTE_RETURN_IF_ERROR(it.status());
    return table.corruption("an index position names a block that does not hold its entry",
                            block.offset);
  }
  return found(it.value());
}

}  // namespace cassette::storage
