// The storage engine against RocksDB, on the same work, in one process and one run (`make bench`):
//
//   ingest        BENCH_ROWS rows (default 1M) of a time series: 1000 partitions ("sensor-0000"..),
//                 clustering ts bigint DESC, one ~100-byte value; random arrival; transactions of
//                 BENCH_BATCH rows (default 100); sync "normal" on both sides (our group commit;
//                 RocksDB's WAL with SyncWAL() every 5 ms); ends when flushes/compactions settle
//   slices        BENCH_SLICES (default 100k) reverse slices: from a random time T in a random
//                 partition, the 50 rows at or after T, oldest first (the reverse of stored order)
//   full scan     every row, in partition order
//   disk size     bytes of each store directory after the ingest
//   peak memory   growth of VmHWM over the RSS at the start of each engine's run
//
// Prints "# ..." detail lines (for the ingest also its two phases, the commits and the settling
// flushes and compactions, the CPU time of all threads and the files it leaves) and `RESULT
// <workload> <peer> <ratio>`, ratio = ours / peer for throughput (above 1: we are faster), peer /
// ours for bytes. With BENCH_MEMORY_ROWS (default 5M, 0 skips) it also ingests that many rows into
// a fresh store and reports `RESULT peak_memory_5m budget <(memtable + cache budgets + 64 MB) /
// peak>`.
//
// BENCH_SCAN_DETAIL=N instead runs only the read-path micro-benchmark (no RocksDB): N rows in
// partitions of 100 (the FDW bench's shape), scanned from the memtable, from one SSTable, from
// an SSTable plus a memtable of updates to 10% of the rows, and read partition by partition in
// reverse; prints `# scan ... ns/row` lines (thread CPU time, best of BENCH_SCAN_RUNS, default 5).
// BENCH_CASSETTE_ONLY=1 runs our side alone and prints its figures (to profile it under perf).
#include <fcntl.h>
#include <fmt/format.h>
#include <malloc.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"
#include "engine/types/byte_comparable.h"

using namespace cassette;
using namespace cassette::storage;

namespace {

constexpr int kPartitions = 1000;
constexpr int kSliceRows = 50;
constexpr TableId kTable = 1;
constexpr ColumnId kValue = 1;
// The same memory on both sides: RocksDB's two 64 MB write buffers (the one filling and the one
// flushing) are our 128 MB memtable budget, which also counts both.
constexpr size_t kRocksWriteBuffer = 64 << 20;
constexpr size_t kMemtableBudget = 2 * kRocksWriteBuffer;
constexpr size_t kCacheBudget = 64 << 20;

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// User and system CPU time of the whole process (every thread): on a machine busy with other
// work, rows per CPU second say more about an engine than rows per second.
double process_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// CPU time of the calling thread: the reads run on it alone, so this is the read path's own cost
// however busy the machine is (wall time on a loaded 2-core machine swings by 20-40%).
double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// ---- memory and disk -------------------------------------------------------------------

uint64_t status_field_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0)
      return std::strtoull(line.c_str() + strlen(field), nullptr, 10) * 1024;
  }
  return 0;
}
uint64_t peak_rss_bytes() {
  return status_field_bytes("VmHWM:");
}
uint64_t rss_bytes() {
  return status_field_bytes("VmRSS:");
}

// Returns freed heap to the system first, so one engine's run does not start on pages the
// previous run freed (which would hide its growth).
void reset_peak_rss() {
  malloc_trim(0);
  std::ofstream("/proc/self/clear_refs") << "5";
}

uint64_t directory_bytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

// ---- the workload ------------------------------------------------------------------------

struct Workload {
  uint64_t rows;
  uint64_t batch;
  uint64_t slices;
  std::vector<std::pair<int, int64_t>> arrivals;  // (partition, ts), shuffled
  std::vector<std::pair<int, int64_t>> slice_starts;
  std::vector<std::string> values;  // a few distinct ~100-byte values, cycled

