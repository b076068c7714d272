// The schema: keyspaces, tables, columns, user-defined types and secondary indexes, as immutable
// values. A Schema is a snapshot; a change makes a new one (catalog.h persists and publishes it),
// so a statement that holds a shared_ptr<const Schema> sees one consistent schema throughout.
//
// Names are stored as the user's identifiers resolve: unquoted ones lower-cased, quoted ones as
// written. Column ids (storage::ColumnId) are assigned once and never reused within a table, so
// RENAME keeps data and a DROP followed by an ADD of the same name does not resurrect old cells.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/ids.h"
#include "engine/types/cql_type.h"

namespace cassette::schema {

enum class ColumnKind : uint8_t { kPartitionKey, kClustering, kStatic, kRegular };

// Where a kind of column comes in a table's column order (Cassandra's
// TableMetadata.allColumnsInSelectOrder, and DESCRIBE): partition key columns, then clustering
// columns, then static, then regular ones.
inline int column_kind_rank(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kPartitionKey:
      return 0;
    case ColumnKind::kClustering:
      return 1;
    case ColumnKind::kStatic:
      return 2;
    case ColumnKind::kRegular:
      return 3;
  }
  return 3;
}

// A column mask (Cassandra 5.0's dynamic data masking, CEP-20): a masking function applied to the
// column's values in SELECT results (engine/cql/column_mask.h), never to what is stored or what
// WHERE compares. The column's value is the function's first argument; the partial arguments
// (mask_inner(1, null): 1 and null) are kept as values of the parameter types they resolved to.
struct ColumnMask {
  std::string function;                                     // a native one: "mask_inner"
  std::vector<types::CqlType> argument_types;               // the partial arguments' types
  std::vector<std::optional<std::string>> argument_values;  // serialized; nullopt: null

  bool operator==(const ColumnMask&) const = default;
};

struct ColumnDef {
  std::string name;
  types::CqlType type;  // UDTs resolved: field names and types filled in
  ColumnKind kind = ColumnKind::kRegular;
  int position = 0;          // index among the partition key or clustering columns
  bool descending = false;   // clustering order
  storage::ColumnId id = 0;  // stable for the column's life
  std::optional<ColumnMask> mask;

  bool is_primary_key() const {
    return kind == ColumnKind::kPartitionKey || kind == ColumnKind::kClustering;
  }
  bool is_static() const { return kind == ColumnKind::kStatic; }
};

// A dropped column is remembered so data written before the drop stays invisible even if a
// column of the same name is added again (Cassandra's dropped_columns).
struct DroppedColumn {
  std::string name;
  types::CqlType type;
  int64_t dropped_at_micros = 0;
  storage::ColumnId id = 0;
  bool is_static = false;  // its kind: a column is re-added only as the kind it was
};

// Table options. The ones that change behaviour on one node are typed; every other option the
// user gives (caching, bloom_filter_fp_chance, compaction, speculative_retry, ...) is kept as
// written, as a CQL literal, and printed back by DESCRIBE.
struct TableParams {
  int64_t default_time_to_live = 0;
  int64_t gc_grace_seconds = 864000;
  std::string comment;
  // As Cassandra shows it: {'chunk_length_in_kb': '16', 'class':
  // 'org.apache.cassandra.io.compress.LZ4Compressor'} by default. Any class is accepted; the
  // SSTables are always zstd, at 'compression_level' when given (default 3), and uncompressed
  // when 'enabled' is 'false'.
  std::map<std::string, std::string> compression;
  std::map<std::string, std::string> other;  // name -> CQL literal as written
};

// What readers and writers of a table need of its key and cells, worked out once per TableDef
// (TableDef::finalize) instead of once per row or statement.
struct KeyLayout {
  // What a cursor needs of each column, packed: it is read per column per row, and a ColumnDef
  // (name, type, ...) is large.
  struct ColumnAccess {
    ColumnKind kind;
    uint32_t position;     // partition key and clustering columns: which component
    storage::ColumnId id;  // regular and static columns
  };

  std::vector<const ColumnDef*> partition_key;  // in key order, into the owning TableDef
  std::vector<const ColumnDef*> clustering;     // in key order, into the owning TableDef
  std::vector<types::CqlType> clustering_types;
  // One per clustering column, as encode_clustering takes them (a bool array: std::vector<bool>
  // has no contiguous storage for a std::span<const bool>).
  std::unique_ptr<bool[]> clustering_descending;
  std::vector<ColumnAccess> columns;  // by index in TableDef::columns
  // The non-key columns' indexes in TableDef::columns, and the same columns in column id order
  // (the order of a row's cells in storage) as indexes into non_key_columns.
  std::vector<size_t> non_key_columns;
  std::vector<size_t> non_key_by_id;
  // Every non-key column is a regular single-cell non-counter one: an INSERT writes exactly one
  // cell per non-key column.
  bool single_cell_rows = false;
  bool has_static = false;
  bool counter_table = false;

