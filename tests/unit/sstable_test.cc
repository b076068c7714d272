// SSTables end to end (writer, reader, iterator, block cache) and the blocks under them.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/storage/block.h"
#include "engine/storage/block_builder.h"
#include "engine/storage/block_cache.h"
#include "engine/storage/block_format.h"
#include "engine/storage/index_key.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/sstable_writer.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "engine/util/file.h"
#include "tests/unit/temp_dir.h"

using namespace cassette;
using namespace cassette::storage;
using cassette::test::TempDir;

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string clustering(uint64_t i) {
  std::string out;
  coding::put_big_endian64(&out, i);
  return out;
}

std::string row_value(int64_t timestamp, std::string_view value) {
  Row row;
  ColumnData column;
  column.id = 1;
  column.cell = Cell::live(timestamp, std::string(value));
  row.columns.push_back(std::move(column));
  std::string out;
  encode_row(row, &out);
  return out;
}

// What make_entries() wrote, worked out by hand for the statistics test.
constexpr int kSmallPartitions = 20;
constexpr int kRowsPerSmallPartition = 10;
constexpr int kWideRows = 100'000;
constexpr int64_t kDeletedAt = 500;  // the partition deletion of small partition 3
constexpr int64_t kDeletionTime = 1'700'000'000;

// Twenty small partitions (a header, a static row and ten rows each; partition 3 deleted) and
// one wide partition of `wide_rows` rows, sorted by key. Timestamps run from 1000 up.
Entries make_entries(int wide_rows) {
  Entries entries;
  int64_t timestamp = 1000;
  for (int p = 0; p < kSmallPartitions; ++p) {
    const std::string prefix =
        partition_prefix(p * 1'000'003 - 10'000'000, "small-" + std::to_string(p));
    PartitionHeader header;
    if (p == 3) header.deletion = DeletionTime{kDeletedAt, kDeletionTime};
    std::string encoded;
    encode_header(header, &encoded);
    entries.emplace_back(entry_key(prefix, EntryKind::kPartitionHeader), encoded);
    entries.emplace_back(entry_key(prefix, EntryKind::kStaticRow),
                         row_value(timestamp++, "static"));
    for (int r = 0; r < kRowsPerSmallPartition; ++r) {
      entries.emplace_back(entry_key(prefix, EntryKind::kRow, clustering(r * 7)),
                           row_value(timestamp++, "v" + std::to_string(r)));
    }
  }
  const std::string wide = partition_prefix(42, "wide");
  for (int r = 0; r < wide_rows; ++r) {
    entries.emplace_back(entry_key(wide, EntryKind::kRow, clustering(r * 3)),
                         row_value(timestamp++, "wide row " + std::to_string(r % 1000)));
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

const Entries& all_entries() {
  static const Entries entries = make_entries(kWideRows);
  return entries;
}

uint64_t write_sstable(const std::string& path, const Entries& entries,
                       SSTableWriterOptions options) {
  auto writer = SSTableWriter::create(path, options);
  REQUIRE(writer.is_ok());
  for (const auto& [key, value] : entries) REQUIRE((*writer)->add(key, value).is_ok());
  CHECK((*writer)->entries() == entries.size());
  auto size = (*writer)->finish();
  REQUIRE(size.is_ok());
  return *size;
}

std::shared_ptr<SSTableReader> open_sstable(const std::string& path, BlockCache* cache) {
  auto reader = SSTableReader::open(path, cache);
  REQUIRE_MESSAGE(reader.is_ok(), reader.status().message());
  return *reader;
}

Entries scan_forward(EntryIterator* it) {
  Entries out;
  for (it->seek({}); it->valid(); it->next()) out.emplace_back(it->key(), it->value());
  return out;
}

Entries scan_backward(EntryIterator* it) {
  Entries out;
  for (it->seek_to_last(); it->valid(); it->prev()) out.emplace_back(it->key(), it->value());
  return out;
}

// The wide partition, written once for the tests that read it.
struct WideFile {
  TempDir dir;
  std::string path = dir.file("wide.sst");
  uint64_t size = 0;
  WideFile() {
    SSTableWriterOptions options;
    options.block_size = 4096;
    size = write_sstable(path, all_entries(), options);
  }
};
const WideFile& wide_file() {
  static const WideFile file;
  return file;
}

void check_at(EntryIterator* it, const Entries& entries, size_t i) {
  REQUIRE(it->status().is_ok());
  REQUIRE(it->valid());
  CHECK(it->key() == entries[i].first);
  CHECK(it->value() == entries[i].second);
}

}  // namespace

TEST_CASE("an SSTable reads back every entry, forwards and backwards") {
  const Entries& entries = all_entries();
  BlockCache cache(64 << 20);
  auto reader = open_sstable(wide_file().path, &cache);
  CHECK(reader->file_size() == wide_file().size);
  CHECK(reader->path() == wide_file().path);
  auto it = reader->new_iterator();
  CHECK(scan_forward(it.get()) == entries);
  CHECK(it->status().is_ok());
  Entries backward = scan_backward(it.get());
  std::reverse(backward.begin(), backward.end());
  CHECK(backward == entries);
  CHECK(it->status().is_ok());
  CHECK(reader->verify().is_ok());
  // Without a cache as well.
  auto uncached = open_sstable(wide_file().path, nullptr);
  auto it2 = uncached->new_iterator();
  CHECK(scan_forward(it2.get()) == entries);
}

TEST_CASE("the block cache admits a scan's blocks only into free room") {
  BlockCache cache(16 * 4096);  // 16 shards of 4096 bytes: one 3000-byte block fills a shard
  const uint64_t id = cache.new_id();
  for (uint64_t offset = 0; offset < 64; ++offset) cache.insert(id, offset, std::string(3000, 'a'));
  std::vector<uint64_t> cached;
  for (uint64_t offset = 0; offset < 64; ++offset) {
    if (cache.lookup(id, offset) != nullptr) cached.push_back(offset);
  }
  CHECK(cached.size() == 16);  // inserting evicts: the last block of each shard stays
  for (uint64_t offset = 100; offset < 200; ++offset) {
    cache.admit_if_room(id, offset, std::make_shared<const std::string>(3000, 'b'));
    CHECK(cache.lookup(id, offset) == nullptr);  // every shard is full: refused
  }
  for (uint64_t offset : cached) CHECK(cache.lookup(id, offset) != nullptr);  // nothing evicted
  // With room the block is admitted; admitting a key already cached changes nothing.
  BlockCache fresh(16 * 4096);
  fresh.admit_if_room(id, 7, std::make_shared<const std::string>(100, 'c'));
  CHECK(*fresh.lookup(id, 7) == std::string(100, 'c'));
  fresh.admit_if_room(id, 7, std::make_shared<const std::string>(100, 'd'));
  CHECK(*fresh.lookup(id, 7) == std::string(100, 'c'));
}

TEST_CASE("scans through a cache far smaller than the file read every entry, again and again") {
  const Entries& entries = all_entries();
  BlockCache cache(256 << 10);
  auto reader = open_sstable(wide_file().path, &cache);
  auto scan = reader->new_iterator();
  for (int pass = 0; pass < 2; ++pass) {  // the decompression buffers are reused block to block
    CHECK(scan_forward(scan.get()) == entries);
    Entries backward = scan_backward(scan.get());
    std::reverse(backward.begin(), backward.end());
    CHECK(backward == entries);
    CHECK(scan->status().is_ok());
    CHECK(cache.usage() <= cache.capacity());
  }
}

TEST_CASE("SSTable seeks find exact keys, keys between entries and both ends") {
  const Entries& entries = all_entries();
  BlockCache cache(64 << 20);
  auto reader = open_sstable(wide_file().path, &cache);
  auto it = reader->new_iterator();
  for (size_t i = 0; i < entries.size(); i += 97) {
    it->seek(entries[i].first);
    check_at(it.get(), entries, i);
    it->seek_for_prev(entries[i].first);
    check_at(it.get(), entries, i);
    // A key just above entry i and below entry i + 1.
    const std::string between = entries[i].first + '\0';
    it->seek(between);
    if (i + 1 < entries.size()) check_at(it.get(), entries, i + 1);
    it->seek_for_prev(between);
    check_at(it.get(), entries, i);
  }
  it->seek("");
  check_at(it.get(), entries, 0);
  it->seek_for_prev(std::string_view("\x00", 1));
  CHECK_FALSE(it->valid());
  CHECK(it->status().is_ok());
  it->seek(std::string(40, '\xff'));
  CHECK_FALSE(it->valid());
  CHECK(it->status().is_ok());
  it->seek_for_prev(std::string(40, '\xff'));
  check_at(it.get(), entries, entries.size() - 1);
  it->seek_to_last();
  check_at(it.get(), entries, entries.size() - 1);
  it->next();
  CHECK_FALSE(it->valid());

  // A reverse slice inside the wide partition: seek_for_prev, then 50 prev().
  const std::string wide = partition_prefix(42, "wide");
  const std::string target = entry_key(wide, EntryKind::kRow, clustering(3 * 54'321 + 1));
  auto upper =
      std::upper_bound(entries.begin(), entries.end(), std::make_pair(target, std::string()));
  size_t i = static_cast<size_t>(upper - entries.begin()) - 1;
  it->seek_for_prev(target);
  for (int step = 0; step < 50; ++step, --i) {
    check_at(it.get(), entries, i);
    it->prev();
  }
  check_at(it.get(), entries, i);
}

TEST_CASE("SSTable iterators agree with the sorted entries on a random walk") {
  const Entries& entries = all_entries();
  BlockCache cache(64 << 20);
  auto reader = open_sstable(wide_file().path, &cache);
  auto it = reader->new_iterator();
  std::mt19937_64 rng(7);
  size_t position = 0;
  bool valid = false;
  for (int step = 0; step < 20'000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op == 0 || !valid) {
      position = rng() % entries.size();
      it->seek(entries[position].first);
      valid = true;
    } else if (op == 1) {
      position = rng() % entries.size();
      it->seek_for_prev(entries[position].first + '\0');
    } else if (op < 6) {
      it->next();
      valid = ++position < entries.size();
    } else {
      it->prev();
      valid = position-- > 0;
    }
    if (valid) {
      check_at(it.get(), entries, position);
    } else {
      CHECK_FALSE(it->valid());
    }
  }
}

TEST_CASE("long walks read ahead in both directions and turn around mid-window") {
  // Uncompressed 4 KiB blocks (a file of several MiB, so many 256 KiB read-ahead windows whose
  // ends cut blocks in two) and no cache: every block a walk enters is read from the file,
  // through the iterator's read-ahead window once the walk has crossed a few blocks.
  const Entries& entries = all_entries();
  TempDir dir;
  const std::string path = dir.file("raw.sst");
  SSTableWriterOptions options;
  options.block_size = 4096;
  options.compression_level = 0;
  const uint64_t size = write_sstable(path, entries, options);
  REQUIRE(size > (2u << 20));
  auto reader = open_sstable(path, nullptr);
  auto it = reader->new_iterator();
  CHECK(scan_forward(it.get()) == entries);
  Entries backward = scan_backward(it.get());
  std::reverse(backward.begin(), backward.end());
  CHECK(backward == entries);
  size_t position = entries.size() / 3;
  it->seek(entries[position].first);
  std::mt19937_64 rng(11);
  for (int leg = 0; leg < 12; ++leg) {
    const bool forward = leg % 2 == 0;
    const size_t steps = 1000 + rng() % 60'000;  // tens to hundreds of blocks
    for (size_t s = 0; s < steps; ++s) {
      if (forward ? position + 1 >= entries.size() : position == 0) break;
      if (forward) {
        it->next();
        ++position;
      } else {
        it->prev();
        --position;
      }
      if (s % 97 == 0) check_at(it.get(), entries, position);
    }
    check_at(it.get(), entries, position);
  }
  CHECK(it->status().is_ok());
}

TEST_CASE("SSTable statistics and bloom filter describe the entries") {
  const Entries& entries = all_entries();
  auto reader = open_sstable(wide_file().path, nullptr);
  const SSTableStats& stats = reader->stats();
  CHECK(stats.entries == entries.size());
  CHECK(stats.partitions == kSmallPartitions + 1);
  CHECK(stats.rows == kSmallPartitions * kRowsPerSmallPartition + kWideRows);
  CHECK(stats.headers == kSmallPartitions);
  CHECK(stats.static_rows == kSmallPartitions);
  CHECK(stats.tombstones == 1);
  CHECK(stats.min_timestamp == kDeletedAt);
  CHECK(stats.max_timestamp ==
        1000 + kSmallPartitions * (kRowsPerSmallPartition + 1) + kWideRows - 1);
  CHECK(stats.max_local_deletion_time == kDeletionTime);
  CHECK(stats.first_key == entries.front().first);
  CHECK(stats.last_key == entries.back().first);
  uint64_t bytes = 0;
  for (const auto& [key, value] : entries) bytes += key.size() + value.size();
  CHECK(stats.data_bytes == bytes);

  for (const auto& [key, value] : entries) {
    CHECK(reader->may_contain_partition(key.substr(0, partition_prefix_length(key))));
  }
  int false_positives = 0;
  for (int i = 0; i < 1000; ++i) {
    false_positives += reader->may_contain_partition(partition_prefix(i, "absent"));
  }
  CHECK(false_positives < 50);
}

TEST_CASE("the block cache serves a second scan and respects its capacity") {
  BlockCache cache(64 << 20);
  auto reader = open_sstable(wide_file().path, &cache);
  auto it = reader->new_iterator();
  scan_forward(it.get());
  const size_t after_first = cache.usage();
  CHECK(after_first > 0);
  CHECK(after_first <= cache.capacity());
  auto again = reader->new_iterator();
  CHECK(scan_forward(again.get()) == all_entries());
  CHECK(cache.usage() == after_first);

  BlockCache small(64 << 10);
  auto reader2 = open_sstable(wide_file().path, &small);
  auto it2 = reader2->new_iterator();
  CHECK(scan_forward(it2.get()) == all_entries());
  CHECK(small.usage() > 0);
  CHECK(small.usage() <= small.capacity());
  CHECK(small.capacity() == (64u << 10));
}

TEST_CASE("threads read one SSTable at once through a small shared cache") {
  const Entries& entries = all_entries();
  BlockCache cache(256 << 10);
  auto reader = open_sstable(wide_file().path, &cache);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto it = reader->new_iterator();
      std::mt19937_64 rng(t);
      for (int slice = 0; slice < 300; ++slice) {
        size_t i = rng() % entries.size();
        it->seek_for_prev(entries[i].first);
        for (int step = 0; step < 50 && it->valid(); ++step, --i) {
          if (it->key() != entries[i].first || it->value() != entries[i].second) ++mismatches[t];
          it->prev();
        }
        if (!it->status().is_ok()) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(4, 0));
  CHECK(cache.usage() <= cache.capacity());
}

TEST_CASE("blocks read into reused buffers hold their own bytes, and held blocks keep theirs") {
  // Blocks of many sizes, raw and compressed, through a cache that evicts on almost every read:
  // each miss reads into the buffer of a block evicted before it (BlockCache::spare_buffer),
  // most often one of another size. A byte left from a previous block, or a buffer reused while
  // an iterator still reads it, shows as a wrong key or value.
  TempDir dir;
  std::mt19937_64 rng(11);
  Entries entries;
  for (uint64_t i = 0; i < 3000; ++i) {
    std::string value(1 + rng() % 1500, 'v');
    if (rng() % 2 == 0) {
      for (char& c : value) c = static_cast<char>(rng());  // incompressible: stored raw
    }
    entries.emplace_back(entry_key(partition_prefix(1, "p"), EntryKind::kRow, clustering(i)),
                         row_value(static_cast<int64_t>(i), value));
  }
  SSTableWriterOptions options;
  options.block_size = 1024;
  write_sstable(dir.file("sizes.sst"), entries, options);
  BlockCache cache(16 * 6000);
  auto reader = open_sstable(dir.file("sizes.sst"), &cache);
  auto walker = reader->new_iterator();
  auto holder = reader->new_iterator();  // stays on one entry while the walker evicts blocks
  size_t held = rng() % entries.size();
  holder->seek(entries[held].first);
  for (int step = 0; step < 5000; ++step) {
    const size_t i = rng() % entries.size();
    if (step % 2 == 0) {
      walker->seek(entries[i].first);
    } else {
      walker->seek_for_prev(entries[i].first);
    }
    REQUIRE(walker->valid());
    CHECK(walker->key() == entries[i].first);
    CHECK(walker->value() == entries[i].second);
    check_at(holder.get(), entries, held);
    if (step % 500 == 0) {
      held = rng() % entries.size();
      holder->seek(entries[held].first);
    }
  }
  CHECK(cache.usage() <= cache.capacity());
}

TEST_CASE("block cache: lookup, replace, evict, and oversized blocks stay uncached") {
  BlockCache cache(16 * 1000);  // 1000 bytes a shard
  const uint64_t id = cache.new_id();
  CHECK(cache.new_id() != id);
  CHECK(cache.lookup(id, 0) == nullptr);
  auto block = cache.insert(id, 0, "hello");
  REQUIRE(block != nullptr);
  CHECK(*block == "hello");
  CHECK(*cache.lookup(id, 0) == "hello");
  const size_t one = cache.usage();
  CHECK(one > 5);
  cache.insert(id, 0, "world");
  CHECK(*cache.lookup(id, 0) == "world");
  CHECK(cache.usage() == one);
  auto big = cache.insert(id, 4096, std::string(5000, 'x'));
  CHECK(big->size() == 5000);
  CHECK(cache.lookup(id, 4096) == nullptr);
  CHECK(cache.usage() == one);
  for (uint64_t offset = 0; offset < 2000; ++offset)
    cache.insert(id, offset * 4096, std::string(300, 'y'));
  CHECK(cache.usage() <= cache.capacity());
  CHECK(block.use_count() >= 1);  // evicted blocks stay alive for their holders
  CHECK(*block == "hello");
}

TEST_CASE("SSTables at compression level 0 and 3 read back the same") {
  TempDir dir;
  const Entries entries = make_entries(5000);
  SSTableWriterOptions raw;
  raw.compression_level = 0;
  raw.block_size = 1024;
  SSTableWriterOptions zstd = raw;
  zstd.compression_level = 3;
  const uint64_t raw_size = write_sstable(dir.file("raw.sst"), entries, raw);
  const uint64_t zstd_size = write_sstable(dir.file("zstd.sst"), entries, zstd);
  CHECK(zstd_size < raw_size);
  for (const char* name : {"raw.sst", "zstd.sst"}) {
    auto reader = open_sstable(dir.file(name), nullptr);
    auto it = reader->new_iterator();
    CHECK(scan_forward(it.get()) == entries);
    CHECK(reader->verify().is_ok());
  }
}

TEST_CASE("an empty SSTable opens and iterates nothing") {
  TempDir dir;
  const std::string path = dir.file("empty.sst");
  write_sstable(path, {}, SSTableWriterOptions{});
  auto reader = open_sstable(path, nullptr);
  CHECK(reader->stats().entries == 0);
  CHECK_FALSE(reader->may_contain_partition(partition_prefix(1, "x")));
  auto it = reader->new_iterator();
  it->seek({});
  CHECK_FALSE(it->valid());
  it->seek_to_last();
  CHECK_FALSE(it->valid());
  it->seek_for_prev("zzz");
  CHECK_FALSE(it->valid());
  CHECK(it->status().is_ok());
  CHECK(reader->verify().is_ok());
}

TEST_CASE("the writer rejects unsorted keys, bad keys and bad values") {
  TempDir dir;
  const std::string path = dir.file("bad.sst");
  auto created = SSTableWriter::create(path, SSTableWriterOptions{});
  REQUIRE(created.is_ok());
  SSTableWriter& writer = **created;
  const std::string prefix = partition_prefix(1, "p");
  const std::string value = row_value(10, "v");
  REQUIRE(writer.add(entry_key(prefix, EntryKind::kRow, "b"), value).is_ok());
  Status s = writer.add(entry_key(prefix, EntryKind::kRow, "a"), value);
  CHECK(s.is_invalid_argument());
  CHECK(s.message().find(path) != std::string::npos);
  CHECK(writer.add(entry_key(prefix, EntryKind::kRow, "b"), value).is_invalid_argument());
  CHECK(writer.add(entry_key(prefix, EntryKind::kRow, "c"), "\x09garbage").is_invalid_argument());
  CHECK(writer.add("no partition prefix", value).is_invalid_argument());
  CHECK(writer.add(prefix + '\x77', value).is_invalid_argument());
  CHECK(writer.add(entry_key(prefix, EntryKind::kRow, "c"), value).is_ok());
  CHECK(writer.entries() == 2);
  REQUIRE(writer.finish().is_ok());
  auto reader = open_sstable(path, nullptr);
  CHECK(reader->stats().entries == 2);
}

TEST_CASE("an unfinished SSTable is removed when its writer goes away") {
  TempDir dir;
  const std::string path = dir.file("unfinished.sst");
  {
    auto writer = SSTableWriter::create(path, SSTableWriterOptions{});
    REQUIRE(writer.is_ok());
    REQUIRE((*writer)
                ->add(entry_key(partition_prefix(1, "p"), EntryKind::kRow, "a"), row_value(1, "v"))
                .is_ok());
    CHECK(file::exists(path));
  }
  CHECK_FALSE(file::exists(path));
}

TEST_CASE("a truncated SSTable is Corruption naming the file") {
  TempDir dir;
  const std::string path = dir.file("t.sst");
  SSTableWriterOptions options;
  options.block_size = 512;
  const uint64_t size = write_sstable(path, make_entries(100), options);
  auto bytes = file::read_whole_file(path);
  REQUIRE(bytes.is_ok());
  for (uint64_t length : {uint64_t{0}, uint64_t{10}, size / 2, size - 1}) {
    const std::string truncated = dir.file("truncated.sst");
    REQUIRE(
        file::write_file_atomically(truncated, std::string_view(*bytes).substr(0, length)).is_ok());
    auto reader = SSTableReader::open(truncated, nullptr);
    REQUIRE_FALSE(reader.is_ok());
    CHECK(reader.status().is_corruption());
    CHECK(reader.status().message().find(truncated) != std::string::npos);
  }
}

TEST_CASE("any flipped bit is caught as Corruption naming the file, or changes nothing") {
  TempDir dir;
  const std::string path = dir.file("orig.sst");
  SSTableWriterOptions options;
  options.block_size = 256;  // many data blocks and several index blocks
  const Entries entries = make_entries(60);
  write_sstable(path, entries, options);
  auto original = file::read_whole_file(path);
  REQUIRE(original.is_ok());
  const std::string damaged_path = dir.file("damaged.sst");
  const size_t step = original->size() <= 16'384 ? 1 : 7;
  int caught = 0, harmless = 0;
  for (size_t offset = 0; offset < original->size(); offset += step) {
    std::string damaged = *original;
    damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << (offset % 8)));
    {
      auto fd = file::open_file(damaged_path, O_WRONLY | O_CREAT | O_TRUNC);
      REQUIRE(fd.is_ok());
      REQUIRE(file::write_all(fd->get(), damaged, damaged_path).is_ok());
    }
    Status status;
    auto reader = SSTableReader::open(damaged_path, nullptr);
    if (!reader.is_ok()) {
      status = reader.status();
    } else {
      auto it = (*reader)->new_iterator();
      Entries forward = scan_forward(it.get());
      status = it->status();
      if (status.is_ok()) {
        CHECK(forward == entries);
        Entries backward = scan_backward(it.get());
        status = it->status();
        if (status.is_ok()) {
          std::reverse(backward.begin(), backward.end());
          CHECK(backward == entries);
        }
      }
      if (status.is_ok()) status = (*reader)->verify();
    }
    if (status.is_ok()) {
      ++harmless;
    } else {
      ++caught;
      CHECK_MESSAGE(status.is_corruption(), status.message());
      CHECK_MESSAGE(status.message().find(damaged_path) != std::string::npos, status.message());
      CHECK_MESSAGE(status.message().find("offset") != std::string::npos, status.message());
    }
  }
  CHECK(caught > 0);
  MESSAGE("flipped bits: ", caught, " caught, ", harmless, " harmless, file of ", original->size(),
          " bytes");
}

