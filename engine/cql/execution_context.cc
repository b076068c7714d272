// Name resolution for statements: which keyspace and table a (maybe unqualified) name means,
// with Cassandra 4.1's messages (ClientState.getKeyspace and Schema.validateTable).
#include "engine/cql/execution_context.h"

namespace cassette::cql {

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
