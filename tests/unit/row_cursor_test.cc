// The read path's two ways of producing a row must agree: a key held by one source is decoded
// in place (the fast path), a key held by several sources, or by several fragments of one
// memtable, is decoded version by version and reconciled (the merge path). The same random
// history of inserts, cell updates, row deletions, range tombstones, partition deletions and
// static rows is read from three layouts of the same data (a memtable plus several SSTables;
// one memtable with many fragments per key; one compacted SSTable) and checked against a
// model of Cassandra's rules, in every read shape the cursor has.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include "engine/types/murmur3.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 7;
constexpr int64_t kClusterings = 30;
constexpr int64_t kNowSeconds = 1'700'000'000;

StoreOptions cursor_test_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  o.compaction_min_threshold = 1000;  // keep every flushed SSTable a separate source
  o.compaction_max_threshold = 1000;
  return o;
}

// What the model keeps per clustering row and per partition (timestamps are unique, so no
// equal-timestamp tie-breaks are involved).
struct ModelRow {
  int64_t marker = kNoTimestamp;
  int64_t cell = kNoTimestamp;
  std::string value;
  int64_t deleted = kNoTimestamp;
};
struct ModelRange {
  int64_t start, end, ts;  // clusterings [start, end)
};
struct ModelPartition {
  std::map<int64_t, ModelRow> rows;
  std::vector<ModelRange> ranges;
  int64_t deleted = kNoTimestamp;
  int64_t static_ts = kNoTimestamp;
  std::string static_value;
};

// One row a read yields, as a comparable string: "pk|clustering|value|static" or
// "pk|static-only|static".
std::string render(const RowCursor& cursor) {
  const Row* st = cursor.static_row();
  std::string static_value = st == nullptr ? "-" : cell_value(*st);
  if (cursor.is_static_only()) return cursor.partition_key() + "|static-only|" + static_value;
  return cursor.partition_key() + "|" + std::to_string(ck_value(cursor.clustering())) + "|" +
         cell_value(cursor.row()) + "|" + static_value;
}

std::vector<std::string> drain_all(RowCursor& cursor, size_t per_partition = SIZE_MAX) {
  std::vector<std::string> out;
  std::string partition;
  size_t in_partition = 0;
  while (cursor.next()) {
    if (cursor.partition_key() != partition) {
      partition = cursor.partition_key();
      in_partition = 0;
    }
    out.push_back(render(cursor));
    if (++in_partition == per_partition) cursor.skip_partition();
  }
  if (!cursor.status().is_ok()) throw std::runtime_error(cursor.status().message());
  return out;
}

class Model {
 public:
  std::map<std::string, ModelPartition> partitions;

  // The rows of one partition in clustering order within [from, to), as the cursor renders them.
  std::vector<std::string> partition_rows(const std::string& pk, int64_t from, int64_t to,
                                          bool reverse, bool emit_static_only) const {
    std::vector<std::string> out;
    auto it = partitions.find(pk);
    if (it == partitions.end()) return out;
    const ModelPartition& p = it->second;
    const bool static_live = p.static_ts != kNoTimestamp && p.static_ts > p.deleted;
    const std::string static_value = static_live ? p.static_value : "-";
    bool any_live = false;
    for (const auto& [c, row] : p.rows) {
      int64_t deletion = std::max(row.deleted, p.deleted);
      for (const ModelRange& r : p.ranges) {
        if (c >= r.start && c < r.end) deletion = std::max(deletion, r.ts);
      }
      const bool marker = row.marker != kNoTimestamp && row.marker > deletion;
      const bool cell = row.cell != kNoTimestamp && row.cell > deletion;
      if (!marker && !cell) continue;
      any_live = true;  // in the whole partition, not only the slice
      if (c < from || c >= to) continue;
      out.push_back(pk + "|" + std::to_string(c) + "|" + (cell ? row.value : "<none>") + "|" +
                    static_value);
    }
    if (reverse) std::reverse(out.begin(), out.end());
    // A partition with a live static row and no live rows reads as one static-only row
    // (callers ask for it only when they do not restrict the clustering).
    if (!any_live && static_live && emit_static_only)
      out.push_back(pk + "|static-only|" + static_value);
    return out;
  }

