// Name resolution for statements: which keyspace and table a (maybe unqualified) name means,
// with Cassandra 4.1's messages (ClientState.getKeyspace and Schema.validateTable); and where a
// statement's reads and writes go: the store, or the host's open transaction.
#include "engine/cql/execution_context.h"

#include "engine/cql/view_maintenance.h"
#include "engine/txn/transaction.h"

namespace cassette::cql {

Result<std::shared_ptr<const storage::Snapshot>> ExecutionContext::read_snapshot() const {
  if (transaction != nullptr) return transaction->read_view();
  return store->snapshot();
}

Result<std::shared_ptr<const storage::Snapshot>> ExecutionContext::read_snapshot(
    const schema::TableDef& table) const {
  if (is_system_table(table)) return system_table_snapshot(table, *this);
  return read_snapshot();
}

Status ExecutionContext::write(const storage::MutationBuilder& mutations) const {
  if (mutations.empty()) return Status::ok();
  if (schema->has_views()) {
    // The view rows a write implies are computed from the base rows it changes, read under the
    // same lock (or transaction snapshot) the write commits with (view_maintenance.h).
    return write_prepared([&](const storage::Snapshot&, storage::MutationBuilder& builder) {
      builder = mutations;
      return Result<bool>(true);
    });
  }
  if (transaction == nullptr) return storage::apply_mutations(*store, mutations).status();
  return transaction->add_batch(mutations, *schema);
}

Status ExecutionContext::write_prepared(const storage::PrepareMutations& prepare) const {
  storage::PrepareMutations prepare_all = with_view_mutations(*this, prepare);
  if (transaction == nullptr) {
    return storage::apply_prepared_mutations(*store, prepare_all).status();
  }
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot, read_snapshot());
  storage::MutationBuilder mutations;
  CASSETTE_ASSIGN_OR_RETURN(bool write_it, prepare_all(*snapshot, mutations));
  if (!write_it || mutations.empty()) return Status::ok();
  return transaction->add_batch(mutations, *schema);
}

void ExecutionContext::add_conflict_keys(const std::vector<ReadRow>& rows) const {
  if (transaction == nullptr) return;
  for (const ReadRow& row : rows) {
    transaction->add_conflict_key(row.table, row.partition_key, !row.clustering.has_value(),
                                  row.clustering.value_or(std::string()));
  }
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
  if (is_system_keyspace(ks)) {
    std::shared_ptr<const schema::TableDef> table = system_keyspaces().find_table(ks, name.name);
    if (table == nullptr) {
      return Status::invalid_argument(fmt::format("table {} does not exist", name.name));
    }
    return table;
  }
  if (schema->find_keyspace(ks) == nullptr) {
    return Status::invalid_argument(fmt::format("keyspace {} does not exist", ks));
  }
  std::shared_ptr<const schema::TableDef> table = schema->find_table(ks, name.name);
  if (table == nullptr) {
    return Status::invalid_argument(fmt::format("table {} does not exist", name.name));
  }
  return table;
}

Result<std::shared_ptr<const schema::TableDef>> ExecutionContext::resolve_writable_table(
    const QualifiedName& name, bool truncate) const {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> table, resolve_table(name));
  if (is_system_table(*table)) {
    return Status::invalid_argument(fmt::format("{} is not supported by table {}.{}",
                                                truncate ? "Truncation" : "Modification",
                                                table->keyspace, table->name));
  }
  CASSETTE_RETURN_IF_ERROR(check_not_view(*table, truncate));
  return table;
}

}  // namespace cassette::cql
