// DESCRIBE: the schema as the CQL that recreates it, in the exact text Cassandra 4.1's server-side
// DESCRIBE prints (DescribeStatement, KeyspaceMetadata/TableMetadata/UserType/IndexMetadata
// toCqlString), as rows (keyspace_name, type, name, create_statement).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "engine/cql/column_mask.h"
#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/system_views.h"
#include "engine/cql/table_properties.h"

namespace cassette::cql {

namespace {

using namespace schema_internal;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Cassandra lists elements by name, ignoring case.
template <typename T>
std::vector<std::shared_ptr<const T>> sorted_by_name(
    const std::map<std::string, std::shared_ptr<const T>>& elements) {
  std::vector<std::shared_ptr<const T>> out;
  for (const auto& [name, element] : elements) out.push_back(element);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return lower(a->name) < lower(b->name); });
  return out;
}

std::string keyspace_cql(const schema::KeyspaceDef& keyspace) {
  if (is_virtual_keyspace(keyspace.name)) {  // KeyspaceMetadata.toCqlString of a virtual one
    return fmt::format(
        "/*\nWarning: Keyspace {0} is a virtual keyspace and cannot be recreated with CQL.\n"
        "Structure, for reference:\nVIRTUAL KEYSPACE {0};\n*/",
        maybe_quote(keyspace.name));
  }
  return fmt::format("CREATE KEYSPACE {} WITH replication = {}  AND durable_writes = {};",
                     maybe_quote(keyspace.name), format_option_map(keyspace.replication),
                     keyspace.durable_writes ? "true" : "false");
}

std::string type_cql(const schema::UserTypeDef& type) {
  std::string out =
      fmt::format("CREATE TYPE {}.{} (\n", maybe_quote(type.keyspace), maybe_quote(type.name));
  for (size_t i = 0; i < type.field_names.size(); ++i) {
    out += fmt::format("    {} {}{}\n", maybe_quote(type.field_names[i]),
                       type_name(type.field_types[i], type.keyspace),
                       i + 1 < type.field_names.size() ? "," : "");
  }
  out += ");";
  return out;
}

}  // namespace

std::string schema_internal::index_target(const schema::TableDef& table,
                                          const schema::IndexDef& index) {
  std::string column = maybe_quote(index.column);
  const schema::ColumnDef* def = table.find_column(index.column);
  bool collection = def != nullptr && def->type.is_collection();
  switch (index.target) {
    case schema::IndexDef::Target::kValues:
      return collection ? fmt::format("values({})", column) : column;
    case schema::IndexDef::Target::kKeys:
      return fmt::format("keys({})", column);
    case schema::IndexDef::Target::kEntries:
      return fmt::format("entries({})", column);
    case schema::IndexDef::Target::kFull:
      return fmt::format("full({})", column);
  }
  return column;
}

