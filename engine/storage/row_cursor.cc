#include "engine/storage/row_cursor.h"

#include <algorithm>
#include <cstring>

#include "engine/storage/internal_key.h"
#include "engine/storage/row_cache.h"
#include "engine/storage/row_codec.h"

namespace cassette::storage {

namespace {
// A byte greater than every entry kind: prefix + kPastKinds sorts after the whole partition.
constexpr char kPastKinds = 0x40;

// Equality of two short keys without a call to memcmp: the per-row checks compare keys that
// share a long prefix (the partition) and usually differ in their last bytes (the clustering),
// so the last eight bytes are compared first.
inline bool same_key(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  size_t n = a.size();
  if (n < 8) return a == b;
  uint64_t x, y;
  std::memcpy(&x, a.data() + n - 8, 8);
  std::memcpy(&y, b.data() + n - 8, 8);
  if (x != y) return false;
  for (size_t i = 0; i + 8 < n; i += 8) {  // the rest, in words (overlapping the tail is fine)
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) return false;
  }
  return true;
}

inline bool has_prefix(std::string_view key, std::string_view prefix) {
  return key.size() >= prefix.size() && same_key(key.substr(0, prefix.size()), prefix);
}

// memcmp order of two entry keys. Keys of different partitions almost always differ in their
// first eight bytes (the token), which are compared inline; the rest goes to memcmp.
inline int compare_keys(std::string_view a, std::string_view b) {
  if (a.size() >= 8 && b.size() >= 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data(), 8);
    std::memcpy(&y, b.data(), 8);
    if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
  }
  return a.compare(b);
}
}  // namespace

bool TokenRange::to_key_bounds(std::string* start_key, std::string* end_key) const {
  start_key->clear();
  end_key->clear();
  if (start) {
    int64_t first = *start;
    if (!start_inclusive) {
      if (first == INT64_MAX) return false;
      ++first;
    }
    *start_key = token_lower_bound(first);
  }
  if (end) {
    int64_t past = *end;
    if (end_inclusive) {
      if (past != INT64_MAX) *end_key = token_lower_bound(past + 1);
    } else {
      *end_key = token_lower_bound(past);
    }
    if (!end_key->empty() && *end_key <= *start_key) return false;
  }
  return true;
}

RowCursor::RowCursor(ReadSpec spec, std::vector<std::unique_ptr<EntryIterator>> sources,
                     std::vector<std::unique_ptr<EntryIterator>> lookups, int64_t now_seconds)
    : spec_(std::move(spec)),
      sources_(std::move(sources)),
      lookups_(std::move(lookups)),
      now_seconds_(now_seconds) {
  if (spec_.single_partition()) {
    lower_ = entry_key(spec_.partition_prefix, EntryKind::kRow, spec_.clustering_start);
    upper_ = spec_.clustering_end.empty()
                 ? spec_.partition_prefix + kPastKinds
                 : entry_key(spec_.partition_prefix, EntryKind::kRow, spec_.clustering_end);
  } else {
    lower_ = spec_.start_key;
    upper_ = spec_.end_key;
  }
  members_.reserve(sources_.size());
}

RowCursor::RowCursor(ReadSpec spec, std::shared_ptr<const CachedPartition> cached, ReadRest rest)
    : spec_(std::move(spec)), now_seconds_(0), cached_(std::move(cached)), rest_(std::move(rest)) {
  started_ = true;
  current_prefix_ = cached_->prefix;
  token_ = cached_->token;
  partition_key_ = cached_->partition_key;
  partition_number_ = 1;
  static_live_ = cached_->has_static;
  static_view_ = &cached_->static_row;
  cached_values_ = &cached_->flat;
  cached_static_row_ = cached_->rows.size();
}

RowCursor::~RowCursor() = default;

