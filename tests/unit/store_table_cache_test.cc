// The table cache: a store keeps at most max_open_files SSTable descriptors open, however many
// SSTables it has, and still reads every file correctly.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "engine/storage/table_cache.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;
constexpr size_t kFiles = 40;
constexpr size_t kCap = 8;

// The descriptors this process holds on files under `dir` (from /proc/self/fd).
size_t descriptors_under(const std::string& dir) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().starts_with(dir + "/")) ++n;
  }
  return n;
}

// The files in `dir`.
size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

StoreOptions capped_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  o.compaction_min_threshold = 1'000'000;  // keep every flush's SSTable
  o.max_open_files = kCap;
  return o;
}

// kFiles SSTables, file f holding partition "p<f>" with rows 0..9.
void write_files(Store& store) {
  for (size_t f = 0; f < kFiles; ++f) {
    for (int64_t c = 0; c < 10; ++c) {
      put(store, kTable, "p" + std::to_string(f), c, insert_row("v" + std::to_string(f * 100 + c)));
    }
    REQUIRE(store.flush().is_ok());
  }
  REQUIRE(store.stats().sstable_count == kFiles);
}

void check_every_file(Store& store) {
  for (size_t f = 0; f < kFiles; ++f) {
    auto rows = read_partition(store, kTable, "p" + std::to_string(f));
    REQUIRE(rows.size() == 10);
    for (int64_t c = 0; c < 10; ++c) CHECK(rows[c].value == "v" + std::to_string(f * 100 + c));
  }
  CHECK(read_table(store, kTable).size() == kFiles * 10);
}

}  // namespace

TEST_CASE("table cache: closes the least recently used descriptor at its capacity") {
  TempDir dir;
  for (int i = 0; i < 3; ++i)
    REQUIRE(::close(::creat(dir.file(std::to_string(i)).c_str(), 0644)) == 0);
  TableCache cache(2);
  std::vector<uint64_t> ids = {cache.new_id(), cache.new_id(), cache.new_id()};
  for (int i = 0; i < 3; ++i)
    REQUIRE(cache.descriptor(ids[i], dir.file(std::to_string(i))).is_ok());
  CHECK(cache.open_descriptors() == 2);
  CHECK(descriptors_under(dir.path()) == 2);
  {
    auto held = cache.descriptor(ids[0], dir.file("0")).value();  // opened again: evicts 1
    REQUIRE(cache.descriptor(ids[1], dir.file("1")).is_ok());     // evicts 2
    REQUIRE(cache.descriptor(ids[2], dir.file("2")).is_ok());     // evicts 0...
    CHECK(cache.open_descriptors() == 2);
    CHECK(descriptors_under(dir.path()) == 3);  // ...whose descriptor `held` keeps open
  }
  CHECK(descriptors_under(dir.path()) == 2);
  cache.erase(ids[1]);
  CHECK(cache.open_descriptors() == 1);
  auto missing = cache.descriptor(cache.new_id(), dir.file("missing"));
  REQUIRE(!missing.is_ok());
  CHECK(missing.status().message() == "no such file: " + dir.file("missing"));
}

TEST_CASE("table cache: a held descriptor is handed out again, even once its file is removed") {
  TempDir dir;
  for (int i = 0; i < 3; ++i)
    REQUIRE(::close(::creat(dir.file(std::to_string(i)).c_str(), 0644)) == 0);
  TableCache cache(1);
  std::vector<uint64_t> ids = {cache.new_id(), cache.new_id(), cache.new_id()};
  auto cached = cache.descriptor(ids[0], dir.file("0")).value();
  auto held = cache.hold(dir.file("0")).value();
  CHECK(held == cached);  // the cache's own descriptor, not a second one
  auto held_only = cache.hold(dir.file("1")).value();
  CHECK(cache.open_descriptors() == 1);  // a hold is not in the cache
  cached.reset();
  REQUIRE(cache.descriptor(ids[2], dir.file("2")).is_ok());  // evicts file 0's, which is held
  REQUIRE(::unlink(dir.file("0").c_str()) == 0);
  REQUIRE(::unlink(dir.file("1").c_str()) == 0);
  CHECK(cache.descriptor(ids[0], dir.file("0")).value() == held);
  CHECK(cache.descriptor(ids[1], dir.file("1")).value() == held_only);
  CHECK(descriptors_under(dir.path()) == 3);  // file 2's in the cache, 0's and 1's held
  held.reset();
  held_only.reset();
  CHECK(descriptors_under(dir.path()) == 1);
  auto gone = cache.descriptor(ids[1], dir.file("1"));  // nobody holds it: opened again
  REQUIRE(!gone.is_ok());
  CHECK(gone.status().message() == "no such file: " + dir.file("1"));
}

