#include "engine/storage/keyed_read.h"

#include <algorithm>

#include "engine/storage/internal_key.h"
#include "engine/storage/memtable_iterator.h"
#include "engine/storage/row_cache.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/spilled_writes.h"
#include "engine/storage/sstable_positions.h"
#include "engine/storage/store_state.h"

namespace cassette::storage {

namespace {

// A source that has failed: a RowCursor over it reports `status` at its first next().
class FailedSource final : public EntryIterator {
 public:
  explicit FailedSource(Status status) : status_(std::move(status)) {}
  bool valid() const override { return false; }
  void seek(std::string_view) override {}
  void seek_for_prev(std::string_view) override {}
  void seek_to_last() override {}
  void next() override {}
  void prev() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return status_; }

 private:
  Status status_;
};

std::unique_ptr<RowCursor> failed(const ReadSpec& spec, Status status) {
  std::vector<std::unique_ptr<EntryIterator>> sources;
  sources.push_back(std::make_unique<FailedSource>(std::move(status)));
  return std::make_unique<RowCursor>(spec, std::move(sources),
                                     std::vector<std::unique_ptr<EntryIterator>>(), 0);
}

}  // namespace

struct KeyedReader::Source {
  std::unique_ptr<EntryIterator> entries;
  const TableFile* file = nullptr;  // an SSTable's (its key range and bloom filter); else null
  bool metadata = false;            // may hold partition headers or static rows
};

KeyedReader::KeyedReader(std::shared_ptr<const Snapshot> snapshot, TableId table)
    : snapshot_(std::move(snapshot)), table_(table) {}

KeyedReader::~KeyedReader() = default;

// The sources Store::read takes (read_sources in store.cc), in the same order.
void KeyedReader::open_sources() {
  opened_ = true;
  const Snapshot& snap = *snapshot_;
  auto add_memtable = [&](const std::shared_ptr<Memtable>& mem, SequenceNumber seq) {
    if (mem == nullptr || mem->empty()) return;
    sources_.push_back({new_memtable_iterator(mem, table_, seq), nullptr,
                        mem->has_partition_metadata.load(std::memory_order_acquire)});
  };
  if (snap.spilled != nullptr && snap.spilled->holds(table_)) {
    // A transaction's spilled writes, its in-memory tail folded in: in place of the overlay.
    sources_.push_back({snap.spilled->new_iterator(table_), nullptr, true});
  } else {
    add_memtable(snap.overlay, snap.overlay_seq);
  }
  if (std::binary_search(snap.truncated.begin(), snap.truncated.end(), table_)) return;
  add_memtable(snap.memtable, snap.seq);
  add_memtable(snap.flushing, snap.seq);
  if (snap.version == nullptr) return;
  for (const auto& file : snap.version->files(table_)) {
    const SSTableStats& stats = file->reader->stats();
    sources_.push_back(
        {file->reader->new_iterator(), file.get(), stats.headers + stats.static_rows > 0});
  }
}