namespace {

std::string index_cql(const schema::TableDef& table, const schema::IndexDef& index) {
  std::string on = fmt::format("{}.{} ({})", maybe_quote(index.keyspace), maybe_quote(index.table),
                               index_target(table, index));
  if (index.custom_class.empty()) {
    return fmt::format("CREATE INDEX {} ON {};", maybe_quote(index.name), on);
  }
  std::string out = fmt::format("CREATE CUSTOM INDEX {} ON {} USING {}", maybe_quote(index.name),
                                on, quote_string(index.custom_class));
  if (!index.options.empty()) out += " WITH OPTIONS = " + format_option_map(index.options);
  return out + ";";
}

std::string column_names(const std::vector<const schema::ColumnDef*>& columns) {
  std::string s;
  for (const schema::ColumnDef* c : columns) {
    if (!s.empty()) s += ", ";
    s += maybe_quote(c->name);
  }
  return s;
}

// "PRIMARY KEY ((a, b), c)" as Cassandra prints it.
std::string primary_key_cql(const schema::TableDef& table) {
  const std::vector<const schema::ColumnDef*>& partition_key = table.partition_key();
  std::string key = partition_key.size() == 1 ? column_names(partition_key)
                                              : fmt::format("({})", column_names(partition_key));
  if (!table.clustering().empty()) key += ", " + column_names(table.clustering());
  return fmt::format("PRIMARY KEY ({})", key);
}

// What follows WITH: the clustering order, then the options (a view has no
// default_time_to_live: its data expires with its base table's).
std::string table_options_cql(const schema::TableDef& table) {
  std::string out;
  if (!table.clustering().empty()) {
    std::string order;
    for (const schema::ColumnDef* c : table.clustering()) {
      if (!order.empty()) order += ", ";
      order += fmt::format("{} {}", maybe_quote(c->name), c->descending ? "DESC" : "ASC");
    }
    out += fmt::format("CLUSTERING ORDER BY ({})\n    AND ", order);
  }
  std::vector<std::string> options = describe_table_options(table.params);
  if (is_virtual_keyspace(table.keyspace)) {
    std::erase_if(options, [](const std::string& o) { return !o.starts_with("comment = "); });
  }
  if (table.is_view()) {
    std::erase_if(options,
                  [](const std::string& o) { return o.starts_with("default_time_to_live"); });
  }
  for (size_t i = 0; i < options.size(); ++i) {
    if (i > 0) out += "\n    AND ";
    out += options[i];
  }
  out += ";";
  return out;
}

std::string table_cql(const schema::TableDef& table) {
  const std::vector<const schema::ColumnDef*>& partition_key = table.partition_key();
  bool inline_key = partition_key.size() == 1 && table.clustering().empty();
  // A virtual table (TableMetadata.toCqlString): a commented-out VIRTUAL TABLE with its comment
  // as its only option.
  const bool is_virtual = is_virtual_keyspace(table.keyspace);
  std::string out = is_virtual
                        ? fmt::format(
                              "/*\nWarning: Table {0}.{1} is a virtual table and cannot be "
                              "recreated with CQL.\nStructure, for reference:\nVIRTUAL TABLE "
                              "{0}.{1} (\n",
                              maybe_quote(table.keyspace), maybe_quote(table.name))
                        : fmt::format("CREATE TABLE {}.{} (\n", maybe_quote(table.keyspace),
                                      maybe_quote(table.name));
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const schema::ColumnDef& column = table.columns[i];
    out +=
        fmt::format("    {} {}", maybe_quote(column.name), type_name(column.type, table.keyspace));
    if (column.is_static()) out += " static";
    if (column.mask) out += column_mask_cql(*column.mask);
    if (inline_key && column.kind == schema::ColumnKind::kPartitionKey) out += " PRIMARY KEY";
    bool last = i + 1 == table.columns.size();
    out += (last && inline_key) ? "\n" : ",\n";
  }
  if (!inline_key) out += fmt::format("    {}\n", primary_key_cql(table));
  return out + ") WITH " + table_options_cql(table) + (is_virtual ? "\n*/" : "");
}

// Cassandra's ViewMetadata.toCqlString.
std::string view_cql(const schema::TableDef& view) {
  std::string selected = "*";
  if (!view.view->include_all_columns) {
    selected.clear();
    for (const schema::ColumnDef& column : view.columns) {
      if (!selected.empty()) selected += ", ";
      selected += maybe_quote(column.name);
    }
  }
  return fmt::format(
      "CREATE MATERIALIZED VIEW {0}.{1} AS\n    SELECT {2}\n    FROM {0}.{3}\n    WHERE {4}\n    "
      "{5}\n WITH {6}",
      maybe_quote(view.keyspace), maybe_quote(view.name), selected,
      maybe_quote(view.view->base_table), view.view->where_clause, primary_key_cql(view),
      table_options_cql(view));
}

// User types in an order that creates each after the types it uses (then by name).
std::vector<std::shared_ptr<const schema::UserTypeDef>> types_in_dependency_order(
    const schema::KeyspaceDef& keyspace) {
  std::vector<std::shared_ptr<const schema::UserTypeDef>> pending = sorted_by_name(keyspace.types);
  std::vector<std::shared_ptr<const schema::UserTypeDef>> out;
  std::set<std::string> done;
  while (!pending.empty()) {
    auto ready = std::find_if(pending.begin(), pending.end(), [&](const auto& type) {
      for (const auto& [name, other] : keyspace.types) {
        if (name == type->name || done.contains(name)) continue;
        for (const types::CqlType& field : type->field_types) {
          if (references_type(field, keyspace.name, name)) return false;
        }
      }
      return true;
    });
    if (ready == pending.end()) ready = pending.begin();  // a cycle cannot happen; be safe
    done.insert((*ready)->name);
    out.push_back(*ready);
    pending.erase(ready);
  }
  return out;
}

class Describer {
 public:
  explicit Describer(bool with_statements) {
    result_.kind = ExecutionResult::Kind::kRows;
    result_.is_describe = true;
    auto text = types::CqlType::simple(types::TypeKind::kText);
    result_.rows.columns = {{"keyspace_name", text}, {"type", text}, {"name", text}};
    if (with_statements) result_.rows.columns.push_back({"create_statement", text});
  }

  void add(const std::string& keyspace, const std::string& type, const std::string& name,
           const std::string& statement = {}) {
    std::vector<types::Value> row = {keyspace, type, name};
    if (result_.rows.columns.size() == 4) row.emplace_back(statement);
    result_.rows.rows.push_back(std::move(row));
  }

