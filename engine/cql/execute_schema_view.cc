// CREATE, ALTER and DROP MATERIALIZED VIEW, with Cassandra's checks and messages
// (CreateViewStatement, AlterViewStatement, DropViewStatement). A view is a table with a ViewDef
// (schema.h); CREATE fills it from its base table's rows in the same commit as the schema change,
// and every later write to the base keeps it in step (view_maintenance.h).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/table_properties.h"
#include "engine/cql/view_filter.h"
#include "engine/cql/view_maintenance.h"

namespace cassette::cql {

using namespace schema_internal;
using schema::ColumnDef;
using schema::ColumnKind;

namespace {

std::string join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// The checks made on the statement alone (Cassandra's CreateViewStatement.Raw.prepare and the
// SELECT clause's).
Status check_view_statement(const CreateViewStatement& statement) {
  for (const SelectorPtr& selector : statement.select.selectors) {
    if (selector->alias) {
      return Status::invalid_argument(fmt::format(
          "Cannot use aliases when defining a materialized view (got {})", selector->source));
    }
    if (selector->kind != Selector::Kind::kColumn) {
      return Status::invalid_argument(
          fmt::format("Can only select columns by name when defining a materialized view (got {})",
                      selector->source));
    }
  }
  std::set<std::string> ordered;
  for (const OrderingClause& order : statement.properties.clustering_order) {
    if (!ordered.insert(order.column).second) {
      return Status::invalid_argument(
          fmt::format("Duplicate column '{}' in CLUSTERING ORDER BY clause for view '{}'",
                      order.column, statement.view.name));
    }
  }
  return Status::ok();
}

// The base table's columns the view selects, in the base table's order.
Result<std::vector<const ColumnDef*>> selected_columns(const CreateViewStatement& statement,
                                                       const schema::TableDef& base) {
  std::vector<const ColumnDef*> out;
  if (statement.select.selectors.empty()) {
    for (const ColumnDef& column : base.columns) out.push_back(&column);
  } else {
    for (const SelectorPtr& selector : statement.select.selectors) {
      const ColumnDef* column = base.find_column(selector->column);
      if (column == nullptr) {
        return Status::invalid_argument(fmt::format("Undefined column name {} in table {}.{}",
                                                    maybe_quote(selector->column), base.keyspace,
                                                    base.name));
      }
      if (std::find(out.begin(), out.end(), column) == out.end()) out.push_back(column);
    }
    std::stable_sort(out.begin(), out.end(), [&](const ColumnDef* a, const ColumnDef* b) {
      return (a - base.columns.data()) < (b - base.columns.data());
    });
  }
  for (const ColumnDef* column : out) {
    if (column->is_static()) {
      return Status::invalid_argument(
          fmt::format("Cannot include static column '{}' in materialized view '{}'", column->name,
                      statement.view.name));
    }
  }
  return out;
}

// The view's primary key against the base table: known, selected, unique, of a key type, every
// base key column, at most one regular column.
Status check_view_primary_key(const CreateViewStatement& statement, const schema::TableDef& base,
                              const std::vector<const ColumnDef*>& selected) {
  const std::string& view = statement.view.name;
  std::vector<std::string> key = statement.partition_key;
  key.insert(key.end(), statement.clustering.begin(), statement.clustering.end());
  std::vector<std::string> seen;
  for (const std::string& name : key) {
    const ColumnDef* column = base.find_column(name);
    if (column == nullptr ||
        std::find(selected.begin(), selected.end(), column) == selected.end()) {
      return Status::invalid_argument(fmt::format(
          "Unknown column '{}' referenced in PRIMARY KEY for materialized view '{}'", name, view));
    }
    if (contains(seen, name)) {
      return Status::invalid_argument(fmt::format(
          "Duplicate column '{}' in PRIMARY KEY clause for materialized view '{}'", name, view));
    }
    seen.push_back(name);
    const types::CqlType& type = column->type;
    if (type.is_multi_cell()) {
      return Status::invalid_argument(
          fmt::format("Invalid non-frozen {} type '{}' for PRIMARY KEY column '{}'",
                      type.kind == types::TypeKind::kUdt ? "user-defined" : "collection",
                      type_name(type, base.keyspace), name));
    }
    if (type.is_counter()) {
      return Status::invalid_argument(
          fmt::format("counter type is not supported for PRIMARY KEY column '{}'", name));
    }
    if (references_duration(type)) {
      return Status::invalid_argument(
          fmt::format("duration type is not supported for PRIMARY KEY column '{}'", name));
    }
  }
  const auto& order = statement.properties.clustering_order;
  if (!order.empty()) {
    bool same = order.size() == statement.clustering.size();
    for (size_t i = 0; same && i < order.size(); ++i) {
      same = order[i].column == statement.clustering[i];
    }
    if (!same) {
      return Status::invalid_argument(
          "Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive");
    }
  }
  std::vector<std::string> missing;
  for (const ColumnDef& column : base.columns) {
    if (column.is_primary_key() && !contains(key, column.name)) missing.push_back(column.name);
  }
  if (!missing.empty()) {
    return Status::invalid_argument(fmt::format(
        "Cannot create materialized view '{}' without primary key columns {} from base table '{}'",
        view, join(missing), base.name));
  }
  std::vector<std::string> regular;
  for (const std::string& name : key) {
    if (!base.find_column(name)->is_primary_key()) regular.push_back(name);
  }
  if (regular.size() > 1) {
    return Status::invalid_argument(fmt::format(
        "Cannot include more than one non-primary key column in materialized view primary key "
        "(got {})",
        join(regular)));
  }
  return Status::ok();
}

// The WHERE clause: every view key column IS NOT NULL or otherwise restricted; restrictions
// (=, IN, ranges, multi-column relations) on the base's primary-key columns only, checked as a
// SELECT's with ALLOW FILTERING (view_filter.h). Returns the clause as system_schema.views and
// DESCRIBE print it (IS NOT NULL written as Cassandra does, other relations as written).
Result<std::string> check_view_where(const CreateViewStatement& statement,
                                     const schema::TableDef& base,
                                     const ExecutionContext& context) {
  std::vector<std::string> restricted;
  for (const Relation& relation : statement.select.where) {
    if (has_bind_marker(relation)) {
      return Status::invalid_argument(
          "Bind variables are not allowed in CREATE MATERIALIZED VIEW statements");
    }
  }
  for (const Relation& relation : statement.select.where) {
    if (relation.kind == Relation::Kind::kToken) {
      return Status::invalid_argument(
          "Cannot use token relation when defining a materialized view");
    }
    for (const std::string& name : relation.columns) {
      const ColumnDef* column = base.find_column(name);
      if (column == nullptr) {
        return Status::invalid_argument(fmt::format("Undefined column name {} in table {}.{}",
                                                    maybe_quote(name), base.keyspace, base.name));
      }
      if (relation.op != Operator::kIsNotNull && !column->is_primary_key()) {
        return Status::invalid_argument(
            fmt::format("Non-primary key columns can only be restricted with 'IS NOT NULL' (got: "
                        "{} restricted illegally)",
                        name));
      }
    }
    restricted.insert(restricted.end(), relation.columns.begin(), relation.columns.end());
  }
  std::vector<std::string> unrestricted;
  for (const std::string& name : statement.partition_key) {
    if (!contains(restricted, name)) unrestricted.push_back(name);
  }
  for (const std::string& name : statement.clustering) {
    if (!contains(restricted, name)) unrestricted.push_back(name);
  }
  if (!unrestricted.empty()) {
    return Status::invalid_argument(
        fmt::format("Primary key columns {} must be restricted with 'IS NOT NULL' or otherwise",
                    join(unrestricted)));
  }
  CASSETTE_RETURN_IF_ERROR(
      ViewKeyFilter::make(base, statement.select.where, *context.schema, context.now_micros)
          .status());
  return view_where_text(statement.select.where);
}

constexpr std::string_view kViewTtlMessage =
    "Cannot set default_time_to_live for a materialized view. Data in a materialized view always "
    "expire at the same time than the corresponding data in the parent table.";

// The view's table definition (its storage id not yet assigned).
Result<schema::TableDef> build_view(const CreateViewStatement& statement,
                                    const schema::TableDef& base, const ExecutionContext& context) {
  CASSETTE_RETURN_IF_ERROR(check_view_statement(statement));
  CASSETTE_ASSIGN_OR_RETURN(std::vector<const ColumnDef*> selected,
                            selected_columns(statement, base));
  CASSETTE_RETURN_IF_ERROR(check_view_primary_key(statement, base, selected));
  CASSETTE_ASSIGN_OR_RETURN(std::string where, check_view_where(statement, base, context));
  if (has_property(statement.properties.properties, "default_time_to_live")) {
    return Status::invalid_argument(std::string(kViewTtlMessage));
  }
  schema::TableDef view;
  view.keyspace = base.keyspace;
  view.name = statement.view.name;
  view.params = default_table_params();
  CASSETTE_RETURN_IF_ERROR(apply_table_properties(statement.properties.properties, &view.params));
  view.id = random_uuid_text();
  for (const auto& [name, value] : statement.properties.properties) {
    if (name == "id" && !value.is_map) view.id = value.text;
  }
  for (const ColumnDef* from : selected) {
    ColumnDef column;
    column.name = from->name;
    column.type = from->type;
    auto pk = std::find(statement.partition_key.begin(), statement.partition_key.end(), from->name);
    auto ck = std::find(statement.clustering.begin(), statement.clustering.end(), from->name);
    if (pk != statement.partition_key.end()) {
      column.kind = ColumnKind::kPartitionKey;
      column.position = static_cast<int>(pk - statement.partition_key.begin());
    } else if (ck != statement.clustering.end()) {
      column.kind = ColumnKind::kClustering;
      column.position = static_cast<int>(ck - statement.clustering.begin());
      // The base column's order unless CLUSTERING ORDER BY says otherwise (Cassandra keeps the
      // base type's ReversedType).
      column.descending = from->kind == ColumnKind::kClustering && from->descending;
      for (const OrderingClause& o : statement.properties.clustering_order) {
        if (o.column == from->name) column.descending = o.descending;
      }
    } else {
      column.kind = ColumnKind::kRegular;
    }
    view.columns.push_back(std::move(column));
  }
  sort_columns(view.columns);
  for (ColumnDef& column : view.columns) column.id = view.next_column_id++;
  schema::ViewDef def;
  def.base_table = base.name;
  def.base_table_id = base.id;
  def.include_all_columns = statement.select.selectors.empty();
  def.where_clause = std::move(where);
  view.view = std::move(def);
  view.finalize();
  return view;
}

std::shared_ptr<const schema::TableDef> find_view(const schema::Schema& schema,
                                                  const std::string& keyspace,
                                                  const std::string& name) {
  std::shared_ptr<const schema::TableDef> table = schema.find_table(keyspace, name);
  return table != nullptr && table->is_view() ? table : nullptr;
}

// The view ALTER or DROP names: null when it does not exist and IF EXISTS was given.
Result<std::shared_ptr<const schema::TableDef>> existing_view(const schema::Schema& schema,
                                                              const std::string& keyspace,
                                                              const std::string& name,
                                                              bool if_exists) {
  std::shared_ptr<const schema::TableDef> view = find_view(schema, keyspace, name);
  if (view == nullptr && !if_exists) {
    return Status::invalid_argument(
        fmt::format("Materialized view '{}.{}' doesn't exist", keyspace, name));
  }
  return view;
}

}  // namespace

Result<ExecutionResult> execute_create_view(const CreateViewStatement& statement,
                                            ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.view));
  // Checked before the keyspace and the base table exist, as Cassandra's prepare() does.
  if (!statement.select.table.keyspace.empty() && statement.select.table.keyspace != keyspace) {
    return Status::invalid_argument(
        "Cannot create a materialized view on a table in a different keyspace");
  }
  // What the change made, for the writes that fill the view in the same commit.
  std::shared_ptr<const schema::TableDef> created;
  std::shared_ptr<const schema::TableDef> base_of_created;
  auto change = [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
    created = nullptr;
    const schema::KeyspaceDef* ks = now.find_keyspace(keyspace);
    if (ks == nullptr) {
      return Status::invalid_argument(fmt::format("Keyspace '{}' doesn't exist", keyspace));
    }
    std::shared_ptr<const schema::TableDef> base =
        now.find_table(keyspace, statement.select.table.name);
    if (base == nullptr) {
      return Status::invalid_argument(
          fmt::format("Base table '{}' doesn't exist", statement.select.table.name));
    }
    if (auto existing = now.find_table(keyspace, statement.view.name)) {
      if (!existing->is_view()) {
        return Status::invalid_argument(fmt::format(
            "Cannot create materialized view '{}' - a table with the same name already exists",
            statement.view.name));
      }
      if (statement.if_not_exists) return std::optional<schema::Schema>();
      return Status::already_exists(
          fmt::format("Cannot add already existing table \"{}\" to keyspace \"{}\"",
                      statement.view.name, keyspace));
    }
    if (base->is_counter_table()) {
      return Status::invalid_argument("Materialized views are not supported on counter tables");
    }
    if (base->is_view()) {
      return Status::invalid_argument(
          "Materialized views cannot be created against other materialized views");
    }
    if (base->params.gc_grace_seconds == 0) {
      return Status::invalid_argument(fmt::format(
          "Cannot create materialized view '{}' for base table '{}' with gc_grace_seconds of 0, "
          "since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low "
          "might cause undelivered updates to expire before being replayed.",
          statement.view.name, base->name));
    }
    CASSETTE_ASSIGN_OR_RETURN(schema::TableDef view, build_view(statement, *base, context));
    if (!is_valid_name(view.name)) {
      return Status::configuration(
          fmt::format("Table name must not be empty, more than 48 characters long, or contain "
                      "non-alphanumeric-underscore characters (got \"{}\")",
                      view.name));
    }
    schema::Schema next = now;
    view.table_id = next.next_table_id++;
    created = std::make_shared<const schema::TableDef>(std::move(view));
    base_of_created = base;
    return std::optional<schema::Schema>(schema::with_table(next, created));
  };
  const int64_t now_seconds = context.now_seconds();
  storage::Store& store = *context.store;
  auto fill = [&](const storage::Snapshot& snapshot, storage::EncodedBatch& batch) -> Status {
    if (created == nullptr) return Status::ok();
    storage::MutationBuilder rows;
    CASSETTE_RETURN_IF_ERROR(build_view_rows(store, snapshot, *context.schema, *base_of_created,
                                             *created, now_seconds, rows));
    return rows.encode_to(&batch);
  };
  return run_change(context, change, fill);
}