  Workload(uint64_t r, uint64_t b, uint64_t s) : rows(r), batch(b), slices(s) {
    std::mt19937_64 rng(12345);
    uint64_t per_partition = (rows + kPartitions - 1) / kPartitions;
    for (uint64_t i = 0; i < rows; ++i) {
      arrivals.emplace_back(static_cast<int>(i % kPartitions),
                            1'700'000'000'000 + static_cast<int64_t>(i / kPartitions) * 1000);
    }
    std::shuffle(arrivals.begin(), arrivals.end(), rng);
    for (uint64_t i = 0; i < slices; ++i) {
      slice_starts.emplace_back(
          static_cast<int>(rng() % kPartitions),
          1'700'000'000'000 + static_cast<int64_t>(rng() % per_partition) * 1000);
    }
    for (int v = 0; v < 997; ++v) {
      std::string value(100, ' ');
      for (char& c : value) c = static_cast<char>('!' + rng() % 90);
      values.push_back(value);
    }
  }
  const std::string& value_for(uint64_t i) const { return values[i % values.size()]; }
};

std::string partition_key(int p) {
  return fmt::format("sensor-{:04d}", p);
}

// ---- our engine --------------------------------------------------------------------------

types::CqlType bigint_type() {
  types::CqlType t;
  t.kind = types::TypeKind::kBigint;
  return t;
}

std::string ts_clustering(int64_t ts) {
  static const types::CqlType bigint = bigint_type();
  std::string serialized(8, '\0');
  for (int i = 7; i >= 0; --i)
    serialized[7 - i] = static_cast<char>(static_cast<uint64_t>(ts) >> (8 * i));
  std::string out;
  (void)types::encode_key_component(bigint, serialized, /*descending=*/true, &out);
  return out;
}

struct Figures {
  double ingest_rows_per_s = 0;
  double write_s = 0;       // the commits, until the last one returned
  double settle_s = 0;      // then the closing flush and the compactions it leads to
  double ingest_cpu_s = 0;  // CPU time of every thread of the process during the ingest
  std::string files;        // flushes, compactions and files at the end of the ingest
  double slices_per_s = 0;
  double slices_cpu_s = 0;  // CPU time of the reading thread over the slices
  uint64_t slices = 0;
  double scan_rows_per_s = 0;
  uint64_t disk_bytes = 0;
  uint64_t peak_rss = 0;
  uint64_t slice_rows = 0;
  uint64_t scan_rows = 0;
};

void fail(const std::string& what) {
  fmt::print(stderr, "bench failed: {}\n", what);
  std::exit(1);
}

// Peak RSS figures are the growth over the RSS at the start of a run (the workload's own arrays
// and the libraries are not the engine's).
Figures run_cassette(const Workload& w, const std::string& dir) {
  Figures f;
  reset_peak_rss();
  uint64_t rss_before = rss_bytes();
  StoreOptions options;
  options.sync = SyncMode::kNormal;
  options.memtable_budget_bytes = kMemtableBudget;
  options.block_cache_bytes = kCacheBudget;
  auto opened = Store::open(dir, options);
  if (!opened.is_ok()) fail(opened.status().message());
  Store& store = **opened;

  auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  for (uint64_t i = 0; i < w.rows; i += w.batch) {
    MutationBuilder batch;
    for (uint64_t j = i; j < std::min(w.rows, i + w.batch); ++j) {
      Row row;
      row.liveness.timestamp = kAutoTimestamp;
      row.columns.push_back({kValue, false, Cell::live(kAutoTimestamp, w.value_for(j)), {}, {}});
      batch.partition(kTable, partition_key(w.arrivals[j].first))
          .rows.push_back({ts_clustering(w.arrivals[j].second), std::move(row)});
    }
    if (auto r = apply_mutations(store, batch); !r.is_ok()) fail(r.status().message());
  }
  f.write_s = seconds_since(start);
  if (Status s = store.flush(); !s.is_ok()) fail(s.message());
  if (Status s = store.wait_for_background_work(); !s.is_ok()) fail(s.message());
  f.settle_s = seconds_since(start) - f.write_s;
  f.ingest_cpu_s = process_cpu_seconds() - cpu_start;
  f.ingest_rows_per_s = static_cast<double>(w.rows) / seconds_since(start);
  f.disk_bytes = directory_bytes(dir);
  const StoreStats stats = store.stats();
  f.files = fmt::format("{} flushes, {} compactions, {} SSTables", stats.flushes, stats.compactions,
                        stats.sstable_count);

  start = std::chrono::steady_clock::now();
  double slice_cpu_start = thread_cpu_seconds();
  for (const auto& [p, ts] : w.slice_starts) {
    auto snap = store.snapshot().value();
    ReadSpec spec = Store::partition_spec(partition_key(p));
    spec.clustering_end = types::prefix_end_bound(ts_clustering(ts));  // ts >= T (DESC order)
    spec.reverse = true;
    auto cursor = store.read(*snap, kTable, spec);
    for (int n = 0; n < kSliceRows && cursor->next(); ++n) {
      f.slice_rows += cursor->row().find_column(kValue)->cell.value.size() > 0;
    }
    if (!cursor->status().is_ok()) fail(cursor->status().message());
  }
  f.slices_per_s = static_cast<double>(w.slices) / seconds_since(start);
  f.slices_cpu_s = thread_cpu_seconds() - slice_cpu_start;
  f.slices = w.slices;

  start = std::chrono::steady_clock::now();
  auto snap = store.snapshot().value();
  auto cursor = store.read(*snap, kTable, Store::range_spec({}));
  while (cursor->next()) f.scan_rows += cursor->row().find_column(kValue)->cell.value.size() > 0;
  if (!cursor->status().is_ok()) fail(cursor->status().message());
  f.scan_rows_per_s = static_cast<double>(f.scan_rows) / seconds_since(start);
  f.peak_rss = peak_rss_bytes() - std::min(peak_rss_bytes(), rss_before);
  return f;
}