  void table(const schema::Schema& schema, const schema::TableDef& table) {
    if (table.is_view()) {
      view(table);
      return;
    }
    add(table.keyspace, "table", maybe_quote(table.name), table_cql(table));
    std::vector<std::shared_ptr<const schema::IndexDef>> indexes = schema.indexes_on(table);
    std::stable_sort(indexes.begin(), indexes.end(),
                     [](const auto& a, const auto& b) { return lower(a->name) < lower(b->name); });
    for (const auto& index : indexes) {
      add(table.keyspace, "index", maybe_quote(index->name), index_cql(table, *index));
    }
    for (const auto& v : schema.views_on(table)) view(*v);
  }

  void view(const schema::TableDef& view) {
    add(view.keyspace, "materialized_view", maybe_quote(view.name), view_cql(view));
  }

  void keyspace(const schema::Schema& schema, const schema::KeyspaceDef& keyspace, bool only) {
    add(keyspace.name, "keyspace", maybe_quote(keyspace.name), keyspace_cql(keyspace));
    if (only) return;
    for (const auto& type : types_in_dependency_order(keyspace)) {
      add(keyspace.name, "type", maybe_quote(type->name), type_cql(*type));
    }
    for (const auto& t : sorted_by_name(keyspace.tables)) {
      if (!t->is_view()) table(schema, *t);  // a view follows its base table
    }
  }

  ExecutionResult take() { return std::move(result_); }

 private:
  ExecutionResult result_;
};

std::vector<const schema::KeyspaceDef*> keyspaces_in_order(const schema::Schema& schema) {
  std::vector<const schema::KeyspaceDef*> out;
  for (const auto& [name, keyspace] : schema.keyspaces) out.push_back(keyspace.get());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto* a, const auto* b) { return lower(a->name) < lower(b->name); });
  return out;
}

Result<std::string> keyspace_for(const QualifiedName& name, const schema::Schema& schema,
                                 const ExecutionContext& context) {
  std::string keyspace = name.keyspace.empty() ? context.keyspace : name.keyspace;
  if (keyspace.empty()) {
    return Status::invalid_argument("No keyspace specified and no current keyspace");
  }
  if (schema.find_keyspace(keyspace) == nullptr) {
    return Status::invalid_argument(fmt::format("'{}' not found in keyspaces", keyspace));
  }
  return keyspace;
}

// The schema a DESCRIBE reads: for one keyspace, its tables or types, or one element, the system
// keyspaces' own definitions (system_tables.h) when it names one of them, or names none and the
// current keyspace is one; the statement's schema otherwise (DESCRIBE KEYSPACES and SCHEMA list
// the store's keyspaces only).
const schema::Schema& schema_described(const DescribeStatement& statement,
                                       const ExecutionContext& context) {
  using Kind = DescribeStatement::Kind;
  if (statement.kind == Kind::kKeyspaces || statement.kind == Kind::kSchema) {
    return *context.schema;
  }
  std::string keyspace = statement.name.keyspace;
  if (keyspace.empty() && statement.kind == Kind::kKeyspace) keyspace = statement.name.name;
  if (keyspace.empty() && statement.kind == Kind::kName &&
      (is_system_keyspace(statement.name.name) ||
       context.schema->find_keyspace(statement.name.name) != nullptr)) {
    keyspace = statement.name.name;
  }
  if (keyspace.empty()) keyspace = context.keyspace;
  return is_system_keyspace(keyspace) ? system_keyspaces() : *context.schema;
}

}  // namespace