std::unique_ptr<RowCursor> KeyedReader::read(const ReadSpec& spec,
                                             std::span<const std::string> clusterings,
                                             std::span<const RowPosition> positions) {
  if (!opened_) open_sources();
  const std::string& prefix = spec.partition_prefix;
  auto partition = std::make_shared<CachedPartition>();
  CachedPartition& out = *partition;
  if (!decode_partition_prefix(prefix, &out.token, &out.partition_key)) {
    return failed(spec, Status::corruption("malformed partition key in table data"));
  }
  out.prefix = prefix;

  // The sources that may hold the partition.
  std::vector<Source*> holders;
  holders.reserve(sources_.size());
  bool metadata = false;
  for (Source& s : sources_) {
    // An SSTable a position names holds the partition: its bloom filter need not say so.
    if (s.file != nullptr &&
        std::none_of(positions.begin(), positions.end(),
                     [&](const RowPosition& p) { return p.sstable == s.file->reader.get(); }) &&
        !file_may_match(*s.file, spec)) {
      continue;
    }
    holders.push_back(&s);
    metadata = metadata || s.metadata;
  }

  // Every version of `key` among the holders (those with `only_metadata` sources only: headers
  // and static rows), decoded by `add`; false when a source failed (`error`). An SSTable that
  // one of `at` places the key in is read at that block (sstable_positions.h), not searched.
  Status error;
  std::string key;
  auto versions = [&](bool only_metadata, std::span<const RowPosition> at, auto&& add) -> bool {
    for (Source* s : holders) {
      if (only_metadata && !s->metadata) continue;
      if (s->file != nullptr && !at.empty()) {
        const SSTableReader* reader = s->file->reader.get();
        auto p = std::find_if(at.begin(), at.end(),
                              [&](const RowPosition& r) { return r.sstable == reader; });
        if (p != at.end()) {
          bool decoded = true;
          Status st = read_entry_at(*reader, p->block, key, [&](std::string_view v) {
            decoded = add(v);
            return Status::ok();
          });
          if (!st.is_ok()) {
            error = std::move(st);
            return false;
          }
          if (!decoded) return false;
          continue;
        }
      }
      EntryIterator& it = *s->entries;
      for (it.seek(key); it.valid() && it.key() == key; it.next()) {
        if (!add(it.value())) return false;
      }
      if (Status st = it.status(); !st.is_ok()) {
        error = std::move(st);
        return false;
      }
    }
    return true;
  };

  PartitionHeader header;
  if (metadata) {
    key = entry_key(prefix, EntryKind::kPartitionHeader);
    if (!versions(true, {}, [&](std::string_view v) {
          PartitionHeader h;
          if (!decode_header(v, &h)) {
            error = Status::corruption("malformed partition header");
            return false;
          }
          reconcile_headers(header, h);
          return true;
        })) {
      return failed(spec, std::move(error));
    }
  }
  Row version;
  // Decodes the versions of `key` into `row`, reconciled; false: none, or a failure (`error`).
  auto merged = [&](bool only_metadata, std::span<const RowPosition> at, Row* row,
                    const char* malformed) -> bool {
    bool any = false;
    bool ok = versions(only_metadata, at, [&](std::string_view v) {
      if (!decode_row(v, any ? &version : row)) {
        error = Status::corruption(malformed);
        return false;
      }
      if (any) reconcile_rows(*row, version);
      any = true;
      return true;
    });
    return ok && any;
  };
  if (metadata) {
    key = entry_key(prefix, EntryKind::kStaticRow);
    out.has_static = merged(true, {}, &out.static_row, "malformed static row") &&
                     purge_for_read(out.static_row, header.deletion, snapshot_->now_seconds);
    if (!error.is_ok()) return failed(spec, std::move(error));
    if (!out.has_static) out.static_row = Row{};
  }
  size_t next_position = 0;
  for (size_t i = 0; i < clusterings.size(); ++i) {
    const std::string& clustering = clusterings[i];
    if (clustering < spec.clustering_start) continue;
    if (!spec.clustering_end.empty() && clustering >= spec.clustering_end) break;
    key = entry_key(prefix, EntryKind::kRow, clustering);
    // This row's positions: those of rows before it are passed over.
    while (next_position < positions.size() && positions[next_position].row < i) ++next_position;
    size_t end_position = next_position;
    while (end_position < positions.size() && positions[end_position].row == i) ++end_position;
    Row row;
    const bool live =
        merged(false, positions.subspan(next_position, end_position - next_position), &row,
               "malformed row in table data") &&
        purge_for_read(
            row,
            header.range_tombstones.empty() ? header.deletion : header.deletion_for(clustering),
            snapshot_->now_seconds);
    if (!error.is_ok()) return failed(spec, std::move(error));
    if (!live) continue;
    out.clustering.push_back(clustering);
    out.rows.push_back(std::move(row));
  }
  out.complete = true;  // the keyed rows are all there is to serve
  out.read_at_seconds = snapshot_->now_seconds;
  out.finish();
  ReadSpec serve = spec;
  serve.emit_static_only = false;
  return std::make_unique<RowCursor>(std::move(serve), std::move(partition), nullptr);
}

}  // namespace cassette::storage
