#include "engine/storage/write_batch.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace cassette::storage;

namespace {
// The partitions a batch holds, in order.
std::vector<std::pair<TableId, std::string>> keys_of(const WriteBatch& b) {
  std::vector<std::pair<TableId, std::string>> out;
  for (const PartitionUpdate& u : b.updates()) out.emplace_back(u.table, u.partition_key);
  return out;
}
}  // namespace

TEST_CASE("WriteBatch::partition finds each partition once and keeps first-named order") {
  // Against the linear search it replaces, past the point where the hash index takes over.
  std::mt19937 rng(42);
  WriteBatch batch;
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

TEST_CASE("WriteBatch::partition: the same key in two tables is two partitions") {
  WriteBatch batch;
  for (int i = 0; i < 20; ++i) batch.partition(1, "p" + std::to_string(i));
  batch.partition(2, "p3");
  batch.partition(1, "p3");
  REQUIRE(batch.updates().size() == 21);
  CHECK(batch.updates()[20].table == 2);
  CHECK(batch.updates()[20].partition_key == "p3");
}

TEST_CASE("WriteBatch::partition after mutable_updates() and clear() sees the new contents") {
  WriteBatch batch;
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
