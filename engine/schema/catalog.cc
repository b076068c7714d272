// The persisted catalog (catalog.h): the schema as rows of the store's table 0.
//
// Rows are encoded by catalog_codec.h (layout in engine/schema/FORMAT.md). A change writes, in one
// transaction, the rows of the objects that differ between the old and the new schema (a row
// deletion for an object that went away) and the version row, so a change is all-or-nothing and
// a reader that sees the new version sees every row of it. current() reads only the version row
// unless the version moved.
#include "engine/schema/catalog.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "engine/schema/catalog_codec.h"
#include "engine/schema/index_components.h"
#include "engine/schema/orphan_components.h"
#include "engine/storage/durability.h"
#include "engine/storage/row_codec.h"
#include "engine/types/partition_key.h"
#include "engine/types/value.h"
#include "engine/util/message.h"

namespace cassette::schema {

namespace {

using codec::ObjectKind;

// Every object of `schema` as (row key -> record).
std::map<std::string, std::string> encode_objects(const Schema& schema) {
  std::map<std::string, std::string> rows;
  for (const auto& [ks_name, keyspace] : schema.keyspaces) {
    rows[codec::object_key(ObjectKind::kKeyspace, ks_name)] = codec::encode_keyspace(*keyspace);
    for (const auto& [name, table] : keyspace->tables) {
      rows[codec::object_key(ObjectKind::kTable, ks_name, name)] = codec::encode_table(*table);
    }
    for (const auto& [name, type] : keyspace->types) {
      rows[codec::object_key(ObjectKind::kType, ks_name, name)] = codec::encode_type(*type);
    }
    for (const auto& [name, index] : keyspace->indexes) {
      rows[codec::object_key(ObjectKind::kIndex, ks_name, name)] = codec::encode_index(*index);
    }
  }
  return rows;
}

// The record of a catalog row, or nullptr when it has none.
const std::string* record_of(const storage::Row& row) {
  const storage::ColumnData* column = row.find_column(codec::kRecordColumn);
  return column == nullptr ? nullptr : &column->cell.value;
}

Result<codec::VersionRecord> read_version(const storage::Store& store,
                                          const storage::Snapshot& snapshot) {
  auto cursor =
      store.read(snapshot, kCatalogTable, storage::Store::partition_spec(codec::kVersionPartition));
  codec::VersionRecord record;
  while (cursor->next()) {
    if (cursor->is_static_only()) continue;
    if (const std::string* value = record_of(cursor->row())) {
      CASSETTE_ASSIGN_OR_RETURN(record, codec::decode_version(*value));
    }
  }
  CASSETTE_RETURN_IF_ERROR(cursor->status());
  return record;
}

Result<std::shared_ptr<const Schema>> load_schema(const storage::Store& store,
                                                  const storage::Snapshot& snapshot) {
  CASSETTE_ASSIGN_OR_RETURN(codec::VersionRecord version, read_version(store, snapshot));
  std::map<std::string, KeyspaceDef> keyspaces;
  std::vector<TableDef> tables;
  std::vector<UserTypeDef> types;
  std::vector<IndexDef> indexes;
  auto cursor =
      store.read(snapshot, kCatalogTable, storage::Store::partition_spec(codec::kObjectsPartition));
  while (cursor->next()) {
    if (cursor->is_static_only()) continue;
    const std::string* value = record_of(cursor->row());
    if (value == nullptr) continue;
    switch (codec::object_kind_of_key(cursor->clustering())) {
      case ObjectKind::kKeyspace: {
        CASSETTE_ASSIGN_OR_RETURN(KeyspaceDef ks, codec::decode_keyspace(*value));
        std::string name = ks.name;
        keyspaces[name] = std::move(ks);
        break;
      }
      case ObjectKind::kTable: {
        CASSETTE_ASSIGN_OR_RETURN(TableDef table, codec::decode_table(*value));
        tables.push_back(std::move(table));
        break;
      }
      case ObjectKind::kType: {
        CASSETTE_ASSIGN_OR_RETURN(UserTypeDef type, codec::decode_type(*value));
        types.push_back(std::move(type));
        break;
      }
      case ObjectKind::kIndex: {
        CASSETTE_ASSIGN_OR_RETURN(IndexDef index, codec::decode_index(*value));
        indexes.push_back(std::move(index));
        break;
      }
      default:
        return Status::corruption("catalog: a row of an unknown kind");
    }
  }
  CASSETTE_RETURN_IF_ERROR(cursor->status());

  auto schema = std::make_shared<Schema>();
  schema->version = version.version;
  schema->next_table_id = version.next_table_id;
  for (TableDef& table : tables) {
    auto it = keyspaces.find(table.keyspace);
    if (it == keyspaces.end()) return Status::corruption("catalog: a table without its keyspace");
    std::string name = table.name;
    it->second.tables[name] = std::make_shared<const TableDef>(std::move(table));
  }
  for (UserTypeDef& type : types) {
    auto it = keyspaces.find(type.keyspace);
    if (it == keyspaces.end()) return Status::corruption("catalog: a type without its keyspace");
    std::string name = type.name;
    it->second.types[name] = std::make_shared<const UserTypeDef>(std::move(type));
  }
  for (IndexDef& index : indexes) {
    auto it = keyspaces.find(index.keyspace);
    if (it == keyspaces.end()) return Status::corruption("catalog: an index without its keyspace");
    std::string name = index.name;
    it->second.indexes[name] = std::make_shared<const IndexDef>(std::move(index));
  }
  for (auto& [name, ks] : keyspaces) {
    schema->keyspaces[name] = std::make_shared<const KeyspaceDef>(std::move(ks));
  }
  return std::shared_ptr<const Schema>(std::move(schema));
}

}  // namespace

storage::TableOptions table_options_for(const TableDef& table) {
  storage::TableOptions options;
  options.gc_grace_seconds = table.params.gc_grace_seconds;
  const auto& compression = table.params.compression;
  // The values were validated when the table was created; anything odd keeps the default.
  auto number = [&](const char* name) -> std::optional<int64_t> {
    auto it = compression.find(name);
    if (it == compression.end()) return std::nullopt;
    try {
      return std::stoll(it->second);
    } catch (...) {
      return std::nullopt;
    }
  };
  if (auto level = number("compression_level"))
    options.compression_level = static_cast<int>(*level);
  // chunk_length_in_kb is the uncompressed size of a data block, as Cassandra's chunks are.
  if (auto kb = number("chunk_length_in_kb"); kb && *kb > 0) {
    options.block_size = static_cast<size_t>(std::min<int64_t>(*kb, kMaxChunkLengthKb)) << 10;
  }
  // Every compressor class compresses with zstd (the one compressor built in), except the
  // one that means "none".
  auto cls = compression.find("class");
  if ((cls != compression.end() &&
       cls->second == "org.apache.cassandra.io.compress.NoopCompressor") ||
      (compression.count("enabled") && compression.at("enabled") == "false")) {
    options.compression_level = 0;
  }
  // caching = {'keys': 'ALL', 'rows_per_partition': 'N' | 'ALL' | 'NONE'} (as
  // table_properties.cc writes it): the row cache's head (storage/row_cache.h).
  if (auto caching = table.params.other.find("caching"); caching != table.params.other.end()) {
    const std::string& map = caching->second;
    constexpr std::string_view kKey = "'rows_per_partition': '";
    if (size_t at = map.find(kKey); at != std::string::npos) {
      std::string_view value(map);
      value = value.substr(at + kKey.size());
      value = value.substr(0, value.find('\''));
      if (value == "ALL") {
        options.row_cache_rows = storage::TableOptions::kAllRows;
      } else if (!value.empty() && value != "NONE") {
        try {
          options.row_cache_rows =
              static_cast<uint64_t>(std::max<int64_t>(0, std::stoll(std::string(value))));
        } catch (...) {
        }
      }
    }
  }
  return options;
}

namespace {

void apply_table_options(storage::Store& store, const Schema& schema) {
  for (const auto& [ks_name, keyspace] : schema.keyspaces) {
    for (const auto& [name, table] : keyspace->tables) {
      store.set_table_options(table->table_id, table_options_for(*table));
    }
  }
}

std::set<storage::TableId> table_ids(const Schema& schema) {
  std::set<storage::TableId> ids;
  for (const auto& [ks_name, keyspace] : schema.keyspaces) {
    for (const auto& [name, table] : keyspace->tables) ids.insert(table->table_id);
  }
  return ids;
}

Status add_row(storage::EncodedBatch& batch, std::string_view partition, std::string_view key,
               const storage::Row& row) {
  std::string value;
  storage::encode_row(row, &value);
  return batch.add_row(kCatalogTable, partition, storage::EntryKind::kRow, key, value).status();
}

Status put_row(storage::EncodedBatch& batch, std::string_view partition, std::string_view key,
               std::string record) {
  storage::Row row;
  row.liveness.timestamp = storage::kAutoTimestamp;
  storage::ColumnData column;
  column.id = codec::kRecordColumn;
  column.cell = storage::Cell::live(storage::kAutoTimestamp, std::move(record));
  row.columns.push_back(std::move(column));
  return add_row(batch, partition, key, row);
}

Status delete_row(storage::EncodedBatch& batch, std::string_view key, int64_t now_seconds) {
  storage::Row row;
  row.deletion = storage::DeletionTime{storage::kAutoTimestamp, now_seconds};
  return add_row(batch, codec::kObjectsPartition, key, row);
}

// A partition as the store's messages name it (Store::set_partition_namer): its keyspace and
// "table.key", the key as Cassandra's partitionKeyType.getString writes it (a compound key's
// components joined by ':').
Result<storage::Store::PartitionName> name_partition(const storage::Store& store,
                                                     const storage::Snapshot& snapshot,
                                                     storage::TableId id, std::string_view key) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const Schema> schema, load_schema(store, snapshot));
  for (const auto& [keyspace_name, keyspace] : schema->keyspaces) {
    for (const auto& [table_name, table] : keyspace->tables) {
      if (table->table_id != id) continue;
      const std::vector<const ColumnDef*> columns = table->partition_key();
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> components,
                                types::split_partition_key(key, columns.size()));
      std::string text;
      for (size_t i = 0; i < components.size(); ++i) {
        if (i > 0) text += ':';
        text += types::format_value(columns[i]->type, components[i], types::ValueStyle::kString);
      }
      return storage::Store::PartitionName{keyspace_name,
                                           fmt::format("{}.{}", table_name, message_value(text))};
    }
  }
  return Status::not_found(fmt::format("no table has id {}", id));
}

}  // namespace

