// CREATE INDEX and DROP INDEX, as Cassandra 4.1 checks them (CreateIndexStatement,
// DropIndexStatement). Indexes are schema only here: the planner decides how to use them.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

#include "engine/cql/ann_index.h"
#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/sai_index_options.h"
#include "engine/schema/index_components.h"

namespace cassette::cql {

namespace {

using namespace schema_internal;
using schema::IndexDef;

// Cassandra's IndexTarget.Type names: "" for a simple index, values, keys, entries, full.
std::string target_name(IndexDef::Target target, bool simple) {
  if (simple) return "";
  switch (target) {
    case IndexDef::Target::kValues:
      return "values";
    case IndexDef::Target::kKeys:
      return "keys";
    case IndexDef::Target::kEntries:
      return "entries";
    case IndexDef::Target::kFull:
      return "full";
  }
  return "";
}

IndexDef::Target to_target(CreateIndexStatement::Target target) {
  switch (target) {
    case CreateIndexStatement::Target::kValues:
      return IndexDef::Target::kValues;
    case CreateIndexStatement::Target::kKeys:
      return IndexDef::Target::kKeys;
    case CreateIndexStatement::Target::kEntries:
      return IndexDef::Target::kEntries;
    case CreateIndexStatement::Target::kFull:
      return IndexDef::Target::kFull;
  }
  return IndexDef::Target::kValues;
}

Status validate_target(const schema::TableDef& table, const schema::ColumnDef& column,
                       IndexDef::Target target, bool simple) {
  const types::CqlType& type = column.type;
  if (references_duration(type)) {
    if (type.is_collection()) {
      return Status::invalid_argument(
          "Secondary indexes are not supported on collections containing durations");
    }
    if (type.kind == types::TypeKind::kTuple) {
      return Status::invalid_argument(
          "Secondary indexes are not supported on tuples containing durations");
    }
    if (type.kind == types::TypeKind::kUdt) {
      return Status::invalid_argument(
          "Secondary indexes are not supported on UDTs containing durations");
    }
    return Status::invalid_argument("Secondary indexes are not supported on duration columns");
  }
  if (column.kind == schema::ColumnKind::kPartitionKey && table.partition_key().size() == 1) {
    return Status::invalid_argument(fmt::format(
        "Cannot create secondary index on the only partition key column {}", column.name));
  }
  std::string kind = target_name(target, simple);
  bool frozen_collection = type.is_collection() && type.frozen;
  if (frozen_collection && target != IndexDef::Target::kFull) {
    return Status::invalid_argument(fmt::format(
        "Cannot create {}() index on frozen column {}. Frozen collections are immutable and "
        "must be fully indexed by using the 'full({})' modifier",
        kind, column.name, column.name));
  }
  if (!frozen_collection && target == IndexDef::Target::kFull) {
    return Status::invalid_argument("full() indexes can only be created on frozen collections");
  }
  if (!type.is_collection() && !simple) {
    return Status::invalid_argument(fmt::format(
        "Cannot create {}() index on {}. Non-collection columns only support simple indexes", kind,
        column.name));
  }
  if (!(type.kind == types::TypeKind::kMap && type.is_multi_cell()) &&
      (target == IndexDef::Target::kKeys || target == IndexDef::Target::kEntries)) {
    return Status::invalid_argument(
        fmt::format("Cannot create index on {} of column {} with non-map type", kind, column.name));
  }
  if (type.kind == types::TypeKind::kUdt && type.is_multi_cell()) {
    return Status::invalid_argument(
        fmt::format("Cannot create index on non-frozen UDT column {}", column.name));
  }
  return Status::ok();
}

// Cassandra's IndexMetadata.generateDefaultIndexName: <table>_<column>_idx without non-word
// characters, then _1, _2, ... until the keyspace has no index of that name.
std::string default_index_name(const schema::KeyspaceDef& keyspace, const std::string& table,
                               const std::string& column) {
  std::string base;
  for (char c : table + "_" + column + "_idx") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') base += c;
  }
  if (!keyspace.indexes.contains(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = fmt::format("{}_{}", base, i);
    if (!keyspace.indexes.contains(name)) return name;
  }
}

}  // namespace

Result<ExecutionResult> execute_create_index(const CreateIndexStatement& statement,
                                             ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.table));
  if (statement.custom && statement.custom_class.empty()) {
    return Status::invalid_argument("CUSTOM index requires specifying the index class");
  }
  // Cassandra 5.0: USING names the implementation with or without CUSTOM ('sai', or
  // 'legacy_local_table' for the legacy index, which is no custom index).
  std::string custom_class = statement.custom_class;
  std::string lowered;
  for (char c : custom_class)
    lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lowered == "legacy_local_table") custom_class.clear();
  const bool custom = !custom_class.empty();
  if (!custom && !statement.options.empty()) {
    return Status::invalid_argument("Cannot specify options for a non-CUSTOM index");
  }
  // Cassandra 5.0's default cassandra.yaml has sasi_indexes_enabled: false; Cassette has no SASI.
  if (custom_class == "org.apache.cassandra.index.sasi.SASIIndex") {
    return Status::invalid_argument("SASI indexes are disabled. Enable in cassandra.yaml to use.");
  }
  // A vector index created on a table with data: its SSTables' graphs, built after the change.
  std::shared_ptr<const schema::TableDef> vector_table;
  std::optional<AnnIndexDef> vector_index;
  std::vector<std::string> warnings;
  Result<ExecutionResult> changed =
      run_change(context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        vector_index.reset();
        warnings.clear();
        const schema::KeyspaceDef* ks = now.find_keyspace(keyspace);
        if (ks == nullptr) {
          return Status::invalid_argument(fmt::format("Keyspace '{}' doesn't exist", keyspace));
        }
        std::shared_ptr<const schema::TableDef> table =
            now.find_table(keyspace, statement.table.name);
        if (table == nullptr) {
          return Status::invalid_argument(
              fmt::format("Table '{}' doesn't exist", statement.table.name));
        }
        if (table->is_view()) {
          return Status::invalid_argument(
              "Secondary indexes are not supported on materialized views");
        }
        if (!statement.name.empty() && ks->indexes.contains(statement.name)) {
          if (statement.if_not_exists) return std::optional<schema::Schema>();
          return Status::invalid_argument(fmt::format("Index '{}' already exists", statement.name));
        }
        if (table->is_counter_table()) {
          return Status::invalid_argument("Secondary indexes on counter tables aren't supported");
        }
        if (statement.column.empty() && !custom) {
          return Status::invalid_argument(
              "Only CUSTOM indexes can be created without specifying a target column");
        }
        schema::IndexDef probe;
        probe.custom_class = custom_class;
        if (statement.column.empty() && !schema::is_sai_index(probe)) {
          // no target or several (Cassette's AST keeps one): the class is what Cassandra refuses
          return Status::configuration(
              fmt::format("Unable to find custom indexer class '{}'", custom_class));
        }
        const schema::ColumnDef* column = table->find_column(statement.column);
        if (column == nullptr) {
          return Status::invalid_argument(
              fmt::format("Column '{}' doesn't exist", statement.column));
        }
        // CreateIndexStatement.validateIndexTarget: a custom index's target must be a valid
        // name (SchemaConstants.isValidName: word characters, at most 48).
        if (custom && (column->name.empty() || column->name.size() > 48 ||
                       !std::all_of(column->name.begin(), column->name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                       }))) {
          return Status::invalid_argument(
              fmt::format("Column '{}' is longer than the permissible name length of 48 characters "
                          "or contains non-alphanumeric-underscore characters",
                          column->name));
        }
        // A bare column names its values when it is a collection, frozen or not (IndexTarget.Raw:
        // a frozen one is then refused as values()), else the column itself.
        bool simple = !statement.target_written &&
                      statement.target == CreateIndexStatement::Target::kValues &&
                      !column->type.is_collection();
        IndexDef index;
        index.keyspace = keyspace;
        index.table = table->name;
        index.column = column->name;
        index.target = to_target(statement.target);
        CASSETTE_RETURN_IF_ERROR(validate_target(*table, *column, index.target, simple));
        index.name = statement.name.empty() ? default_index_name(*ks, table->name, column->name)
                                            : statement.name;
        if (custom) {
          index.custom_class = custom_class;
          // WITH OPTIONS = {'mode': 'CONTAINS'}: the map's entries are the index's options.
          for (const auto& [name, value] : statement.options) {
            if (name == "options" && value.is_map) {
              for (const auto& [key, text] : value.map) index.options[key] = text;
            } else {
              index.options[name] = value.text;
            }
          }
        }
        for (const auto& [name, other] : ks->indexes) {
          if (other->table == index.table && other->column == index.column &&
              other->target == index.target && other->custom_class == index.custom_class &&
              other->options == index.options) {
            if (statement.if_not_exists) return std::optional<schema::Schema>();
            return Status::invalid_argument(fmt::format(
                "Index {} is a duplicate of existing index {}", index.name, other->name));
          }
        }
        // IndexMetadata.validate loads the class: Cassette implements SAI only (SASI refused
        // above), so any other class is one Cassandra 5.0 would not find either.
        if (custom && !schema::is_sai_index(index)) {
          return Status::configuration(
              fmt::format("Unable to find custom indexer class '{}'", custom_class));
        }
        if (schema::is_sai_index(index)) {
          CASSETTE_RETURN_IF_ERROR(validate_sai_index(*ks, *column, index, &warnings));
          if (column->type.kind == types::TypeKind::kVector) {
            CASSETTE_ASSIGN_OR_RETURN(AnnIndexDef def, ann_index_of(*table, index));
            vector_index = std::move(def);
            vector_table = table;
          }
        }
        schema::Schema next = now;
        auto copy = copy_keyspace(now, keyspace);
        std::string name = index.name;
        copy->indexes[name] = std::make_shared<const IndexDef>(std::move(index));
        next.keyspaces[keyspace] = std::move(copy);
        return std::optional<schema::Schema>(std::move(next));
      });
  if (changed.is_ok() && vector_index && context.store != nullptr && context.planned == nullptr) {
    // The index exists now; its graphs are built in the background (queries meanwhile score the
    // SSTables exactly).
    Result<std::shared_ptr<const storage::Snapshot>> snapshot = context.store->snapshot();
    const schema::ColumnDef* column = vector_table->find_column(statement.column);
    Status s = snapshot.is_ok() ? ann_build_components(*context.store, *snapshot, vector_table,
                                                       *column, *vector_index, context.catalog)
                                : snapshot.status();
    if (!s.is_ok()) {
      std::fprintf(stderr, "cassette: building the ANN graphs of index %s: %s\n",
                   vector_index->component.c_str(), s.message().c_str());
    }
  }
  if (changed.is_ok()) {
    for (auto& warning : warnings) changed->warnings.push_back(std::move(warning));
  }
  return changed;
}

Result<ExecutionResult> execute_drop_index(const DropIndexStatement& statement,
                                           ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::string keyspace, context.resolve_keyspace(statement.index));
  return run_change(
      context, [&](const schema::Schema& now) -> Result<std::optional<schema::Schema>> {
        const schema::KeyspaceDef* ks = now.find_keyspace(keyspace);
        if (ks == nullptr || !ks->indexes.contains(statement.index.name)) {
          if (statement.if_exists) return std::optional<schema::Schema>();
          return Status::invalid_argument(
              fmt::format("Index '{}.{}' doesn't exist'", keyspace, statement.index.name));
        }
        schema::Schema next = now;
        auto copy = copy_keyspace(now, keyspace);
        copy->indexes.erase(statement.index.name);
        next.keyspaces[keyspace] = std::move(copy);
        return std::optional<schema::Schema>(std::move(next));
      });
}

}  // namespace cassette::cql
