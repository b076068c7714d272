// Memtable::add_batch (sorted grouping + finger insertion) against a model: whatever order and
// shape the batches have, iteration and seeks must be exactly what one add() per entry gives.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/storage/memtable.h"

using namespace cassette::storage;

namespace {

// Model: (table, key, seq) -> value; a table's entries iterate by key, newest first.
struct Model {
  std::map<std::tuple<TableId, std::string, uint64_t>, std::string, std::less<>> entries;

  std::vector<std::string> table(TableId t, SequenceNumber snapshot) const {
    std::vector<std::tuple<std::string, uint64_t, std::string>> rows;
    for (const auto& [k, v] : entries) {
      if (std::get<0>(k) == t && std::get<2>(k) <= snapshot)
        rows.emplace_back(std::get<1>(k), std::get<2>(k), v);
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
      return std::get<1>(a) > std::get<1>(b);
    });
    std::vector<std::string> out;
    for (const auto& [k, s, v] : rows) out.push_back(k + "@" + std::to_string(s) + "=" + v);
    return out;
  }
};

std::vector<std::string> iterate(const Memtable& mem, TableId t, SequenceNumber snapshot) {
  std::vector<std::string> out;
  Memtable::Iterator it(&mem, t, snapshot);
  for (it.seek_to_first(); it.valid(); it.next()) {
    // The value carries its sequence number (see make_value), so fragments are told apart.
    std::string v(it.value());
    out.push_back(std::string(it.key()) + "@" + v.substr(0, v.find(':')) + "=" +
                  v.substr(v.find(':') + 1));
  }
  return out;
}

std::vector<std::string> iterate_backward(const Memtable& mem, TableId t, SequenceNumber snapshot) {
  std::vector<std::string> out;
  Memtable::Iterator it(&mem, t, snapshot);
  for (it.seek_to_last(); it.valid(); it.prev()) {
    std::string v(it.value());
    out.push_back(std::string(it.key()) + "@" + v.substr(0, v.find(':')) + "=" +
                  v.substr(v.find(':') + 1));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// Keys shaped like entry keys: 8 "token" bytes shared by a partition, then a clustering part.
std::string make_key(int partition, int row) {
  std::string k;
  uint64_t token = static_cast<uint64_t>(partition) * 0x9E3779B97F4A7C15ull;
  for (int i = 7; i >= 0; --i) k.push_back(static_cast<char>(token >> (8 * i)));
  k += "p" + std::to_string(partition) + "|";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08d", row);
  return k + buf;
}

}  // namespace

TEST_CASE(
    "Memtable::add_batch agrees with a model for ascending, descending, random and mixed batches") {
  for (int shape = 0; shape < 5; ++shape) {
    CAPTURE(shape);
    Memtable mem;
    Model model;
    std::mt19937_64 rng(1000 + shape);
    SequenceNumber seq = 0;
    for (int round = 0; round < 12; ++round) {
      ++seq;
      std::vector<std::string> keys, values;
      std::vector<TableId> tables;
      const int partitions = 1 + static_cast<int>(rng() % 20);
      const int per = 1 + static_cast<int>(rng() % 60);
      for (int p = 0; p < partitions; ++p) {
        int base = static_cast<int>(rng() % 500);
        for (int r = 0; r < per; ++r) {
          int row = shape == 0   ? base + r                            // ascending
                    : shape == 1 ? base + per - r                      // descending
                    : shape == 2 ? static_cast<int>(rng() % 1000)      // random
                    : shape == 3 ? (r % 2 == 0 ? base + r : base - r)  // zig-zag
                                 : base + r;
          keys.push_back(make_key(static_cast<int>(rng() % (shape == 4 ? 3 : 40)), row));
          tables.push_back(rng() % 3 + (shape == 4 ? 0 : 5));
        }
      }
      if (shape != 0 && shape != 1) std::shuffle(keys.begin(), keys.end(), rng);
      // One key at most once per batch (fragments of one key in one transaction have no order).
      std::map<std::pair<TableId, std::string>, size_t> seen;
      std::vector<Memtable::BatchEntry> batch;
      values.reserve(keys.size());
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!seen.emplace(std::make_pair(tables[i], keys[i]), i).second) continue;
        values.push_back(std::to_string(seq) + ":" + std::to_string(i));
      }
      size_t v = 0;
      seen.clear();
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!seen.emplace(std::make_pair(tables[i], keys[i]), i).second) continue;
        batch.push_back({tables[i], keys[i], values[v]});
        model.entries[{tables[i], keys[i], seq}] = values[v].substr(values[v].find(':') + 1);
        ++v;
      }
      if (round % 4 == 3) {
        for (const auto& e : batch) mem.add(seq, e.table, e.key, e.value);  // mixed with add()
      } else {
        mem.add_batch(seq, batch);
      }
    }
    CHECK(mem.entry_count() == model.entries.size());
    for (TableId t : {0, 1, 2, 5, 6, 7}) {
      CAPTURE(t);
      for (SequenceNumber snap : {seq, seq / 2, SequenceNumber{1}}) {
        std::vector<std::string> want = model.table(t, snap);
        CHECK(iterate(mem, t, snap) == want);
        CHECK(iterate_backward(mem, t, snap) == want);
      }
      // Seeks (they use every level of the skiplist) find the model's lower bound.
      for (int probe = 0; probe < 200; ++probe) {
        std::string target = make_key(static_cast<int>(rng() % 40), static_cast<int>(rng() % 1000));
        Memtable::Iterator it(&mem, t, seq);
        it.seek(target);
        auto lb = model.entries.lower_bound(std::make_tuple(t, target, uint64_t{0}));
        while (lb != model.entries.end() && std::get<0>(lb->first) == t &&
               std::get<1>(lb->first) < target)
          ++lb;
        if (lb == model.entries.end() || std::get<0>(lb->first) != t) {
          CHECK_FALSE(it.valid());
        } else {
          REQUIRE(it.valid());
          CHECK(it.key() == std::get<1>(lb->first));
        }
      }
    }
  }
}

TEST_CASE("Memtable::add_batch keeps both fragments of a key written twice in one batch") {
  Memtable mem;
  std::string k1 = make_key(1, 5), k2 = make_key(1, 6);
  mem.add_batch(1, {{3, k2, "a"}, {3, k1, "b"}, {3, k2, "c"}});
  std::vector<std::string> got;
  Memtable::Iterator it(&mem, 3, 1);
  for (it.seek_to_first(); it.valid(); it.next()) got.emplace_back(it.value());
  REQUIRE(got.size() == 3);
  CHECK(got[0] == "b");
  std::sort(got.begin() + 1, got.end());
  CHECK(got[1] == "a");
  CHECK(got[2] == "c");
  mem.add_batch(2, {});
  CHECK(mem.entry_count() == 3);
}