Catalog::Catalog(std::shared_ptr<storage::Store> store) : store_(std::move(store)) {}

Result<std::shared_ptr<Catalog>> Catalog::open(std::shared_ptr<storage::Store> store) {
  std::shared_ptr<Catalog> catalog(new Catalog(std::move(store)));
  // The namer lives in the store it names partitions of, so it keeps a plain pointer to it.
  const storage::Store* named = catalog->store_.get();
  catalog->store_->set_partition_namer(
      [named](const storage::Snapshot& snapshot, storage::TableId id, std::string_view key) {
        return name_partition(*named, snapshot, id, key);
      });
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const Schema> schema, catalog->current());
  (void)schema;
  return catalog;
}

Result<std::shared_ptr<const Schema>> Catalog::current() {
  std::lock_guard guard(mutex_);
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot, store_->snapshot());
  CASSETTE_ASSIGN_OR_RETURN(codec::VersionRecord version, read_version(*store_, *snapshot));
  if (schema_ != nullptr && schema_->version == version.version) return schema_;
  std::shared_ptr<const Schema> previous = schema_;
  CASSETTE_ASSIGN_OR_RETURN(schema_, load_schema(*store_, *snapshot));
  apply_table_options(*store_, *schema_);
  apply_index_components(*store_, *schema_, previous.get());
  if (previous == nullptr && !store_->read_only()) {
    // The first look at the schema: components of indexes dropped while another process wrote
    // or built them go now, unless the schema changes meanwhile (a new index's may be there).
    const uint64_t loaded = schema_->version;
    (void)remove_orphan_components(*store_, *schema_, [&] {
      auto again = store_->snapshot();
      if (!again.is_ok()) return false;
      auto version = read_version(*store_, **again);
      return version.is_ok() && version->version == loaded;
    });
  }
  return schema_;
}