  std::span<const bool> clustering_orders() const {
    return {clustering_descending.get(), clustering_types.size()};
  }

  // The `columns` vector storage this layout points into (checks a missing finalize).
  const ColumnDef* columns_data = nullptr;
  size_t columns_size = 0;
};

// What makes a table a materialized view of another table of its keyspace (Cassandra's
// system_schema.views). The view is otherwise a table like any other (its own columns, key,
// storage id and options), kept in KeyspaceDef::tables so reads resolve it by name; writers refuse
// it, and every write to its base table also writes the view rows it implies, in the same commit
// (engine/cql/view_maintenance.h).
struct ViewDef {
  std::string base_table;            // in the view's keyspace
  std::string base_table_id;         // the base's uuid (TableDef::id)
  bool include_all_columns = false;  // SELECT *
  std::string where_clause;          // as Cassandra prints it: "k IS NOT NULL AND c IS NOT NULL"
};

// A table definition: plain data members, and a key layout derived from `columns`. Whoever builds
// or edits a TableDef calls finalize() before reading the layout or publishing the table; a copy
// computes its own layout (never pointing into the other's columns), and a move keeps it.
struct TableDef {
  std::string keyspace;
  std::string name;
  std::string id;                  // a uuid, as Cassandra's table id
  storage::TableId table_id = 0;   // the storage engine's id, never reused within a store
  std::vector<ColumnDef> columns;  // in select order (partition key, clustering, statics, regulars)
  std::vector<DroppedColumn> dropped;
  TableParams params;
  storage::ColumnId next_column_id = 0;
  std::optional<ViewDef> view;  // set: a materialized view (its base is view->base_table)

  TableDef() = default;
  TableDef(const TableDef& other);
  TableDef& operator=(const TableDef& other);
  TableDef(TableDef&&) noexcept = default;
  TableDef& operator=(TableDef&&) noexcept = default;

  // Recomputes the layout from `columns`. REQUIRES: after any change to `columns`, before the
  // accessors below are used.
  void finalize();

  const ColumnDef* find_column(std::string_view name) const;
  const KeyLayout& layout() const;
  const std::vector<const ColumnDef*>& partition_key() const { return layout().partition_key; }
  const std::vector<const ColumnDef*>& clustering() const { return layout().clustering; }
  bool has_static_columns() const { return layout().has_static; }
  bool is_counter_table() const { return layout().counter_table; }  // any regular counter column
  bool is_view() const { return view.has_value(); }

 private:
  KeyLayout layout_;
};

struct UserTypeDef {
  std::string keyspace;
  std::string name;
  std::vector<std::string> field_names;
  std::vector<types::CqlType> field_types;
};

struct IndexDef {
  std::string keyspace;
  std::string name;
  std::string table;
  std::string column;
  enum class Target : uint8_t { kValues, kKeys, kEntries, kFull };
  Target target = Target::kValues;
  std::string custom_class;                    // empty: a native index
  std::map<std::string, std::string> options;  // as written
};

struct KeyspaceDef {
  std::string name;
  std::map<std::string, std::string> replication;  // as given, class expanded to its full name
  bool durable_writes = true;
  std::map<std::string, std::shared_ptr<const TableDef>> tables;
  std::map<std::string, std::shared_ptr<const UserTypeDef>> types;
  std::map<std::string, std::shared_ptr<const IndexDef>> indexes;
};

// One consistent version of the whole schema.
struct Schema {
  std::map<std::string, std::shared_ptr<const KeyspaceDef>> keyspaces;
  storage::TableId next_table_id = 1;  // 0 is the catalog's own table
  uint64_t version = 0;                // bumped by every change

  const KeyspaceDef* find_keyspace(std::string_view name) const;
  std::shared_ptr<const TableDef> find_table(std::string_view keyspace,
                                             std::string_view name) const;
  std::shared_ptr<const UserTypeDef> find_type(std::string_view keyspace,
                                               std::string_view name) const;
  std::vector<std::shared_ptr<const IndexDef>> indexes_on(const TableDef& table) const;
  // The materialized views whose base is `table`, by name.
  std::vector<std::shared_ptr<const TableDef>> views_on(const TableDef& table) const;
  // The table (or view) with storage id `id`; nullptr when none.
  std::shared_ptr<const TableDef> find_table_by_id(storage::TableId id) const;
  bool has_views() const;  // any materialized view in any keyspace
};

// `schema` with `table` in its keyspace (replacing a table of the same name). REQUIRES: the
// keyspace exists.
Schema with_table(const Schema& schema, std::shared_ptr<const TableDef> table);
// `schema` without table keyspace.name and the indexes on it (unchanged when it has none).
Schema without_table(const Schema& schema, std::string_view keyspace, std::string_view name);

}  // namespace cassette::schema
