// The storage-attached index component (SAI): for one indexed column of one SSTable, every
// indexed term in byte-comparable order with the entry keys (partition prefix + kind +
// clustering: the primary keys) of the rows holding it. Layout in FORMAT.md, "SAI components".
//
// What a term is comes from above (the schema layer knows the column's type and the index's
// target and options): a TermExtractor turns one live cell into zero or more terms (a value, a
// map key, a map entry, a case-folded string...). The same extractor serves the SSTable builder
// and the scan of the memtables, so an index read is:
//
//   candidates = union over the snapshot's SSTables of the component's keys whose term is in
//                range, and over its memtables of the keys of rows with such a cell
//
// and the caller reads those rows through the normal read path and checks the predicate on the
// current row: an SSTable may still index a value that a newer write overwrote or deleted.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/block_format.h"
#include "engine/storage/ids.h"
#include "engine/storage/index_component.h"
#include "engine/storage/row_cursor.h"
#include "engine/storage/row_position.h"
#include "engine/util/status.h"

namespace cassette::storage {

class Memtable;
struct Snapshot;

// Appends the terms of one live cell (`path`: the element key in a collection, else empty).
using TermExtractor =
    std::function<void(std::string_view value, std::string_view path, std::vector<std::string>*)>;

struct SaiColumn {
  ColumnId column = 0;
  bool is_static = false;  // a static column: its terms point at the partition's static row
  TermExtractor terms;
  // The names of older versions' components with the same terms, newest first: the first an
  // SSTable that lacks the current one holds is read (SSTables written before the version
  // changed, until compaction rewrites them).
  std::vector<std::string> legacy_components;
};

// The builder of one SAI component (an IndexComponentFactory's `make`): version 3.
std::unique_ptr<IndexComponentBuilder> make_sai_builder(const SaiColumn& column);
// Version 2's builder (no positions): no longer registered, kept for the tests that read such
// components.
std::unique_ptr<IndexComponentBuilder> make_sai_v2_builder(const SaiColumn& column);
// Version 1's builder: no longer registered (stores written before version 2 still hold such
// components, which are read); kept for the tests that read them.
std::unique_ptr<IndexComponentBuilder> make_sai_v1_builder(const SaiColumn& column);

// The terms of one encoded entry of the indexed column, sorted and each once (nothing for other
// kinds of entry); false: a malformed entry.
bool sai_entry_terms(std::string_view key, std::string_view value, const SaiColumn& column,
                     int64_t now_seconds, bool check_expiry, std::vector<std::string>* terms);

// A term range: [lower, upper] with each end inclusive or not; nullopt: unbounded.
struct TermRange {
  std::optional<std::string> lower;
  bool lower_inclusive = true;
  std::optional<std::string> upper;
  bool upper_inclusive = true;
  static TermRange equal(std::string term) {
    TermRange r;
    r.lower = term;
    r.upper = std::move(term);
    return r;
  }
  bool contains(std::string_view term) const;
};

// What an index read asks of a component, whichever its version.
class SaiTermIndex {
 public:
  virtual ~SaiTermIndex() = default;
  // Appends the entry keys of the terms in `range` (in term order, then key order); Corruption
  // when what it reads of the component is damaged. With `positions`, also appends one per key:
  // the data block of the component's SSTable that holds the key's entry (version 3), or a
  // handle of size 0 where the component records none.
  virtual Status lookup(const TermRange& range, std::vector<std::string>* keys,
                        std::vector<BlockHandle>* positions = nullptr) const = 0;
};

// A component of either version (told apart by its magic), shared by every reader of the file.
Result<std::shared_ptr<const SaiTermIndex>> open_sai_component(const std::string& path);
// Whether `bytes` (a whole file) end as a version 2 component does.
bool is_sai2_component(std::string_view bytes);

// A version 1 component, read whole into memory (verified by its checksum).
class SaiComponentReader : public SaiTermIndex {
 public:
  static Result<std::shared_ptr<const SaiComponentReader>> parse(std::string bytes,
                                                                 const std::string& path);
  size_t size() const { return offsets_.size(); }
  Status lookup(const TermRange& range, std::vector<std::string>* keys,
                std::vector<BlockHandle>* positions = nullptr) const override;
  // Entry i's term and key.
  std::string_view term(size_t i) const;
  std::string_view key(size_t i) const;

 private:
  // The first entry whose term is not before range's lower end (0 when unbounded).
  size_t lower_bound(const TermRange& range) const;