Result<std::shared_ptr<const Schema>> Catalog::change(const SchemaChange& change) {
  return this->change(change, nullptr);
}

Result<std::shared_ptr<const Schema>> Catalog::change(const SchemaChange& change,
                                                      const ExtraWrites& writes) {
  // A schema change is durable when it returns, even on a thread that defers its commits: the
  // server announces it to other connections at once.
  storage::DeferredDurability::Suspend durable_change;
  std::lock_guard guard(mutex_);
  std::shared_ptr<const Schema> result;
  std::vector<storage::TableId> dropped_tables;
  auto applied = store_->apply_prepared([&](const storage::Snapshot& snapshot,
                                            storage::EncodedBatch& batch) -> Result<bool> {
    CASSETTE_ASSIGN_OR_RETURN(codec::VersionRecord version, read_version(*store_, snapshot));
    std::shared_ptr<const Schema> base = schema_;
    if (base == nullptr || base->version != version.version) {
      CASSETTE_ASSIGN_OR_RETURN(base, load_schema(*store_, snapshot));
    }
    CASSETTE_ASSIGN_OR_RETURN(Schema next, change(*base));
    // Table ids are never reused, whatever the change function did.
    for (storage::TableId id : table_ids(next)) {
      next.next_table_id = std::max(next.next_table_id, id + 1);
    }
    next.next_table_id = std::max(next.next_table_id, base->next_table_id);

    std::map<std::string, std::string> before = encode_objects(*base);
    std::map<std::string, std::string> after = encode_objects(next);
    result = base;
    dropped_tables.clear();
    if (before != after || next.next_table_id != base->next_table_id) {
      for (const auto& [key, record] : after) {
        auto it = before.find(key);
        if (it == before.end() || it->second != record) {
          CASSETTE_RETURN_IF_ERROR(put_row(batch, codec::kObjectsPartition, key, record));
        }
      }
      for (const auto& [key, record] : before) {
        if (!after.contains(key)) {
          CASSETTE_RETURN_IF_ERROR(delete_row(batch, key, snapshot.now_seconds));
        }
      }
      next.version = base->version + 1;
      CASSETTE_RETURN_IF_ERROR(put_row(batch, codec::kVersionPartition, "v",
                                       codec::encode_version({next.version, next.next_table_id})));
      std::set<storage::TableId> kept = table_ids(next);
      for (storage::TableId id : table_ids(*base)) {
        if (!kept.contains(id)) dropped_tables.push_back(id);
      }
      result = std::make_shared<const Schema>(std::move(next));
    }
    if (writes) CASSETTE_RETURN_IF_ERROR(writes(snapshot, batch));
    return !batch.empty();  // nothing to write: no change, no other writes
  });
  if (!applied.is_ok()) return applied.status();
  std::shared_ptr<const Schema> previous = schema_;
  schema_ = result;
  apply_table_options(*store_, *schema_);
  apply_index_components(*store_, *schema_, previous.get());
  if (applied->has_value()) {
    // The change is durable: the dropped tables' data can go. A failure here leaves only
    // unreachable data behind (the id is never reused), so it is not the statement's failure.
    for (storage::TableId id : dropped_tables) (void)store_->truncate(id);
  }
  return schema_;
}

Result<storage::TableId> Catalog::reserve_table_id() {
  storage::TableId reserved = 0;
  CASSETTE_RETURN_IF_ERROR(change([&](const Schema& now) -> Result<Schema> {
                             Schema next = now;
                             reserved = next.next_table_id++;
                             return next;
                           }).status());
  return reserved;
}

}  // namespace cassette::schema
