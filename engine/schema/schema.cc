// Lookups over the immutable schema values of schema.h.
#include "engine/schema/schema.h"

#include <algorithm>
#include <cassert>

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
  std::stable_sort(out.begin(), out.end(), [](const ColumnDef* a, const ColumnDef* b) {
    return a->position < b->position;
  });
  return out;
}

void layout_key(const std::vector<ColumnDef>& columns, KeyLayout& layout) {
  layout.partition_key = key_columns(columns, ColumnKind::kPartitionKey);
  layout.clustering = key_columns(columns, ColumnKind::kClustering);
  layout.clustering_descending = std::make_unique<bool[]>(layout.clustering.size() + 1);
  for (size_t i = 0; i < layout.clustering.size(); ++i) {
    layout.clustering_types.push_back(layout.clustering[i]->type);
    layout.clustering_descending[i] = layout.clustering[i]->descending;
  }
}

void layout_cells(const std::vector<ColumnDef>& columns, KeyLayout& layout) {
  for (size_t i = 0; i < columns.size(); ++i) {
    const ColumnDef& c = columns[i];
    layout.columns.push_back({c.kind, static_cast<uint32_t>(std::max(c.position, 0)), c.id});
    if (c.is_primary_key()) continue;
    if (c.is_static()) layout.has_static = true;
    if (c.type.is_counter()) layout.counter_table = true;
    layout.non_key_columns.push_back(i);
  }
  layout.single_cell_rows = !layout.counter_table && !layout.has_static;
  for (size_t i : layout.non_key_columns) {
    if (columns[i].type.is_multi_cell()) layout.single_cell_rows = false;
  }
  layout.non_key_by_id.resize(layout.non_key_columns.size());
  for (size_t j = 0; j < layout.non_key_by_id.size(); ++j) layout.non_key_by_id[j] = j;
  std::sort(layout.non_key_by_id.begin(), layout.non_key_by_id.end(), [&](size_t a, size_t b) {
    return columns[layout.non_key_columns[a]].id < columns[layout.non_key_columns[b]].id;
  });
}

}  // namespace

// Copies every data member of TableDef (a new member goes here too), then lays out its own columns.
TableDef::TableDef(const TableDef& other)
    : keyspace(other.keyspace),
      name(other.name),
      id(other.id),
      table_id(other.table_id),
      columns(other.columns),
      dropped(other.dropped),
      params(other.params),
      next_column_id(other.next_column_id),
      view(other.view) {
  finalize();
}

TableDef& TableDef::operator=(const TableDef& other) {
  if (this != &other) *this = TableDef(other);
  return *this;
}

void TableDef::finalize() {
  layout_ = KeyLayout();
  layout_key(columns, layout_);
  layout_cells(columns, layout_);
  layout_.columns_data = columns.data();
  layout_.columns_size = columns.size();
}

const KeyLayout& TableDef::layout() const {
  // A layout computed from other storage than `columns` holds: a missing finalize().
  assert(layout_.columns_data == columns.data() && layout_.columns_size == columns.size());
  return layout_;
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

std::vector<std::shared_ptr<const TableDef>> Schema::views_on(const TableDef& table) const {
  std::vector<std::shared_ptr<const TableDef>> out;
  const KeyspaceDef* ks = find_keyspace(table.keyspace);
  if (ks == nullptr || table.is_view()) return out;
  for (const auto& [name, candidate] : ks->tables) {
    if (candidate->is_view() && candidate->view->base_table == table.name) out.push_back(candidate);
  }
  return out;
}

std::shared_ptr<const TableDef> Schema::find_table_by_id(storage::TableId id) const {
  for (const auto& [ks_name, ks] : keyspaces) {
    for (const auto& [name, table] : ks->tables) {
      if (table->table_id == id) return table;
    }
  }
  return nullptr;
}

bool Schema::has_views() const {
  for (const auto& [ks_name, ks] : keyspaces) {
    for (const auto& [name, table] : ks->tables) {
      if (table->is_view()) return true;
    }
  }
  return false;
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
