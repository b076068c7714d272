// A keyed read: rows of one partition named by their clustering keys (an index read's
// candidates, engine/storage/sai_component.h), each read straight from every source by its entry
// key instead of through a RowCursor merging the partition's entries. What it returns is what
// the general read of the partition (Store::read) returns for those rows: each source's versions
// of the partition header (partition deletion, range tombstones), of the static row and of each
// row reconciled, newest cell winning, then purged for reading at the snapshot's time (TTLs). The
// sources are the snapshot's, as Store::read takes them: the overlay, the memtables and the
// SSTables whose key range and bloom filter admit the partition (only the overlay for a table
// the reader truncated).
//
// Rows outside the keys are not read: a partition with a live static row and none of the keyed
// rows live is no static-only row (an index on a regular column never matches one). The row
// cache is not consulted: the keyed read costs what a cache hit would (one seek per source).
// Where an index component recorded the data block of a row in an SSTable (row_position.h), the
// row is read from that block without a seek through the SSTable's index (sstable_positions.h).
//
//   storage::KeyedReader reader(snapshot, table);
//   std::unique_ptr<RowCursor> rows = reader.read(Store::partition_spec(pk), {clustering});
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/ids.h"
#include "engine/storage/row_cursor.h"
#include "engine/storage/row_position.h"

namespace cassette::storage {

struct Snapshot;
struct TableFile;

class KeyedReader {
 public:
  KeyedReader(std::shared_ptr<const Snapshot> snapshot, TableId table);
  ~KeyedReader();

  // The live rows among `clusterings` (sorted, each once) of the partition of `spec` (a
  // single-partition spec) in its clustering slice and direction, with the partition's static
  // row, as a cursor; never a static-only row. A source that fails to read fails the cursor.
  // `positions` (sorted by row) say where SSTables hold rows: such a row is read from that
  // block of that SSTable (a block that does not hold it fails the cursor: Corruption); the
  // other sources are searched as without positions.
  std::unique_ptr<RowCursor> read(const ReadSpec& spec, std::span<const std::string> clusterings,
                                  std::span<const RowPosition> positions = {});

 private:
  struct Source;
  void open_sources();

  std::shared_ptr<const Snapshot> snapshot_;
  TableId table_;
  bool opened_ = false;
  std::vector<Source> sources_;  // opened at the first read, reused by the next ones
};

}  // namespace cassette::storage
