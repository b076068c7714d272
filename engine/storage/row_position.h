// Where a row's entry lies in one SSTable, as an index component recorded it (SAI version 3,
// sai_component.h): the data block to read it from, without the SSTable's index (keyed_read.h).
#pragma once

#include <cstdint>

#include "engine/storage/block_format.h"

namespace cassette::storage {

class SSTableReader;

// Row `row` of a list of candidate rows (the clustering keys a keyed read is given) is in the
// data block `block` of `sstable`: identity only, compared with the snapshot's SSTables, whose
// TableFiles keep the readers alive. A list of positions is sorted by `row`; a row may have one
// per SSTable that holds it, or none.
struct RowPosition {
  uint32_t row = 0;
  const SSTableReader* sstable = nullptr;
  BlockHandle block;
};

}  // namespace cassette::storage
