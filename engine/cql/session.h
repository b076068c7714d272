// Session: runs CQL statements against a store, as a Cassandra client session does: it has a
// current keyspace (USE) and executes one statement at a time. Sessions are cheap; every
// session of a store shares the store's catalog (one per Store object).
//
//   auto store = storage::Store::open("/data/app.cassette").value();
//   auto session = cql::Session::open(store).value();
//   session->execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
//                    "'replication_factor': 1}");
//   Result<ExecutionResult> r = session->execute("SELECT * FROM ks.t WHERE k = 1");
//
// Errors come back as a Status whose message is Cassandra's (InvalidArgument for an invalid
// request, SyntaxError, AlreadyExists, Configuration); a failed statement writes nothing.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/bind_markers.h"
#include "engine/cql/result.h"
#include "engine/cql/system_tables.h"
#include "engine/schema/catalog.h"
#include "engine/storage/store.h"
#include "engine/txn/transaction.h"
#include "engine/util/status.h"

namespace cassette::cql {

// A statement parsed and checked once, to run many times with values for its bind markers
// (? and :name): what the native protocol's PREPARE returns. Immutable; any session of the same
// store may execute it.
struct PreparedStatement {
  std::string query;                    // as given to prepare()
  Statement statement;                  // table names qualified with their keyspace
  std::vector<BindVariable> variables;  // one per marker, in marker order
  // A SELECT's result columns (the visible ones; SELECT JSON: "[json]" text); empty otherwise.
  std::vector<ResultColumn> result_columns;
  // For a statement on one table: per partition key column, in key order, the index of the
  // marker that gives it whole (k = ?, IN (?, ?), INSERT's value; the last such marker, as
  // Cassandra's VariableSpecifications picks), nullopt when none does. Empty for a BATCH.
  std::vector<std::optional<int>> partition_key_indexes;
  // The tables as they were when prepared: executing after one is altered or dropped fails
  // with Status::unprepared.
  std::vector<std::shared_ptr<const schema::TableDef>> tables;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> open(std::shared_ptr<storage::Store> store);

  // Parses and runs one statement (a trailing ';' is allowed). No exception escapes: one thrown
  // inside (a bug, memory exhausted) fails the statement with an Internal status.
  Result<ExecutionResult> execute(std::string_view statement);
  Result<ExecutionResult> execute(const Statement& statement);
  // Runs one statement inside `transaction`, a host's open transaction on this session's store
  // (REQUIRES: transaction->store() == &store()): its writes (INSERT, UPDATE, DELETE, BATCH,
  // with their TTLs, timestamps and counter increments) are buffered there and commit or roll
  // back with it; its reads see the transaction's writes and schema. What a transaction cannot
  // hold fails with InvalidArgument ("... cannot run inside a SQL transaction; COMMIT first")
  // and changes nothing: conditional writes (IF ...), schema changes and TRUNCATE. A failed
  // statement buffers nothing. nullptr: execute(statement).
  Result<ExecutionResult> execute(const Statement& statement, txn::Transaction* transaction);

  // Parses `statement` and types its bind markers against the current schema and keyspace.
  // Errors as execute()'s, plus Cassandra's prepare-time ones (a marker where its type cannot
  // be known: "Bind variables are not supported here: ?"). With `transaction`, against the
  // schema that transaction sees.
  Result<std::shared_ptr<const PreparedStatement>> prepare(std::string_view statement,
                                                           txn::Transaction* transaction = nullptr);
  // Runs `prepared` with one value per marker, in marker order (the native protocol's EXECUTE
  // values: serialized bytes, null or unset). Errors, changing nothing:
  //   there were 2 markers(?) in CQL but 1 bound variables       (wrong count)
  //   Expected 4 or 0 byte int (3)                                 (bytes not of the type)
  //   Invalid unset value for column k                             (unset where one is needed)
  //   Status::unprepared when a table it uses was altered or dropped since prepare(): the
  //   caller prepares the statement again (a server answers UNPREPARED, so that the driver
  //   re-prepares and gets the new variable and result metadata).
  // `transaction` as in execute(statement, transaction).
  Result<ExecutionResult> execute(const PreparedStatement& prepared,
                                  std::span<const BoundValue> values,
                                  txn::Transaction* transaction = nullptr);
  // The same with values by marker name (the protocol's named values): each variable takes
  // the value of its name; a variable without one is missing from the count.
  Result<ExecutionResult> execute(const PreparedStatement& prepared,
                                  std::span<const std::pair<std::string, BoundValue>> values,
                                  txn::Transaction* transaction = nullptr);

