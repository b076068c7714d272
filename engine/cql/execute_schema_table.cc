// CREATE TABLE, ALTER TABLE, DROP TABLE and TRUNCATE, as Cassandra 4.1 checks them
// (CreateTableStatement, AlterTableStatement, DropTableStatement, TruncateStatement).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/cql/column_mask.h"
#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/table_properties.h"
#include "engine/cql/view_filter.h"

namespace cassette::cql {

namespace {

using namespace schema_internal;
using schema::ColumnDef;
using schema::ColumnKind;
using types::CqlType;

std::string display_name(const QualifiedName& name) {
  return name.keyspace.empty() ? name.name : fmt::format("{}.{}", name.keyspace, name.name);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

}  // namespace

Result<schema::TableDef> schema_internal::build_table(const CreateTableStatement& statement,
                                                      const std::string& keyspace_name,
                                                      const schema::KeyspaceDef& keyspace) {
  std::string display = display_name(statement.table);
  schema::TableParams params = default_table_params();
  CASSETTE_RETURN_IF_ERROR(apply_table_properties(statement.properties.properties, &params));

  // Types, resolved in name order as Cassandra does (its columns live in a sorted map).
  std::map<std::string, CqlType> types;
  std::set<std::string> statics;
  for (const ColumnDefinition& column : statement.columns) {
    if (column.is_static) statics.insert(column.name);
  }
  std::map<std::string, const ColumnDefinition*> by_name;
  for (const ColumnDefinition& column : statement.columns) by_name[column.name] = &column;
  for (const auto& [name, column] : by_name) {
    CASSETTE_ASSIGN_OR_RETURN(types[name], resolve_type(column->type, keyspace_name, keyspace));
  }
  for (const auto& [name, type] : types) {
    if (type.kind == types::TypeKind::kUdt && type.is_multi_cell()) {
      for (const CqlType& field : type.params) {
        if (field.is_multi_cell()) {
          return Status::invalid_argument(
              "Non-frozen UDTs with nested non-frozen collections are not supported");
        }
      }
    }
  }

  // The primary key.
  std::vector<std::string> partition_key = statement.partition_key;
  std::vector<std::string> clustering = statement.clustering;
  if (partition_key.empty()) {
    for (const ColumnDefinition& column : statement.columns) {
      if (column.primary_key) partition_key.push_back(column.name);
    }
  }
  std::set<std::string> key_columns;
  std::vector<std::string> all_key = partition_key;
  all_key.insert(all_key.end(), clustering.begin(), clustering.end());
  for (const std::string& column : all_key) {
    auto it = types.find(column);
    if (it == types.end()) {
      return Status::invalid_argument(fmt::format(
          "Unknown column '{}' referenced in PRIMARY KEY for table '{}'", column, display));
    }
    if (!key_columns.insert(column).second) {
      return Status::invalid_argument(fmt::format(
          "Duplicate column '{}' in PRIMARY KEY clause for table '{}'", column, display));
    }
    const CqlType& type = it->second;
    if (type.is_multi_cell()) {
      return Status::invalid_argument(
          fmt::format("Invalid non-frozen {} type {} for PRIMARY KEY column '{}'",
                      type.is_collection() ? "collection" : "user-defined",
                      type_name(type, keyspace_name), column));
    }
    if (type.is_counter()) {
      return Status::invalid_argument(
          fmt::format("counter type is not supported for PRIMARY KEY column '{}'", column));
    }
    if (references_duration(type)) {
      return Status::invalid_argument(
          fmt::format("duration type is not supported for PRIMARY KEY column '{}'", column));
    }
    if (statics.contains(column)) {
      return Status::invalid_argument(
          fmt::format("Static column '{}' cannot be part of the PRIMARY KEY", column));
    }
  }

  // CLUSTERING ORDER BY.
  const std::vector<OrderingClause>& order = statement.properties.clustering_order;
  std::vector<std::string> not_clustering;
  for (const OrderingClause& o : order) {
    if (std::find(clustering.begin(), clustering.end(), o.column) == clustering.end()) {
      not_clustering.push_back(o.column);
    }
  }
  if (!not_clustering.empty()) {
    return Status::invalid_argument(fmt::format(
        "Only clustering key columns can be defined in CLUSTERING ORDER directive: [{}]",
        join(not_clustering)));
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string& expected = clustering[i];
    if (order[i].column != expected) {
      bool later = std::any_of(order.begin(), order.end(),
                               [&](const OrderingClause& o) { return o.column == expected; });
      if (later) {
        return Status::invalid_argument(fmt::format(
            "The order of columns in the CLUSTERING ORDER directive must match that of the "
            "clustering columns ({} must appear before {})",
            expected, order[i].column));
      }
      return Status::invalid_argument(
          fmt::format("Missing CLUSTERING ORDER for column {}", expected));
    }
  }

  if (statement.properties.compact_storage) {
    return Status::invalid_argument(
        "Compact tables are not allowed in Cassandra starting with 4.0 version.");
  }
  if (clustering.empty() && !statics.empty()) {
    return Status::invalid_argument(
        "Static columns are only useful (and thus allowed) if the table has at least one "
        "clustering column");
  }

  bool has_counters = std::any_of(statement.columns.begin(), statement.columns.end(),
                                  [](const ColumnDefinition& c) { return c.type.is_counter(); });
  if (has_counters) {
    for (const auto& [name, type] : types) {
      if (!key_columns.contains(name) && !type.is_counter()) {
        return Status::invalid_argument(
            "Cannot mix counter and non counter columns in the same table");
      }
    }
    if (params.default_time_to_live > 0) {
      return Status::invalid_argument("Cannot set default_time_to_live on a table with counters");
    }
  }

  schema::TableDef table;
  table.keyspace = keyspace_name;
  table.name = statement.table.name;
  table.params = std::move(params);
  table.id = random_uuid_text();
  for (const auto& [name, value] : statement.properties.properties) {
    if (name == "id" && !value.is_map) table.id = value.text;
  }
  for (const auto& [name, type] : types) {
    ColumnDef column;
    column.name = name;
    column.type = type;
    auto pk = std::find(partition_key.begin(), partition_key.end(), name);
    auto ck = std::find(clustering.begin(), clustering.end(), name);
    if (pk != partition_key.end()) {
      column.kind = ColumnKind::kPartitionKey;
      column.position = static_cast<int>(pk - partition_key.begin());
    } else if (ck != clustering.end()) {
      column.kind = ColumnKind::kClustering;
      column.position = static_cast<int>(ck - clustering.begin());
      for (const OrderingClause& o : order) {
        if (o.column == name) column.descending = o.descending;
      }
    } else {
      column.kind = statics.contains(name) ? ColumnKind::kStatic : ColumnKind::kRegular;
    }
    table.columns.push_back(std::move(column));
  }
  sort_columns(table.columns);
  for (ColumnDef& column : table.columns) column.id = table.next_column_id++;
  table.finalize();
  return table;
}

namespace {

// The checks CREATE TABLE makes on the statement alone, before looking at the schema (Cassandra
// makes them while parsing).
Status check_create_table_syntax(const CreateTableStatement& statement) {
  std::string display = display_name(statement.table);
  std::set<std::string> seen;
  for (const ColumnDefinition& column : statement.columns) {
    if (!seen.insert(column.name).second) {
      return Status::invalid_argument(
          fmt::format("Duplicate column '{}' declaration for table '{}'", column.name, display));
    }
  }
  int inline_keys = 0;
  for (const ColumnDefinition& column : statement.columns) inline_keys += column.primary_key;
  int declarations = std::max(statement.primary_key_clauses,
                              (statement.partition_key.empty() ? 0 : 1) + inline_keys);
  if (declarations > 1) {
    return Status::invalid_argument(fmt::format(
        "Multiple PRIMARY KEY specified for table '{}' (exactly one required)", display));
  }
  if (declarations == 0) {
    return Status::invalid_argument(
        fmt::format("No PRIMARY KEY specifed for table '{}' (exactly one required)", display));
  }
  std::set<std::string> ordered;
  for (const OrderingClause& o : statement.properties.clustering_order) {
    if (!ordered.insert(o.column).second) {
      return Status::invalid_argument(fmt::format(
          "Duplicate column '{}' in CLUSTERING ORDER BY clause for table '{}'", o.column, display));
    }
  }
  return Status::ok();
}

// The table ALTER/DROP TABLE names, or nullptr (with `if_exists`) or an error.
Result<std::shared_ptr<const schema::TableDef>> existing_table(const schema::Schema& schema,
                                                               const std::string& keyspace,
                                                               const std::string& name,
                                                               bool if_exists) {
  std::shared_ptr<const schema::TableDef> table = schema.find_table(keyspace, name);
  if (table == nullptr && !if_exists) {
    return Status::invalid_argument(fmt::format("Table '{}.{}' doesn't exist", keyspace, name));
  }
  return table;
}

schema::Schema with_table(const schema::Schema& now, schema::TableDef table) {
  table.finalize();
  return schema::with_table(now, std::make_shared<const schema::TableDef>(std::move(table)));
}

Status check_no_dependent_indexes(const schema::Schema& schema, const schema::TableDef& table,
                                  const std::string& column, bool rename) {
  std::vector<std::string> dependent;
  for (const auto& index : schema.indexes_on(table)) {
    if (index->column == column) dependent.push_back(index->name);
  }
  if (dependent.empty()) return Status::ok();
  return Status::invalid_argument(
      fmt::format("Cannot {} column {} because it has dependent secondary indexes ({})",
                  rename ? "rename" : "drop", column, join(dependent)));
}

// The columns ALTER TABLE ADD gave `base`, added to its views of SELECT * (as Cassandra does):
// regular columns of the view, no data yet.
schema::Schema add_columns_to_views(schema::Schema schema, const AlterTableStatement& statement,
                                    const schema::TableDef& base) {
  for (const auto& existing : schema.views_on(base)) {
    if (!existing->view->include_all_columns) continue;
    schema::TableDef view = *existing;
    for (const ColumnDefinition& added : statement.added) {
      const ColumnDef* column = base.find_column(added.name);
      if (column == nullptr || column->is_static() || view.find_column(added.name) != nullptr) {
        continue;
      }
      ColumnDef copy = *column;
      copy.kind = ColumnKind::kRegular;
      copy.id = view.next_column_id++;
      view.columns.push_back(std::move(copy));
    }
    sort_columns(view.columns);
    schema = with_table(schema, std::move(view));
  }
  return schema;
}

// AbstractType.isSerializationCompatibleWith as far as a re-added column needs it (values
// written as `previous` readable as `type`, of the same fixed length, cells alike): a blob
// reads any variable-length single-cell value, text reads ascii, bigint and timestamp each
// other. An int re-added as varint is refused (AlterTest.testDropFixedAddVariable).
bool serialization_compatible(const CqlType& type, const CqlType& previous) {
  using types::TypeKind;
  if (type == previous) return true;
  switch (type.kind) {
    case TypeKind::kBlob:
      switch (previous.kind) {
        case TypeKind::kInt:
        case TypeKind::kBigint:
        case TypeKind::kBoolean:
        case TypeKind::kCounter:
        case TypeKind::kDate:
        case TypeKind::kDouble:
        case TypeKind::kFloat:
        case TypeKind::kTime:
        case TypeKind::kTimestamp:
        case TypeKind::kTimeuuid:
        case TypeKind::kUuid:
        case TypeKind::kVector:
          return false;  // fixed length (a vector of fixed-length elements too)
        default:
          return !previous.is_multi_cell();
      }
    case TypeKind::kText:
      return previous.kind == TypeKind::kAscii;
    case TypeKind::kBigint:
      return previous.kind == TypeKind::kTimestamp;
    case TypeKind::kTimestamp:
      return previous.kind == TypeKind::kBigint;
    default:
      return false;
  }
}

Result<schema::TableDef> add_columns(const AlterTableStatement& statement,
                                     const schema::KeyspaceDef& keyspace, schema::TableDef table) {
  for (const ColumnDefinition& added : statement.added) {
    CASSETTE_ASSIGN_OR_RETURN(CqlType type, resolve_type(added.type, keyspace.name, keyspace));
    if (table.find_column(added.name) != nullptr) {
      if (statement.column_if_not_exists) continue;
      return Status::invalid_argument(
          fmt::format("Column with name '{}' already exists", added.name));
    }
    if (added.is_static && table.clustering().empty()) {
      return Status::invalid_argument(
          "Static columns are only useful (and thus allowed) if the table has at least one "
          "clustering column");
    }
    if (type.kind == types::TypeKind::kUdt && type.is_multi_cell()) {
      for (const CqlType& field : type.params) {
        if (field.is_multi_cell()) {
          return Status::invalid_argument(
              "Non-frozen UDTs with nested non-frozen collections are not supported for column " +
              added.name);
        }
      }
    }
    auto dropped =
        std::find_if(table.dropped.begin(), table.dropped.end(),
                     [&](const schema::DroppedColumn& d) { return d.name == added.name; });
    if (dropped != table.dropped.end()) {
      if (!serialization_compatible(type, dropped->type)) {
        return Status::invalid_argument(fmt::format(
            "Cannot re-add previously dropped column '{}' of type {}, incompatible with previous "
            "type {}",
            added.name, type_name(type, keyspace.name), type_name(dropped->type, keyspace.name)));
      }
      if (table.is_counter_table()) {
        return Status::invalid_argument(
            fmt::format("Cannot re-add previously dropped counter column {}", added.name));
      }
      if (dropped->is_static != added.is_static) {
        return Status::invalid_argument(fmt::format(
            "Cannot re-add previously dropped column '{}' of kind {}, incompatible with previous "
            "kind {}",
            added.name, added.is_static ? "STATIC" : "REGULAR",
            dropped->is_static ? "STATIC" : "REGULAR"));
      }
    }
    bool counter_table = table.is_counter_table();
    bool has_regular = std::any_of(table.columns.begin(), table.columns.end(),
                                   [](const ColumnDef& c) { return !c.is_primary_key(); });
    // TableMetadata.validate's refusals (5.0), prefixed with the table as its except() does
    if (has_regular && type.is_counter() && !counter_table) {
      return Status::configuration(
          fmt::format("{}.{}: Cannot have a counter column (\"{}\") in a non counter table",
                      table.keyspace, table.name, added.name));
    }
    if (counter_table && !type.is_counter()) {
      return Status::configuration(
          fmt::format("{}.{}: Cannot have a non counter column (\"{}\") in a counter table",
                      table.keyspace, table.name, added.name));
    }
    ColumnDef column;
    column.name = added.name;
    column.type = std::move(type);
    column.kind = added.is_static ? ColumnKind::kStatic : ColumnKind::kRegular;
    column.id = table.next_column_id++;
    table.columns.push_back(std::move(column));
    table.finalize();  // the checks of the next added column see this one
  }
  sort_columns(table.columns);
  table.finalize();
  return table;
}

Result<schema::TableDef> drop_columns(const AlterTableStatement& statement,
                                      const schema::Schema& schema, schema::TableDef table,
                                      int64_t now_micros) {
  const int64_t dropped_at = statement.drop_timestamp.value_or(now_micros);
  for (const std::string& name : statement.dropped) {
    const ColumnDef* column = table.find_column(name);
    if (column == nullptr) {
      if (statement.column_if_exists) continue;
      return Status::invalid_argument(fmt::format("Column {} was not found in table '{}.{}'", name,
                                                  table.keyspace, table.name));
    }
    if (column->is_primary_key()) {
      return Status::invalid_argument(fmt::format("Cannot drop PRIMARY KEY column {}", name));
    }
    if (column->type.kind == types::TypeKind::kUdt && column->type.is_multi_cell()) {
      return Status::invalid_argument(
          fmt::format("Cannot drop non-frozen column {} of user type {}", name,
                      type_name(column->type, table.keyspace)));
    }
    CASSETTE_RETURN_IF_ERROR(check_no_dependent_indexes(schema, table, name, false));
    schema::DroppedColumn dropped{column->name, column->type, dropped_at, column->id,
                                  column->is_static()};
    std::erase_if(table.dropped,
                  [&](const schema::DroppedColumn& d) { return d.name == dropped.name; });
    table.dropped.push_back(std::move(dropped));
    std::erase_if(table.columns, [&](const ColumnDef& c) { return c.name == name; });
    table.finalize();
  }
  return table;
}

Result<schema::TableDef> rename_columns(const AlterTableStatement& statement,
                                        const schema::Schema& schema, schema::TableDef table) {
  for (const auto& [from, to] : statement.renames) {
    const ColumnDef* column = table.find_column(from);
    if (column == nullptr) {
      if (statement.column_if_exists) continue;
      return Status::invalid_argument(
          fmt::format("Column {} was not found in table {}.{}", from, table.keyspace, table.name));
    }
    if (!column->is_primary_key()) {
      return Status::invalid_argument(fmt::format("Cannot rename non PRIMARY KEY column {}", from));
    }
    if (table.find_column(to) != nullptr) {
      return Status::invalid_argument(fmt::format(
          "Cannot rename column {} to {} in table '{}.{}'; another column with that name already "
          "exists",
          from, to, table.keyspace, table.name));
    }
    CASSETTE_RETURN_IF_ERROR(check_no_dependent_indexes(schema, table, from, true));
    for (ColumnDef& c : table.columns) {
      if (c.name == from) c.name = to;
    }
  }
  sort_columns(table.columns);
  table.finalize();
  return table;
}

// Puts the MASKED WITH masks of `definitions` on `table`'s columns of the same names.
Status apply_masks(const std::vector<ColumnDefinition>& definitions,
                   const ExecutionContext& context, schema::TableDef& table) {
  for (const ColumnDefinition& definition : definitions) {
    if (!definition.mask) continue;
    for (ColumnDef& column : table.columns) {
      if (column.name != definition.name) continue;
      CASSETTE_ASSIGN_OR_RETURN(schema::ColumnMask mask,
                                prepare_column_mask(*definition.mask, column, context));
      column.mask = std::move(mask);
    }
  }
  table.finalize();
  return Status::ok();
}

}  // namespace

Result<ExecutionResult> execute_create_table(const CreateTableStatement& statement,
                                             ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.table));
  CASSETTE_RETURN_IF_ERROR(check_create_table_syntax(statement));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        const schema::KeyspaceDef* ks = now.find_keyspace(keyspace);
        if (ks == nullptr) {
          return Status::invalid_argument(fmt::format("Keyspace '{}' doesn't exist", keyspace));
        }
        if (ks->tables.contains(statement.table.name)) {
          if (statement.if_not_exists) return std::optional<schema::Schema>();
          return Status::already_exists(
              fmt::format("Cannot add already existing table \"{}\" to keyspace \"{}\"",
                          statement.table.name, keyspace));
        }
        CASSETTE_ASSIGN_OR_RETURN(schema::TableDef table, build_table(statement, keyspace, *ks));
        CASSETTE_RETURN_IF_ERROR(apply_masks(statement.columns, context, table));
        if (!is_valid_name(table.name)) {
          return Status::configuration(
              fmt::format("Table name must not be empty, more than 48 characters long, or contain "
                          "non-alphanumeric-underscore characters (got \"{}\")",
                          table.name));
        }
        schema::Schema next = now;
        table.table_id = next.next_table_id++;
        return std::optional<schema::Schema>(with_table(next, std::move(table)));
      });
}

