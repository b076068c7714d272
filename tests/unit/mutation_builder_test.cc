// MutationBuilder: partitions found once in first-named order, and the writes it merges
// reach the commit log exactly as they did when the store took them as a batch of its own
// (WriteBatch, applied by Store::apply, before the store took only EncodedBatch).
#include "engine/storage/mutation_builder.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/storage/commit_record.h"
#include "engine/types/scalar_text.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::storage;

namespace {
// The partitions a batch holds, in order.
std::vector<std::pair<TableId, std::string>> keys_of(const MutationBuilder& b) {
  std::vector<std::pair<TableId, std::string>> out;
  for (const PartitionUpdate& u : b.updates()) out.emplace_back(u.table, u.partition_key);
  return out;
}
}  // namespace

TEST_CASE("MutationBuilder::partition finds each partition once and keeps first-named order") {
  // Against the linear search it replaces, past the point where the hash index takes over.
  std::mt19937 rng(42);
  MutationBuilder batch;
  std::vector<std::pair<TableId, std::string>> expected;
  for (int i = 0; i < 5000; ++i) {
    TableId table = rng() % 3;
    std::string key = "k" + std::to_string(rng() % 1500);
    size_t found = expected.size();
    for (size_t j = 0; j < expected.size(); ++j) {
      if (expected[j] == std::make_pair(table, key)) found = j;
    }
    if (found == expected.size()) expected.emplace_back(table, key);
    PartitionUpdate& u = batch.partition(table, key);
    CHECK(&u == &batch.updates()[found]);
    u.rows.push_back({std::to_string(i), Row{}});
  }
  CHECK(keys_of(batch) == expected);
  size_t rows = 0;
  for (const PartitionUpdate& u : batch.updates()) rows += u.rows.size();
  CHECK(rows == 5000);
}

TEST_CASE("MutationBuilder::partition: the same key in two tables is two partitions") {
  MutationBuilder batch;
  for (int i = 0; i < 20; ++i) batch.partition(1, "p" + std::to_string(i));
  batch.partition(2, "p3");
  batch.partition(1, "p3");
  REQUIRE(batch.updates().size() == 21);
  CHECK(batch.updates()[20].table == 2);
  CHECK(batch.updates()[20].partition_key == "p3");
}

TEST_CASE("MutationBuilder::partition after mutable_updates() and clear() sees the new contents") {
  MutationBuilder batch;
  for (int i = 0; i < 30; ++i) batch.partition(1, "p" + std::to_string(i));
  // Replace the updates wholesale (as the SQLite extension's pending writes do).
  std::vector<PartitionUpdate> other(2);
  other[0].table = 1;
  other[0].partition_key = "x";
  other[1].table = 1;
  other[1].partition_key = "p5";
  batch.mutable_updates() = std::move(other);
  CHECK(&batch.partition(1, "p5") == &batch.updates()[1]);
  CHECK(&batch.partition(1, "x") == &batch.updates()[0]);
  batch.partition(1, "p6");
  CHECK(keys_of(batch) ==
        std::vector<std::pair<TableId, std::string>>{{1, "x"}, {1, "p5"}, {1, "p6"}});

  for (int i = 0; i < 30; ++i) batch.partition(1, "q" + std::to_string(i));
  batch.clear();
  CHECK(batch.empty());
  batch.partition(1, "q7");
  batch.partition(1, "q7");
  CHECK(keys_of(batch) == std::vector<std::pair<TableId, std::string>>{{1, "q7"}});
}

namespace {

constexpr int64_t kAssigned = 1'700'000'000'123'456;  // the store's timestamp for the record

// Two tables, three partitions: a partition deletion and range tombstones at the auto timestamp,
// a static row, rows with a TTL marker, simple, expiring and tombstone cells, a list with its
// collection deletion, counter deltas, a row deletion, an empty row (written as nothing) and a
// partition named but left empty.
MutationBuilder representative_builder() {
  MutationBuilder builder;
  PartitionUpdate& first = builder.partition(7, std::string("\x00\x01p", 3));
  first.header.deletion = {1000, 50};
  first.header.range_tombstones.push_back({"b", "c", {kAutoTimestamp, 60}});
  first.header.range_tombstones.push_back({"d", "f", {900, 61}});
  first.static_row.columns.push_back({1, false, Cell::live(kAutoTimestamp, "static"), {}, {}});

  Row marked;
  marked.liveness = LivenessInfo::written(kAutoTimestamp, 100, 1000);
  marked.columns.push_back({2, false, Cell::live(kAutoTimestamp, "v1"), {}, {}});
  marked.columns.push_back({3, false, Cell::expiring(500, 10, 1000, "soon"), {}, {}});
  ColumnData list;
  list.id = 4;
  list.complex = true;
  list.complex_deletion = {kAutoTimestamp, 1000};
  list.cells.push_back(Cell::live(kAutoTimestamp, "e1", "t1"));
  list.cells.push_back(Cell::tombstone(kAutoTimestamp, 1000, "t2"));
  marked.columns.push_back(std::move(list));
  first.rows.push_back({"a", std::move(marked)});

  Row counters;
  counters.columns.push_back({5, false, Cell::counter(kAutoTimestamp, 42), {}, {}});
  counters.columns.push_back({6, false, Cell::counter(kAutoTimestamp, -7), {}, {}});
  first.rows.push_back({"c", std::move(counters)});

  PartitionUpdate& second = builder.partition(9, "k2");
  Row deleted;
  deleted.deletion = {kAutoTimestamp, 1000};
  second.rows.push_back({"x", std::move(deleted)});
  second.rows.push_back({"y", Row{}});  // empty: no entry
  Row cells;
  cells.liveness = LivenessInfo::written(77, 0, 1000);
  cells.columns.push_back({1, false, Cell::tombstone(kAutoTimestamp, 1000), {}, {}});
  cells.columns.push_back({2, false, Cell::live(123, std::string("\x00\xff", 2)), {}, {}});
  second.rows.push_back({"z", std::move(cells)});
  builder.partition(9, "k3");  // named, nothing written
  return builder;
}

}  // namespace

