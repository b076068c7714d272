// Lookups over the immutable schema values of schema.h.
#include "engine/schema/schema.h"

#include <algorithm>

namespace cassette::schema {

const ColumnDef* TableDef::find_column(std::string_view column_name) const {
  for (const ColumnDef& column : columns) {
    if (column.name == column_name) return &column;
  }
  return nullptr;
}

namespace {

std::vector<const ColumnDef*> key_columns(const std::vector<ColumnDef>& columns, ColumnKind kind) {
  std::vector<const ColumnDef*> out;
  for (const ColumnDef& column : columns) {
    if (column.kind == kind) out.push_back(&column);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ColumnDef* a, const ColumnDef* b) { return a->position < b->position; });
  return out;
}

}  // namespace

std::vector<const ColumnDef*> TableDef::partition_key() const {
  return key_columns(columns, ColumnKind::kPartitionKey);
}

std::vector<const ColumnDef*> TableDef::clustering() const {
  return key_columns(columns, ColumnKind::kClustering);
}

bool TableDef::has_static_columns() const {
  for (const ColumnDef& column : columns) {
    if (column.is_static()) return true;
  }
  return false;
}

bool TableDef::is_counter_table() const {
  for (const ColumnDef& column : columns) {
    if (!column.is_primary_key() && column.type.is_counter()) return true;
  }
  return false;
}

const KeyspaceDef* Schema::find_keyspace(std::string_view name) const {
  auto it = keyspaces.find(std::string(name));
  return it == keyspaces.end() ? nullptr : it->second.get();
}

std::shared_ptr<const TableDef> Schema::find_table(std::string_view keyspace,
                                                   std::string_view name) const {
  const KeyspaceDef* ks = find_keyspace(keyspace);
  if (ks == nullptr) return nullptr;
  auto it = ks->tables.find(std::string(name));
  return it == ks->tables.end() ? nullptr : it->second;
}

std::shared_ptr<const UserTypeDef> Schema::find_type(std::string_view keyspace,
                                                     std::string_view name) const {
  const KeyspaceDef* ks = find_keyspace(keyspace);
  if (ks == nullptr) return nullptr;
  auto it = ks->types.find(std::string(name));
  return it == ks->types.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const IndexDef>> Schema::indexes_on(const TableDef& table) const {
  std::vector<std::shared_ptr<const IndexDef>> out;
  const KeyspaceDef* ks = find_keyspace(table.keyspace);
  if (ks == nullptr) return out;
  for (const auto& [name, index] : ks->indexes) {
    if (index->table == table.name) out.push_back(index);
  }
  return out;
}

Schema with_table(const Schema& schema, std::shared_ptr<const TableDef> table) {
  Schema next = schema;
  auto keyspace = std::make_shared<KeyspaceDef>(*schema.keyspaces.at(table->keyspace));
  keyspace->tables[table->name] = std::move(table);
  next.keyspaces[keyspace->name] = std::move(keyspace);
  return next;
}

Schema without_table(const Schema& schema, std::string_view keyspace_name, std::string_view name) {
  const KeyspaceDef* existing = schema.find_keyspace(keyspace_name);
  if (existing == nullptr || !existing->tables.contains(std::string(name))) return schema;
  Schema next = schema;
  auto keyspace = std::make_shared<KeyspaceDef>(*existing);
  keyspace->tables.erase(std::string(name));
  std::erase_if(keyspace->indexes, [&](const auto& entry) { return entry.second->table == name; });
  next.keyspaces[keyspace->name] = std::move(keyspace);
  return next;
}

}  // namespace cassette::schema
