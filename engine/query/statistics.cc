// table_statistics(): a table's size from what the store already keeps — each SSTable's
// statistics block (partitions, rows, static rows) and the memtables' per-table entry counts.
// SSTables and memtables may hold versions of the same rows, so this overestimates a table that
// is updated in place until compaction merges it; the planner only needs the order of magnitude.
#include <algorithm>

#include "engine/query/query.h"
#include "engine/storage/store.h"

namespace cassette::query {

TableStatistics table_statistics(const storage::Snapshot& snapshot, const schema::TableDef& table) {
  TableStatistics out;
  out.has_clustering = !table.clustering().empty();
  const storage::TableFileStats files = storage::table_file_stats(snapshot, table.table_id);
  out.partitions = static_cast<double>(files.partitions);
  out.rows = static_cast<double>(files.rows + files.static_only_rows);
  out.bytes = static_cast<double>(files.data_bytes);
  out.sstables = static_cast<double>(files.sstables);
  const auto memtable_entries = static_cast<double>(files.memtable_entries);
  constexpr double kAssumedRowBytes = 100;  // with no SSTable to learn from
  const double row_bytes = out.rows > 0 ? out.bytes / out.rows : kAssumedRowBytes;
  out.bytes += memtable_entries * row_bytes;
  out.rows += memtable_entries;
  // Without per-partition counts for the memtable, assume its rows spread like the SSTables'.
  if (memtable_entries > 0) {
    double per_partition = out.has_clustering ? 10 : 1;
    if (out.partitions >= 1 && out.rows > memtable_entries) {
      per_partition = std::max(1.0, (out.rows - memtable_entries) / out.partitions);
    }
    out.partitions += memtable_entries / per_partition;
  }
  return out;
}

}  // namespace cassette::query