// ---- read-path micro-benchmark -----------------------------------------------------------

double best_scan_ns_per_row(Store& store, uint64_t want_rows, uint64_t runs, bool by_partition,
                            const std::vector<std::string>& partitions) {
  double best = 1e18;
  for (uint64_t r = 0; r < runs; ++r) {
    auto snap = store.snapshot().value();
    uint64_t rows = 0, bytes = 0;
    // CPU time of this thread: the figure stays meaningful on a machine busy with other work.
    auto cpu_ns = [] {
      timespec t;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
    };
    const double start = cpu_ns();
    auto drain = [&](RowCursor& cursor) {
      while (cursor.next()) {
        ++rows;
        const ColumnData* value = cursor.row().find_column(kValue);
        if (value == nullptr) fail(fmt::format("row {} has no value", rows));
        bytes += value->cell.value.size();
      }
      if (!cursor.status().is_ok()) fail(cursor.status().message());
    };
    if (by_partition) {
      for (const std::string& p : partitions) {
        ReadSpec spec = Store::partition_spec(p);
        spec.reverse = true;
        drain(*store.read(*snap, kTable, spec));
      }
    } else {
      drain(*store.read(*snap, kTable, Store::range_spec({})));
    }
    double ns = (cpu_ns() - start) / static_cast<double>(std::max<uint64_t>(rows, 1));
    if (rows != want_rows || bytes == 0)
      fail(fmt::format("scan read {} rows, want {}", rows, want_rows));
    best = std::min(best, ns);
  }
  return best;
}

void run_scan_detail(uint64_t rows, const std::string& dir) {
  const uint64_t runs = env_or("BENCH_SCAN_RUNS", 5);
  const uint64_t per_partition = 100;
  StoreOptions options;
  options.sync = SyncMode::kOff;
  options.memtable_budget_bytes = 1ull << 30;  // everything stays in the memtable until flushed
  options.block_cache_bytes = kCacheBudget;
  auto opened = Store::open(dir, options);
  if (!opened.is_ok()) fail(opened.status().message());
  Store& store = **opened;
  std::vector<std::string> partitions;
  for (uint64_t p = 0; p * per_partition < rows; ++p)
    partitions.push_back(fmt::format("source-{}", p));
  auto write = [&](uint64_t every) {
    for (uint64_t p = 0; p < partitions.size(); ++p) {
      MutationBuilder batch;
      for (uint64_t i = 0; i < per_partition && p * per_partition + i < rows; i += every) {
        Row row;
        row.liveness.timestamp = kAutoTimestamp;
        row.columns.push_back(
            {kValue, false, Cell::live(kAutoTimestamp, std::string(8, 'v')), {}, {}});
        batch.partition(kTable, partitions[p])
            .rows.push_back({ts_clustering(static_cast<int64_t>(i)), std::move(row)});
      }
      if (auto r = apply_mutations(store, batch); !r.is_ok()) fail(r.status().message());
    }
  };
  write(1);
  fmt::print("# scan memtable          {:7.1f} ns/row ({} rows)\n",
             best_scan_ns_per_row(store, rows, runs, false, partitions), rows);
  fmt::print("# partitions memtable    {:7.1f} ns/row (reverse, one read per partition)\n",
             best_scan_ns_per_row(store, rows, runs, true, partitions));
  if (Status s = store.flush(); !s.is_ok()) fail(s.message());
  fmt::print("# scan one sstable       {:7.1f} ns/row\n",
             best_scan_ns_per_row(store, rows, runs, false, partitions));
  fmt::print("# partitions one sstable {:7.1f} ns/row (reverse, one read per partition)\n",
             best_scan_ns_per_row(store, rows, runs, true, partitions));
  write(10);
  fmt::print("# scan sstable+memtable  {:7.1f} ns/row (10% of rows updated in the memtable)\n",
             best_scan_ns_per_row(store, rows, runs, false, partitions));
}

