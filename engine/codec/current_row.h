// The current state of one row, read under a snapshot: what a read-before-write needs (list
// operations, conditions of lightweight transactions, counter updates, a SQL UPDATE's old
// values). Used by CQL's executors and by the hosts' SQL writes alike.
#pragma once

#include <optional>
#include <string>

#include "engine/schema/schema.h"
#include "engine/storage/row.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::cql {

// One row of a partition and the partition's static row, each nullopt when it has no live data.
struct CurrentRow {
  std::optional<storage::Row> row;
  std::optional<storage::Row> static_row;
  bool partition_exists = false;  // any live row or static row
  // When only the static row was asked for: the partition's first live row and its encoded
  // clustering (a conditional BATCH shows it next to static values, as Cassandra does).
  std::optional<std::string> first_clustering;
};

// `clustering` is the encoded full clustering key (empty for a table without clustering
// columns); nullopt reads only the static row.
Result<CurrentRow> read_current_row(const storage::Store& store, const storage::Snapshot& snapshot,
                                    const schema::TableDef& table, const std::string& partition_key,
                                    const std::optional<std::string>& clustering);

}  // namespace cassette::cql
