// Operations on columns (Cassandra's Operation family: set a value, add to or remove from a
// collection, set an element or a UDT field, increment a counter, delete a column, element or
// field) and how each becomes cells of a row: what every writer of rows shares (CQL's
// statements, the SQL hosts' writes, RowEncoder). docs/ARCHITECTURE.md ("A write's path").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/row.h"
#include "engine/types/value.h"
#include "engine/util/status.h"

namespace cassette::write {

// One prepared operation on a column, its values already evaluated.
struct ColumnOperation {
  enum class Kind {
    kSetValue,          // c = v  (simple, frozen, or overwriting a non-frozen collection/UDT)
    kSetListIndex,      // l[i] = v                (reads the list)
    kSetMapKey,         // m[k] = v
    kSetField,          // u.f = v                 (non-frozen UDT)
    kAppend,            // l = l + [..]
    kPrepend,           // l = [..] + l
    kAddElements,       // s = s + {..} / m = m + {..}
    kRemoveListValues,  // l = l - [..]            (reads the list)
    kRemoveElements,    // s = s - {..}
    kRemoveMapKeys,     // m = m - {k, ..}
    kCounterAdd,        // c = c + n / c = c - n
    kDeleteColumn,      // DELETE c
    kDeleteListIndex,   // DELETE l[i]             (reads the list)
    kDeleteElement,     // DELETE s[e] / m[k]
    kDeleteField,       // DELETE u.f
  };
  Kind kind = Kind::kSetValue;
  const schema::ColumnDef* column = nullptr;
  types::Value value;  // the value set / added / removed (a serialized collection for bulk ops)
  std::string key;     // list index (int32), map key, set element
  size_t field = 0;    // UDT field index
  int64_t counter_delta = 0;

  // Whether the operation needs the column's current cells.
  bool requires_read() const;
};

// Builds a storage::Row column by column, keeping columns sorted by id and a complex column's
// cells sorted by path (a later cell for the same path replaces the earlier one).
class RowBuilder {
 public:
  void set_liveness(const storage::LivenessInfo& liveness) { row_.liveness = liveness; }
  void set_deletion(const storage::DeletionTime& deletion) { row_.deletion = deletion; }
  void set_cell(const schema::ColumnDef& column, storage::Cell cell);
  void add_element(const schema::ColumnDef& column, storage::Cell cell);
  void delete_complex(const schema::ColumnDef& column, const storage::DeletionTime& deletion);
  bool empty() const { return row_.is_empty() && columns_.empty(); }
  storage::Row build() const;

 private:
  storage::Row row_;
  std::map<storage::ColumnId, storage::ColumnData> columns_;
  std::map<storage::ColumnId, std::map<std::string, storage::Cell>> elements_;
};

// What every operation of one statement shares when it becomes cells.
struct WriteParameters {
  int64_t timestamp = storage::kAutoTimestamp;
  bool timestamp_set = false;
  int64_t ttl = 0;
  int64_t now_seconds = 0;
  int64_t now_micros = 0;
};

// Turns one operation into cells of `row`. `existing` is the current row holding the column
// (nullptr when there is none); it must be given when op.requires_read() or when overwriting a
// multi-cell column with a store-assigned timestamp (see modification.cc).
Status apply_operation(const ColumnOperation& op, const WriteParameters& params,
                       const storage::Row* existing, RowBuilder& row);

// Whether apply_operation needs the current row for this operation under these parameters.
bool operation_needs_row(const ColumnOperation& op, const WriteParameters& params);

// The live cells of a list column in list order (by their timeuuid paths).
std::vector<const storage::Cell*> list_cells_in_order(const schema::ColumnDef& column,
                                                      const storage::Row* row);

// Merges `row` into the partition update's row for `clustering` (or its static row).
void merge_row(storage::PartitionUpdate& update, const std::optional<std::string>& clustering,
               storage::Row row);

// Monotonic list element times (microseconds): appends get increasing times from `now`,
// prepends decreasing ones mirrored around 2010-01-01 (Cassandra's Lists.PrecisionTime), so
// every element written by this process has a distinct, correctly ordered timeuuid path.
int64_t next_append_micros(int64_t now_micros, size_t count);
int64_t next_prepend_micros(int64_t now_micros, size_t count);

}  // namespace cassette::write
