#include "engine/storage/row_cursor.h"

#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"

namespace cassette::storage {

namespace {
// A byte greater than every entry kind: prefix + kPastKinds sorts after the whole partition.
constexpr char kPastKinds = 0x40;
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

// All versions of one entry key, gathered from every source.
// The strings are reused from row to row (count says how many are current).
struct RowCursor::Group {
  std::string key;
  std::vector<std::string> values;
  size_t count = 0;
  void add(std::string_view value) {
    if (count < values.size()) {
      values[count].assign(value);
    } else {
      values.emplace_back(value);
    }
    ++count;
  }
};

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
}

RowCursor::~RowCursor() = default;

bool RowCursor::fail(Status status) {
  status_ = std::move(status);
  done_ = true;
  return false;
}

bool RowCursor::in_bounds(std::string_view key) const {
  return key >= std::string_view(lower_) && (upper_.empty() || key < std::string_view(upper_));
}

void RowCursor::position_sources() {
  for (auto& s : sources_) {
    if (!spec_.reverse) {
      s->seek(lower_);
    } else if (upper_.empty()) {
      s->seek_to_last();
    } else {
      s->seek_for_prev(upper_);
      if (s->valid() && s->key() == std::string_view(upper_)) s->prev();  // upper is exclusive
    }
  }
}

// Reads the next entry key (smallest forward, largest in reverse) with all its versions.
bool RowCursor::read_group(Group* group) {
  const EntryIterator* best = nullptr;
  for (auto& s : sources_) {
    if (!s->valid()) {
      if (!s->status().is_ok()) return fail(s->status());
      continue;
    }
    if (best == nullptr || (spec_.reverse ? s->key() > best->key() : s->key() < best->key())) {
      best = s.get();
    }
  }
  if (best == nullptr || !in_bounds(best->key())) return false;
  group->key.assign(best->key());
  group->count = 0;
  for (auto& s : sources_) {
    while (s->valid() && s->key() == std::string_view(group->key)) {
      group->add(s->value());
      spec_.reverse ? s->prev() : s->next();
    }
    if (!s->status().is_ok()) return fail(s->status());
  }
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
  current_prefix_.assign(prefix);
  emitted_in_partition_ = false;
  DecodedKey decoded;
  if (!decode_entry_key(entry_key(prefix, EntryKind::kRow), &decoded)) {
    return fail(Status::corruption("malformed partition key in table data"));
  }
  token_ = decoded.token;
  partition_key_ = std::move(decoded.partition_key);

  std::vector<std::string> values;
  header_ = PartitionHeader{};
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
  if (done_) return false;
  if (!started_) {
    started_ = true;
    position_sources();
    if (spec_.single_partition() && !enter_partition(spec_.partition_prefix)) return false;
    if (spec_.single_partition()) current_prefix_ = spec_.partition_prefix;
  }
  static_only_ = false;
  if (group_ == nullptr) group_ = std::make_unique<Group>();
  Group& group = *group_;
  while (true) {
    bool have = false;
    if (held_) {
      std::swap(group, *held_);
      held_.reset();
      have = true;
    } else {
      have = read_group(&group);
      if (done_) return false;
    }
    std::string_view prefix =
        have ? std::string_view(group.key).substr(0, partition_prefix_length(group.key))
             : std::string_view();
    if (have && prefix.empty()) return fail(Status::corruption("malformed entry key in table data"));
    bool partition_ends = !current_prefix_.empty() && (!have || prefix != current_prefix_);
    if (partition_ends && !emitted_in_partition_ && static_live_ && spec_.emit_static_only) {
      // The partition had a static row and no live rows: report it once.
      emitted_in_partition_ = true;
      if (have) {
        held_ = std::make_unique<Group>();
        std::swap(*held_, group);
      }
      static_only_ = true;
      clustering_.clear();
      row_ = Row{};
      return true;
    }
    if (!have) {
      done_ = true;
      return false;
    }
    if (prefix != current_prefix_ && !enter_partition(prefix)) return false;

    std::string_view rest = std::string_view(group.key).substr(prefix.size());
    if (rest.empty() || rest[0] != static_cast<char>(EntryKind::kRow)) continue;
    std::string_view clustering = rest.substr(1);
    if (!spec_.single_partition()) {  // clustering bounds of a scan filter each partition
      if (clustering < std::string_view(spec_.clustering_start)) continue;
      if (!spec_.clustering_end.empty() && clustering >= std::string_view(spec_.clustering_end)) {
        continue;
      }
    }
    if (group.count == 1) {  // the common case: one version, decoded in place
      if (!decode_row(group.values[0], &row_)) return fail(Status::corruption("malformed row in table data"));
    } else {
      row_ = Row{};
      for (size_t i = 0; i < group.count; ++i) {
        Row r;
        if (!decode_row(group.values[i], &r)) return fail(Status::corruption("malformed row in table data"));
        reconcile_rows(row_, r);
      }
    }
    if (!purge_for_read(row_, header_.deletion_for(clustering), now_seconds_)) continue;
    clustering_.assign(clustering);
    emitted_in_partition_ = true;
    return true;
  }
}

void RowCursor::skip_partition() {
  if (current_prefix_.empty() || spec_.single_partition()) {
    done_ = spec_.single_partition() ? true : done_;
    return;
  }
  held_.reset();
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