  // execute() with the native protocol's options: the client's default timestamp and paging.
  Result<ExecutionResult> execute(const Statement& statement, const StatementOptions& options);
  Result<ExecutionResult> execute(const PreparedStatement& prepared,
                                  std::span<const BoundValue> values,
                                  const StatementOptions& options);
  // `prepared` with `values` bound, checked as execute(prepared, values) checks them (count,
  // types, out of date), but not run: for a host that gathers prepared statements into one
  // BATCH. nullopt when unset values leave nothing to do.
  Result<std::optional<Statement>> bind(const PreparedStatement& prepared,
                                        std::span<const BoundValue> values);
  // Named values (the protocol's flag 0x40) in the order of `prepared`'s variables, as
  // Cassandra's OptionsWithNames takes them: each variable the first value of its name; a
  // variable without one is left out, so that the count check reports it.
  static std::vector<BoundValue> values_by_name(
      const PreparedStatement& prepared,
      std::span<const std::pair<std::string, BoundValue>> values);

  // The schema that `statement`, a change of keyspaces, tables, types or indexes (not
  // TRUNCATE), would make of `base`, checked exactly as execute() checks it (Cassandra's
  // errors), but written nowhere: `base` itself when it would change nothing (IF [NOT] EXISTS).
  // A table it creates gets storage id base.next_table_id. For a host that applies the change
  // later, with other writes (an SQL transaction's CREATE TABLE, applied at COMMIT).
  Result<schema::Schema> plan_schema_change(const Statement& statement,
                                            std::shared_ptr<const schema::Schema> base);

  // A flag that interrupts the running statement when set (the shell's Ctrl-C), with
  // Status::cancelled ("The statement was interrupted"): a SELECT stops between rows; a write
  // (INSERT, UPDATE, DELETE, BATCH between its statements, TRUNCATE) stops at any point before
  // it applies and never after, so it applies whole or not at all. The flag must outlive the
  // session; nullptr (the default) means statements run to the end.
  void set_interrupt_flag(const std::atomic<bool>* flag) { interrupt_ = flag; }

  // What system.local reports about the node: a host that listens (the CQL server) sets the
  // address and port it serves and the protocol version it speaks. Default: NodeInfo's.
  void set_node_info(NodeInfo node) { node_ = std::move(node); }
  const NodeInfo& node_info() const { return node_; }

  // Whether the session's user sees masked columns' clear values (UNMASK: a superuser of
  // `cassette serve --auth-file`). Default false: SELECT results show the masks (column_mask.h).
  void set_unmask(bool unmask) { unmask_ = unmask; }
  // The user whose SELECTs may not restrict masked columns (an `--auth-file` user holding
  // neither UNMASK nor SELECT_MASKED), named in the refusal; empty (the default): any may.
  void set_masked_query_user(std::string user) { masked_query_user_ = std::move(user); }

  const std::string& keyspace() const { return keyspace_; }
  void set_keyspace(std::string keyspace) { keyspace_ = std::move(keyspace); }
  storage::Store& store() { return *store_; }
  schema::Catalog& catalog() { return *catalog_; }

 private:
  Session(std::shared_ptr<storage::Store> store, std::shared_ptr<schema::Catalog> catalog);
  Result<ExecutionResult> run(const Statement& statement, txn::Transaction* transaction,
                              const StatementOptions* options = nullptr);
  Result<ExecutionContext> make_context(txn::Transaction* transaction);
  Result<std::shared_ptr<const PreparedStatement>> prepare_parsed(std::string_view text,
                                                                  txn::Transaction* transaction);
  Result<ExecutionResult> run_prepared(const PreparedStatement& prepared,
                                       std::span<const BoundValue> values,
                                       txn::Transaction* transaction,
                                       const StatementOptions* options = nullptr);
  Result<std::optional<Statement>> bind_prepared(const PreparedStatement& prepared,
                                                 std::span<const BoundValue> values,
                                                 const ExecutionContext& context);
  std::shared_ptr<storage::Store> store_;
  std::shared_ptr<schema::Catalog> catalog_;
  std::string keyspace_;
  NodeInfo node_;
  const std::atomic<bool>* interrupt_ = nullptr;
  bool unmask_ = false;
  std::string masked_query_user_;
};

// The catalog of a store, shared by every Session of that Store object in this process.
Result<std::shared_ptr<schema::Catalog>> catalog_for(const std::shared_ptr<storage::Store>& store);

}  // namespace cassette::cql