namespace {

// The offsets of the first `count` blocks of an uncompressed SSTable (blocks follow each other
// from offset 0; each ends with a raw-type byte and the checksum of what precedes it).
std::vector<std::pair<size_t, size_t>> first_blocks(const std::string& file, size_t count) {
  std::vector<std::pair<size_t, size_t>> blocks;  // offset, size without the trailer
  size_t start = 0;
  for (size_t end = start; blocks.size() < count && end + kBlockTrailerSize <= file.size(); ++end) {
    if (file[end] != 0) continue;
    const uint32_t stored = coding::decode_fixed32(file.data() + end + 1);
    if (stored !=
        crc32c::mask(crc32c::value(std::string_view(file).substr(start, end + 1 - start)))) {
      continue;
    }
    blocks.emplace_back(start, end - start);
    start = end + kBlockTrailerSize;
    end = start - 1;
  }
  return blocks;
}

}  // namespace

TEST_CASE("a block with a bad restart array and a good checksum is Corruption, cached or not") {
  TempDir dir;
  const std::string path = dir.file("orig.sst");
  SSTableWriterOptions options;
  options.compression_level = 0;
  options.block_size = 256;
  const Entries entries = make_entries(60);
  write_sstable(path, entries, options);
  auto original = file::read_whole_file(path);
  REQUIRE(original.is_ok());
  const auto blocks = first_blocks(*original, 5);
  REQUIRE(blocks.size() == 5);
  // Block 0 is read by a seek; block 4 by a scan, through its read-ahead window.
  for (size_t damaged_block : {size_t{0}, size_t{4}}) {
    const auto [offset, size] = blocks[damaged_block];
    std::string damaged = *original;
    const uint32_t count = coding::decode_fixed32(damaged.data() + offset + size - 4);
    REQUIRE(count >= 1);
    std::string first_restart;
    coding::put_fixed32(&first_restart, 1);  // the first restart point must be 0
    damaged.replace(offset + size - 4 - 4 * count, 4, first_restart);
    std::string checksum;
    coding::put_fixed32(
        &checksum, crc32c::mask(crc32c::value(std::string_view(damaged).substr(offset, size + 1))));
    damaged.replace(offset + size + 1, 4, checksum);
    const std::string damaged_path = dir.file("damaged.sst");
    REQUIRE(file::write_file_atomically(damaged_path, damaged).is_ok());
    const std::string expected = "sstable " + damaged_path +
                                 ": malformed block (bad restart point) at offset " +
                                 std::to_string(offset);
    for (size_t cache_bytes : {size_t{0}, size_t{1} << 20}) {
      BlockCache cache(cache_bytes == 0 ? 1 : cache_bytes);
      auto reader = open_sstable(damaged_path, cache_bytes == 0 ? nullptr : &cache);
      for (int round = 0; round < 2; ++round) {  // the second read would be a cache hit
        auto it = reader->new_iterator();
        Entries read = scan_forward(it.get());
        CHECK_FALSE(it->valid());
        CHECK(it->status().message() == expected);
        CHECK(read.size() < entries.size());
        if (damaged_block == 0) CHECK(read.empty());
      }
      const Status verified = reader->verify();
      CHECK(verified.message() == expected);
    }
  }
}