  // Partitions in the cursor's order: by token, then by key bytes.
  std::vector<std::string> ordered(bool reverse) const {
    std::vector<std::pair<int64_t, std::string>> keys;
    for (const auto& [pk, p] : partitions) keys.push_back({cassette::types::murmur3_token(pk), pk});
    std::sort(keys.begin(), keys.end());
    std::vector<std::string> out;
    for (auto& k : keys) out.push_back(k.second);
    if (reverse) std::reverse(out.begin(), out.end());
    return out;
  }
};

// Applies `ops` random operations to every store and to the model; `between` runs after each
// batch of ten (flushing some of the stores).
void random_history(std::vector<Store*> stores, Model* model, int ops,
                    const std::function<void(int)>& between) {
  std::mt19937 rng(20261123);
  const std::vector<std::string> keys = {
      "a", "b", "c", "d", "e", std::string("z\0x", 3), "long-partition-key"};
  std::vector<int64_t> timestamps(ops);
  std::iota(timestamps.begin(), timestamps.end(), 1000);
  std::shuffle(timestamps.begin(), timestamps.end(), rng);  // writes arrive out of timestamp order
  for (int i = 0; i < ops; ++i) {
    const std::string& pk = keys[rng() % keys.size()];
    const int64_t c = static_cast<int64_t>(rng() % kClusterings);
    const int64_t ts = timestamps[i];
    ModelPartition& mp = model->partitions[pk];
    MutationBuilder batch;
    PartitionUpdate& update = batch.partition(kTable, pk);
    const unsigned kind = rng() % 100;
    if (kind < 50) {  // INSERT: marker and cell
      update.rows.push_back({ck(c), insert_row("v" + std::to_string(ts), ts)});
      ModelRow& r = mp.rows[c];
      r.marker = std::max(r.marker, ts);
      if (ts > r.cell) r.cell = ts, r.value = "v" + std::to_string(ts);
    } else if (kind < 65) {  // UPDATE: the cell only
      Row row;
      ColumnData col;
      col.id = kValueColumn;
      col.cell = Cell::live(ts, "u" + std::to_string(ts));
      row.columns.push_back(std::move(col));
      update.rows.push_back({ck(c), std::move(row)});
      ModelRow& r = mp.rows[c];
      if (ts > r.cell) r.cell = ts, r.value = "u" + std::to_string(ts);
    } else if (kind < 78) {  // DELETE of a row
      update.rows.push_back({ck(c), deleted_row(kNowSeconds, ts)});
      ModelRow& r = mp.rows[c];
      r.deleted = std::max(r.deleted, ts);
    } else if (kind < 88) {  // a range tombstone [c, c + n)
      const int64_t end = std::min<int64_t>(kClusterings, c + 1 + static_cast<int64_t>(rng() % 6));
      update.header.range_tombstones.push_back({ck(c), ck(end), DeletionTime{ts, kNowSeconds}});
      mp.ranges.push_back({c, end, ts});
    } else if (kind < 91) {  // a partition deletion
      update.header.deletion = DeletionTime{ts, kNowSeconds};
      mp.deleted = std::max(mp.deleted, ts);
    } else {  // a static row
      update.static_row = insert_row("s" + std::to_string(ts), ts);
      if (ts > mp.static_ts) mp.static_ts = ts, mp.static_value = "s" + std::to_string(ts);
    }
    for (Store* s : stores) REQUIRE(apply_mutations(*s, batch).is_ok());
    if (i % 10 == 9) between(i);
  }
}

std::vector<std::string> scan(Store& store, bool reverse, size_t per_partition = SIZE_MAX) {
  auto snap = store.snapshot().value();
  ReadSpec spec = Store::range_spec({});
  spec.reverse = reverse;
  auto cursor = store.read(*snap, kTable, spec);
  return drain_all(*cursor, per_partition);
}

