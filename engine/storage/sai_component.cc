#include "engine/storage/sai_component.h"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "engine/storage/index_component_removals.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/memtable.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/spilled_writes.h"
#include "engine/storage/sstable_reader.h"
#include "engine/storage/store.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "engine/util/file.h"

namespace cassette::storage {

namespace {

constexpr uint64_t kSaiMagic = 0x31494153'74746573ull;  // "settSAI1" in file order
constexpr size_t kFooterSize = 24;

std::atomic<uint64_t> g_index_reads{0};
std::atomic<uint64_t> g_components_opened{0};

}  // namespace

bool sai_entry_terms(std::string_view key, std::string_view value, const SaiColumn& column,
                     int64_t now_seconds, bool check_expiry, std::vector<std::string>* terms) {
  size_t prefix = partition_prefix_length(key);
  if (prefix == 0 || prefix >= key.size()) return false;
  auto kind = static_cast<EntryKind>(key[prefix]);
  if (kind != (column.is_static ? EntryKind::kStaticRow : EntryKind::kRow)) return true;
  Row row;
  if (!decode_row(value, &row)) return false;
  const ColumnData* data = row.find_column(column.column);
  if (data == nullptr) return true;
  auto live = [&](const Cell& c) {
    return check_expiry ? c.is_live(now_seconds) : !c.is_tombstone();
  };
  if (!data->complex) {
    if (live(data->cell)) column.terms(data->cell.value, {}, terms);
  } else {
    for (const Cell& c : data->cells) {
      if (live(c)) column.terms(c.value, c.path, terms);
    }
  }
  std::sort(terms->begin(), terms->end());
  terms->erase(std::unique(terms->begin(), terms->end()), terms->end());
  return true;
}

namespace {

class SaiBuilder : public IndexComponentBuilder {
 public:
  explicit SaiBuilder(SaiColumn column) : column_(std::move(column)) {}

  Status add(std::string_view key, std::string_view value) override {
    terms_.clear();
    // Expiring cells are indexed until compaction drops them: a reader re-checks the row.
    if (!sai_entry_terms(key, value, column_, 0, false, &terms_)) {
      return Status::corruption("SAI component: malformed entry");
    }
    if (terms_.empty()) return Status::ok();
    // Every term and key goes into one buffer (an SSTable of a million rows indexes a million
    // entries: 16 bytes each here, plus their bytes, instead of two strings apiece).
    uint64_t key_at = data_.size();
    data_.append(key);
    for (const std::string& t : terms_) {
      entries_.push_back({data_.size(), key_at, static_cast<uint32_t>(t.size()),
                          static_cast<uint32_t>(key.size())});
      data_.append(t);
    }
    return Status::ok();
  }

  Status finish(const std::string& path) override {
    auto term = [&](const Entry& e) { return std::string_view(data_).substr(e.term, e.term_size); };
    auto key = [&](const Entry& e) { return std::string_view(data_).substr(e.key, e.key_size); };
    // Keys arrive in order, so entries of one term are already in key order: a stable sort by
    // term is enough.
    std::stable_sort(entries_.begin(), entries_.end(),
                     [&](const Entry& a, const Entry& b) { return term(a) < term(b); });
    std::string out;
    std::vector<uint32_t> offsets;
    offsets.reserve(entries_.size());
    for (const Entry& e : entries_) {
      if (out.size() > UINT32_MAX) {
        return Status::invalid_argument("SAI component over 4 GiB: " + path);
      }
      offsets.push_back(static_cast<uint32_t>(out.size()));
      coding::put_length_prefixed(&out, term(e));
      coding::put_length_prefixed(&out, key(e));
    }
    uint64_t entries_end = out.size();
    for (uint32_t o : offsets) coding::put_fixed32(&out, o);
    coding::put_fixed64(&out, entries_end);
    coding::put_fixed32(&out, static_cast<uint32_t>(offsets.size()));
    coding::put_fixed32(&out, crc32c::mask(crc32c::value(out)));
    coding::put_fixed64(&out, kSaiMagic);
    CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd,
                              file::open_file(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC));
    CASSETTE_RETURN_IF_ERROR(file::write_all(fd.get(), out, path));
    return file::fsync_file(fd.get(), path);
  }

