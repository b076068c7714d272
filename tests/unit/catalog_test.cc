// The persisted catalog: changes are durable, all-or-nothing, visible to other Catalog objects,
// and table ids are never reused.
#include "engine/schema/catalog.h"

#include <doctest/doctest.h>

#include "engine/cql/session.h"
#include "engine/schema/catalog_codec.h"
#include "engine/storage/row_codec.h"
#include "tests/unit/store_test_util.h"

namespace cassette::schema {
namespace {

using test::TempDir;

std::shared_ptr<storage::Store> open_store(const std::string& path) {
  auto store = storage::Store::open(path);
  REQUIRE(store.is_ok());
  return *store;
}

Schema with_keyspace(const Schema& now, const std::string& name) {
  Schema next = now;
  auto ks = std::make_shared<KeyspaceDef>();
  ks->name = name;
  ks->replication = {{"class", "org.apache.cassandra.locator.SimpleStrategy"},
                     {"replication_factor", "1"}};
  next.keyspaces[name] = ks;
  return next;
}

Schema with_table(const Schema& now, const std::string& keyspace, const std::string& name) {
  Schema next = now;
  auto ks = std::make_shared<KeyspaceDef>(*now.keyspaces.at(keyspace));
  auto table = std::make_shared<TableDef>();
  table->keyspace = keyspace;
  table->name = name;
  table->id = "5a1c395e-b41f-11e5-9f22-ba0be0483c18";
  table->table_id = next.next_table_id++;
  table->columns.push_back({"k",
                            types::CqlType::simple(types::TypeKind::kInt),
                            ColumnKind::kPartitionKey,
                            0,
                            false,
                            0,
                            {}});
  table->columns.push_back({"c",
                            types::CqlType::simple(types::TypeKind::kText),
                            ColumnKind::kClustering,
                            0,
                            true,
                            1,
                            {}});
  table->columns.push_back({"v",
                            types::CqlType::map(types::CqlType::simple(types::TypeKind::kText),
                                                types::CqlType::simple(types::TypeKind::kInt)),
                            ColumnKind::kRegular,
                            0,
                            false,
                            2,
                            {}});
  table->next_column_id = 3;
  table->params.gc_grace_seconds = 100;
  table->params.comment = "a comment";
  table->params.compression = {{"class", "org.apache.cassandra.io.compress.ZstdCompressor"},
                               {"compression_level", "5"}};
  table->params.other = {{"caching", "{'keys': 'ALL', 'rows_per_partition': 'NONE'}"}};
  table->finalize();
  ks->tables[name] = table;
  next.keyspaces[keyspace] = ks;
  return next;
}

TEST_CASE("catalog: a new store has an empty schema") {
  TempDir dir;
  auto catalog = Catalog::open(open_store(dir.path()));
  REQUIRE(catalog.is_ok());
  auto schema = (*catalog)->current();
  REQUIRE(schema.is_ok());
  CHECK((*schema)->keyspaces.empty());
  CHECK((*schema)->version == 0);
  CHECK((*schema)->next_table_id == 1);
}

TEST_CASE("catalog: changes persist across reopen") {
  TempDir dir;
  {
    auto catalog = Catalog::open(open_store(dir.path())).value();
    auto s1 = catalog->change(
        [](const Schema& now) -> Result<Schema> { return with_keyspace(now, "ks"); });
    REQUIRE(s1.is_ok());
    CHECK((*s1)->version == 1);
    auto s2 = catalog->change(
        [](const Schema& now) -> Result<Schema> { return with_table(now, "ks", "t"); });
    REQUIRE(s2.is_ok());
    CHECK((*s2)->version == 2);
    CHECK((*s2)->next_table_id == 2);
  }
  auto catalog = Catalog::open(open_store(dir.path())).value();
  auto schema = catalog->current().value();
  CHECK(schema->version == 2);
  CHECK(schema->next_table_id == 2);
  REQUIRE(schema->find_keyspace("ks") != nullptr);
  CHECK(schema->find_keyspace("ks")->replication.at("replication_factor") == "1");
  auto table = schema->find_table("ks", "t");
  REQUIRE(table != nullptr);
  CHECK(table->table_id == 1);
  CHECK(table->id == "5a1c395e-b41f-11e5-9f22-ba0be0483c18");
  REQUIRE(table->columns.size() == 3);
  CHECK(table->columns[1].name == "c");
  CHECK(table->columns[1].descending);
  CHECK(table->columns[2].type ==
        types::CqlType::map(types::CqlType::simple(types::TypeKind::kText),
                            types::CqlType::simple(types::TypeKind::kInt)));
  CHECK(table->next_column_id == 3);
  CHECK(table->params.gc_grace_seconds == 100);
  CHECK(table->params.comment == "a comment");
  CHECK(table->params.compression.at("compression_level") == "5");
  CHECK(table->params.other.at("caching") == "{'keys': 'ALL', 'rows_per_partition': 'NONE'}");
  CHECK(table->partition_key().size() == 1);
  CHECK(table->clustering().size() == 1);
}

TEST_CASE("catalog: a table's compression options become its storage options") {
  TableDef table;
  table.params.gc_grace_seconds = 3600;
  auto options = [&](std::map<std::string, std::string> compression) {
    table.params.compression = std::move(compression);
    return table_options_for(table);
  };
  // Cassandra's defaults: 16 KiB chunks, compressed (zstd level 3 here).
  storage::TableOptions defaults = options(
      {{"chunk_length_in_kb", "16"}, {"class", "org.apache.cassandra.io.compress.LZ4Compressor"}});
  CHECK(defaults.block_size == 16u << 10);
  CHECK(defaults.compression_level == 3);
  CHECK(defaults.gc_grace_seconds == 3600);
  storage::TableOptions zstd =
      options({{"chunk_length_in_kb", "64"},
               {"class", "org.apache.cassandra.io.compress.ZstdCompressor"},
               {"compression_level", "9"}});
  CHECK(zstd.block_size == 64u << 10);
  CHECK(zstd.compression_level == 9);
  // Larger chunks than the engine keeps are capped; no compression stores blocks as they are.
  CHECK(options({{"chunk_length_in_kb", "65536"},
                 {"class", "org.apache.cassandra.io.compress.LZ4Compressor"}})
            .block_size == static_cast<size_t>(kMaxChunkLengthKb) << 10);
  CHECK(options({{"chunk_length_in_kb", "4"},
                 {"class", "org.apache.cassandra.io.compress.NoopCompressor"}})
            .compression_level == 0);
  CHECK(options({{"enabled", "false"}}).compression_level == 0);
  CHECK(options({{"enabled", "false"}}).block_size == storage::TableOptions{}.block_size);
}

TEST_CASE("catalog: a failed change writes nothing") {
  TempDir dir;
  auto catalog = Catalog::open(open_store(dir.path())).value();
  auto failed = catalog->change(
      [](const Schema&) -> Result<Schema> { return Status::invalid_argument("no"); });
  REQUIRE(!failed.is_ok());
  CHECK(failed.status().message() == "no");
  CHECK(catalog->current().value()->version == 0);
  // A change that changes nothing writes nothing either.
  auto same = catalog->change([](const Schema& now) -> Result<Schema> { return now; });
  REQUIRE(same.is_ok());
  CHECK((*same)->version == 0);
}

TEST_CASE("catalog: another Catalog on the same store sees changes") {
  TempDir dir;
  auto store = open_store(dir.path());
  auto first = Catalog::open(store).value();
  auto second = Catalog::open(store).value();
  CHECK(second->current().value()->keyspaces.empty());
  REQUIRE(
      first->change([](const Schema& now) -> Result<Schema> { return with_keyspace(now, "ks"); })
          .is_ok());
  CHECK(second->current().value()->find_keyspace("ks") != nullptr);
  // The second builds its change on the latest schema, not on what it saw before.
  REQUIRE(second
              ->change([](const Schema& now) -> Result<Schema> {
                REQUIRE(now.find_keyspace("ks") != nullptr);
                return with_keyspace(now, "ks2");
              })
              .is_ok());
  auto schema = first->current().value();
  CHECK(schema->keyspaces.size() == 2);
  CHECK(schema->version == 2);
}

TEST_CASE("catalog: dropping a table removes its data and never reuses its id") {
  TempDir dir;
  auto store = open_store(dir.path());
  auto catalog = Catalog::open(store).value();
  REQUIRE(catalog
              ->change([](const Schema& now) -> Result<Schema> {
                return with_table(with_keyspace(now, "ks"), "ks", "t");
              })
              .is_ok());
  storage::TableId id = catalog->current().value()->find_table("ks", "t")->table_id;
  test::put(*store, id, "pk", 1, test::insert_row("x"));
  CHECK(test::read_table(*store, id).size() == 1);
  auto dropped = catalog->change(
      [](const Schema& now) -> Result<Schema> { return without_table(now, "ks", "t"); });
  REQUIRE(dropped.is_ok());
  CHECK((*dropped)->find_table("ks", "t") == nullptr);
  CHECK(test::read_table(*store, id).empty());
  auto again = catalog->change(
      [](const Schema& now) -> Result<Schema> { return with_table(now, "ks", "t"); });
  REQUIRE(again.is_ok());
  CHECK((*again)->find_table("ks", "t")->table_id == id + 1);
  store.reset();
  catalog.reset();
  auto reopened = Catalog::open(open_store(dir.path())).value()->current().value();
  CHECK(reopened->find_table("ks", "t")->table_id == id + 1);
  CHECK(reopened->next_table_id == id + 2);
}

TEST_CASE("catalog: a change and other writes commit as one transaction, or not at all") {
  TempDir dir;
  auto store = open_store(dir.path());
  auto catalog = Catalog::open(store).value();
  storage::TableId reserved = catalog->reserve_table_id().value();
  CHECK(catalog->current().value()->next_table_id == reserved + 1);
  CHECK(catalog->current().value()->find_keyspace("ks") == nullptr);
  // A table made with the reserved id, and a row of it, in one change.
  auto add_row = [&](const storage::Snapshot&, storage::EncodedBatch& batch) -> Status {
    storage::Row row = test::insert_row("x");
    std::string value;
    storage::encode_row(row, &value);
    return batch.add_row(reserved, "pk", storage::EntryKind::kRow, "c", value).status();
  };
  auto with_reserved = [&](const Schema& now) -> Result<Schema> {
    Schema next = with_table(with_keyspace(now, "ks"), "ks", "t");
    auto table = std::make_shared<TableDef>(*next.find_table("ks", "t"));
    table->table_id = reserved;
    return schema::with_table(next, table);
  };
  // A failing change writes neither.
  auto failed = catalog->change(
      [&](const Schema&) -> Result<Schema> { return Status::already_exists("taken"); }, add_row);
  CHECK(failed.status().code() == StatusCode::kAlreadyExists);
  CHECK(test::read_table(*store, reserved).empty());
  // A change whose other writes fail writes nothing either.
  auto failed_writes = catalog->change(
      with_reserved, [](const storage::Snapshot&, storage::EncodedBatch&) -> Status {
        return Status::io_error("no");
      });
  CHECK(failed_writes.status().code() == StatusCode::kIOError);
  CHECK(catalog->current().value()->find_table("ks", "t") == nullptr);
  auto changed = catalog->change(with_reserved, add_row);
  REQUIRE(changed.is_ok());
  CHECK((*changed)->find_table("ks", "t")->table_id == reserved);
  CHECK(test::read_table(*store, reserved).size() == 1);
  store.reset();
  catalog.reset();
  auto reopened_store = open_store(dir.path());
  auto reopened = Catalog::open(reopened_store).value()->current().value();
  CHECK(reopened->find_table("ks", "t")->table_id == reserved);
  CHECK(reopened->next_table_id > reserved);
  CHECK(test::read_table(*reopened_store, reserved).size() == 1);
}

TEST_CASE("catalog codec: records round-trip and reject unknown formats") {
  UserTypeDef type;
  type.keyspace = "ks";
  type.name = "address";
  type.field_names = {"street", "zip"};
  type.field_types = {types::CqlType::simple(types::TypeKind::kText),
                      types::CqlType::list(types::CqlType::simple(types::TypeKind::kInt), true)};
  auto decoded = codec::decode_type(codec::encode_type(type));
  REQUIRE(decoded.is_ok());
  CHECK(decoded->field_names == type.field_names);
  CHECK(decoded->field_types == type.field_types);

  IndexDef index;
  index.keyspace = "ks";
  index.name = "t_m_idx";
  index.table = "t";
  index.column = "m";
  index.target = IndexDef::Target::kKeys;
  auto decoded_index = codec::decode_index(codec::encode_index(index));
  REQUIRE(decoded_index.is_ok());
  CHECK(decoded_index->target == IndexDef::Target::kKeys);
  CHECK(decoded_index->column == "m");

  std::string bad = codec::encode_index(index);
  bad[0] = 9;
  CHECK(codec::decode_index(bad).status().is_corruption());
}

// A column mask round-trips (a null partial argument included), and a table with one is written
// in format 2 so that a reader of format 1 refuses it rather than show the clear values; without
// masks the table is format 1 again.
TEST_CASE("catalog codec: a masked table is a format 2 record") {
  TableDef table;
  table.keyspace = "ks";
  table.name = "t";
  ColumnDef k;
  k.name = "k";
  k.type = types::CqlType::simple(types::TypeKind::kInt);
  k.kind = ColumnKind::kPartitionKey;
  ColumnDef v;
  v.name = "v";
  v.type = types::CqlType::simple(types::TypeKind::kText);
  v.id = 1;
  v.mask = ColumnMask{"mask_inner",
                      {types::CqlType::simple(types::TypeKind::kInt),
                       types::CqlType::simple(types::TypeKind::kInt)},
                      {std::string("\0\0\0\1", 4), std::nullopt}};
  table.columns = {k, v};
  table.finalize();
  const std::string record = codec::encode_table(table);
  CHECK(static_cast<uint8_t>(record[0]) == codec::kMaskedTableFormatVersion);
  auto decoded = codec::decode_table(record);
  REQUIRE(decoded.is_ok());
  REQUIRE(decoded->columns.size() == 2);
  CHECK_FALSE(decoded->columns[0].mask.has_value());
  REQUIRE(decoded->columns[1].mask.has_value());
  CHECK(*decoded->columns[1].mask == *v.mask);

  table.columns[1].mask.reset();
  table.finalize();
  CHECK(static_cast<uint8_t>(codec::encode_table(table)[0]) == codec::kFormatVersion);
  std::string future = record;
  future[0] = static_cast<char>(codec::kMaskedTableFormatVersion + 1);
  CHECK(codec::decode_table(future).status().is_corruption());
}

// A dropped column keeps its kind (a static one may be re-added only as static, as Cassandra's
// dropped_columns.kind); a record without the field (written before it) reads as regular.
TEST_CASE("catalog codec: a dropped column keeps its kind") {
  TableDef table;
  table.keyspace = "ks";
  table.name = "t";
  ColumnDef k;
  k.name = "k";
  k.type = types::CqlType::simple(types::TypeKind::kInt);
  k.kind = ColumnKind::kPartitionKey;
  table.columns = {k};
  table.dropped.push_back(
      {"s", types::CqlType::simple(types::TypeKind::kInt), 1700000000000000, 1, true});
  table.dropped.push_back(
      {"r", types::CqlType::simple(types::TypeKind::kText), 1700000000000001, 2, false});
  table.finalize();
  auto decoded = codec::decode_table(codec::encode_table(table));
  REQUIRE(decoded.is_ok());
  REQUIRE(decoded->dropped.size() == 2);
  CHECK(decoded->dropped[0].name == "s");
  CHECK(decoded->dropped[0].is_static);
  CHECK(decoded->dropped[0].dropped_at_micros == 1700000000000000);
  CHECK(decoded->dropped[1].name == "r");
  CHECK_FALSE(decoded->dropped[1].is_static);
  CHECK(decoded->dropped[1].type == types::CqlType::simple(types::TypeKind::kText));
}

// A catalog record whose type breaks its kind's shape (cql_type.h) is corrupt: the store does
// not open, where it used to open and then fail its statements with an internal error (an
// out-of-range index into the type's parameters) once a value of that type was read or written.
TEST_CASE("catalog: a type of the wrong shape on disk is corruption") {
  struct Case {
    types::CqlType type;
    std::string message;
  };
  types::CqlType udt = types::CqlType::simple(types::TypeKind::kUdt);
  udt.udt_keyspace = "ks";
  udt.udt_name = "address";
  udt.params = {types::CqlType::simple(types::TypeKind::kText)};
  udt.frozen = true;
  const Case cases[] = {
      {types::CqlType{types::TypeKind::kList, {}, false, {}, {}, {}},
       "catalog: list type with 0 type parameters instead of 1"},
      {types::CqlType{types::TypeKind::kMap,
                      {types::CqlType::simple(types::TypeKind::kInt)},
                      true,
                      {},
                      {},
                      {}},
       "catalog: map type with 1 type parameters instead of 2"},
      {types::CqlType{types::TypeKind::kInt,
                      {types::CqlType::simple(types::TypeKind::kInt)},
                      false,
                      {},
                      {},
                      {}},
       "catalog: int type with 1 type parameters instead of 0"},
      {udt, "catalog: user-defined type with 0 field names for 1 fields"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.message);
    TempDir dir;
    {
      auto catalog = Catalog::open(open_store(dir.path())).value();
      // What a damaged record would decode to: the codec writes any CqlType it is given.
      auto changed = catalog->change([&](const Schema& now) -> Result<Schema> {
        Schema next = with_table(with_keyspace(now, "ks"), "ks", "t");
        TableDef table = *next.find_table("ks", "t");
        table.columns[2].type = c.type;
        table.finalize();
        return schema::with_table(next, std::make_shared<const TableDef>(std::move(table)));
      });
      REQUIRE(changed.is_ok());
    }
    auto session = cql::Session::open(open_store(dir.path()));
    REQUIRE_FALSE(session.is_ok());
    CHECK(session.status().is_corruption());
    CHECK(session.status().message() == c.message);
  }
}

}  // namespace
}  // namespace cassette::schema
