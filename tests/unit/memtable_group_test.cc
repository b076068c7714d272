// Memtable::add_batch of large batches: grouped by partition by counting (few partitions) or by
// sorting (many), it must build exactly the memtable one add() per entry builds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/storage/memtable.h"

using namespace cassette::storage;

namespace {

// Every entry of `table` visible at `snapshot`, in iteration order, as key=value.
std::vector<std::string> dump(const Memtable& mem, TableId table, SequenceNumber snapshot) {
  std::vector<std::string> out;
  Memtable::Iterator it(&mem, table, snapshot);
  for (it.seek_to_first(); it.valid(); it.next()) {
    out.push_back(std::string(it.key()) + "=" + std::string(it.value()));
  }
  return out;
}

}  // namespace

TEST_CASE(
    "Memtable::add_batch of large batches (grouped by counting or sorted) equals add() one by "
    "one") {
  // A batch of at least 4096 entries over few partitions is grouped by counting; over many
  // partitions it is sorted. Either way the memtable must be what one add() per entry makes.
  for (int partitions : {3, 40, 255, 300, 5000, 20000}) {
    CAPTURE(partitions);
    std::mt19937_64 rng(static_cast<uint64_t>(partitions));
    Memtable batched, single;
    for (SequenceNumber seq = 1; seq <= 3; ++seq) {
      std::vector<std::tuple<TableId, std::string, std::string>> writes;
      std::map<std::pair<TableId, std::string>, bool> seen;
      const int n = 6000 + static_cast<int>(rng() % 3000);
      for (int i = 0; i < n; ++i) {
        const int p = static_cast<int>(rng() % static_cast<uint64_t>(partitions));
        const TableId table = p % 3 == 0 ? 9 : 4;
        std::string key;
        const uint64_t token = static_cast<uint64_t>(p) * 0x9E3779B97F4A7C15ull;  // 8 token bytes
        for (int b = 7; b >= 0; --b) key.push_back(static_cast<char>(token >> (8 * b)));
        // Rows of a partition arrive ascending, descending or at random.
        const int row = p % 3 == 0   ? i
                        : p % 3 == 1 ? 1'000'000 - i
                                     : static_cast<int>(rng() % 1'000'000);
        char buf[16];
        std::snprintf(buf, sizeof buf, "%08d", row);
        key += buf;
        if (!seen.emplace(std::make_pair(table, key), true).second) continue;
        writes.emplace_back(table, key, std::to_string(seq) + ":" + std::to_string(i));
      }
      std::vector<Memtable::BatchEntry> batch;
      for (const auto& [t, k, v] : writes) {
        batch.push_back({t, k, v});
        single.add(seq, t, k, v);
      }
      batched.add_batch(seq, batch);
    }
    CHECK(batched.entry_count() == single.entry_count());
    for (TableId t : {TableId{4}, TableId{9}}) {
      for (SequenceNumber snap : {SequenceNumber{1}, SequenceNumber{3}}) {
        std::vector<std::string> want = dump(single, t, snap);
        CHECK(!want.empty());
        CHECK(dump(batched, t, snap) == want);
      }
    }
  }
}

TEST_CASE("Memtable::group_batch keeps the batch order within a partition") {
  // Equal (table, word) items must keep their order: fragments of a partition's rows are
  // inserted after one another in that order. Few groups (counting) and many (sorting).
  for (uint64_t groups : {7, 100000}) {
    CAPTURE(groups);
    std::mt19937_64 rng(groups);
    std::vector<Memtable::BatchEntry> entries(20000);
    std::vector<Memtable::BatchItem> items;
    for (const auto& e : entries) {
      const uint64_t g = rng() % groups;
      items.push_back({g % 2, g * 0x9E3779B97F4A7C15ull, &e});
    }
    Memtable::group_batch(items);
    REQUIRE(items.size() == entries.size());
    for (size_t i = 1; i < items.size(); ++i) {
      const auto& a = items[i - 1];
      const auto& b = items[i];
      const bool ordered = a.table != b.table ? a.table < b.table
                           : a.w1 != b.w1     ? a.w1 < b.w1
                                              : a.entry < b.entry;
      REQUIRE(ordered);
    }
  }
}

