// table_statistics(): a table's size from what the store already keeps — each SSTable's
// statistics block (partitions, rows, static rows) and the memtables' per-table entry counts.
// SSTables and memtables may hold versions of the same rows, so this overestimates a table that
// is updated in place until compaction merges it; the planner only needs the order of magnitude.
#include "engine/query/query.h"
#include "engine/storage/sstable_reader.h"

namespace cassette::query {

TableStatistics table_statistics(const storage::Snapshot& snapshot, const schema::TableDef& table) {
  TableStatistics out;
  out.has_clustering = !table.clustering().empty();
  if (snapshot.version) {
    for (const auto& file : snapshot.version->files(table.table_id)) {
      const storage::SSTableStats& s = file->reader->stats();
      out.partitions += static_cast<double>(s.partitions);
      out.rows += static_cast<double>(s.rows);
      if (s.rows == 0) out.rows += static_cast<double>(s.static_rows);
      out.bytes += static_cast<double>(s.data_bytes);
      out.sstables += 1;
    }
  }
  double memtable_entries = 0;
  for (const auto& mem : {snapshot.memtable, snapshot.flushing}) {
    if (mem) memtable_entries += static_cast<double>(mem->table_entry_count(table.table_id));
  }
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