Result<ExecutionResult> execute_describe(const DescribeStatement& statement,
                                         ExecutionContext& context) {
  const schema::Schema& schema = schema_described(statement, context);
  using Kind = DescribeStatement::Kind;
  switch (statement.kind) {
    case Kind::kKeyspaces: {
      Describer d(false);
      for (const auto* ks : keyspaces_in_order(schema)) {
        d.add(ks->name, "keyspace", maybe_quote(ks->name));
      }
      return d.take();
    }
    case Kind::kSchema: {
      Describer d(true);
      for (const auto* ks : keyspaces_in_order(schema)) d.keyspace(schema, *ks, false);
      return d.take();
    }
    case Kind::kKeyspace: {
      std::string name = statement.name.name.empty() ? context.keyspace : statement.name.name;
      if (name.empty()) {
        return Status::invalid_argument("No keyspace specified and no current keyspace");
      }
      const schema::KeyspaceDef* ks = schema.find_keyspace(name);
      if (ks == nullptr) {
        return Status::invalid_argument(fmt::format("'{}' not found in keyspaces", name));
      }
      Describer d(true);
      d.keyspace(schema, *ks, statement.only);
      return d.take();
    }
    case Kind::kTables:
    case Kind::kTypes: {
      bool tables = statement.kind == Kind::kTables;
      Describer d(false);
      for (const auto* ks : keyspaces_in_order(schema)) {
        if (!context.keyspace.empty() && ks->name != context.keyspace) continue;
        if (tables) {
          for (const auto& t : sorted_by_name(ks->tables)) {
            if (t->is_view()) continue;
            d.add(ks->name, "table", maybe_quote(t->name));
          }
        } else {
          for (const auto& t : sorted_by_name(ks->types)) {
            d.add(ks->name, "type", maybe_quote(t->name));
          }
        }
      }
      return d.take();
    }
    case Kind::kTable: {
      CASSETTE_ASSIGN_OR_RETURN(std::string keyspace,
                                keyspace_for(statement.name, schema, context));
      auto table = schema.find_table(keyspace, statement.name.name);
      if (table == nullptr || table->is_view()) {
        return Status::invalid_argument(
            fmt::format("Table '{}' not found in keyspace '{}'", statement.name.name, keyspace));
      }
      Describer d(true);
      d.table(schema, *table);
      return d.take();
    }
    case Kind::kView: {
      CASSETTE_ASSIGN_OR_RETURN(std::string keyspace,
                                keyspace_for(statement.name, schema, context));
      auto view = schema.find_table(keyspace, statement.name.name);
      if (view == nullptr || !view->is_view()) {
        return Status::invalid_argument(fmt::format(
            "Materialized view '{}' not found in keyspace '{}'", statement.name.name, keyspace));
      }
      Describer d(true);
      d.view(*view);
      return d.take();
    }
    case Kind::kType: {
      CASSETTE_ASSIGN_OR_RETURN(std::string keyspace,
                                keyspace_for(statement.name, schema, context));
      auto type = schema.find_type(keyspace, statement.name.name);
      if (type == nullptr) {
        return Status::invalid_argument(
            fmt::format("User defined type '{}' not found in '{}'", statement.name.name, keyspace));
      }
      Describer d(true);
      d.add(keyspace, "type", maybe_quote(type->name), type_cql(*type));
      return d.take();
    }
    case Kind::kIndex: {
      CASSETTE_ASSIGN_OR_RETURN(std::string keyspace,
                                keyspace_for(statement.name, schema, context));
      const schema::KeyspaceDef* ks = schema.find_keyspace(keyspace);
      auto it = ks->indexes.find(statement.name.name);
      auto table =
          it == ks->indexes.end() ? nullptr : schema.find_table(keyspace, it->second->table);
      if (table == nullptr) {
        return Status::invalid_argument(
            fmt::format("Index '{}' not found in '{}'", statement.name.name, keyspace));
      }
      Describer d(true);
      d.add(keyspace, "index", maybe_quote(it->second->name), index_cql(*table, *it->second));
      return d.take();
    }
    case Kind::kName: {
      // DESCRIBE x: a keyspace when unqualified and one has that name, else an element of the
      // (given or current) keyspace.
      if (statement.name.keyspace.empty()) {
        if (const schema::KeyspaceDef* ks = schema.find_keyspace(statement.name.name)) {
          Describer d(true);
          d.keyspace(schema, *ks, false);
          return d.take();
        }
        if (context.keyspace.empty()) {
          return Status::invalid_argument(
              fmt::format("'{}' not found in keyspaces", statement.name.name));
        }
      }
      CASSETTE_ASSIGN_OR_RETURN(std::string keyspace,
                                keyspace_for(statement.name, schema, context));
      const schema::KeyspaceDef* ks = schema.find_keyspace(keyspace);
      const std::string& name = statement.name.name;
      Describer d(true);
      if (auto table = schema.find_table(keyspace, name)) {
        d.table(schema, *table);
        return d.take();
      }
      if (auto it = ks->indexes.find(name); it != ks->indexes.end()) {
        if (auto table = schema.find_table(keyspace, it->second->table)) {
          d.add(keyspace, "index", maybe_quote(name), index_cql(*table, *it->second));
          return d.take();
        }
      }
      if (auto type = schema.find_type(keyspace, name)) {
        d.add(keyspace, "type", maybe_quote(name), type_cql(*type));
        return d.take();
      }
      return Status::invalid_argument(
          fmt::format("'{}' not found in keyspace '{}'", name, keyspace));
    }
  }
  return Status::internal("execute_describe: unknown kind");
}

}  // namespace cassette::cql