 private:
  struct Entry {
    uint64_t term;  // offsets into data_
    uint64_t key;
    uint32_t term_size;
    uint32_t key_size;
  };
  SaiColumn column_;
  std::vector<std::string> terms_;
  std::string data_;
  std::vector<Entry> entries_;
};

// Components are immutable: one copy per file (its identity, so a component written again under
// the same name is read again), kept while any snapshot may ask for it again.
struct ComponentCache {
  std::mutex mutex;
  std::map<std::pair<std::string, std::pair<uint64_t, uint64_t>>,
           std::shared_ptr<const SaiTermIndex>>
      readers;
};
ComponentCache& component_cache() {
  static ComponentCache* cache = new ComponentCache;
  return *cache;
}

// The components an index read found, by SSTable: a TableFile is the same object for as long as
// its file is live in this process, and a component is a function of its SSTable's entries and
// its name, so what was read once serves every later read of that file with neither a stat nor a
// path built. Entries hold the file weakly and go when it does (compacted away, truncated,
// dropped), and all go when this process removes components (DROP INDEX: a removed index must
// not answer). A missing component is never remembered: CREATE INDEX on a table with data writes
// them for SSTables already read.
struct FileComponents {
  std::weak_ptr<TableFile> file;
  std::vector<std::pair<std::string, std::shared_ptr<const SaiTermIndex>>> components;
};
struct FileComponentCache {
  std::mutex mutex;
  std::map<const TableFile*, FileComponents> files;
  size_t inserts_since_prune = 0;
  uint64_t removals = 0;  // index_component_removals() when `files` was last cleared
};
FileComponentCache& file_component_cache() {
  static FileComponentCache* cache = new FileComponentCache;  // never destroyed: used until exit
  return *cache;
}

Result<std::shared_ptr<const SaiTermIndex>> component_of(const std::shared_ptr<TableFile>& file,
                                                         std::string_view name) {
  FileComponentCache& cache = file_component_cache();
  const uint64_t removals = index_component_removals();
  {
    std::lock_guard guard(cache.mutex);
    if (cache.removals != removals) {
      cache.files.clear();
      cache.removals = removals;
    }
    auto it = cache.files.find(file.get());
    if (it != cache.files.end() && it->second.file.lock() == file) {
      for (const auto& [n, reader] : it->second.components) {
        if (n == name) return reader;
      }
    }
  }
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const SaiTermIndex> reader,
                            open_sai_component(index_component_path(file->reader->path(), name)));
  g_components_opened.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard guard(cache.mutex);
  if (cache.removals != removals) return reader;  // removed meanwhile: used once, not kept
  if (++cache.inserts_since_prune >= 64) {
    cache.inserts_since_prune = 0;
    std::erase_if(cache.files, [](const auto& e) { return e.second.file.expired(); });
  }
  FileComponents& entry = cache.files[file.get()];
  if (entry.file.lock() != file) {  // a new file at the address of one gone
    entry.file = file;
    entry.components.clear();
  }
  for (const auto& [n, cached] : entry.components) {
    if (n == name) return cached;
  }
  entry.components.emplace_back(std::string(name), reader);
  return reader;
}

}  // namespace

std::unique_ptr<IndexComponentBuilder> make_sai_v1_builder(const SaiColumn& column) {
  return std::make_unique<SaiBuilder>(column);
}

bool TermRange::contains(std::string_view term) const {
  if (lower) {
    int c = term.compare(*lower);
    if (c < 0 || (c == 0 && !lower_inclusive)) return false;
  }
  if (upper) {
    int c = term.compare(*upper);
    if (c > 0 || (c == 0 && !upper_inclusive)) return false;
  }
  return true;
}