TEST_CASE(
    "Memtable orders by table id, then key bytes (short keys, zero bytes, extreme table ids)") {
  // The nodes cache the table id and the key's first 8 bytes as words: keys shorter than that,
  // keys with zero bytes and table ids at both ends must still order as (table, key bytes).
  std::mt19937_64 rng(42);
  Memtable mem;
  std::map<std::tuple<TableId, std::string, SequenceNumber>, std::string> model;
  const std::vector<TableId> tables = {0, 1, 256, UINT64_MAX - 1, UINT64_MAX};
  auto random_key = [&] {
    std::string k(rng() % 3 == 0 ? rng() % 9 : 8 + rng() % 12, 'a');
    for (char& c : k) c = static_cast<char>('a' + rng() % 3);
    if (rng() % 5 == 0 && !k.empty()) k[rng() % k.size()] = '\0';
    return k;
  };
  for (SequenceNumber seq = 1; seq <= 30; ++seq) {
    std::vector<std::tuple<TableId, std::string, std::string>> writes;
    std::map<std::pair<TableId, std::string>, bool> seen;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 50); i < n; ++i) {
      TableId t = tables[rng() % tables.size()];
      std::string key = random_key();
      if (!seen.emplace(std::make_pair(t, key), true).second) continue;
      std::string value = std::to_string(seq) + "/" + std::to_string(rng() % 1000);
      writes.emplace_back(t, key, value);
      model[{t, key, seq}] = value;
    }
    if (seq % 2 == 0) {
      for (const auto& [t, k, v] : writes) mem.add(seq, t, k, v);
    } else {
      std::vector<Memtable::BatchEntry> batch;
      for (const auto& [t, k, v] : writes) batch.push_back({t, k, v});
      mem.add_batch(seq, batch);
    }
  }
  CHECK(mem.entry_count() == model.size());
  for (TableId t : tables) {
    CAPTURE(t);
    for (SequenceNumber snap : {SequenceNumber{30}, SequenceNumber{11}}) {
      // The model orders equal keys by increasing seq: the memtable newest first.
      std::vector<std::string> want;
      for (auto it = model.begin(); it != model.end();) {
        auto end = it;
        std::vector<std::string> run;
        while (end != model.end() && std::get<0>(end->first) == std::get<0>(it->first) &&
               std::get<1>(end->first) == std::get<1>(it->first)) {
          if (std::get<0>(end->first) == t && std::get<2>(end->first) <= snap) {
            run.push_back(std::get<1>(end->first) + "=" + end->second);
          }
          ++end;
        }
        want.insert(want.end(), run.rbegin(), run.rend());
        it = end;
      }
      std::vector<std::string> backward;
      Memtable::Iterator it(&mem, t, snap);
      for (it.seek_to_last(); it.valid(); it.prev()) {
        backward.push_back(std::string(it.key()) + "=" + std::string(it.value()));
      }
      std::reverse(backward.begin(), backward.end());
      CHECK(dump(mem, t, snap) == want);
      CHECK(backward == want);
    }
    for (int probe = 0; probe < 100; ++probe) {
      const std::string target = random_key();
      Memtable::Iterator it(&mem, t, 30);
      it.seek(target);
      auto lb = model.lower_bound({t, target, 0});
      if (lb == model.end() || std::get<0>(lb->first) != t) {
        CHECK_FALSE(it.valid());
      } else {
        REQUIRE(it.valid());
        CHECK(it.key() == std::get<1>(lb->first));
      }
      it.seek_for_prev(target);
      auto ub = model.upper_bound({t, target, UINT64_MAX});
      if (ub == model.begin() || std::get<0>(std::prev(ub)->first) != t) {
        CHECK_FALSE(it.valid());
      } else {
        REQUIRE(it.valid());
        CHECK(it.key() == std::get<1>(std::prev(ub)->first));
      }
    }
  }
  // The raw iterator (flushes) sees every entry in (table, key) order, with its table.
  size_t raw = 0;
  TableId last_table = 0;
  for (Memtable::RawIterator r(&mem); r.valid(); r.next()) {
    CHECK(r.table() >= last_table);
    last_table = r.table();
    auto found = model.find({r.table(), std::string(r.key()), r.seq()});
    REQUIRE(found != model.end());
    CHECK(found->second == r.value());
    ++raw;
  }
  CHECK(raw == model.size());
}
