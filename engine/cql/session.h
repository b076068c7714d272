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
#include <string>
#include <string_view>

#include "engine/cql/ast.h"
#include "engine/cql/result.h"
#include "engine/cql/system_tables.h"
#include "engine/schema/catalog.h"
#include "engine/storage/store.h"
#include "engine/txn/transaction.h"
#include "engine/util/status.h"

namespace cassette::cql {

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

  const std::string& keyspace() const { return keyspace_; }
  void set_keyspace(std::string keyspace) { keyspace_ = std::move(keyspace); }
  storage::Store& store() { return *store_; }
  schema::Catalog& catalog() { return *catalog_; }

 private:
  Session(std::shared_ptr<storage::Store> store, std::shared_ptr<schema::Catalog> catalog);
  Result<ExecutionResult> run(const Statement& statement, txn::Transaction* transaction);
  std::shared_ptr<storage::Store> store_;
  std::shared_ptr<schema::Catalog> catalog_;
  std::string keyspace_;
  NodeInfo node_;
  uint64_t timeuuid_sequence_ = 0;
  const std::atomic<bool>* interrupt_ = nullptr;
};

// The catalog of a store, shared by every Session of that Store object in this process.
Result<std::shared_ptr<schema::Catalog>> catalog_for(const std::shared_ptr<storage::Store>& store);

}  // namespace cassette::cql