TEST_CASE("blocks: restart points, seeks in both directions, and prefix compression") {
  for (int interval : {1, 3, 16}) {
    BlockBuilder builder(interval);
    Entries entries;
    for (int i = 0; i < 200; ++i) {
      entries.emplace_back("key" + clustering(i * 2), "value" + std::to_string(i));
      builder.add(entries.back().first, entries.back().second);
    }
    auto block = std::make_shared<const std::string>(builder.finish());
    const std::string path = "/x/block";
    BlockIterator it;
    it.reset(block, &path, 0);
    REQUIRE(it.status().is_ok());
    size_t i = 0;
    for (it.seek_to_first(); it.valid(); it.next(), ++i) {
      REQUIRE(i < entries.size());
      CHECK(it.key() == entries[i].first);
      CHECK(it.value() == entries[i].second);
    }
    CHECK(i == entries.size());
    for (it.seek_to_last(); it.valid(); it.prev()) {
      --i;
      CHECK(it.key() == entries[i].first);
    }
    CHECK(i == 0);
    for (size_t j = 0; j < entries.size(); ++j) {
      const std::string between = "key" + clustering(j * 2 + 1);
      it.seek(between);
      if (j + 1 < entries.size()) {
        REQUIRE(it.valid());
        CHECK(it.key() == entries[j + 1].first);
        it.prev();
        REQUIRE(it.valid());
        CHECK(it.key() == entries[j].first);
      } else {
        CHECK_FALSE(it.valid());
      }
      it.seek_for_prev(between);
      REQUIRE(it.valid());
      CHECK(it.key() == entries[j].first);
      it.next();
      if (j + 1 < entries.size()) {
        REQUIRE(it.valid());
        CHECK(it.key() == entries[j + 1].first);
      }
    }
    it.seek_for_prev("a");
    CHECK_FALSE(it.valid());
    CHECK(it.status().is_ok());
  }
}

