// Materialized views kept in step with their base tables. A view is a table (schema::TableDef
// with a ViewDef) whose rows are a function of its base table's rows: one view row per live base
// row whose view key columns are all set. Cassandra computes view updates on each replica and
// sends them to other nodes, which is where its races come from; here the view rows a write
// implies are computed under the store's write lock (or in the SQL transaction's snapshot) from
// the base rows as they are before the write and as the write leaves them, and added to the
// write's own batch: the base write and its view rows are one commit, all or nothing.
//
// How a base row maps to its view row (Cassandra 5.0's ViewUpdateGenerator, case by case):
// - the view row's key is the base row's values of the view's primary key columns (every base key
//   column, at most one regular column K); no view row when the base row is dead or K is not live;
// - the base rows are read as a write finds them (ReadSpec::keep_deleted: deletions and
//   tombstones included), so a write shadowed in the base table by an older deletion is
//   shadowed for the view too;
// - a new view row takes K's cell as its liveness (timestamp and TTL) or, without K, the base
//   row's marker kept alive by the base row's live cells in columns the view does not select
//   (Cassandra's "virtual cells", folded into the one marker), the base row's deletion, and the
//   base row's cells of the view's columns with their timestamps (tombstones included); cells
//   expire with K at the latest (Cassandra reads a view row with K as dead once K's liveness
//   is, whatever its cells; here a row is live by any live cell);
// - a view row whose key is unchanged takes the new liveness, the base row's deletion and the
//   cells that changed;
// - a view row that dies (the base row died, or K changed) gets no row tombstone, which would
//   shadow base cells written later with older timestamps: it takes the base row's deletion, the
//   cells that changed, and an expired marker (LivenessInfo::expired, engine/storage/row.h) at
//   the timestamp of what kept it alive (K's cell, or the base row's marker and unselected
//   cells), strict with K: such a row reads as dead until a newer liveness revives it.
// A view row that dies only because an unselected cell was deleted stays dead when a cell is
// written later with an older timestamp (CASSANDRA-11500; 5.0's testPartialDeleteUnselected-
// Column is @Ignore'd for it): as 5.0.
#pragma once

#include <memory>

#include "engine/cql/execution_context.h"
#include "engine/schema/schema.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"

namespace cassette::txn {
class Transaction;
}  // namespace cassette::txn

namespace cassette::cql {

// Adds to `builder` the view rows implied by its writes to base tables of `schema`, reading the
// base rows as they are before the write through `snapshot`. Writes to tables without views
// change nothing. Timestamps left to the store (kAutoTimestamp) stay so.
Status add_view_mutations(const storage::Store& store, const storage::Snapshot& snapshot,
                          const schema::Schema& schema, int64_t now_seconds,
                          storage::MutationBuilder& builder);

// The rows of `view` for the rows of its base table `base` under `snapshot` (CREATE MATERIALIZED
// VIEW on a table with data; `schema`: one that holds both), added to `builder`.
Status build_view_rows(const storage::Store& store, const storage::Snapshot& snapshot,
                       const schema::Schema& schema, const schema::TableDef& base,
                       const schema::TableDef& view, int64_t now_seconds,
                       storage::MutationBuilder& builder);

// `prepare`, followed by add_view_mutations on what it filled, under the statement's schema.
storage::PrepareMutations with_view_mutations(const ExecutionContext& context,
                                              storage::PrepareMutations prepare);

// The hosts' own writes (SQLite's and PostgreSQL's INSERT, UPDATE, DELETE and TRUNCATE on their
// tables, the shell's COPY FROM and pg-import) keep the views of a base table as CQL's do; a
// view itself takes none: "Cannot directly modify a materialized view" (for a TRUNCATE,
// Cassandra's "Cannot TRUNCATE materialized view directly; must truncate base table instead").
Status check_not_view(const schema::TableDef& table, bool truncate = false);

// Makes the host's writes through `transaction` keep the views of `schema` (the schema the
// host's statement runs under): txn::Transaction::keep_views with add_view_mutations.
void keep_views(txn::Transaction& transaction, std::shared_ptr<const schema::Schema> schema);

}  // namespace cassette::cql