Result<std::shared_ptr<const SaiComponentReader>> SaiComponentReader::parse(
    std::string bytes, const std::string& path) {
  auto corrupt = [&](std::string_view what) {
    return Status::corruption(fmt::format("SAI component {}: {}", path, what));
  };
  if (bytes.size() < kFooterSize) return corrupt("too short");
  const char* footer = bytes.data() + bytes.size() - kFooterSize;
  if (coding::decode_fixed64(footer + 16) != kSaiMagic) return corrupt("bad magic");
  uint64_t entries_end = coding::decode_fixed64(footer);
  uint32_t count = coding::decode_fixed32(footer + 8);
  uint32_t stored_crc = crc32c::unmask(coding::decode_fixed32(footer + 12));
  size_t body = bytes.size() - kFooterSize + 12;  // everything before the checksum
  if (crc32c::value(std::string_view(bytes.data(), body)) != stored_crc) {
    return corrupt("checksum mismatch");
  }
  if (entries_end + uint64_t{count} * 4 != bytes.size() - kFooterSize) {
    return corrupt("bad offsets");
  }
  auto reader = std::shared_ptr<SaiComponentReader>(new SaiComponentReader);
  reader->offsets_.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t o = coding::decode_fixed32(bytes.data() + entries_end + 4 * i);
    if (o >= entries_end || (i > 0 && o <= reader->offsets_[i - 1])) {
      return corrupt("bad offsets");
    }
    reader->offsets_[i] = o;
  }
  bytes.resize(entries_end);
  reader->bytes_ = std::move(bytes);
  // Every entry must decode: term() and key() then need no checks.
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view in(reader->bytes_);
    in.remove_prefix(reader->offsets_[i]);
    uint64_t n = 0;
    if (!coding::get_varint64(&in, &n) || n > in.size()) return corrupt("bad entry");
    in.remove_prefix(n);
    if (!coding::get_varint64(&in, &n) || n > in.size()) return corrupt("bad entry");
  }
  for (size_t i = 0; i < count; i += kSampleEvery) {
    reader->samples_.append(reader->term(i));
    reader->sample_ends_.push_back(static_cast<uint32_t>(reader->samples_.size()));
  }
  return std::shared_ptr<const SaiComponentReader>(std::move(reader));
}

Result<std::shared_ptr<const SaiTermIndex>> open_sai_component(const std::string& path) {
  CASSETTE_ASSIGN_OR_RETURN(file::FileIdentity id, file::file_identity(path));
  auto key = std::make_pair(path, std::make_pair(id.device, id.inode));
  ComponentCache& cache = component_cache();
  {
    std::lock_guard guard(cache.mutex);
    auto it = cache.readers.find(key);
    if (it != cache.readers.end()) return it->second;
  }
  // Version 2 is mapped; a version 1 component (a store written before it) is read whole.
  std::shared_ptr<const SaiTermIndex> reader;
  auto mapped = Sai2ComponentReader::map(path);
  if (mapped.is_ok()) {
    reader = std::move(mapped).value();
  } else {
    CASSETTE_ASSIGN_OR_RETURN(std::string bytes, file::read_whole_file(path));
    if (is_sai2_component(bytes)) return mapped.status();
    CASSETTE_ASSIGN_OR_RETURN(reader, SaiComponentReader::parse(std::move(bytes), path));
  }
  std::lock_guard guard(cache.mutex);
  // Entries of files gone (compacted away, dropped indexes) go when the cache grows.
  if (cache.readers.size() >= 1024) {
    std::erase_if(cache.readers, [](const auto& e) {
      auto now = file::file_identity(e.first.first);
      return !now.is_ok() || now->device != e.first.second.first ||
             now->inode != e.first.second.second;
    });
  }
  cache.readers[key] = reader;
  return reader;
}

std::string_view SaiComponentReader::term(size_t i) const {
  std::string_view in(bytes_);
  in.remove_prefix(offsets_[i]);
  uint64_t n = 0;
  coding::get_varint64(&in, &n);
  return in.substr(0, n);
}

std::string_view SaiComponentReader::key(size_t i) const {
  std::string_view in(bytes_);
  in.remove_prefix(offsets_[i]);
  uint64_t n = 0;
  coding::get_varint64(&in, &n);
  in.remove_prefix(n);
  coding::get_varint64(&in, &n);
  return in.substr(0, n);
}