bool RowCursor::next_cached() {
  if (done_) return false;
  static_only_ = false;
  cached_row_ = kNoCachedRow;
  if (!cached_started_) {  // the slice's rows in the cached head, found at the first call
    cached_started_ = true;
    const std::vector<std::string>& keys = cached_->clustering;
    auto at = [&](const std::string& bound) {
      return static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), bound) - keys.begin());
    };
    const size_t first = at(spec_.clustering_start);
    const size_t last =
        spec_.clustering_end.empty() ? keys.size() : std::max(first, at(spec_.clustering_end));
    cached_next_ = spec_.reverse ? last : first;
    cached_end_ = spec_.reverse ? first : last;
    // The slice goes on past the head: what comes after it is read from the store (forward only:
    // Store::read serves a reverse read from a complete partition alone).
    cached_needs_rest_ = !cached_->complete && !spec_.reverse && last == keys.size() && rest_;
  }
  if (!rest_cursor_) {
    const bool have = spec_.reverse ? cached_next_ > cached_end_ : cached_next_ < cached_end_;
    if (have) {
      const size_t i = spec_.reverse ? --cached_next_ : cached_next_++;
      row_view_ = &cached_->rows[i];
      clustering_view_ = &cached_->clustering[i];
      cached_row_ = i;
      emitted_in_partition_ = true;
      return true;
    }
    if (!cached_needs_rest_) {
      if (!emitted_in_partition_ && static_live_ && spec_.emit_static_only) {
        emitted_in_partition_ = true;  // the partition's static row alone (as next() does)
        static_only_ = true;
        clustering_.clear();
        clustering_view_ = &clustering_;
        row_view_ = &row_;
        return true;
      }
      done_ = true;
      return false;
    }
    if (!start_rest()) return false;
  }
  if (!rest_cursor_->next()) {
    if (!rest_cursor_->status().is_ok()) return fail(rest_cursor_->status());
    done_ = true;
    return false;
  }
  row_view_ = &rest_cursor_->row();
  clustering_view_ = &rest_cursor_->clustering();
  static_only_ = rest_cursor_->is_static_only();
  emitted_in_partition_ = true;
  return true;
}

bool RowCursor::start_rest() {
  ReadSpec rest = spec_;
  std::string past_head = cached_->clustering.back() + '\0';  // the smallest key after it
  if (rest.clustering_start < past_head) rest.clustering_start = std::move(past_head);
  rest.emit_static_only = spec_.emit_static_only && !emitted_in_partition_;
  rest_cursor_ = rest_(std::move(rest));
  return true;
}

bool RowCursor::fail(Status status) {
  status_ = std::move(status);
  done_ = true;
  return false;
}

// Whether `key` is inside the read, given that it came from a source positioned at the near
// bound and moving away from it: only the far bound needs checking.
bool RowCursor::in_bounds(std::string_view key) const {
  if (spec_.reverse) return lower_.empty() || key >= std::string_view(lower_);
  return upper_.empty() || key < std::string_view(upper_);
}

void RowCursor::position_sources() {
  lone_source_ = nullptr;
  for (auto& s : sources_) {
    if (!spec_.reverse) {
      s->seek(lower_);
    } else if (upper_.empty()) {
      s->seek_to_last();
    } else {
      s->seek_for_prev(upper_);
      // upper is exclusive (a memtable may hold several fragments of it)
      while (s->valid() && s->key() == std::string_view(upper_)) s->prev();
    }
  }
}

// Finds the next entry key (smallest forward, largest in reverse) and the sources positioned on
// it, without moving any source. Returns false at the end of the read (or on error: done_).
//
// A scan mostly reads runs of keys from one source (a partition's rows sit in one SSTable or
// memtable). So when the last group had a single source, the key that came next among the
// others (the runner-up, whose sources have not moved since) is remembered: while the lone
// source stays strictly ahead of it, it forms the group alone, one comparison instead of one
// per source.
bool RowCursor::find_group() {
  if (group_pending_) return true;
  if (EntryIterator* lone = lone_source_; lone != nullptr && lone->valid()) {
    const std::string_view key = lone->key();
    const int c = has_runner_up_ ? compare_keys(key, runner_up_) : 0;
    if (!has_runner_up_ || (spec_.reverse ? c > 0 : c < 0)) {
      members_.clear();
      if (!in_bounds(key)) return false;
      members_.push_back(lone);
      group_view_ = key;
      group_pending_ = true;
      return true;
    }
  }
  lone_source_ = nullptr;
  members_.clear();
  std::string_view best;
  std::string_view second;  // the nearest key after best among the other sources
  bool has_second = false;
  for (auto& s : sources_) {
    EntryIterator* source = s.get();
    if (!source->valid()) {
      if (Status st = source->status(); !st.is_ok()) return fail(std::move(st));
      continue;
    }
    std::string_view key = source->key();
    if (!members_.empty()) {
      int c = compare_keys(key, best);
      if (spec_.reverse) c = -c;
      if (c > 0) {
        if (!has_second ||
            (spec_.reverse ? compare_keys(key, second) > 0 : compare_keys(key, second) < 0)) {
          second = key;
        }
        has_second = true;
        continue;
      }
      if (c < 0) {
        members_.clear();
        second = best;  // every earlier key was at or after best
        has_second = true;
      }
    }
    best = key;
    members_.push_back(source);
  }
  if (members_.empty() || !in_bounds(best)) {
    members_.clear();
    return false;
  }
  if (members_.size() == 1) {
    lone_source_ = members_.front();
    runner_up_ = second;
    has_runner_up_ = has_second;
  }
  group_view_ = best;
  group_pending_ = true;
  return true;
}

