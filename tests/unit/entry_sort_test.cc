// txn::sort_by_key (engine/txn/entry_sort.h): the order a spill writes its runs in is exactly
// (table, memcmp of the entry key), whichever path the sort takes.
#include "engine/txn/entry_sort.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/storage/internal_key.h"

namespace cassette {
namespace {

using Item = txn::SortedRun::Item;

// Sorts `keys` (table, key) both ways and checks the orders agree item by item.
void check_sorts_as_memcmp(const std::vector<std::pair<storage::TableId, std::string>>& keys) {
  std::vector<Item> items;
  for (const auto& [table, key] : keys) items.push_back({table, key, {}, false});
  std::vector<Item> want = items;
  std::sort(want.begin(), want.end(), [](const Item& a, const Item& b) {
    return a.table != b.table ? a.table < b.table : a.key < b.key;
  });
  txn::sort_by_key(&items);
  REQUIRE(items.size() == want.size());
  for (size_t i = 0; i < items.size(); ++i) {
    CAPTURE(i);
    CHECK(items[i].table == want[i].table);
    CHECK(items[i].key == want[i].key);
  }
}

std::string row_key(int64_t token, std::string_view partition, std::string_view clustering) {
  return storage::entry_key(storage::partition_prefix(token, partition), storage::EntryKind::kRow,
                            clustering);
}

std::string random_bytes(std::mt19937_64& rng, size_t max_length, int alphabet) {
  std::string s(rng() % (max_length + 1), '\0');
  for (char& c : s) c = static_cast<char>(rng() % alphabet);
  return s;
}

TEST_CASE("entry sort: a bulk load's few partitions, clustering ties past 16 bytes") {
  std::mt19937_64 rng(7);
  std::vector<std::pair<storage::TableId, std::string>> keys;
  for (int i = 0; i < 20000; ++i) {
    const int p = static_cast<int>(rng() % 40);
    // Tokens collide for two partitions apart, as murmur3 may: the partition key decides.
    const int64_t token = (p % 20) * 1000003 - 10000000;
    std::string partition = "source-" + std::to_string(p);
    if (p % 7 == 0) partition.push_back('\0');  // escaped zero bytes in the prefix
    // A shared 20-byte clustering head, then a varying tail of varying length: ties on the
    // records' 16 bytes are settled by the keys.
    std::string clustering(20, 'c');
    clustering += random_bytes(rng, 6, 3);
    const storage::TableId table = 1 + rng() % 3;
    keys.emplace_back(table, row_key(token, partition, clustering));
    if (i % 500 == 0) {  // headers and static rows of the same partitions
      keys.emplace_back(table, storage::entry_key(storage::partition_prefix(token, partition),
                                                  storage::EntryKind::kStaticRow));
      keys.emplace_back(table, storage::entry_key(storage::partition_prefix(token, partition),
                                                  storage::EntryKind::kPartitionHeader));
    }
  }
  // The fold writes each key once.
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::shuffle(keys.begin(), keys.end(), rng);
  check_sorts_as_memcmp(keys);
}

TEST_CASE("entry sort: a partition per row, equal first 16 bytes") {
  std::mt19937_64 rng(11);
  std::vector<std::pair<storage::TableId, std::string>> keys;
  for (int i = 0; i < 5000; ++i) {
    // Few distinct tokens and long shared partition-key heads: the table path's 16 bytes tie.
    const int64_t token = static_cast<int64_t>(rng() % 4) - 2;
    std::string partition = "pk" + random_bytes(rng, 12, 2) + std::to_string(i);
    keys.emplace_back(1 + rng() % 2, row_key(token, partition, random_bytes(rng, 3, 256)));
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  check_sorts_as_memcmp(keys);
}

TEST_CASE("entry sort: malformed and short keys sort whole") {
  std::vector<std::pair<storage::TableId, std::string>> keys = {{1, "b"},
                                                                {1, "a"},
                                                                {2, ""},
                                                                {1, std::string("ab\0", 3)},
                                                                {1, "ab"},
                                                                {1, row_key(5, "x", "")},
                                                                {1, row_key(5, "x", "y")},
                                                                {0, "zz"}};
  check_sorts_as_memcmp(keys);
  check_sorts_as_memcmp({});
  check_sorts_as_memcmp({{3, row_key(1, "p", "c")}});
}

}  // namespace
}  // namespace cassette
