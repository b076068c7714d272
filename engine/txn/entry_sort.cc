#include "engine/txn/entry_sort.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "engine/storage/internal_key.h"
#include "engine/util/hash64.h"

namespace cassette::txn {
namespace {

// One item as the sort sees it: `group` (a partition's rank, or a table's) and the 16 key bytes
// from the group's offset, big-endian so that integer order is memcmp order (short keys padded
// with zeros: a tie on them is settled by the key bytes themselves).
struct Record {
  uint32_t group;
  uint32_t item;
  uint64_t a;
  uint64_t b;
};

uint64_t load_be(std::string_view bytes, size_t from) {
  unsigned char buf[8] = {};
  if (from < bytes.size())
    std::memcpy(buf, bytes.data() + from, std::min<size_t>(8, bytes.size() - from));
  uint64_t v = 0;
  for (unsigned char c : buf) v = (v << 8) | c;
  return v;
}

std::string_view tail(std::string_view key, size_t from) {
  return from < key.size() ? key.substr(from) : std::string_view();
}

bool plain_less(const SortedRun::Item& x, const SortedRun::Item& y) {
  if (x.table != y.table) return x.table < y.table;
  return x.key < y.key;
}

struct Partition {
  storage::TableId table;
  std::string_view prefix;
  bool operator==(const Partition& o) const { return table == o.table && prefix == o.prefix; }
};
struct PartitionHash {
  size_t operator()(const Partition& p) const { return hash64(p.prefix, p.table); }
};

// Groups of the partition path: each item's partition ranked in (table, prefix) order; offsets
// are the prefix lengths. False when the keys do not suit it (a malformed key, or so many
// partitions that ranking them costs what the plain sort would).
bool rank_partitions(const std::vector<SortedRun::Item>& items, std::vector<uint32_t>* group,
                     std::vector<uint32_t>* offset) {
  const size_t limit = items.size() / 4 + 16;
  std::unordered_map<Partition, uint32_t, PartitionHash> ids;
  std::vector<Partition> partitions;
  group->resize(items.size());
  const Partition* last = nullptr;  // consecutive rows of one partition skip the lookup
  uint32_t last_id = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const size_t p = storage::partition_prefix_length(items[i].key);
    if (p == 0) return false;
    const Partition key{items[i].table, items[i].key.substr(0, p)};
    if (last != nullptr && *last == key) {
      (*group)[i] = last_id;
      continue;
    }
    auto [it, added] = ids.emplace(key, static_cast<uint32_t>(partitions.size()));
    if (added) {
      if (partitions.size() >= limit) return false;
      partitions.push_back(key);
    }
    last = &it->first;
    last_id = it->second;
    (*group)[i] = last_id;
  }
  std::vector<uint32_t> order(partitions.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const Partition& px = partitions[x];
    const Partition& py = partitions[y];
    if (px.table != py.table) return px.table < py.table;
    return px.prefix < py.prefix;  // prefixes are prefix-free: their order is the keys'
  });
  std::vector<uint32_t> rank(partitions.size());
  offset->resize(partitions.size());
  for (uint32_t r = 0; r < order.size(); ++r) {
    rank[order[r]] = r;
    (*offset)[r] = static_cast<uint32_t>(partitions[order[r]].prefix.size());
  }
  for (uint32_t& g : *group) g = rank[g];
  return true;
}

// Groups of the table path: each item's table ranked; every offset 0.
void rank_tables(const std::vector<SortedRun::Item>& items, std::vector<uint32_t>* group,
                 std::vector<uint32_t>* offset) {
  std::vector<storage::TableId> tables;
  for (const SortedRun::Item& item : items) {
    if (tables.empty() || tables.back() != item.table) tables.push_back(item.table);
  }
  std::sort(tables.begin(), tables.end());
  tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
  group->resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    (*group)[i] = static_cast<uint32_t>(
        std::lower_bound(tables.begin(), tables.end(), items[i].table) - tables.begin());
  }
  offset->assign(tables.size(), 0);
}

}  // namespace

void sort_by_key(std::vector<SortedRun::Item>* items) {
  std::vector<SortedRun::Item>& v = *items;
  if (v.size() < 2) return;
  if (v.size() > UINT32_MAX) {
    std::sort(v.begin(), v.end(), plain_less);
    return;
  }
  std::vector<uint32_t> group, offset;
  if (!rank_partitions(v, &group, &offset)) rank_tables(v, &group, &offset);
  std::vector<Record> records(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t from = offset[group[i]];
    records[i] = {group[i], static_cast<uint32_t>(i), load_be(v[i].key, from),
                  load_be(v[i].key, from + 8)};
  }
  std::sort(records.begin(), records.end(), [&](const Record& x, const Record& y) {
    if (x.group != y.group) return x.group < y.group;
    if (x.a != y.a) return x.a < y.a;
    if (x.b != y.b) return x.b < y.b;
    // One group, one offset: the rest of the keys decides (whole, for the length).
    const size_t from = offset[x.group];
    return tail(v[x.item].key, from) < tail(v[y.item].key, from);
  });
  std::vector<SortedRun::Item> sorted;
  sorted.reserve(v.size());
  // Rows of one partition were written far apart: fetch a few ahead (a cache miss each).
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < records.size(); ++i) {
    if (i + kAhead < records.size()) __builtin_prefetch(&v[records[i + kAhead].item]);
    sorted.push_back(v[records[i].item]);
  }
  v = std::move(sorted);
}

}  // namespace cassette::txn