// Whether `key` is the clustering row current_prefix_ + kRow + clustering_ (compared from the
// end, where keys of one partition differ).
bool RowCursor::is_current_row(std::string_view key) const {
  const size_t n = current_prefix_.size();
  return key.size() == n + 1 + clustering_.size() && same_key(key.substr(n + 1), clustering_) &&
         key[n] == static_cast<char>(EntryKind::kRow) && has_prefix(key, current_prefix_);
}

// Moves the group's sources past every version of its key. With `into` (the group is the
// clustering row current_prefix_ + kRow + clustering_, over which `outer` is the partition
// deletion or range tombstone), first decodes those versions into it and reconciles them: the
// sources' bytes are read in place, never copied. Without, the key is copied first, as the
// sources' views of it go when they move.
//
// A read of some columns (spec_.value_columns) passes over the other columns' cells unrecorded
// in each version whose own marker keeps the row alive (UnreadSkip, row_codec.h). Whether the
// row is alive is only known once every version is merged: should the merged row's marker not
// keep it alive (another version held a newer row deletion, or a superseding marker that has
// expired), one of the passed-over cells may, so the versions are read again, each cell
// recorded. One version alone never needs that (its marker decided the skip).
bool RowCursor::consume_group(Row* into, const DeletionTime& outer) {
  if (into == nullptr) group_key_.assign(group_view_);
  const std::string_view key = group_key_;
  bool may_skip = into != nullptr && spec_.value_columns != nullptr && !spec_.keep_deleted;
  UnreadSkip skip;
  if (may_skip) skip = UnreadSkip{now_seconds_, outer};
  while (true) {
    bool first = true;
    bool skipped = false;
    for (EntryIterator* source : members_) {
      do {
        if (into != nullptr) {
          Row* version = first ? into : &version_;
          if (may_skip) {
            const RowDecode d =
                decode_row_skipping(source->value(), version, *spec_.value_columns, skip);
            if (d == RowDecode::kMalformed) {
              return fail(Status::corruption("malformed row in table data"));
            }
            skipped = skipped || d == RowDecode::kSkipped;
          } else if (!decode_row(source->value(), version, spec_.value_columns)) {
            return fail(Status::corruption("malformed row in table data"));
          }
          if (!first) reconcile_rows(*into, version_);
          first = false;
        }
        spec_.reverse ? source->prev() : source->next();
        if (!source->valid()) {
          if (Status st = source->status(); !st.is_ok()) return fail(std::move(st));
          break;
        }
      } while (into != nullptr ? is_current_row(source->key()) : same_key(source->key(), key));
    }
    if (!skipped ||
        marker_keeps_alive(into->liveness, max_deletion(outer, into->deletion), now_seconds_)) {
      break;
    }
    // Back to the first version of the row in each member source (forward: its newest
    // fragment; in reverse: its oldest, walked back from), to read them again whole.
    may_skip = false;
    group_key_ = entry_key(current_prefix_, EntryKind::kRow, clustering_);
    for (EntryIterator* source : members_) {
      spec_.reverse ? source->seek_for_prev(group_key_) : source->seek(group_key_);
      if (!source->valid() || !is_current_row(source->key())) {
        if (Status st = source->status(); !st.is_ok()) return fail(std::move(st));
        return fail(Status::internal("a row's versions moved while it was read"));
      }
    }
  }
  members_.clear();
  group_pending_ = false;
  return true;
}

// Gathers every version of `key` from the lookup iterators.
bool RowCursor::merge_lookup(std::string_view key, std::vector<std::string>* values) {
  values->clear();
  for (auto& s : lookups_) {
    for (s->seek(key); s->valid() && s->key() == key; s->next()) values->emplace_back(s->value());
    if (!s->status().is_ok()) return fail(s->status());
  }
  return true;
}

