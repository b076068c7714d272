// read_current_row (current_row.h): the row and the static row under a snapshot, in one read of
// the partition that stops at the row.
#include "engine/codec/current_row.h"

#include <memory>

#include "engine/types/byte_comparable.h"

namespace cassette::cql {

Result<CurrentRow> read_current_row(const storage::Store& store, const storage::Snapshot& snapshot,
                                    const schema::TableDef& table, const std::string& partition_key,
                                    const std::optional<std::string>& clustering) {
  CurrentRow current;
  storage::ReadSpec spec = storage::Store::partition_spec(partition_key);
  spec.emit_static_only = true;
  if (clustering) {
    spec.clustering_start = *clustering;
    spec.clustering_end = types::prefix_end_bound(*clustering);
  }
  std::unique_ptr<storage::RowCursor> cursor = store.read(snapshot, table.table_id, spec);
  bool first = true;
  while (cursor->next()) {
    if (first) {
      current.partition_exists = true;
      if (const storage::Row* s = cursor->static_row()) current.static_row = *s;
      first = false;
    }
    if (cursor->is_static_only()) break;
    if (!clustering) {
      current.row = cursor->row();
      current.first_clustering = cursor->clustering();
      break;
    }
    if (cursor->clustering() == *clustering) {
      current.row = cursor->row();
      break;
    }
  }
  CASSETTE_RETURN_IF_ERROR(cursor->status());
  return current;
}

}  // namespace cassette::cql