Result<ExecutionResult> execute_alter_table(const AlterTableStatement& statement,
                                            ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.table));
  int64_t now_micros = context.now_micros;
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        CASSETTE_ASSIGN_OR_RETURN(
            std::shared_ptr<const schema::TableDef> existing,
            existing_table(now, keyspace, statement.table.name, statement.if_exists));
        if (existing == nullptr) return std::optional<schema::Schema>();
        if (existing->is_view()) {
          return Status::invalid_argument(
              "Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead");
        }
        const schema::KeyspaceDef& ks = *now.find_keyspace(keyspace);
        const auto views = now.views_on(*existing);
        schema::TableDef table = *existing;
        switch (statement.kind) {
          case AlterTableStatement::Kind::kAlterColumnType:
            return Status::invalid_argument("Altering column types is no longer supported");
          case AlterTableStatement::Kind::kAdd: {
            CASSETTE_ASSIGN_OR_RETURN(table, add_columns(statement, ks, std::move(table)));
            CASSETTE_RETURN_IF_ERROR(apply_masks(statement.added, context, table));
            break;
          }
          case AlterTableStatement::Kind::kMask: {
            const ColumnDefinition& target = statement.added.at(0);
            const ColumnDef* column = table.find_column(target.name);
            if (column == nullptr) {
              if (statement.column_if_exists) return std::optional<schema::Schema>();
              return Status::invalid_argument(fmt::format(
                  "Column with name '{}' doesn't exist on table '{}'", target.name, table.name));
            }
            CASSETTE_RETURN_IF_ERROR(apply_masks(statement.added, context, table));
            if (!target.mask) {
              for (ColumnDef& c : table.columns)
                if (c.name == target.name) c.mask.reset();
            }
            table.finalize();
            break;
          }
          case AlterTableStatement::Kind::kDrop: {
            for (const std::string& name : statement.dropped) {
              const ColumnDef* column = table.find_column(name);
              if (!views.empty() && column != nullptr && !column->is_primary_key()) {
                return Status::invalid_argument(
                    fmt::format("Cannot drop column {} on base table {} with materialized views",
                                name, table.name));
              }
            }
            CASSETTE_ASSIGN_OR_RETURN(table,
                                      drop_columns(statement, now, std::move(table), now_micros));
            break;
          }
          case AlterTableStatement::Kind::kRename: {
            CASSETTE_ASSIGN_OR_RETURN(table, rename_columns(statement, now, std::move(table)));
            // The views take the new names too, in their columns and WHERE clauses (Cassandra's
            // ViewMetadata.withRenamedPrimaryKeyColumn: every base key column is in each view).
            std::map<std::string, std::string> renames(statement.renames.begin(),
                                                       statement.renames.end());
            schema::Schema next = with_table(now, std::move(table));
            for (const auto& existing_view : views) {
              schema::TableDef view = *existing_view;
              CASSETTE_ASSIGN_OR_RETURN(view.view->where_clause,
                                        renamed_view_where(*existing, view, renames));
              for (ColumnDef& c : view.columns) {
                if (auto it = renames.find(c.name); it != renames.end()) c.name = it->second;
              }
              sort_columns(view.columns);
              view.finalize();
              next = with_table(next, std::move(view));
            }
            return std::optional<schema::Schema>(std::move(next));
          }
          case AlterTableStatement::Kind::kWith: {
            if (has_property(statement.properties.properties, "id")) {
              return Status::configuration("Cannot alter table id.");
            }
            CASSETTE_RETURN_IF_ERROR(
                apply_table_properties(statement.properties.properties, &table.params));
            if (table.is_counter_table() && table.params.default_time_to_live > 0) {
              return Status::invalid_argument(
                  "Cannot set default_time_to_live on a table with counters");
            }
            break;
          }
        }
        schema::Schema next = with_table(now, std::move(table));
        if (statement.kind == AlterTableStatement::Kind::kAdd) {
          next = add_columns_to_views(next, statement, *next.find_table(keyspace, existing->name));
        }
        return std::optional<schema::Schema>(std::move(next));
      });
}

