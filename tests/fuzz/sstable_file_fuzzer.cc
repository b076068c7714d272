// Fuzz target: opening and reading a whole SSTable file. The input's first byte says whether
// to put right the checksums of the footer and of every block the file's index names before
// writing the rest as the file (fuzz_support.h: a mutated file then gets past its checksums to
// the decoding behind them); the seeds are files the store wrote, uncompressed and compressed.
//
// Beyond "no crash", it checks:
//  - a file that fails to open, read or verify fails with a Corruption naming it;
//  - a file that verifies iterates forwards to strictly increasing keys, as many as its
//    statistics count, and backwards to the same entries; its bloom filter contains every
//    partition in it; seeking to each key finds it.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/storage/block_cache.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/sstable_reader.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::storage;

constexpr size_t kMaxEntries = 100000;
constexpr size_t kMaxSeeks = 32;

using Entries = std::vector<std::pair<std::string, std::string>>;

void check_error(const Status& s, const std::string& path) {
  if (s.is_ok()) return;
  FUZZ_CHECK(s.is_corruption(), s.message());
  FUZZ_CHECK(s.message().find(path) != std::string::npos,
             "an error does not name the file: " + s.message());
}

Entries read_forward(const SSTableReader& reader, Status* status) {
  Entries entries;
  auto it = reader.new_iterator();
  for (it->seek(""); it->valid() && entries.size() < kMaxEntries; it->next()) {
    entries.emplace_back(it->key(), it->value());
  }
  *status = it->status();
  return entries;
}

Entries read_backward(const SSTableReader& reader, Status* status) {
  Entries entries;
  auto it = reader.new_iterator();
  for (it->seek_to_last(); it->valid() && entries.size() < kMaxEntries; it->prev()) {
    entries.emplace_back(it->key(), it->value());
  }
  *status = it->status();
  return Entries(entries.rbegin(), entries.rend());
}

void check_verified_file(const SSTableReader& reader, const Entries& forward) {
  for (size_t i = 1; i < forward.size(); ++i) {
    FUZZ_CHECK(forward[i - 1].first < forward[i].first, "a verified file's keys do not increase");
  }
  FUZZ_CHECK(forward.size() == reader.stats().entries || forward.size() == kMaxEntries,
             "a verified file holds other than its statistics' number of entries");
  Status s;
  FUZZ_CHECK(read_backward(reader, &s) == forward && s.is_ok(),
             "a verified file reads differently backwards");
  auto it = reader.new_iterator();
  for (size_t i = 0; i < forward.size() && i < kMaxSeeks; ++i) {
    const std::string& key =
        forward[i * forward.size() / std::min(forward.size(), kMaxSeeks)].first;
    const size_t prefix = partition_prefix_length(key);
    FUZZ_CHECK(prefix > 0 && reader.may_contain_partition(std::string_view(key).substr(0, prefix)),
               "the bloom filter misses a partition of the file");
    it->seek(key);
    FUZZ_CHECK(it->valid() && it->key() == key, "seek does not find a key of the file");
    it->seek_for_prev(key);
    FUZZ_CHECK(it->valid() && it->key() == key, "seek_for_prev does not find a key of the file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const bool repair = in.byte() & 1;
  std::string file(in.take_rest());
  if (repair) fuzz::repair_sstable_checksums(&file);
  const std::string path = fuzz::scratch_path("table.sst");
  fuzz::write_file(path, file);

  BlockCache cache(1 << 20);
  auto reader = SSTableReader::open(path, &cache);
  if (!reader.is_ok()) {
    check_error(reader.status(), path);
    return 0;
  }
  Status read_status;
  const Entries forward = read_forward(**reader, &read_status);
  check_error(read_status, path);
  const Status verified = (*reader)->verify();
  check_error(verified, path);
  if (verified.is_ok()) {
    FUZZ_CHECK(read_status.is_ok(), "a verified file fails to read: " + read_status.message());
    check_verified_file(**reader, forward);
  }
  return 0;
}
