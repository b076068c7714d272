// SSTables through their public API: the bloom filter's false-positive rate, seeks in both
// directions, statistics, and the block cache's budget.
#include <doctest/doctest.h>

#include "engine/storage/block_cache.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/sstable_writer.h"
#include "engine/types/murmur3.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

std::string prefix_of(const std::string& pk) {
  return partition_prefix(cassette::types::murmur3_token(pk), pk);
}

// Writes `partitions` partitions of `rows` rows each; returns the file's path.
std::string write_table(const TempDir& dir, int partitions, int rows, int compression, size_t block_size,
                        std::vector<std::string>* keys = nullptr) {
  std::vector<std::string> prefixes;
  for (int p = 0; p < partitions; ++p) prefixes.push_back(prefix_of("partition-" + std::to_string(p)));
  std::sort(prefixes.begin(), prefixes.end());
  std::string path = dir.sub("t.sst");
  SSTableWriterOptions options;
  options.compression_level = compression;
  options.block_size = block_size;
  auto writer = SSTableWriter::create(path, options).value();
  std::string value;
  for (const std::string& prefix : prefixes) {
    for (int c = 0; c < rows; ++c) {
      Row row = insert_row("value " + std::to_string(c), 1000 + c);
      value.clear();
      encode_row(row, &value);
      std::string key = entry_key(prefix, EntryKind::kRow, ck(c));
      REQUIRE(writer->add(key, value).is_ok());
      if (keys != nullptr) keys->push_back(key);
    }
  }
  REQUIRE(writer->finish().is_ok());
  return path;
}

}  // namespace

TEST_CASE("sstable: the bloom filter has no false negatives and at most 2% false positives") {
  TempDir dir;
  std::string path = write_table(dir, 10'000, 1, 3, 4096);
  auto reader = SSTableReader::open(path, nullptr).value();
  for (int p = 0; p < 10'000; ++p) REQUIRE(reader->may_contain_partition(prefix_of("partition-" + std::to_string(p))));
  int false_positives = 0;
  for (int p = 0; p < 100'000; ++p) false_positives += reader->may_contain_partition(prefix_of("absent-" + std::to_string(p)));
  MESSAGE("false-positive rate: ", false_positives / 100'000.0);
  CHECK(false_positives <= 2'000);
}

TEST_CASE("sstable: seeks forward and backward land on the right entries, compressed or not") {
  for (int compression : {0, 3}) {
    TempDir dir;
    std::vector<std::string> keys;
    std::string path = write_table(dir, 7, 3000, compression, 1024, &keys);
    BlockCache cache(1 << 20);
    auto reader = SSTableReader::open(path, &cache).value();
    CHECK(reader->verify().is_ok());
    const SSTableStats& stats = reader->stats();
    CHECK(stats.entries == keys.size());
    CHECK(stats.partitions == 7);
    CHECK(stats.rows == keys.size());
    CHECK(stats.min_timestamp == 1000);
    CHECK(stats.max_timestamp == 1000 + 2999);
    CHECK(stats.first_key == keys.front());
    CHECK(stats.last_key == keys.back());

    auto it = reader->new_iterator();
    size_t n = 0;
    for (it->seek({}); it->valid(); it->next()) REQUIRE(it->key() == keys[n++]);
    CHECK(n == keys.size());
    for (it->seek_to_last(); it->valid(); it->prev()) REQUIRE(it->key() == keys[--n]);
    CHECK(n == 0);
    for (size_t i : {size_t{0}, size_t{1}, size_t{777}, size_t{9000}, keys.size() - 1}) {
      it->seek(keys[i]);
      REQUIRE(it->valid());
      CHECK(it->key() == keys[i]);
      std::string between = keys[i] + '\x01';  // after keys[i], before keys[i + 1]
      it->seek(between);
      if (i + 1 < keys.size()) {
        REQUIRE(it->valid());
        CHECK(it->key() == keys[i + 1]);
      } else {
        CHECK_FALSE(it->valid());
      }
      it->seek_for_prev(between);
      REQUIRE(it->valid());
      CHECK(it->key() == keys[i]);
    }
    it->seek_for_prev(std::string(1, '\0'));
    CHECK_FALSE(it->valid());
    CHECK(it->status().is_ok());
    CHECK(cache.usage() <= cache.capacity());
    CHECK(cache.usage() > 0);
  }
}

TEST_CASE("sstable: keys out of order are refused, and an unfinished file is removed") {
  TempDir dir;
  std::string path = dir.sub("bad.sst");
  {
    auto writer = SSTableWriter::create(path, {}).value();
    std::string value;
    encode_row(insert_row("v", 1), &value);
    std::string prefix = prefix_of("p");
    REQUIRE(writer->add(entry_key(prefix, EntryKind::kRow, ck(2)), value).is_ok());
    Status s = writer->add(entry_key(prefix, EntryKind::kRow, ck(1)), value);
    CHECK(s.is_invalid_argument());
    CHECK(writer->add(entry_key(prefix, EntryKind::kRow, ck(3)), "not a row").is_invalid_argument());
  }
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("sstable: every flipped byte is caught or harmless, and a truncated file names itself") {
  TempDir dir;
  std::vector<std::string> keys;
  std::string path = write_table(dir, 3, 40, 3, 512, &keys);
  std::string original = cassette::file::read_whole_file(path).value();
  int caught = 0;
  for (size_t offset = 0; offset < original.size(); ++offset) {
    std::string damaged = original;
    damaged[offset] ^= 0x04;
    REQUIRE(cassette::file::write_file_atomically(path, damaged).is_ok());
    auto reader = SSTableReader::open(path, nullptr);
    Status s = reader.is_ok() ? (*reader)->verify() : reader.status();
    if (s.is_ok()) {
      auto it = (*reader)->new_iterator();
      size_t n = 0;
      for (it->seek({}); it->valid(); it->next()) REQUIRE(it->key() == keys[n++]);
      CHECK(n == keys.size());
    } else {
      CHECK(s.is_corruption());
      CHECK(s.message().find(path) != std::string::npos);
      ++caught;
    }
  }
  CHECK(caught > static_cast<int>(original.size()) * 9 / 10);
  REQUIRE(cassette::file::write_file_atomically(path, original.substr(0, original.size() / 2)).is_ok());
  auto truncated = SSTableReader::open(path, nullptr);
  REQUIRE_FALSE(truncated.is_ok());
  CHECK(truncated.status().message().find(path) != std::string::npos);
}