Result<ExecutionResult> execute_drop_table(const DropTableStatement& statement,
                                           ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.table));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        if (now.find_keyspace(keyspace) == nullptr) {
          if (statement.if_exists) return std::optional<schema::Schema>();
          return Status::invalid_argument(fmt::format("Keyspace '{}' doesn't exist", keyspace));
        }
        CASSETTE_ASSIGN_OR_RETURN(
            std::shared_ptr<const schema::TableDef> table,
            existing_table(now, keyspace, statement.table.name, statement.if_exists));
        if (table == nullptr) return std::optional<schema::Schema>();
        if (table->is_view()) {
          return Status::invalid_argument(
              "Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW "
              "instead.");
        }
        std::vector<std::string> views;
        for (const auto& view : now.views_on(*table)) views.push_back(view->name);
        if (!views.empty()) {
          return Status::invalid_argument(fmt::format(
              "Cannot drop table when materialized views still depend on it ({}.{{{}}})", keyspace,
              fmt::join(views, ",")));
        }
        return std::optional<schema::Schema>(schema::without_table(now, keyspace, table->name));
      });
}

Result<ExecutionResult> execute_truncate(const TruncateStatement& statement,
                                         ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::TableDef> table,
                            context.resolve_writable_table(statement.table, /*truncate=*/true));
  CASSETTE_RETURN_IF_ERROR(context.check_interrupt());  // Ctrl-C: the last point to stop
  // The base table and its views under the same write locks and in one manifest change
  // (Store::apply_prepared's truncate_first, as a SQL transaction's TRUNCATE commits): no write
  // to the base table comes between them to leave a view row behind its truncated base row, and
  // a crash leaves all of them truncated or none.
  std::vector<storage::TableId> tables;
  for (const auto& view : context.schema->views_on(*table)) tables.push_back(view->table_id);
  tables.push_back(table->table_id);
  CASSETTE_RETURN_IF_ERROR(
      context.store
          ->apply_prepared([](const storage::Snapshot&, storage::EncodedBatch&) { return false; },
                           tables)
          .status());
  return ExecutionResult{};
}

}  // namespace cassette::cql
