// The identifiers the store knows things by: tables are numbers the schema layer assigns (table
// 0 is the catalog's), columns are numbers within a table, and every committed write transaction
// gets the next sequence number, which snapshots compare against. Kept apart so that a layer
// can name them without including the store's machinery.
#pragma once

#include <cstdint>

namespace cassette::storage {

using TableId = uint64_t;
using ColumnId = uint32_t;
using SequenceNumber = uint64_t;

}  // namespace cassette::storage