TEST_CASE("malformed blocks make the iterator invalid with Corruption, never crash") {
  BlockBuilder builder(4);
  for (int i = 0; i < 50; ++i) builder.add("key" + clustering(i), std::string(i % 7, 'v'));
  const std::string good(builder.finish());
  const std::string path = "/x/fuzzed.sst";
  std::mt19937_64 rng(11);
  int corrupt = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng());
    if (round % 10 == 0) bad.resize(rng() % bad.size());
    BlockIterator it;
    it.reset(std::make_shared<const std::string>(bad), &path, 77);
    int steps = 0;
    for (it.seek_to_first(); it.valid() && steps < 200; it.next()) ++steps;
    for (it.seek_to_last(); it.valid() && steps < 400; it.prev()) ++steps;
    it.seek("key" + clustering(rng() % 60));
    if (it.valid()) it.prev();
    it.seek_for_prev("key" + clustering(rng() % 60));
    if (it.valid()) it.next();
    if (!it.status().is_ok()) {
      ++corrupt;
      CHECK(it.status().is_corruption());
      CHECK(it.status().message().find(path) != std::string::npos);
      CHECK(it.status().message().find("offset 77") != std::string::npos);
      CHECK_FALSE(it.valid());
    }
  }
  CHECK(corrupt > 0);
}

