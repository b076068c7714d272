#include "engine/cql/session.h"

#include <map>
#include <mutex>
#include <new>
#include <span>
#include <type_traits>

#include "engine/cql/ann_index.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/modification_statement.h"
#include "engine/cql/parser.h"
#include "engine/cql/selection.h"
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

// Never destroyed: the ANN builder thread (ann_index.cc) asks it for catalogs until the process
// is gone, also while exit() runs the destructors of statics.
CatalogRegistry& registry() {
  static CatalogRegistry* instance = new CatalogRegistry();
  return *instance;
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

// The tables a DML statement names (already qualified by bind_variables).
std::vector<QualifiedName> statement_tables(const Statement& statement) {
  std::vector<QualifiedName> tables;
  auto add = [&](const auto& s) {
    using T = std::decay_t<decltype(s)>;
    if constexpr (std::is_same_v<T, BatchStatement>) {
      for (const auto& inner : s.statements)
        std::visit([&](const auto& child) { tables.push_back(child.table); }, inner);
    } else if constexpr (std::is_same_v<T, SelectStatement> || std::is_same_v<T, InsertStatement> ||
                         std::is_same_v<T, UpdateStatement> || std::is_same_v<T, DeleteStatement>) {
      tables.push_back(s.table);
    }
  };
  std::visit(add, statement);
  return tables;
}

// Cassandra checks an INSERT's columns when it is prepared (a missing primary key column is an
// error of PREPARE, not of each EXECUTE). `tables` are statement_tables(statement)'s, in order.
Status check_prepared_inserts(const Statement& statement,
                              std::span<const std::shared_ptr<const schema::TableDef>> tables) {
  size_t next = 0;
  auto check = [&](const auto& s) -> Status {
    using T = std::decay_t<decltype(s)>;
    const schema::TableDef& table = *tables[next++];
    if constexpr (std::is_same_v<T, InsertStatement>) return check_insert_columns(s, table);
    return Status::ok();
  };
  if (const auto* batch = std::get_if<BatchStatement>(&statement)) {
    for (const auto& inner : batch->statements) {
      CASSETTE_RETURN_IF_ERROR(std::visit(check, inner));
    }
    return Status::ok();
  }
  if (const auto* insert = std::get_if<InsertStatement>(&statement)) return check(*insert);
  return Status::ok();
}

// Whether `now` is still the table `then` was, for what a prepared statement depends on: the
// same table (not dropped and created again) with the same columns and types.
bool same_table_shape(const schema::TableDef& then, const schema::TableDef& now) {
  if (then.table_id != now.table_id || then.columns.size() != now.columns.size()) return false;
  for (size_t i = 0; i < then.columns.size(); ++i) {
    const schema::ColumnDef& a = then.columns[i];
    const schema::ColumnDef& b = now.columns[i];
    if (a.name != b.name || !(a.type == b.type) || a.kind != b.kind) return false;
  }
  return true;
}

Result<std::vector<ResultColumn>> prepared_result_columns(const PreparedStatement& prepared,
                                                          const ExecutionContext& context) {
  const auto* select = std::get_if<SelectStatement>(&prepared.statement);
  if (select == nullptr) return std::vector<ResultColumn>();
  if (select->json) {
    return std::vector<ResultColumn>{{"[json]", types::CqlType::simple(types::TypeKind::kText)}};
  }
  CASSETTE_ASSIGN_OR_RETURN(Selection selection,
                            Selection::prepare(*prepared.tables.at(0), *select, context));
  std::vector<ResultColumn> columns = selection.columns();
  columns.resize(selection.visible_count());
  return columns;
}

std::vector<std::optional<int>> partition_key_indexes(const PreparedStatement& prepared) {
  if (prepared.tables.size() != 1 || std::holds_alternative<BatchStatement>(prepared.statement)) {
    return {};
  }
  std::vector<std::optional<int>> indexes(prepared.tables[0]->partition_key().size());
  for (size_t i = 0; i < prepared.variables.size(); ++i) {
    const int position = prepared.variables[i].partition_key_position;
    if (position >= 0 && static_cast<size_t>(position) < indexes.size()) {
      indexes[static_cast<size_t>(position)] = static_cast<int>(i);
    }
  }
  return indexes;
}

}  // namespace

Result<std::shared_ptr<const PreparedStatement>> Session::prepare(std::string_view statement,
                                                                  txn::Transaction* transaction) {
  Result<std::shared_ptr<const PreparedStatement>> result =
      Status::internal("internal error while preparing the statement");
  Result<ExecutionResult> status = guarded([&]() -> Result<ExecutionResult> {
    result = prepare_parsed(statement, transaction);
    if (!result.is_ok()) return result.status();
    return ExecutionResult();
  });
  if (!status.is_ok()) return status.status();
  return result;
}

Result<std::shared_ptr<const PreparedStatement>> Session::prepare_parsed(
    std::string_view text, txn::Transaction* transaction) {
  auto prepared = std::make_shared<PreparedStatement>();
  prepared->query = std::string(text);
  size_t marker_count = 0;
  CASSETTE_ASSIGN_OR_RETURN(prepared->statement, parse_statement(text, &marker_count));
  CASSETTE_ASSIGN_OR_RETURN(ExecutionContext context, make_context(transaction));
  CASSETTE_ASSIGN_OR_RETURN(prepared->variables,
                            bind_variables(prepared->statement, marker_count, context));
  for (const QualifiedName& name : statement_tables(prepared->statement)) {
    CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> table,
                              context.resolve_table(name));
    prepared->tables.push_back(std::move(table));
  }
  CASSETTE_RETURN_IF_ERROR(check_prepared_inserts(prepared->statement, prepared->tables));
  CASSETTE_ASSIGN_OR_RETURN(prepared->result_columns, prepared_result_columns(*prepared, context));
  prepared->partition_key_indexes = partition_key_indexes(*prepared);
  return std::shared_ptr<const PreparedStatement>(std::move(prepared));
}