std::vector<std::string> slice_scan(Store& store, int64_t from, int64_t to, bool reverse) {
  auto snap = store.snapshot().value();
  ReadSpec spec = Store::range_spec({});
  spec.clustering_start = ck(from);
  spec.clustering_end = ck(to);
  spec.reverse = reverse;
  spec.emit_static_only = false;
  auto cursor = store.read(*snap, kTable, spec);
  return drain_all(*cursor);
}

std::vector<std::string> partition(Store& store, const std::string& pk, int64_t from, int64_t to,
                                   bool reverse, size_t limit = SIZE_MAX) {
  auto snap = store.snapshot().value();
  ReadSpec spec = Store::partition_spec(pk);
  const bool whole = from == 0 && to == kClusterings;
  if (!whole) {
    spec.clustering_start = ck(from);
    spec.clustering_end = ck(to);
    spec.emit_static_only = false;
  }
  spec.reverse = reverse;
  auto cursor = store.read(*snap, kTable, spec);
  std::vector<std::string> out;
  while (out.size() < limit && cursor->next()) out.push_back(render(*cursor));
  if (!cursor->status().is_ok()) throw std::runtime_error(cursor->status().message());
  return out;
}

// Every read shape, for one store, against the model.
void check_against_model(Store& store, const Model& model, const std::string& layout) {
  CAPTURE(layout);
  for (bool reverse : {false, true}) {
    CAPTURE(reverse);
    std::vector<std::string> want, want_first2, want_slice;
    for (const std::string& pk : model.ordered(reverse)) {
      auto rows = model.partition_rows(pk, 0, kClusterings, reverse, true);
      want.insert(want.end(), rows.begin(), rows.end());
      for (size_t i = 0; i < rows.size() && i < 2; ++i) want_first2.push_back(rows[i]);
      auto sliced = model.partition_rows(pk, 5, 20, reverse, false);
      want_slice.insert(want_slice.end(), sliced.begin(), sliced.end());
      CHECK(partition(store, pk, 0, kClusterings, reverse) == rows);
      CHECK(partition(store, pk, 5, 20, reverse) == sliced);
      auto limited = model.partition_rows(pk, 3, 27, reverse, false);
      if (limited.size() > 4) limited.resize(4);
      CHECK(partition(store, pk, 3, 27, reverse, 4) == limited);
    }
    CHECK(scan(store, reverse) == want);
    CHECK(scan(store, reverse, 2) == want_first2);  // skip_partition after two rows
    CHECK(slice_scan(store, 5, 20, reverse) == want_slice);
  }
}

}  // namespace

TEST_CASE("row cursor: one source, many sources and memtable fragments read the same rows") {
  TempDir layered_dir, memtable_dir;
  auto layered = Store::open(layered_dir.path(), cursor_test_options()).value();
  StoreOptions big = cursor_test_options();
  big.memtable_budget_bytes = 256 << 20;
  auto memtable = Store::open(memtable_dir.path(), big).value();
  Model model;
  int flushes = 0;
  random_history({layered.get(), memtable.get()}, &model, 1500, [&](int i) {
    if (i % 150 == 149) {
      REQUIRE(layered->flush().is_ok());
      ++flushes;
    }
  });
  REQUIRE(flushes == 10);
  CHECK(layered->stats().sstable_count == 10);  // ten SSTables and a memtable: the merge path
  CHECK(memtable->stats().sstable_count == 0);  // one memtable, many fragments per key

  // Sanity of the model itself: the history left live rows, deleted rows and static-only
  // partitions to tell apart.
  size_t live = 0;
  for (const auto& [pk, p] : model.partitions)
    live += model.partition_rows(pk, 0, kClusterings, false, false).size();
  CHECK(live > 20);
  CHECK(live < model.partitions.size() * kClusterings);

  check_against_model(*memtable, model, "memtable");
  check_against_model(*layered, model, "memtable + SSTables");
  REQUIRE(layered->flush().is_ok());
  REQUIRE(layered->compact(kTable).is_ok());
  CHECK(layered->stats().sstable_count == 1);  // one source, one version per key: the fast path
  check_against_model(*layered, model, "one compacted SSTable");
  CHECK(scan(*layered, false) == scan(*memtable, false));
  CHECK(scan(*layered, true) == scan(*memtable, true));
}
