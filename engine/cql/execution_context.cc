// Name resolution for statements: which keyspace and table a (maybe unqualified) name means,
// with Cassandra 4.1's messages (ClientState.getKeyspace and Schema.validateTable); and where a
// statement's reads and writes go: the store, or the host's open transaction.
#include "engine/cql/execution_context.h"

#include "engine/txn/transaction.h"

namespace cassette::cql {

Result<std::shared_ptr<const storage::Snapshot>> ExecutionContext::read_snapshot() const {
  if (transaction != nullptr) return transaction->read_view();
  return store->snapshot();
}

Status ExecutionContext::write(storage::WriteBatch& batch) const {
  if (batch.empty()) return Status::ok();
  if (transaction == nullptr) return store->apply(batch).status();
  return transaction->add_batch(batch, *schema);
}

Status ExecutionContext::write_prepared(const storage::Store::PrepareWrite& prepare) const {
  if (transaction == nullptr) return store->apply_prepared(prepare).status();
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot, read_snapshot());
  storage::WriteBatch batch;
  CASSETTE_ASSIGN_OR_RETURN(bool write_it, prepare(*snapshot, batch));
  return write_it ? write(batch) : Status::ok();
}

Status ExecutionContext::refuse_in_transaction(std::string_view what) const {
  if (transaction == nullptr) return Status::ok();
  return Status::invalid_argument(
      fmt::format("{} cannot run inside a SQL transaction; COMMIT first", what));
}

Result<std::string> ExecutionContext::resolve_keyspace(const QualifiedName& name) const {
  if (!name.keyspace.empty()) return name.keyspace;
  if (keyspace.empty()) {
    return Status::invalid_argument(
        "No keyspace has been specified. USE a keyspace, or explicitly specify "
        "keyspace.tablename");
  }
  return keyspace;
}

Result<std::shared_ptr<const schema::TableDef>> ExecutionContext::resolve_table(
    const QualifiedName& name) const {
  CASSETTE_ASSIGN_OR_RETURN(std::string ks, resolve_keyspace(name));
  if (schema->find_keyspace(ks) == nullptr) {
    return Status::invalid_argument(fmt::format("keyspace {} does not exist", ks));
  }
  std::shared_ptr<const schema::TableDef> table = schema->find_table(ks, name.name);
  if (table == nullptr) {
    return Status::invalid_argument(fmt::format("table {} does not exist", name.name));
  }
  return table;
}

}  // namespace cassette::cql