// The record bytes main wrote for representative_builder() before the store took only
// EncodedBatch (commit 59f789a): captured by applying assign_timestamp(kAssigned) to the same
// builder (then a WriteBatch) and printing types::to_hex(encode_transaction(batch,
// kAssigned)->payload). The memtable's entries are decoded from these bytes, so equal bytes mean
// equal memtable contents.
constexpr const char* kRecordBeforeOneBatchType =
    "40222018240a06004d0000000000000006070f1c2a757706efaa0200ff017000011018d00f6402016201638089"
    "8182838985067801640166880e7a070f1c2a757706efaa0200ff01700001201400010100008089818283898506"
    "0673746174696307101c2a757706efaa0200ff0170000130614303808981828389850664981103020000000276"
    "3103000297818182838985060ae40f04736f6f6e04018089818283898506d00f0200000274310265310100d00f"
    "02743207101c2a757706efaa0200ff0170000130632a0002050004808981828389850608000000000000002a06"
    "0004808981828389850608fffffffffffffff9090ebe3d35f3ad11ef5b6b32000130780c048089818283898506"
    "d00f00090ebe3d35f3ad11ef5b6b320001307a18019a0102010001e687818283898506d00f0200005c0200ff";

TEST_CASE("MutationBuilder::encode_to then encode_transaction writes the record bytes of before") {
  EncodedBatch batch;
  REQUIRE(representative_builder().encode_to(&batch).is_ok());
  auto tx = encode_transaction(batch, kAssigned);
  REQUIRE(tx.is_ok());
  CHECK(cassette::types::to_hex(tx->payload) == kRecordBeforeOneBatchType);
  CHECK(tx->entries == 6);
  CHECK(tx->min_timestamp == 77);
}

TEST_CASE(
    "MutationBuilder::encode_to refuses a partition key the store cannot take, adding nothing") {
  EncodedBatch batch;
  MutationBuilder good;
  good.partition(1, "k").rows.push_back({"a", cassette::test::insert_row("v")});
  REQUIRE(good.encode_to(&batch).is_ok());
  const std::string before(batch.body());

  MutationBuilder empty_key = representative_builder();
  empty_key.partition(3, "");  // no rows: its key is still checked
  CHECK(empty_key.encode_to(&batch).message() == "Key may not be empty");
  MutationBuilder long_key = representative_builder();
  long_key.partition(3, std::string(65536, 'k')).rows.push_back({"a", Row{}});
  CHECK(long_key.encode_to(&batch).message() ==
        "Key length of 65536 is longer than maximum of 65535");
  CHECK(batch.entry_count() == 1);
  CHECK(batch.body() == before);
}

TEST_CASE("apply_mutations: a refused builder writes nothing; the store stamps the rest") {
  cassette::test::TempDir dir;
  auto store = Store::open(dir.path()).value();
  MutationBuilder refused = representative_builder();
  refused.partition(3, "");
  CHECK(apply_mutations(*store, refused).status().message() == "Key may not be empty");
  CHECK(cassette::test::read_partition(*store, 7, std::string("\x00\x01p", 3)).empty());

  MutationBuilder builder;
  builder.partition(7, "k").rows.push_back(
      {cassette::test::ck(1), cassette::test::insert_row("v")});
  auto timestamp = apply_mutations(*store, builder);
  REQUIRE(timestamp.is_ok());
  auto snapshot = store->snapshot().value();
  auto cursor = store->read(*snapshot, 7, Store::partition_spec("k"));
  REQUIRE(cursor->next());
  CHECK(cassette::test::cell_value(cursor->row()) == "v");
  CHECK(cursor->row().liveness.timestamp == *timestamp);
  CHECK_FALSE(cursor->next());
}