// ---- RocksDB -----------------------------------------------------------------------------

std::string rocks_key(int p, int64_t ts) {
  std::string key = partition_key(p);
  key.push_back('\0');
  uint64_t inverted = ~static_cast<uint64_t>(ts);  // newest first, like the DESC clustering
  for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>(inverted >> (8 * i)));
  return key;
}

void check(const rocksdb::Status& s) {
  if (!s.ok()) fail("rocksdb: " + s.ToString());
}

Figures run_rocksdb(const Workload& w, const std::string& dir) {
  Figures f;
  reset_peak_rss();
  uint64_t rss_before = rss_bytes();
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = kRocksWriteBuffer;
  options.max_write_buffer_number = 2;
  options.compression = rocksdb::kZSTD;
  options.bottommost_compression = rocksdb::kZSTD;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(kCacheBudget);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  check(rocksdb::DB::Open(options, dir, &raw));
  std::unique_ptr<rocksdb::DB> db(raw);

  // "normal" sync: the WAL is written on every commit and synced every 5 ms, as our group commit.
  std::atomic<bool> stop{false};
  std::thread syncer([&] {
    while (!stop.load()) {
      (void)db->SyncWAL();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  rocksdb::WriteOptions write_options;
  auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  for (uint64_t i = 0; i < w.rows; i += w.batch) {
    rocksdb::WriteBatch batch;
    for (uint64_t j = i; j < std::min(w.rows, i + w.batch); ++j) {
      batch.Put(rocks_key(w.arrivals[j].first, w.arrivals[j].second), w.value_for(j));
    }
    check(db->Write(write_options, &batch));
  }
  f.write_s = seconds_since(start);
  stop = true;
  syncer.join();
  check(db->Flush(rocksdb::FlushOptions()));
  uint64_t running = 1, pending = 1;
  while (running > 0 || pending > 0) {
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    if (running > 0 || pending > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  f.settle_s = seconds_since(start) - f.write_s;
  f.ingest_cpu_s = process_cpu_seconds() - cpu_start;
  f.ingest_rows_per_s = static_cast<double>(w.rows) / seconds_since(start);
  f.disk_bytes = directory_bytes(dir);
  f.files = "files per level:";
  for (int level = 0; level < options.num_levels; ++level) {
    std::string files;
    db->GetProperty(fmt::format("rocksdb.num-files-at-level{}", level), &files);
    f.files += " " + files;
  }

  start = std::chrono::steady_clock::now();
  double slice_cpu_start = thread_cpu_seconds();
  rocksdb::ReadOptions read_options;
  for (const auto& [p, ts] : w.slice_starts) {
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(read_options));
    std::string prefix = partition_key(p);
    prefix.push_back('\0');
    it->SeekForPrev(rocks_key(p, ts));
    for (int n = 0; n < kSliceRows && it->Valid() && it->key().starts_with(prefix);
         ++n, it->Prev()) {
      f.slice_rows += it->value().size() > 0;
    }
    check(it->status());
  }
  f.slices_per_s = static_cast<double>(w.slices) / seconds_since(start);
  f.slices_cpu_s = thread_cpu_seconds() - slice_cpu_start;
  f.slices = w.slices;

  start = std::chrono::steady_clock::now();
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(read_options));
  for (it->SeekToFirst(); it->Valid(); it->Next()) f.scan_rows += it->value().size() > 0;
  check(it->status());
  f.scan_rows_per_s = static_cast<double>(f.scan_rows) / seconds_since(start);
  f.peak_rss = peak_rss_bytes() - std::min(peak_rss_bytes(), rss_before);
  return f;
}

void print_detail(const char* name, const Figures& f) {
  fmt::print(
      "# {:9} ingest {:>10.0f} rows/s  slices {:>8.0f}/s  scan {:>10.0f} rows/s  disk {:>6.1f} MB  "
      "peak RSS {:>6.1f} MB\n",
      name, f.ingest_rows_per_s, f.slices_per_s, f.scan_rows_per_s, f.disk_bytes / 1e6,
      f.peak_rss / 1e6);
  fmt::print("# {:9} slices: CPU {:.2f} s ({:.1f} us a slice)\n", name, f.slices_cpu_s,
             f.slices_cpu_s * 1e6 / static_cast<double>(std::max<uint64_t>(f.slices, 1)));
  fmt::print(
      "# {:9} ingest: commits {:.2f} s, closing flush and compactions {:.2f} s, CPU {:.2f} s; {}\n",
      name, f.write_s, f.settle_s, f.ingest_cpu_s, f.files);
}

std::string make_temp_dir() {
  std::string base = std::getenv("BENCH_DIR") != nullptr ? std::getenv("BENCH_DIR") : "/tmp";
  std::string pattern = base + "/cassette-bench-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) fail("cannot create " + pattern);
  return pattern;
}

}  // namespace

int run_write_bench();  // tests/bench/write_path_bench.cc

int main() {
  if (std::getenv("CASSETTE_WRITE_BENCH") != nullptr) return run_write_bench();
  if (uint64_t detail = env_or("BENCH_SCAN_DETAIL", 0); detail > 0) {
    std::string root = make_temp_dir();
    run_scan_detail(detail, root + "/scan");
    std::filesystem::remove_all(root);
    return 0;
  }
  Workload w(env_or("BENCH_ROWS", 1'000'000), env_or("BENCH_BATCH", 100),
             env_or("BENCH_SLICES", 100'000));
  uint64_t memory_rows = env_or("BENCH_MEMORY_ROWS", 5'000'000);
  std::string root = make_temp_dir();
  fmt::print(
      "# {} rows in {} partitions, transactions of {}, {} reverse slices of {}, sync=normal\n",
      w.rows, kPartitions, w.batch, w.slices, kSliceRows);

  Figures ours = run_cassette(w, root + "/cassette");
  if (std::getenv("BENCH_CASSETTE_ONLY") != nullptr) {  // for a profile of our side alone
    print_detail("cassette", ours);
    std::filesystem::remove_all(root);
    return 0;
  }
  Figures peer = run_rocksdb(w, root + "/rocksdb");
  print_detail("cassette", ours);
  print_detail("rocksdb", peer);
  if (ours.scan_rows != w.rows || peer.scan_rows != w.rows || ours.slice_rows != peer.slice_rows) {
    fail(fmt::format("engines disagree: scan {} vs {} (want {}), slice rows {} vs {}",
                     ours.scan_rows, peer.scan_rows, w.rows, ours.slice_rows, peer.slice_rows));
  }
  fmt::print("# ingest per CPU second (every thread's): {:.2f} of RocksDB's\n",
             peer.ingest_cpu_s / ours.ingest_cpu_s);
  fmt::print("RESULT ingest rocksdb {:.2f}\n", ours.ingest_rows_per_s / peer.ingest_rows_per_s);
  fmt::print("RESULT reverse_slices rocksdb {:.2f}\n", ours.slices_per_s / peer.slices_per_s);
  fmt::print("RESULT reverse_slices-cpu rocksdb {:.2f}\n", peer.slices_cpu_s / ours.slices_cpu_s);
  fmt::print("RESULT full_scan rocksdb {:.2f}\n", ours.scan_rows_per_s / peer.scan_rows_per_s);
  fmt::print("RESULT disk_size rocksdb {:.2f}\n",
             static_cast<double>(peer.disk_bytes) / ours.disk_bytes);
  fmt::print("RESULT peak_memory rocksdb {:.2f}\n",
             static_cast<double>(peer.peak_rss) / ours.peak_rss);

  if (memory_rows > 0) {
    Workload big(memory_rows, w.batch, 0);
    Figures f = run_cassette(big, root + "/cassette-memory");
    double budget = kMemtableBudget + kCacheBudget + (64 << 20);
    fmt::print(
        "# cassette at {} rows: peak RSS {:.1f} MB, budget {:.1f} MB (memtable + cache + 64 MB)\n",
        memory_rows, f.peak_rss / 1e6, budget / 1e6);
    fmt::print("RESULT peak_memory_5m budget {:.2f}\n", budget / static_cast<double>(f.peak_rss));
  }
  std::filesystem::remove_all(root);
  return 0;
}