size_t SaiComponentReader::lower_bound(const TermRange& range) const {
  if (!range.lower) return 0;
  const std::string& lower = *range.lower;
  auto before = [&](std::string_view term) {  // whether `term` sorts before the range
    int c = term.compare(lower);
    return c < 0 || (c == 0 && !range.lower_inclusive);
  };
  // The first sample not before the range: the answer is at most its entry and after the
  // previous sample's.
  size_t a = 0, b = sample_ends_.size();
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    size_t begin = mid == 0 ? 0 : sample_ends_[mid - 1];
    if (before(std::string_view(samples_).substr(begin, sample_ends_[mid] - begin))) {
      a = mid + 1;
    } else {
      b = mid;
    }
  }
  size_t lo = a == 0 ? 0 : (a - 1) * kSampleEvery + 1;
  size_t hi = std::min(offsets_.size(), a * kSampleEvery);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (before(term(mid))) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

Status SaiComponentReader::lookup(const TermRange& range, std::vector<std::string>* keys,
                                  std::vector<BlockHandle>* positions) const {
  for (size_t i = lower_bound(range); i < offsets_.size(); ++i) {
    if (!range.contains(term(i))) break;
    keys->emplace_back(key(i));
    if (positions != nullptr) positions->push_back(BlockHandle{});  // version 1 records none
  }
  return Status::ok();
}

void sai_memtable_candidates(const Memtable& memtable, TableId table, const SaiColumn& column,
                             std::span<const TermRange> ranges, int64_t now_seconds,
                             std::vector<std::string>* keys) {
  std::vector<std::string> terms;
  Memtable::Iterator it(&memtable, table, UINT64_MAX);
  for (it.seek_to_first(); it.valid(); it.next()) {
    terms.clear();
    // A fragment of a row: any version of the cell may be the current one, so each counts
    // (the reader re-checks the merged row). Expired cells are no candidates.
    if (!sai_entry_terms(it.key(), it.value(), column, now_seconds, true, &terms)) continue;
    for (const std::string& t : terms) {
      if (std::any_of(ranges.begin(), ranges.end(),
                      [&](const TermRange& r) { return r.contains(t); })) {
        if (keys->empty() || keys->back() != it.key()) keys->emplace_back(it.key());
        break;
      }
    }
  }
}

