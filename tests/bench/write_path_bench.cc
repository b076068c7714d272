// A focused benchmark of the engine's write path, the shape of a bulk import (pg-import, the
// SQLite extension's INSERT...SELECT): WRITE_BENCH_ROWS rows (default 200k), one partition each
// (random tokens, so memtable inserts land all over the skiplist), WRITE_BENCH_BATCH rows
// (default 1000) per MutationBuilder, sync off, then the closing flush. Prints the time of each
// phase:
//   batch    building the MutationBuilders (MutationBuilder::partition)
//   apply    Store::apply (commit-record encoding, log append, memtable insert)
//   flush    Store::flush (SSTable writing)
//
// It shares the cassette_bench binary with engine_bench.cc (the CMake glob builds one program);
// engine_bench's main() runs it instead of the RocksDB comparison when CASSETTE_WRITE_BENCH is set:
//   CASSETTE_WRITE_BENCH=1 build/cassette_bench
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"

namespace {

using namespace cassette::storage;
using cassette::Status;

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v == nullptr ? fallback : std::strtoull(v, nullptr, 10);
}

[[noreturn]] void fail(const std::string& what) {
  fmt::print(stderr, "write bench failed: {}\n", what);
  std::exit(1);
}

}  // namespace

// Runs the benchmark and returns the exit status (engine_bench.cc's main() calls it).
int run_write_bench() {
  const uint64_t rows = env_or("WRITE_BENCH_ROWS", 200'000);
  const uint64_t per_batch = env_or("WRITE_BENCH_BATCH", 1000);
  const TableId table = 7;
  std::string dir = fmt::format("/tmp/cassette-write-bench-{}", ::getpid());
  std::filesystem::remove_all(dir);
  StoreOptions options;
  options.sync = SyncMode::kOff;
  options.memtable_budget_bytes = 1ull << 30;  // one closing flush, as a bulk import's
  auto opened = Store::open(dir, options);
  if (!opened.is_ok()) fail(opened.status().message());
  Store& store = **opened;

  double batch_s = 0, apply_s = 0;
  auto total = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < rows; i += per_batch) {
    auto t = std::chrono::steady_clock::now();
    MutationBuilder batch;
    for (uint64_t j = i; j < std::min(rows, i + per_batch); ++j) {
      // A bigint key (8 bytes) and a text and an int column, as a typical imported row.
      std::string key(8, '\0');
      for (int b = 0; b < 8; ++b) key[7 - b] = static_cast<char>(j >> (8 * b));
      Row row;
      row.liveness.timestamp = kAutoTimestamp;
      row.columns.push_back(
          {1, false, Cell::live(kAutoTimestamp, fmt::format("name-{:08}-some-text", j)), {}, {}});
      row.columns.push_back({2, false, Cell::live(kAutoTimestamp, std::string(4, 'x')), {}, {}});
      batch.partition(table, key).rows.push_back({std::string(), std::move(row)});
    }
    batch_s += since(t);
    t = std::chrono::steady_clock::now();
    if (auto r = apply_mutations(store, batch); !r.is_ok()) fail(r.status().message());
    apply_s += since(t);
  }
  auto t = std::chrono::steady_clock::now();
  if (Status s = store.flush(); !s.is_ok()) fail(s.message());
  if (Status s = store.wait_for_background_work(); !s.is_ok()) fail(s.message());
  double flush_s = since(t);
  double total_s = since(total);
  fmt::print(
      "write_path rows {} batch {}: batch {:.3f}s apply {:.3f}s flush {:.3f}s total {:.3f}s "
      "({:.0f} rows/s)\n",
      rows, per_batch, batch_s, apply_s, flush_s, total_s, rows / total_s);
  std::filesystem::remove_all(dir);
  return 0;
}
