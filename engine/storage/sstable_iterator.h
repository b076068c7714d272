// The iterator over one SSTable's entries: the in-memory index summary picks an index block, an
// index entry picks a data block, and a BlockIterator walks it. Seeking a key inside a wide
// partition thus reads one index block and one data block (both usually cached).
#pragma once

#include <memory>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/sstable_reader_impl.h"

namespace cassette::storage {

// REQUIRES: `table` outlives the iterator.
std::unique_ptr<EntryIterator> new_sstable_iterator(const SSTableReader::Impl* table);

}  // namespace cassette::storage
