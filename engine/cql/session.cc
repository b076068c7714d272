#include "engine/cql/session.h"

#include <map>
#include <mutex>
#include <new>
#include <type_traits>

#include "engine/cql/execution_context.h"
#include "engine/cql/parser.h"
#include "engine/cql/statement_kind.h"
#include "engine/types/value.h"

namespace cassette::cql {

namespace {

// One catalog per Store object: sessions of the same store must see each other's schema
// changes at once, without going through the store's change detection.
struct CatalogRegistry {
  std::mutex mutex;
  std::map<const storage::Store*, std::weak_ptr<schema::Catalog>> catalogs;
};

CatalogRegistry& registry() {
  static CatalogRegistry instance;
  return instance;
}

Result<ExecutionResult> execute_use(const UseStatement& use, ExecutionContext& context) {
  if (context.schema->find_keyspace(use.keyspace) == nullptr && !is_system_keyspace(use.keyspace)) {
    return Status::invalid_argument(fmt::format("Keyspace '{}' does not exist", use.keyspace));
  }
  ExecutionResult result;
  result.kind = ExecutionResult::Kind::kSetKeyspace;
  result.keyspace = use.keyspace;
  return result;
}

// The last line of defence: engine code returns errors as values, but a bug (or an allocation
// that fails) must fail the statement, not the process that hosts the engine.
template <typename Body>
Result<ExecutionResult> guarded(Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Status::internal("out of memory while running the statement");
  } catch (const std::exception& e) {
    return Status::internal(
        fmt::format("internal error while running the statement: {}", e.what()));
  } catch (...) {
    return Status::internal("internal error while running the statement");
  }
}

}  // namespace

Result<std::shared_ptr<schema::Catalog>> catalog_for(const std::shared_ptr<storage::Store>& store) {
  CatalogRegistry& r = registry();
  std::lock_guard guard(r.mutex);
  // Forget catalogs whose stores are gone, so a new Store at a reused address starts afresh.
  std::erase_if(r.catalogs, [](const auto& entry) { return entry.second.expired(); });
  if (auto existing = r.catalogs[store.get()].lock()) return existing;
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<schema::Catalog> catalog, schema::Catalog::open(store));
  r.catalogs[store.get()] = catalog;
  return catalog;
}

Session::Session(std::shared_ptr<storage::Store> store, std::shared_ptr<schema::Catalog> catalog)
    : store_(std::move(store)), catalog_(std::move(catalog)) {}

Result<std::unique_ptr<Session>> Session::open(std::shared_ptr<storage::Store> store) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<schema::Catalog> catalog, catalog_for(store));
  return std::unique_ptr<Session>(new Session(std::move(store), std::move(catalog)));
}

Result<ExecutionResult> Session::execute(std::string_view statement) {
  return guarded([&]() -> Result<ExecutionResult> {
    CASSETTE_ASSIGN_OR_RETURN(Statement parsed, parse_statement(statement));
    return run(parsed, nullptr);
  });
}

Result<schema::Schema> Session::plan_schema_change(const Statement& statement,
                                                   std::shared_ptr<const schema::Schema> base) {
  const bool schema_statement = statement_writes(statement) &&
                                !std::holds_alternative<InsertStatement>(statement) &&
                                !std::holds_alternative<UpdateStatement>(statement) &&
                                !std::holds_alternative<DeleteStatement>(statement) &&
                                !std::holds_alternative<BatchStatement>(statement) &&
                                !std::holds_alternative<TruncateStatement>(statement);
  if (!schema_statement) {
    return Status::invalid_argument(
        fmt::format("{} is not a schema change that can be planned", statement_name(statement)));
  }
  ExecutionContext context;
  context.store = store_.get();
  context.catalog = catalog_.get();
  context.schema = std::move(base);
  context.keyspace = keyspace_;
  context.now_micros = store_->clock().now_micros();
  std::optional<schema::Schema> planned;
  context.planned = &planned;
  CASSETTE_RETURN_IF_ERROR(execute_schema_statement(statement, context).status());
  return std::move(*planned);
}

Result<ExecutionResult> Session::execute(const Statement& statement) {
  return guarded([&] { return run(statement, nullptr); });
}

Result<ExecutionResult> Session::execute(const Statement& statement,
                                         txn::Transaction* transaction) {
  return guarded([&] { return run(statement, transaction); });
}

Result<ExecutionResult> Session::run(const Statement& statement, txn::Transaction* transaction) {
  ExecutionContext context;
  context.store = store_.get();
  context.catalog = catalog_.get();
  CASSETTE_ASSIGN_OR_RETURN(context.schema, catalog_->current());
  if (transaction != nullptr) {
    CASSETTE_ASSIGN_OR_RETURN(context.schema, transaction->schema_view(context.schema));
    context.transaction = transaction;
  }
  context.keyspace = keyspace_;
  context.now_micros = store_->clock().now_micros();
  context.functions.now_micros = context.now_micros;
  context.functions.clock_seq_and_node = types::process_clock_seq_and_node();
  context.functions.timeuuid_sequence = &timeuuid_sequence_;
  context.interrupt = interrupt_;
  context.node = &node_;

  Result<ExecutionResult> result = std::visit(
      [&](const auto& s) -> Result<ExecutionResult> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, SelectStatement>)
          return execute_select(s, context);
        else if constexpr (std::is_same_v<T, InsertStatement>)
          return execute_insert(s, context);
        else if constexpr (std::is_same_v<T, UpdateStatement>)
          return execute_update(s, context);
        else if constexpr (std::is_same_v<T, DeleteStatement>)
          return execute_delete(s, context);
        else if constexpr (std::is_same_v<T, BatchStatement>)
          return execute_batch(s, context);
        else if constexpr (std::is_same_v<T, UseStatement>)
          return execute_use(s, context);
        else if constexpr (std::is_same_v<T, DescribeStatement>)
          return execute_describe(s, context);
        else {
          CASSETTE_RETURN_IF_ERROR(context.refuse_in_transaction(statement_name(statement)));
          return execute_schema_statement(statement, context);
        }
      },
      statement);
  if (result.is_ok() && result->kind == ExecutionResult::Kind::kSetKeyspace) {
    keyspace_ = result->keyspace;
  }
  return result;
}

}  // namespace cassette::cql
