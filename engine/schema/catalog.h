// The catalog: the schema, persisted inside the store it describes.
//
// The schema lives in the store's own table 0 (kCatalogTable), one row per keyspace, table, type
// and index, so it shares the commit log's durability and atomicity: a schema change is one
// write transaction, made with Store::apply_prepared so that it is checked against the latest
// schema under the store's write lock (two processes creating the same table cannot both win).
// Every process reloads the schema when the catalog table changed since it last looked.
//
//   auto catalog = Catalog::open(store).value();
//   auto schema = catalog->current().value();   // a consistent snapshot
//   catalog->change([&](const Schema& now) -> Result<Schema> { ... return next; });
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "engine/schema/schema.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/store.h"
#include "engine/util/status.h"

namespace cassette::schema {

constexpr storage::TableId kCatalogTable = 0;

// The largest data block a table's chunk_length_in_kb asks for (a larger one is this size).
constexpr int64_t kMaxChunkLengthKb = 1024;

// The storage options a table's CQL parameters ask for: the compression sub-options
// (chunk_length_in_kb -> block size, compression_level, NoopCompressor or enabled = false ->
// uncompressed) and gc_grace_seconds.
storage::TableOptions table_options_for(const TableDef& table);

class Catalog {
 public:
  // Loads the schema of `store` (empty for a new store) and sets each table's storage options.
  static Result<std::shared_ptr<Catalog>> open(std::shared_ptr<storage::Store> store);

  // The schema as of now, reloaded first if another process (or Catalog) changed it.
  Result<std::shared_ptr<const Schema>> current();

  // Applies a schema change atomically. `change` gets the latest schema (under the store's write
  // lock, so no other change can interleave) and returns the next one, or an error, in which
  // case nothing is written. The catalog writes only the rows that differ, bumps the version,
  // updates the storage options of changed tables, and returns the new schema. Dropped tables'
  // data is removed (Store::truncate) after the change is durable.
  using SchemaChange = std::function<Result<Schema>(const Schema& current)>;
  Result<std::shared_ptr<const Schema>> change(const SchemaChange& change);
  // change() and other writes to the store in one transaction (one commit-log record, all or
  // nothing): `writes` adds them to the batch after the catalog's rows, reading what it needs
  // through the snapshot it is given, as Store::apply_prepared's `prepare` does. For a
  // host whose transaction changed the schema and wrote rows (an SQL transaction that created a
  // table and inserted into it).
  using ExtraWrites =
      std::function<Status(const storage::Snapshot& snapshot, storage::EncodedBatch& batch)>;
  Result<std::shared_ptr<const Schema>> change(const SchemaChange& change,
                                               const ExtraWrites& writes);

  // Takes a storage table id for a table to be created later (change()'s `next` may give a new
  // table this id): no table of the store gets it otherwise. Durable, like any change; an id
  // reserved and never used is only skipped.
  Result<storage::TableId> reserve_table_id();

  storage::Store& store() { return *store_; }
  const std::shared_ptr<storage::Store>& shared_store() const { return store_; }

 private:
  explicit Catalog(std::shared_ptr<storage::Store> store);
  std::shared_ptr<storage::Store> store_;
  std::mutex mutex_;
  std::shared_ptr<const Schema> schema_;
};

}  // namespace cassette::schema
