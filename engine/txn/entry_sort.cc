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
bool rank_partitions(std::span<const SortedRun::Item> items, std::vector<uint32_t>* group,
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
void rank_tables(std::span<const SortedRun::Item> items, std::vector<uint32_t>* group,
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

// The records distributed by group, each group's in item order (a counting sort: the groups
// are few, their ranks dense).
std::vector<Record> bucket_records(std::span<const SortedRun::Item> items,
                                   const std::vector<uint32_t>& group,
                                   const std::vector<uint32_t>& offset,
                                   std::vector<size_t>* starts) {
  starts->assign(offset.size() + 1, 0);
  for (uint32_t g : group) ++(*starts)[g + 1];
  for (size_t g = 1; g < starts->size(); ++g) (*starts)[g] += (*starts)[g - 1];
  std::vector<size_t> next(starts->begin(), starts->end() - 1);
  std::vector<Record> records(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const uint32_t g = group[i];
    const size_t from = offset[g];
    records[next[g]++] = {g, static_cast<uint32_t>(i), load_be(items[i].key, from),
                          load_be(items[i].key, from + 8)};
  }
  return records;
}

}  // namespace

bool sort_order(std::span<const SortedRun::Item> items, std::vector<uint32_t>* order) {
  order->resize(items.size());
  for (uint32_t i = 0; i < order->size(); ++i) (*order)[i] = i;
  if (items.size() < 2) return false;
  std::vector<uint32_t> group, offset;
  if (!rank_partitions(items, &group, &offset)) rank_tables(items, &group, &offset);
  std::vector<size_t> starts;
  std::vector<Record> records = bucket_records(items, group, offset, &starts);
  group = {};
  // Within a group (one offset) the 16 bytes, then the rest of the keys (whole, for the
  // length), then the item order.
  auto compare = [&](const Record& x, const Record& y) -> int {
    if (x.a != y.a) return x.a < y.a ? -1 : 1;
    if (x.b != y.b) return x.b < y.b ? -1 : 1;
    const size_t from = offset[x.group];
    return tail(items[x.item].key, from).compare(tail(items[y.item].key, from));
  };
  auto less = [&](const Record& x, const Record& y) {
    const int c = compare(x, y);
    return c != 0 ? c < 0 : x.item < y.item;
  };
  bool repeats = false;
  for (size_t g = 0; g + 1 < starts.size(); ++g) {
    Record* begin = records.data() + starts[g];
    Record* end = records.data() + starts[g + 1];
    if (end - begin < 2) continue;
    // Arrived in key order (equal keys are in item order already), or in strictly descending
    // key order: no sort.
    Record* p = begin + 1;
    for (; p != end; ++p) {
      const int c = compare(p[-1], *p);
      if (c > 0) break;
      repeats = repeats || c == 0;
    }
    if (p == end) continue;
    if (p == begin + 1) {
      while (p != end && compare(p[-1], *p) > 0) ++p;
      if (p == end) {
        std::reverse(begin, end);
        continue;
      }
    }
    std::sort(begin, end, less);
    for (p = begin + 1; p != end && !repeats; ++p) {
      repeats = p[-1].a == p->a && p[-1].b == p->b && compare(p[-1], *p) == 0;
    }
  }
  for (size_t i = 0; i < records.size(); ++i) (*order)[i] = records[i].item;
  return repeats;
}

void sort_by_key(std::vector<SortedRun::Item>* items) {
  std::vector<uint32_t> order;
  sort_order(*items, &order);
  std::vector<SortedRun::Item> sorted;
  sorted.reserve(items->size());
  for (uint32_t i : order) sorted.push_back((*items)[i]);
  *items = std::move(sorted);
}

}  // namespace cassette::txn
