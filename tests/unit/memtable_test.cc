#include <doctest/doctest.h>

#include <map>
#include <random>
#include <thread>
#include <vector>

#include "engine/storage/internal_key.h"
#include "engine/storage/memtable.h"

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
  for (; it.valid(); it.next()) got.push_back(std::string(it.key()) + "=" + std::string(it.value()));
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
  std::thread writer([&] {
    for (uint64_t i = 1; i <= 20000; ++i) {
      mem.add(i, 1, partition_prefix(static_cast<int64_t>(i * 7919), "k"), "v");
      published.store(i, std::memory_order_release);
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
    ++checks;
  }
  writer.join();
  CHECK(checks > 0);
}