Result<ExecutionResult> execute_alter_view(const AlterViewStatement& statement,
                                           ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.view));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        CASSETTE_ASSIGN_OR_RETURN(
            std::shared_ptr<const schema::TableDef> view,
            existing_view(now, keyspace, statement.view.name, statement.if_exists));
        if (view == nullptr) return std::optional<schema::Schema>();
        if (has_property(statement.properties.properties, "id")) {
          return Status::configuration("Cannot alter table id.");
        }
        schema::TableDef next = *view;
        CASSETTE_RETURN_IF_ERROR(
            apply_table_properties(statement.properties.properties, &next.params));
        if (next.params.default_time_to_live > 0) {
          return Status::invalid_argument(
              "Forbidden default_time_to_live detected for a materialized view. Data in a "
              "materialized view always expire at the same time than the corresponding data in "
              "the parent table. default_time_to_live must be set to zero, see CASSANDRA-12868 "
              "for more information");
        }
        next.finalize();
        return std::optional<schema::Schema>(
            schema::with_table(now, std::make_shared<const schema::TableDef>(std::move(next))));
      });
}

Result<ExecutionResult> execute_drop_view(const DropViewStatement& statement,
                                          ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.view));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        CASSETTE_ASSIGN_OR_RETURN(
            std::shared_ptr<const schema::TableDef> view,
            existing_view(now, keyspace, statement.view.name, statement.if_exists));
        if (view == nullptr) return std::optional<schema::Schema>();
        return std::optional<schema::Schema>(schema::without_table(now, keyspace, view->name));
      });
}

}  // namespace cassette::cql