bool RowCursor::enter_partition(std::string_view prefix) {
  ++partition_number_;
  current_prefix_.assign(prefix);
  emitted_in_partition_ = false;
  if (!decode_partition_prefix(prefix, &token_, &partition_key_)) {
    return fail(Status::corruption("malformed partition key in table data"));
  }
  header_.deletion = DeletionTime{};
  header_.range_tombstones.clear();
  static_live_ = false;
  if (lookups_.empty()) return true;  // no source holds partition headers or static rows

  std::vector<std::string> values;
  if (!merge_lookup(entry_key(prefix, EntryKind::kPartitionHeader), &values)) return false;
  for (const std::string& v : values) {
    PartitionHeader h;
    if (!decode_header(v, &h)) return fail(Status::corruption("malformed partition header"));
    reconcile_headers(header_, h);
  }
  static_row_ = Row{};
  if (!merge_lookup(entry_key(prefix, EntryKind::kStaticRow), &values)) return false;
  for (const std::string& v : values) {
    Row r;
    if (!decode_row(v, &r)) return fail(Status::corruption("malformed static row"));
    reconcile_rows(static_row_, r);
  }
  static_live_ = !values.empty() && purge_for_read(static_row_, header_.deletion, now_seconds_);
  return true;
}

bool RowCursor::next() {
  if (cached_) return next_cached();
  if (done_) return false;
  if (!started_) {
    started_ = true;
    position_sources();
    if (spec_.single_partition() && !enter_partition(spec_.partition_prefix)) return false;
  }
  static_only_ = false;
  while (true) {
    const bool have = find_group();
    if (done_) return false;
    // The sources' own view of the key: valid until the group is consumed (what is needed after
    // that, the clustering, is copied before).
    const std::string_view key = have ? group_view_ : std::string_view();
    // Partition prefixes are prefix-free (internal_key.h), so a key that starts with the
    // current prefix belongs to the current partition.
    const bool same = have && !current_prefix_.empty() && has_prefix(key, current_prefix_);
    size_t prefix_length = current_prefix_.size();
    if (have && !same) {
      prefix_length = partition_prefix_length(key);
      if (prefix_length == 0) return fail(Status::corruption("malformed entry key in table data"));
    }
    const bool partition_ends = !current_prefix_.empty() && !same;
    if (partition_ends && !emitted_in_partition_ && static_live_ && spec_.emit_static_only) {
      // The partition had a static row and no live rows: report it once. The group found past
      // it stays pending for the next call.
      emitted_in_partition_ = true;
      static_only_ = true;
      clustering_.clear();
      row_ = Row{};
      return true;
    }
    if (!have) {
      done_ = true;
      return false;
    }
    if (!same && !enter_partition(key.substr(0, prefix_length))) return false;

    const std::string_view rest = key.substr(prefix_length);
    const bool wanted = !rest.empty() && rest[0] == static_cast<char>(EntryKind::kRow);
    const std::string_view clustering = wanted ? rest.substr(1) : std::string_view();
    // The clustering bounds of a scan filter each partition (a single-partition read has them
    // in its key bounds already).
    const bool in_slice =
        spec_.single_partition() ||
        ((spec_.clustering_start.empty() ||
          clustering >= std::string_view(spec_.clustering_start)) &&
         (spec_.clustering_end.empty() || clustering < std::string_view(spec_.clustering_end)));
    if (!wanted || !in_slice) {
      if (!consume_group(nullptr, DeletionTime{})) return false;
      continue;
    }
    clustering_.assign(clustering);
    // The partition deletion or range tombstone over the row: header_ holds every source's.
    const DeletionTime outer =
        header_.range_tombstones.empty() ? header_.deletion : header_.deletion_for(clustering_);
    if (!consume_group(&row_, outer)) return false;
    if (spec_.keep_deleted) {
      row_.deletion = max_deletion(row_.deletion, outer);
      apply_deletion(row_, DeletionTime{});
      emitted_in_partition_ = true;
      return true;
    }
    const bool live = purge_for_read(row_, outer, now_seconds_);
    if (!live) continue;
    emitted_in_partition_ = true;
    return true;
  }
}

void RowCursor::skip_partition() {
  if (current_prefix_.empty() || spec_.single_partition()) {
    done_ = spec_.single_partition() ? true : done_;
    return;
  }
  members_.clear();
  group_pending_ = false;
  lone_source_ = nullptr;        // every source moves
  emitted_in_partition_ = true;  // do not report it as static-only
  std::string past = current_prefix_ + kPastKinds;
  for (auto& s : sources_) {
    if (!spec_.reverse) {
      s->seek(past);
    } else {
      s->seek_for_prev(current_prefix_);  // no entry key equals a bare prefix
    }
  }
}

}  // namespace cassette::storage
