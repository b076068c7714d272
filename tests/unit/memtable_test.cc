#include "engine/storage/memtable.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "engine/storage/internal_key.h"

using namespace cassette::storage;

TEST_CASE("memtable iterates one table's entries in key order, newest fragment first") {
  Memtable mem;
  mem.add(1, 7, "b", "b1");
  mem.add(2, 7, "a", "a2");
  mem.add(3, 7, "b", "b3");
  mem.add(4, 8, "a", "other table");
  mem.add(5, 6, "z", "other table");
  Memtable::Iterator it(&mem, 7, 10);
  it.seek_to_first();
  std::vector<std::string> got;
  for (; it.valid(); it.next())
    got.push_back(std::string(it.key()) + "=" + std::string(it.value()));
  CHECK(got == std::vector<std::string>{"a=a2", "b=b3", "b=b1"});
  got.clear();
  for (it.seek_to_last(); it.valid(); it.prev()) got.push_back(std::string(it.value()));
  CHECK(got == std::vector<std::string>{"b1", "b3", "a2"});
}

TEST_CASE("memtable snapshots hide later sequence numbers") {
  Memtable mem;
  mem.add(1, 1, "k1", "v1");
  mem.add(2, 1, "k2", "v2");
  mem.add(3, 1, "k1", "v1b");
  Memtable::Iterator it(&mem, 1, 2);
  it.seek("k");
  REQUIRE(it.valid());
  CHECK(it.value() == "v1");
  it.next();
  REQUIRE(it.valid());
  CHECK(it.value() == "v2");
  it.next();
  CHECK_FALSE(it.valid());
  it.seek_for_prev("k1");
  REQUIRE(it.valid());
  CHECK(it.value() == "v1");
  it.seek_for_prev("k0");
  CHECK_FALSE(it.valid());
}

TEST_CASE("memtable seeks agree with a std::map model") {
  Memtable mem;
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 5000; ++i) {
    std::string k = std::to_string(rng() % 2000);
    std::string v = std::to_string(i);
    mem.add(i + 1, 3, k, v);
    model[k] = v;  // newest wins: the first fragment in iteration order
  }
  Memtable::Iterator it(&mem, 3, UINT64_MAX);
  for (int probe = 0; probe < 3000; ++probe) {
    std::string k = std::to_string(rng() % 2100);
    it.seek(k);
    auto m = model.lower_bound(k);
    if (m == model.end()) {
      CHECK_FALSE(it.valid());
    } else {
      REQUIRE(it.valid());
      CHECK(it.key() == m->first);
      CHECK(it.value() == m->second);
    }
    it.seek_for_prev(k);
    auto u = model.upper_bound(k);
    if (u == model.begin()) {
      CHECK_FALSE(it.valid());
    } else {
      --u;
      REQUIRE(it.valid());
      CHECK(it.key() == u->first);
    }
  }
}

TEST_CASE("memtable readers run concurrently with a writer") {
  Memtable mem;
  std::atomic<uint64_t> published{0};
  std::atomic<bool> read_once{false};
  std::thread writer([&] {
    for (uint64_t i = 1; i <= 20000; ++i) {
      mem.add(i, 1, partition_prefix(static_cast<int64_t>(i * 7919), "k"), "v");
      published.store(i, std::memory_order_release);
      // Halfway, until the reader has walked the memtable once: on a busy machine the writer
      // could otherwise finish before the reader runs at all.
      while (i == 10000 && !read_once.load()) std::this_thread::yield();
    }
  });
  uint64_t checks = 0;
  while (published.load() < 20000) {
    uint64_t snap = published.load(std::memory_order_acquire);
    Memtable::Iterator it(&mem, 1, snap);
    uint64_t n = 0;
    std::string last;
    for (it.seek_to_first(); it.valid(); it.next()) {
      REQUIRE(std::string(it.key()) > last);
      last = it.key();
      ++n;
    }
    CHECK(n == snap);  // everything published is visible, nothing later is
    // Backwards too (prev() walks forward from a node found further back, while nodes are
    // being linked in).
    n = 0;
    last.clear();
    for (it.seek_to_last(); it.valid(); it.prev()) {
      REQUIRE((last.empty() || std::string(it.key()) < last));
      last = it.key();
      ++n;
    }
    CHECK(n >= snap);  // later writes may show up here, but nothing is lost
    ++checks;
    read_once.store(true);
  }
  writer.join();
  CHECK(checks > 0);
}

TEST_CASE(
    "memtable reverse walks match the forward order, across tables, snapshots and fragments") {
  Memtable mem;
  std::mt19937_64 rng(7);
  uint64_t seq = 0;
  struct Added {
    TableId table;
    std::string key;
    uint64_t seq;
  };
  std::vector<Added> added;
  for (int i = 0; i < 4000; ++i) {
    // Three tables, few distinct keys (many fragments per key), sequence numbers in order.
    const TableId table = 1 + rng() % 3;
    added.push_back({table, "k" + std::to_string(rng() % 700), ++seq});
    mem.add(seq, table, added.back().key, "v" + std::to_string(seq));
  }
  // Key order, newest fragment first.
  std::sort(added.begin(), added.end(), [](const Added& a, const Added& b) {
    return a.key != b.key ? a.key < b.key : a.seq > b.seq;
  });
  for (uint64_t snapshot : {uint64_t{0}, uint64_t{1}, uint64_t{1234}, seq}) {
    for (TableId table : {TableId{1}, TableId{2}, TableId{3}, TableId{4}}) {
      CAPTURE(snapshot);
      CAPTURE(table);
      Memtable::Iterator it(&mem, table, snapshot);
      std::vector<std::string> forward, backward;
      for (it.seek_to_first(); it.valid(); it.next()) {
        forward.push_back(std::string(it.key()) + "=" + std::string(it.value()));
      }
      for (it.seek_to_last(); it.valid(); it.prev()) {
        backward.push_back(std::string(it.key()) + "=" + std::string(it.value()));
      }
      std::reverse(backward.begin(), backward.end());
      CHECK(forward == backward);
      std::vector<std::string> model;
      for (const Added& a : added) {
        if (a.table == table && a.seq <= snapshot)
          model.push_back(a.key + "=v" + std::to_string(a.seq));
      }
      CHECK(forward == model);
      if (forward.empty()) continue;
      // A random walk mixing next() and prev() stays on the forward order's positions.
      size_t pos = forward.size() - 1;
      it.seek_to_last();
      for (int step = 0; step < 3000; ++step) {
        REQUIRE(it.valid());
        REQUIRE(std::string(it.key()) + "=" + std::string(it.value()) == forward[pos]);
        const bool back = rng() % 3 != 0;  // mostly backwards
        if (back && pos > 0) {
          it.prev();
          --pos;
        } else if (!back && pos + 1 < forward.size()) {
          it.next();
          ++pos;
        }
      }
      // seek_for_prev lands on the newest visible fragment's last position of the key.
      it.seek_for_prev("k350");
      if (it.valid()) CHECK(std::string(it.key()) <= "k350");
    }
  }
  Memtable::Iterator all(&mem, 2, seq);
  size_t n = 0;
  for (all.seek_to_last(); all.valid(); all.prev()) ++n;
  CHECK(n > 1000);  // long enough to cross many refills of the backwards buffer
}
