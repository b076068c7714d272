// txn::sort_by_key and sort_order (engine/txn/entry_sort.h): the order a spill writes its runs in
// is exactly (table, memcmp of the entry key), stable, whichever path the sort takes.
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

// sort_order of `keys` against a stable sort of them, and its report of repeated keys.
void check_order(const std::vector<std::pair<storage::TableId, std::string>>& keys) {
  std::vector<Item> items;
  for (const auto& [table, key] : keys) items.push_back({table, key, {}, false});
  std::vector<uint32_t> want(items.size());
  for (uint32_t i = 0; i < want.size(); ++i) want[i] = i;
  auto less = [&](uint32_t a, uint32_t b) {
    return keys[a].first != keys[b].first ? keys[a].first < keys[b].first
                                          : keys[a].second < keys[b].second;
  };
  std::stable_sort(want.begin(), want.end(), less);
  bool repeats = false;
  for (size_t i = 1; i < want.size(); ++i) repeats = repeats || !less(want[i - 1], want[i]);
  std::vector<uint32_t> order;
  CHECK(txn::sort_order(items, &order) == repeats);
  CHECK(order == want);
}

TEST_CASE("entry sort: stable, in-order and reverse-order partitions, repeated keys") {
  std::mt19937_64 rng(3);
  for (int shape = 0; shape < 6; ++shape) {
    CAPTURE(shape);
    std::vector<std::pair<storage::TableId, std::string>> keys;
    for (int i = 0; i < 3000; ++i) {
      const int p = static_cast<int>(rng() % 12);
      // Each partition's rows arrive in ascending (shape 0, 3), descending (1, 4) or random
      // (2, 5) clustering order; shapes 3-5 repeat some keys (a row written twice), which must
      // keep their order (the fold takes the later one): shape 4 the key just written (a
      // descending partition with a tie is no reverse-order one), the others any earlier key.
      int c = shape % 3 == 0 ? i : shape % 3 == 1 ? 10000 - i : static_cast<int>(rng() % 5000);
      if (shape >= 3 && rng() % 8 == 0 && !keys.empty()) {
        keys.push_back(shape == 4 ? keys.back() : keys[rng() % keys.size()]);
        continue;
      }
      std::string clustering(18, 'x');  // ties on the records' 16 bytes: the keys decide
      clustering += std::to_string(100000 + c);
      keys.emplace_back(1 + p % 2, row_key(p * 7, "partition-" + std::to_string(p), clustering));
    }
    check_order(keys);
  }
  // A partition per row (the table path), with repeats; malformed keys; too few to sort.
  std::vector<std::pair<storage::TableId, std::string>> keys;
  for (int i = 0; i < 2000; ++i) {
    keys.emplace_back(1, row_key(static_cast<int64_t>(rng() % 100), std::to_string(i % 1500), "c"));
  }
  check_order(keys);
  check_order({{1, "b"}, {1, "a"}, {1, "b"}, {1, ""}, {1, ""}, {0, "b"}});
  check_order({{1, "a"}});
  check_order({});
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
