// The storage engine on its own, from C++: a time series of sensor readings, one partition per
// sensor, newest reading first. Run by `make demo` until the SQLite extension takes over:
//
//   build/cassette_engine_demo build/demo.cassette
//
// Writes 10,000 readings in transactions of 100, flushes them into SSTables, and prints the five
// latest readings of one sensor (a reverse clustering slice) and the store's statistics.
#include <fmt/format.h>

#include <random>

#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"
#include "engine/types/byte_comparable.h"

using namespace cassette;
using namespace cassette::storage;

namespace {

constexpr TableId kReadings = 1;
constexpr ColumnId kValue = 1;

std::string bigint_bytes(int64_t v) {  // Cassandra's serialized bigint: 8 bytes big-endian
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
  return out;
}

std::string clustering_of(int64_t ts) {
  types::CqlType bigint;
  bigint.kind = types::TypeKind::kBigint;
  std::string out;
  (void)types::encode_clustering(std::span(&bigint, 1), std::array{false},
                                 std::array{bigint_bytes(ts)}, &out);
  return out;
}

int64_t ts_of(std::string_view clustering) {
  types::CqlType bigint;
  bigint.kind = types::TypeKind::kBigint;
  auto values = types::decode_clustering(std::span(&bigint, 1), std::array{false}, clustering);
  int64_t v = 0;
  for (unsigned char c : values.value()[0]) v = (v << 8) | c;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "demo.cassette";
  auto opened = Store::open(dir);
  if (!opened.is_ok()) {
    fmt::print(stderr, "cannot open {}: {}\n", dir, opened.status().message());
    return 1;
  }
  Store& store = **opened;
  std::mt19937 rng(7);
  int64_t start = 1'700'000'000'000;
  for (int batch_no = 0; batch_no < 100; ++batch_no) {
    MutationBuilder batch;
    for (int i = 0; i < 100; ++i) {
      int n = batch_no * 100 + i;
      Row row;
      row.liveness.timestamp = kAutoTimestamp;
      row.columns.push_back(
          {kValue,
           false,
           Cell::live(kAutoTimestamp, fmt::format("{:.1f} C", 15 + (rng() % 200) / 10.0)),
           {},
           {}});
      batch.partition(kReadings, fmt::format("sensor-{}", n % 10))
          .rows.push_back({clustering_of(start + n * 1000), row});
    }
    if (auto r = apply_mutations(store, batch); !r.is_ok()) {
      fmt::print(stderr, "write failed: {}\n", r.status().message());
      return 1;
    }
  }
  if (Status s = store.flush(); !s.is_ok()) {
    fmt::print(stderr, "flush failed: {}\n", s.message());
    return 1;
  }
  auto snapshot = store.snapshot().value();
  ReadSpec latest = Store::partition_spec("sensor-3");
  latest.reverse = true;
  auto cursor = store.read(*snapshot, kReadings, latest);
  fmt::print("latest readings of sensor-3:\n");
  for (int shown = 0; shown < 5 && cursor->next(); ++shown) {
    fmt::print("  ts={}  {}\n", ts_of(cursor->clustering()),
               cursor->row().find_column(kValue)->cell.value);
  }
  StoreStats stats = store.stats();
  fmt::print("store {}: {} SSTables, {} bytes on disk, {} flushes\n", store.path(),
             stats.sstable_count, stats.sstable_bytes, stats.flushes);
  return cursor->status().is_ok() ? 0 : 1;
}
