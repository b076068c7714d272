// What every statement executor gets: the store, the catalog and the schema snapshot the
// statement runs against, the current keyspace, and the statement's "now".
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "engine/cql/ast.h"
#include "engine/cql/functions.h"
#include "engine/cql/result.h"
#include "engine/cql/system_tables.h"
#include "engine/schema/catalog.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"

namespace cassette::txn {
class Transaction;  // engine/txn/transaction.h
}

namespace cassette::cql {

// A row a statement read to compute what it writes there (a list element set or deleted by
// index, or removed by value): in a transaction, a conflict key (txn::Transaction's header).
struct ReadRow {
  std::shared_ptr<const schema::TableDef> table;
  std::string partition_key;
  std::optional<std::string> clustering;  // nullopt: the static row
};

// How one statement runs beyond its text and values: the native protocol's QUERY and EXECUTE
// parameters (Session::execute with options).
struct StatementOptions {
  // The write timestamp, in microseconds, of a write without USING TIMESTAMP (the protocol's
  // default timestamp, a client-side clock). Conditional and counter writes keep the store's, as
  // Cassandra's Paxos ballots and counters do.
  std::optional<int64_t> default_timestamp;
  // A SELECT returns at most this many rows, then ExecutionResult::paging_state to ask for the
  // next page with. Not positive or unset: one page. Aggregates without GROUP BY are one page.
  std::optional<int32_t> page_size;
  // The paging_state of the previous page of the same statement: the read resumes strictly
  // after the last row (GROUP BY: group) that page returned.
  std::optional<std::string> paging_state;
};

struct ExecutionContext {
  storage::Store* store = nullptr;
  schema::Catalog* catalog = nullptr;
  std::shared_ptr<const schema::Schema> schema;  // as of the statement's start
  std::string keyspace;                          // the session's current keyspace ("" if none)
  int64_t now_micros = 0;                        // the store clock's now, once per statement
  FunctionContext functions;
  // When set, a schema change is only planned (Session::plan_schema_change): the schema it would
  // make of `schema` is stored here and nothing is written.
  std::optional<schema::Schema>* planned = nullptr;
  // Set (by another thread or a signal handler) when the statement must stop: long loops check
  // it through check_interrupt(). nullptr: nothing interrupts.
  const std::atomic<bool>* interrupt = nullptr;
  // When set, the statement runs inside this open transaction of its host (Session::execute
  // with a transaction): its writes are buffered there instead of applied, and its reads see
  // the transaction's writes. nullptr: the statement commits on its own.
  txn::Transaction* transaction = nullptr;
  // What system.local says about the node (the session's; nullptr: NodeInfo's defaults).
  const NodeInfo* node = nullptr;
  // The statement's protocol options (nullptr: none).
  const StatementOptions* options = nullptr;
  // The session's user may see the clear values of masked columns (Cassandra's UNMASK; a
  // superuser of `cassette serve --auth-file`). False: SELECT masks them (column_mask.h).
  bool unmask = false;
  // Non-empty: the session's user, who holds neither UNMASK nor SELECT_MASKED, so a SELECT
  // restricting a masked column is refused naming them (check_masked_columns_query).
  std::string masked_query_user;

  int64_t now_seconds() const { return now_micros / 1'000'000; }
  // Cancelled ("The statement was interrupted") once *interrupt is set; OK otherwise.
  Status check_interrupt() const {
    if (interrupt != nullptr && interrupt->load(std::memory_order_relaxed)) {
      return Status::cancelled("The statement was interrupted");
    }
    return Status::ok();
  }

  // The snapshot a statement reads: the store's latest, with the transaction's writes on top.
  Result<std::shared_ptr<const storage::Snapshot>> read_snapshot() const;
  // Writes one statement's mutations: applied to the store (storage::apply_mutations), or
  // buffered in the transaction as one of its statements.
  Status write(const storage::MutationBuilder& mutations) const;
  // storage::apply_prepared_mutations's contract (`prepare` reads the snapshot, fills the
  // builder and says whether to write it), inside the transaction when there is one: then
  // `prepare` reads read_snapshot() and what it fills is buffered.
  Status write_prepared(const storage::PrepareMutations& prepare) const;
  // Records `rows`, read and then written by the statement just buffered, as the transaction's
  // conflict keys: its commit fails if another commit changed one since its snapshot. Nothing
  // without a transaction (the write was decided under the store's lock).
  void add_conflict_keys(const std::vector<ReadRow>& rows) const;

  // InvalidArgument "<what> cannot run inside a SQL transaction; COMMIT first" when the
  // statement runs inside a transaction; OK otherwise. For what a transaction cannot hold:
  // conditional writes (decided against the store's latest state) and schema changes.
  Status refuse_in_transaction(std::string_view what) const;

  // The table a statement names, with Cassandra's messages: "No keyspace has been specified.
  // USE a keyspace, or explicitly specify keyspace.tablename", "Keyspace x does not exist",
  // "table t does not exist" (wording per Cassandra 4.1). The system tables (system_tables.h)
  // resolve too, for reading.
  Result<std::shared_ptr<const schema::TableDef>> resolve_table(const QualifiedName& name) const;
  // resolve_table for a statement that writes rows: a system table is refused as Cassandra
  // refuses writes to its generated (virtual) tables, "Modification is not supported by table
  // system.local"; TRUNCATE ("Truncation is not supported by table system.local") when
  // `truncate`.
  Result<std::shared_ptr<const schema::TableDef>> resolve_writable_table(
      const QualifiedName& name, bool truncate = false) const;
  // The snapshot a read of `table` sees: read_snapshot(), or for a system table the rows
  // generated for it now (system_table_snapshot).
  Result<std::shared_ptr<const storage::Snapshot>> read_snapshot(
      const schema::TableDef& table) const;
  // The keyspace a name is in: its own or the current one (error when neither).
  Result<std::string> resolve_keyspace(const QualifiedName& name) const;
};

// The executors, one per statement family (execute_*.cc).
Result<ExecutionResult> execute_select(const SelectStatement& statement, ExecutionContext& context);
Result<ExecutionResult> execute_insert(const InsertStatement& statement, ExecutionContext& context);
Result<ExecutionResult> execute_update(const UpdateStatement& statement, ExecutionContext& context);
Result<ExecutionResult> execute_delete(const DeleteStatement& statement, ExecutionContext& context);
Result<ExecutionResult> execute_batch(const BatchStatement& statement, ExecutionContext& context);
// CREATE/ALTER/DROP of keyspaces, tables, indexes and types; TRUNCATE.
Result<ExecutionResult> execute_schema_statement(const Statement& statement,
                                                 ExecutionContext& context);
Result<ExecutionResult> execute_describe(const DescribeStatement& statement,
                                         ExecutionContext& context);

}  // namespace cassette::cql