namespace {

// A candidate key, with where an SSTable's component says its entry lies (none: `sstable` null).
struct Candidate {
  std::string key;
  const SSTableReader* sstable = nullptr;
  BlockHandle block;
};

// The candidate keys of sai_candidates, unsorted, some repeated; with `positions`, those the
// SSTables' components place in `positions` (key, SSTable, block). False: a component is missing.
Result<bool> collect_candidates(const Snapshot& snapshot, TableId table, std::string_view component,
                                const SaiColumn& column, std::span<const TermRange> ranges,
                                SaiLookupStats* stats, std::vector<std::string>& keys,
                                std::vector<Candidate>* positions) {
  bool truncated = std::binary_search(snapshot.truncated.begin(), snapshot.truncated.end(), table);
  if (!truncated && snapshot.version != nullptr) {
    std::vector<BlockHandle> blocks;
    for (const auto& f : snapshot.version->files(table)) {
      auto reader = component_of(f, component);
      for (const std::string& legacy : column.legacy_components) {
        if (reader.is_ok() || !reader.status().is_not_found()) break;
        reader = component_of(f, legacy);
      }
      if (!reader.is_ok()) {
        if (reader.status().is_not_found()) return false;
        return reader.status();
      }
      const size_t first = keys.size();
      blocks.clear();
      for (const TermRange& range : ranges) {
        CASSETTE_RETURN_IF_ERROR(
            (*reader)->lookup(range, &keys, positions != nullptr ? &blocks : nullptr));
      }
      if (positions != nullptr) {
        for (size_t i = 0; i < blocks.size(); ++i) {
          if (blocks[i].size == 0) continue;
          positions->push_back({keys[first + i], f->reader.get(), blocks[i]});
        }
      }
      if (stats != nullptr) ++stats->components_read;
    }
  }
  const bool spilled = snapshot.spilled != nullptr && snapshot.spilled->holds(table);
  if (spilled) {
    // A transaction's spilled writes (in place of its overlay): a scan of the table's entries.
    std::unique_ptr<EntryIterator> it = snapshot.spilled->new_iterator(table);
    std::vector<std::string> terms;
    for (it->seek({}); it->valid(); it->next()) {
      terms.clear();
      if (!sai_entry_terms(it->key(), it->value(), column, snapshot.now_seconds, true, &terms)) {
        continue;
      }
      if (std::any_of(terms.begin(), terms.end(), [&](const std::string& t) {
            return std::any_of(ranges.begin(), ranges.end(),
                               [&](const TermRange& r) { return r.contains(t); });
          })) {
        keys.emplace_back(it->key());
      }
    }
    CASSETTE_RETURN_IF_ERROR(it->status());
  }
  for (const std::shared_ptr<Memtable>& m :
       {truncated ? nullptr : snapshot.memtable, truncated ? nullptr : snapshot.flushing,
        spilled ? nullptr : snapshot.overlay}) {
    if (m == nullptr) continue;
    sai_memtable_candidates(*m, table, column, ranges, snapshot.now_seconds, &keys);
    if (stats != nullptr) ++stats->memtables_scanned;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  g_index_reads.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

Result<std::optional<std::vector<std::string>>> sai_candidates(
    const Snapshot& snapshot, TableId table, std::string_view component, const SaiColumn& column,
    std::span<const TermRange> ranges, SaiLookupStats* stats) {
  std::vector<std::string> keys;
  CASSETTE_ASSIGN_OR_RETURN(bool found, collect_candidates(snapshot, table, component, column,
                                                           ranges, stats, keys, nullptr));
  if (!found) return std::optional<std::vector<std::string>>();
  return std::optional<std::vector<std::string>>(std::move(keys));
}

Result<std::optional<std::vector<SaiPartitionCandidates>>> sai_candidate_rows(
    const Snapshot& snapshot, TableId table, std::string_view component, const SaiColumn& column,
    std::span<const TermRange> ranges, const TokenRange& tokens) {
  std::optional<std::vector<std::string>> keys(std::in_place);
  std::vector<Candidate> positioned;
  CASSETTE_ASSIGN_OR_RETURN(bool found, collect_candidates(snapshot, table, component, column,
                                                           ranges, nullptr, *keys, &positioned));
  if (!found) return std::optional<std::vector<SaiPartitionCandidates>>();
  // By key, as the keys are: each key's positions are met as the key is.
  std::sort(positioned.begin(), positioned.end(),
            [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
  size_t next_position = 0;
  std::vector<SaiPartitionCandidates> partitions;
  std::string start_key, end_key;
  if (!tokens.to_key_bounds(&start_key, &end_key)) {
    return std::optional<std::vector<SaiPartitionCandidates>>(std::move(partitions));
  }
  std::string_view last_prefix;
  for (const std::string& key : *keys) {
    if (key < start_key || (!end_key.empty() && key >= end_key)) continue;
    size_t n = partition_prefix_length(key);
    if (n == 0) continue;
    std::string_view prefix = std::string_view(key).substr(0, n);
    if (prefix != last_prefix) {
      int64_t token = 0;
      std::string pk;
      if (!decode_partition_prefix(prefix, &token, &pk)) continue;
      last_prefix = prefix;
      partitions.push_back({std::move(pk), std::vector<std::string>()});
    }
    std::optional<std::vector<std::string>>& rows = partitions.back().rows;
    if (!rows) continue;  // the whole partition is read already
    if (key.size() > n && key[n] == static_cast<char>(EntryKind::kRow)) {
      while (next_position < positioned.size() && positioned[next_position].key < key) {
        ++next_position;
      }
      for (; next_position < positioned.size() && positioned[next_position].key == key;
           ++next_position) {
        const Candidate& c = positioned[next_position];
        partitions.back().positions.push_back(
            RowPosition{static_cast<uint32_t>(rows->size()), c.sstable, c.block});
      }
      rows->emplace_back(std::string_view(key).substr(n + 1));  // sorted: the keys are
    } else {
      rows.reset();
      partitions.back().positions.clear();
    }
  }
  return std::optional<std::vector<SaiPartitionCandidates>>(std::move(partitions));
}

uint64_t sai_index_reads() {
  return g_index_reads.load(std::memory_order_relaxed);
}

uint64_t sai_components_opened() {
  return g_components_opened.load(std::memory_order_relaxed);
}

}  // namespace cassette::storage