  std::string bytes_;
  std::vector<uint32_t> offsets_;
  // Every kSampleEvery-th term, copied together (samples_, with the end of each in
  // sample_ends_): a lookup's binary search runs over these few kilobytes first and then over
  // kSampleEvery entries, instead of touching some twenty cache lines spread over the component.
  static constexpr size_t kSampleEvery = 32;
  std::string samples_;
  std::vector<uint32_t> sample_ends_;
};

// A version 2 or 3 component: each term once, in blocks of 16 (prefix-compressed), its postings
// as offsets into a table of the entry keys (each once; version 3 with the ordinal of the key's
// data block in the SSTable, and a table of those blocks). Mapped, not read: open() checks the
// footer, the block index, the data block table and their checksum; a term block or a 4 KiB
// chunk of the key table is checked against its own checksum when a lookup first touches it.
//
// The first lookup copies the first term of every term block into memory (about a sixteenth of
// the terms' bytes), so that a lookup finds its block there and touches the mapping only where
// its terms and keys lie. Past `sample_bytes`, every second block's (then every fourth...) are
// kept, and a lookup's search ends with a few probes of the mapping.
class Sai2ComponentReader : public SaiTermIndex {
 public:
  static constexpr size_t kSampleBytes = 16 << 20;
  static Result<std::shared_ptr<const Sai2ComponentReader>> map(const std::string& path,
                                                                size_t sample_bytes = kSampleBytes);
  static Result<std::shared_ptr<const Sai2ComponentReader>> parse(
      std::string bytes, const std::string& path, size_t sample_bytes = kSampleBytes);
  ~Sai2ComponentReader() override;
  size_t terms() const { return term_count_; }
  size_t keys() const { return key_count_; }
  size_t file_size() const { return data_.size(); }
  int version() const { return version_; }
  bool has_positions() const { return positions_; }
  Status lookup(const TermRange& range, std::vector<std::string>* keys,
                std::vector<BlockHandle>* positions = nullptr) const override;

 private:
  Sai2ComponentReader() = default;
  Status corrupt(std::string_view what) const;
  Status check_footer();
  uint64_t block_offset(uint32_t b) const;
  Result<std::string_view> block(uint32_t b) const;  // its terms, checked
  Result<std::string_view> first_term(uint32_t b) const;
  // The key at `offset` of the key table, and with `position` where its entry lies (size 0: the
  // component records no positions).
  Result<std::string_view> key_at(uint64_t offset, BlockHandle* position = nullptr) const;

  struct Checked;
  std::string path_;
  void* map_ = nullptr;
  std::string owned_;  // parse()'s bytes
  std::string_view data_;
  uint64_t terms_start_ = 0, blocks_start_ = 0;
  uint32_t block_count_ = 0, term_count_ = 0, key_count_ = 0;
  int version_ = 2;
  bool positions_ = false;  // version 3 with a data block table
  uint32_t data_block_count_ = 0;
  uint64_t data_blocks_start_ = 0;
  size_t sample_bytes_ = kSampleBytes;
  std::shared_ptr<Checked> checked_;
};

// The entry keys of the rows of `table` in `memtable` that have a live cell of the column with a
// term in one of `ranges`.
void sai_memtable_candidates(const Memtable& memtable, TableId table, const SaiColumn& column,
                             std::span<const TermRange> ranges, int64_t now_seconds,
                             std::vector<std::string>* keys);

// Every candidate entry key of an index read over the snapshot, sorted and unique (read order:
// token, partition key, kind, clustering): the keys of the terms in any of `ranges` (several
// for an IN). nullopt when an SSTable of the snapshot lacks the component (the caller falls back
// to a filtered scan). `stats` counts the components read (for tests and EXPLAIN-like counters).
struct SaiLookupStats {
  uint64_t components_read = 0;
  uint64_t memtables_scanned = 0;
};
Result<std::optional<std::vector<std::string>>> sai_candidates(
    const Snapshot& snapshot, TableId table, std::string_view component, const SaiColumn& column,
    std::span<const TermRange> ranges, SaiLookupStats* stats = nullptr);
inline Result<std::optional<std::vector<std::string>>> sai_candidates(
    const Snapshot& snapshot, TableId table, std::string_view component, const SaiColumn& column,
    const TermRange& range, SaiLookupStats* stats = nullptr) {
  return sai_candidates(snapshot, table, component, column, std::span(&range, 1), stats);
}

// The candidates (sai_candidates) of one partition: its serialized key and the clustering keys
// of its candidate rows, sorted, each once (for a keyed read, keyed_read.h); `rows` is nullopt
// when a candidate is not a clustering row (a static row's: every row of the partition may match).
// `positions`: where version 3 components recorded the rows' entries (row_position.h); none for
// a candidate from a memtable or an older component.
struct SaiPartitionCandidates {
  std::string partition_key;
  std::optional<std::vector<std::string>> rows;
  std::vector<RowPosition> positions = {};
};
// The candidates by partition, in token order, keeping those of `tokens` only; nullopt when a
// component is missing.
Result<std::optional<std::vector<SaiPartitionCandidates>>> sai_candidate_rows(
    const Snapshot& snapshot, TableId table, std::string_view component, const SaiColumn& column,
    std::span<const TermRange> ranges, const TokenRange& tokens);

// Index reads answered by components since the process started (tests: the index was read).
uint64_t sai_index_reads();
// Components an index read had to open since the process started, as opposed to those it found
// in memory, kept by SSTable (tests: each is read once for as long as its SSTable lives).
uint64_t sai_components_opened();

}  // namespace cassette::storage