TEST_CASE("block framing: raw and zstd round trips, checksums and bad zstd frames") {
  const std::string path = "/x/y.sst";
  const std::string block(10'000, 'a');
  for (int level : {0, 3}) {
    BlockCompressor compressor(level);
    std::string stored = "prefix";
    const uint64_t size = compressor.append_framed(block, &stored);
    BlockHandle handle{6, size};
    CHECK(stored.size() == 6 + size + kBlockTrailerSize);
    if (level > 0) CHECK(size < block.size());
    auto back = unframe_block(std::string_view(stored).substr(6), handle, path);
    REQUIRE(back.is_ok());
    CHECK(*back == block);
    stored[10] ^= 1;
    auto bad = unframe_block(std::string_view(stored).substr(6), handle, path);
    REQUIRE_FALSE(bad.is_ok());
    CHECK(bad.status().is_corruption());
    CHECK(bad.status().message() ==
          "sstable /x/y.sst: block checksum mismatch in block at offset 6");
  }
  // Incompressible data is stored raw even at level 3.
  std::mt19937_64 rng(3);
  std::string noise(4096, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  BlockCompressor compressor(3);
  std::string stored;
  CHECK(compressor.append_framed(noise, &stored) == noise.size());

  // A zstd payload that is garbage but carries a valid checksum.
  auto framed = [](std::string payload, uint8_t type) {
    payload.push_back(static_cast<char>(type));
    coding::put_fixed32(&payload, crc32c::mask(crc32c::value(payload)));
    return payload;
  };
  std::string garbage;
  coding::put_varint64(&garbage, 100);
  garbage += "definitely not a zstd frame";
  for (const std::string& payload :
       {garbage, std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11), std::string()}) {
    std::string stored_bad = framed(payload, 1);
    auto result = unframe_block(stored_bad, BlockHandle{0, payload.size()}, path);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().is_corruption());
    CHECK(result.status().message().find(path) != std::string::npos);
  }
  auto unknown = unframe_block(framed("abc", 9), BlockHandle{0, 3}, path);
  CHECK(unknown.status().is_corruption());
  auto short_read = unframe_block("abc", BlockHandle{0, 3}, path);
  CHECK(short_read.status().is_corruption());
}

TEST_CASE("index keys: shortest separators and successors stay in range") {
  CHECK(shortest_separator("abcd", "abzz") == "abd");
  CHECK(shortest_separator("abc", "abcd") == "abc");
  CHECK(shortest_separator("ab\xff", "ac") == "ab\xff");
  CHECK(shortest_separator("abc", "abd") == "abc");
  CHECK(short_successor("abc") == "b");
  CHECK(short_successor("\xff\xff"
                        "a") ==
        "\xff\xff"
        "b");
  CHECK(short_successor("\xff\xff") == "\xff\xff");
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10'000; ++i) {
    std::string a(rng() % 6, '\0'), b(rng() % 6, '\0');
    for (char& c : a)
      c = static_cast<char>(
          "\x00\x01\xfe\xff"
          "ab"[rng() % 6]);
    for (char& c : b)
      c = static_cast<char>(
          "\x00\x01\xfe\xff"
          "ab"[rng() % 6]);
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    const std::string s = shortest_separator(a, b);
    CHECK(a <= s);
    CHECK(s < b);
    CHECK(short_successor(a) >= a);
  }
}
