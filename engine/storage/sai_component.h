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

#include "engine/storage/ids.h"
#include "engine/storage/index_component.h"
#include "engine/storage/row_cursor.h"
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
};

// The builder of one SAI component (an IndexComponentFactory's `make`).
std::unique_ptr<IndexComponentBuilder> make_sai_builder(const SaiColumn& column);

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

// One SAI component, read whole into memory (verified by its checksum) and shared.
class SaiComponentReader {
 public:
  static Result<std::shared_ptr<const SaiComponentReader>> open(const std::string& path);
  static Result<std::shared_ptr<const SaiComponentReader>> parse(std::string bytes,
                                                                 const std::string& path);
  size_t size() const { return offsets_.size(); }
  // Appends the entry keys of the terms in `range` (in term order, then key order).
  void lookup(const TermRange& range, std::vector<std::string>* keys) const;
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

// The serialized partition keys of the candidates (sai_candidates), each once, in token order,
// keeping those of `tokens` only; nullopt when a component is missing.
Result<std::optional<std::vector<std::string>>> sai_candidate_partitions(
    const Snapshot& snapshot, TableId table, std::string_view component, const SaiColumn& column,
    std::span<const TermRange> ranges, const TokenRange& tokens);

// Index reads answered by components since the process started (tests: the index was read).
uint64_t sai_index_reads();
// Components an index read had to open since the process started, as opposed to those it found
// in memory, kept by SSTable (tests: each is read once for as long as its SSTable lives).
uint64_t sai_components_opened();

}  // namespace cassette::storage