TEST_CASE("table cache: a store with more SSTables than max_open_files holds at most that many") {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  {
    auto store = Store::open(dir.path(), capped_options()).value();
    write_files(*store);
    CHECK(descriptors_under(data) <= kCap);
    check_every_file(*store);
    CHECK(descriptors_under(data) <= kCap);
  }
  CHECK(descriptors_under(data) == 0);
  // Opened again: the SSTables are read at open (footer, summary, bloom filter, statistics),
  // their descriptors not all kept.
  auto store = Store::open(dir.path(), capped_options()).value();
  CHECK(descriptors_under(data) <= kCap);
  check_every_file(*store);
  CHECK(descriptors_under(data) <= kCap);
}

TEST_CASE("table cache: a snapshot reads the files a compaction replaced until it is released") {
  TempDir dir;
  StoreOptions options = capped_options();
  options.max_open_files = 1;
  options.block_cache_bytes = 0;  // every read goes to the files
  auto store = Store::open(dir.path(), options).value();
  write_files(*store);
  auto old = store->snapshot().value();
  REQUIRE(store->compact(kTable).is_ok());
  CHECK(store->stats().sstable_count == 1);
  // Every old file's descriptor was closed (capacity 1): reading them opens them again.
  auto cursor = store->read(*old, kTable, Store::range_spec({}));
  CHECK(drain(*cursor).size() == kFiles * 10);
  CHECK(files_in(dir.path() + "/data") == kFiles + 1);
  cursor.reset();
  old.reset();
  CHECK(files_in(dir.path() + "/data") ==
        1);  // the replaced files went with the last snapshot that used them
  check_every_file(*store);
}

// Another process (a second Store on the directory) compacts the files an old snapshot of this
// one reads, and removes them once its own snapshots are done with them. The old snapshot
// still reads every row, whichever of its files' descriptors the cache had closed.
TEST_CASE("table cache: a snapshot reads the files another process's compaction removed") {
  TempDir dir;
  StoreOptions options = capped_options();
  options.max_open_files = 1;
  options.block_cache_bytes = 0;  // every read goes to the files
  auto store = Store::open(dir.path(), options).value();
  write_files(*store);
  auto before_any_read = store->snapshot().value();
  auto after_a_read = store->snapshot().value();
  CHECK(drain(*store->read(*after_a_read, kTable, Store::range_spec({}))).size() == kFiles * 10);

  {
    auto other = StoreInternals::open_as_another_process(dir.path(), options).value();
    REQUIRE(other->compact(kTable).is_ok());
    CHECK(other->stats().sstable_count == 1);
  }
  REQUIRE(files_in(dir.path() + "/data") == 1);  // the other process removed the files it compacted

  for (const auto& snap : {before_any_read, after_a_read}) {
    auto rows = drain(*store->read(*snap, kTable, Store::range_spec({})));
    CHECK(rows.size() == kFiles * 10);
  }
  before_any_read.reset();
  after_a_read.reset();
  // A new snapshot follows the other process's manifest: one file, the same rows.
  check_every_file(*store);
  CHECK(store->stats().sstable_count == 1);
  CHECK(descriptors_under(dir.path() + "/data") <= 1);
}