Result<ExecutionResult> Session::execute(const PreparedStatement& prepared,
                                         std::span<const BoundValue> values,
                                         txn::Transaction* transaction) {
  return guarded([&] { return run_prepared(prepared, values, transaction); });
}

Result<ExecutionResult> Session::execute(const PreparedStatement& prepared,
                                         std::span<const std::pair<std::string, BoundValue>> values,
                                         txn::Transaction* transaction) {
  return guarded([&]() -> Result<ExecutionResult> {
    return run_prepared(prepared, values_by_name(prepared, values), transaction);
  });
}

std::vector<BoundValue> Session::values_by_name(
    const PreparedStatement& prepared, std::span<const std::pair<std::string, BoundValue>> values) {
  std::vector<BoundValue> ordered;
  for (const BindVariable& variable : prepared.variables) {
    for (const auto& [name, value] : values) {
      if (name == variable.name) {
        ordered.push_back(value);
        break;
      }
    }
  }
  return ordered;
}

Result<ExecutionResult> Session::execute(const Statement& statement,
                                         const StatementOptions& options) {
  return guarded([&] { return run(statement, nullptr, &options); });
}

Result<ExecutionResult> Session::execute(const PreparedStatement& prepared,
                                         std::span<const BoundValue> values,
                                         const StatementOptions& options) {
  return guarded([&] { return run_prepared(prepared, values, nullptr, &options); });
}

Result<std::optional<Statement>> Session::bind(const PreparedStatement& prepared,
                                               std::span<const BoundValue> values) {
  Result<std::optional<Statement>> bound = Status::internal("unreachable");
  Result<ExecutionResult> status = guarded([&]() -> Result<ExecutionResult> {
    CASSETTE_ASSIGN_OR_RETURN(ExecutionContext context, make_context(nullptr));
    bound = bind_prepared(prepared, values, context);
    if (!bound.is_ok()) return bound.status();
    return ExecutionResult();
  });
  if (!status.is_ok()) return status.status();
  return bound;
}

Result<ExecutionResult> Session::run_prepared(const PreparedStatement& prepared,
                                              std::span<const BoundValue> values,
                                              txn::Transaction* transaction,
                                              const StatementOptions* options) {
  CASSETTE_ASSIGN_OR_RETURN(ExecutionContext context, make_context(transaction));
  CASSETTE_ASSIGN_OR_RETURN(std::optional<Statement> bound,
                            bind_prepared(prepared, values, context));
  if (!bound) return ExecutionResult();
  return run(*bound, transaction, options);
}

Result<std::optional<Statement>> Session::bind_prepared(const PreparedStatement& prepared,
                                                        std::span<const BoundValue> values,
                                                        const ExecutionContext& context) {
  if (values.size() != prepared.variables.size()) {
    return Status::invalid_argument(
        fmt::format("there were {} markers(?) in CQL but {} bound variables",
                    prepared.variables.size(), values.size()));
  }
  for (const std::shared_ptr<const schema::TableDef>& then : prepared.tables) {
    // resolve_table, not the schema alone: the system keyspaces are generated, not stored.
    Result<std::shared_ptr<const schema::TableDef>> found =
        context.resolve_table(QualifiedName{then->keyspace, then->name});
    std::shared_ptr<const schema::TableDef> now = found.is_ok() ? *found : nullptr;
    if (now == nullptr) {
      return Status::unprepared(
          fmt::format("Prepared statement is out of date: table {}.{} was dropped", then->keyspace,
                      then->name));
    }
    if (now != then && !same_table_shape(*then, *now)) {
      return Status::unprepared(
          fmt::format("Prepared statement is out of date: table {}.{} was altered", then->keyspace,
                      then->name));
    }
  }
  if (prepared.variables.empty()) return std::optional<Statement>(prepared.statement);
  return bind_values(prepared.statement, prepared.variables, values, context);
}

Result<std::shared_ptr<schema::Catalog>> catalog_for(const std::shared_ptr<storage::Store>& store) {
  CatalogRegistry& r = registry();
  std::lock_guard guard(r.mutex);
  // Forget catalogs whose stores are gone, so a new Store at a reused address starts afresh.
  std::erase_if(r.catalogs, [](const auto& entry) { return entry.second.expired(); });
  if (auto existing = r.catalogs[store.get()].lock()) return existing;
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<schema::Catalog> catalog, schema::Catalog::open(store));
  r.catalogs[store.get()] = catalog;
  ann_follow_compactions(catalog);  // compactions keep the ANN graphs
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

Result<ExecutionContext> Session::make_context(txn::Transaction* transaction) {
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
  context.interrupt = interrupt_;
  context.node = &node_;
  context.unmask = unmask_;
  context.masked_query_user = masked_query_user_;
  return context;
}

Result<ExecutionResult> Session::run(const Statement& statement, txn::Transaction* transaction,
                                     const StatementOptions* options) {
  CASSETTE_ASSIGN_OR_RETURN(ExecutionContext context, make_context(transaction));
  context.options = options;
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
