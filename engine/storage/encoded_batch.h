// EncodedBatch: a write transaction already in the form the commit log and the memtable take it,
// a run of (table, entry key, encoded value) entries (the commit record's body, FORMAT.md). A
// bulk writer that encodes each row as it arrives (the SQLite extension's pending writes) keeps
// ~150 bytes per row here instead of a Row object tree, and the store's commit is then close to
// one copy of these bytes.
//
// Values are encode_row / encode_header output (row_codec.h) and may carry kAutoTimestamp
// anywhere a timestamp goes: the store replaces it, under its write lock, with the
// transaction's timestamp (restamp_value). EncodedBatch is the one batch type the store takes
// (Store::apply); writes that must be merged by Cassandra's rules first are built in a
// MutationBuilder (mutation_builder.h), which encodes into one.
//
//   EncodedBatch batch;
//   encode_row(row, &value);                      // row timestamps = kAutoTimestamp
//   CASSETTE_RETURN_IF_ERROR(
//       batch.add_row(table, partition_key, EntryKind::kRow, clustering, value));
//   store->apply(batch);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/storage/internal_key.h"
#include "engine/storage/memtable.h"
#include "engine/storage/row.h"
#include "engine/util/status.h"

namespace cassette::storage {

// A timestamp to be assigned when the batch is applied: one timestamp the store picks under its
// write lock, max(now, last assigned + 1), so a batch has one timestamp (as a CQL BATCH does)
// and no two batches of a store ever share one.
constexpr int64_t kAutoTimestamp = kNoTimestamp + 1;

class EncodedBatch {
 public:
  struct Entry {
    TableId table = 0;
    std::string_view key;    // the whole entry key (internal_key.h)
    std::string_view value;  // encoded row or partition header
  };

  EncodedBatch() = default;
  EncodedBatch(EncodedBatch&& other) noexcept { *this = std::move(other); }
  EncodedBatch& operator=(EncodedBatch&& other) noexcept;  // leaves `other` empty

  // Adds the entry of `kind` (a row, the static row or the partition header) of a partition
  // (Cassandra's serialized partition key; InvalidArgument when empty or over 65535 bytes, as
  // validate_partition_key says). Returns the entry's offset (see entry_at()).
  Result<size_t> add_row(TableId table, std::string_view partition_key, EntryKind kind,
                         std::string_view clustering, std::string_view value);
  // Adds an entry whose key is already an entry key (taken from another batch). REQUIRES: a
  // well-formed key.
  size_t add(TableId table, std::string_view key, std::string_view value);

  // The entry at `offset` (returned by add) and the offset of the one after it. REQUIRES: a
  // valid offset.
  Entry entry_at(size_t offset, size_t* next = nullptr) const;

  size_t entry_count() const { return entries_; }
  size_t byte_size() const { return size_; }
  bool empty() const { return entries_ == 0; }
  // Drops every entry added after the batch had `entries` entries in `bytes` bytes (what
  // entry_count() and byte_size() said then): a savepoint rolled back.
  void truncate(size_t entries, size_t bytes) {
    entries_ = entries;
    size_ = bytes;
  }
  void clear() { truncate(0, 0); }

  // The entries as the commit record lays them out: varint(table) lp(key) lp(value) each.
  std::string_view body() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(char* p) const;
  };
  void append(const char* p, size_t n);
  void append_varint(uint64_t v);

  // Grown with realloc, which moves a large block by remapping its pages: a batch of a few
  // hundred megabytes is never copied (nor its new pages faulted in) as it grows.
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t entries_ = 0;
  std::string scratch_;  // the key being built by add_row
};

// Copies `value` (an encoded row, or an encoded partition header when `header`) to the end of
// `out` with every kAutoTimestamp replaced by `timestamp`, and lowers *min_timestamp to the
// smallest timestamp the value writes (as collect_row_times / collect_header_times count them).
// Returns false, leaving `out` with a partial copy, when `value` is malformed.
bool restamp_value(std::string_view value, bool header, int64_t timestamp, std::string* out,
                   int64_t* min_timestamp);

}  // namespace cassette::storage
