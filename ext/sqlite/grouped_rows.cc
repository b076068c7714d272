#include "ext/sqlite/grouped_rows.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>

#include "engine/util/coding.h"
#include "engine/util/hash64.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {
namespace {

using types::TypeKind;

constexpr uint32_t kEnd = UINT32_MAX;  // no next row in the group

// SQLite's order of the values two serialized values of `type` map to (result_value()):
// NULL, then integers (the integer types, boolean) or text (text, ascii, uuid, timeuuid: BINARY
// collation, i.e. their bytes), then blobs (blob; and the empty value of a non-string type,
// shown as an empty blob).
int compare_sql(const types::CqlType& type, const std::optional<std::string_view>& a,
                const std::optional<std::string_view>& b) {
  auto rank = [&](const std::optional<std::string_view>& v) {
    if (!v) return 0;
    return v->empty() && empty_reads_as_blob(type.kind) ? 2 : 1;
  };
  const int ra = rank(a), rb = rank(b);
  if (ra != rb || ra != 1) return ra - rb;
  if (type.kind == TypeKind::kBoolean) return int((*a)[0] != 0) - int((*b)[0] != 0);
  if (is_integer_kind(type.kind) && a->size() == b->size()) {
    // Big-endian two's complement of one width: flipping the sign bit makes bytes order as
    // numbers do.
    const int first =
        (static_cast<unsigned char>((*a)[0]) ^ 0x80) - (static_cast<unsigned char>((*b)[0]) ^ 0x80);
    if (first != 0) return first;
  }
  return a->compare(*b);
}

// A run of stored rows: 2 MiB, aligned so that the kernel can back it with one huge page (one
// page fault instead of 512: the rows of a large read fill hundreds of them, once per query).
class Chunk {
 public:
  static constexpr size_t kBytes = 2 << 20;

  explicit Chunk(size_t at_least) {
    capacity_ = std::max(kBytes, at_least);
    if (capacity_ == kBytes) {
      bytes_ = static_cast<char*>(std::aligned_alloc(kBytes, kBytes));
      if (bytes_ != nullptr) ::madvise(bytes_, kBytes, MADV_HUGEPAGE);  // a hint: may be refused
    } else {
      bytes_ = static_cast<char*>(std::malloc(capacity_));
    }
    if (bytes_ == nullptr) throw std::bad_alloc();
  }
  ~Chunk() { std::free(bytes_); }
  Chunk(Chunk&& other) noexcept
      : bytes_(std::exchange(other.bytes_, nullptr)),
        size_(other.size_),
        capacity_(other.capacity_),
        in_file_(other.in_file_) {}
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;
  Chunk& operator=(Chunk&&) = delete;

  size_t size() const { return size_; }
  size_t room() const { return bytes_ == nullptr ? 0 : capacity_ - size_; }
  std::string_view bytes() const { return {bytes_, size_}; }
  // Where the chunk's bytes are in the spill file, once moved there (-1 before).
  int64_t in_file() const { return in_file_; }

  // Where the next bytes go; grow() then counts them. REQUIRES: no more than room().
  char* end() { return bytes_ + size_; }
  void grow(size_t n) { size_ += n; }
  void moved_to_file(int64_t offset) {
    in_file_ = offset;
    std::free(std::exchange(bytes_, nullptr));
  }

 private:
  char* bytes_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  int64_t in_file_ = -1;
};

// One read's share of the rows, filled on its own thread: its rows in chunks (moved to a
// temporary file past its share of the memory budget) and the groups they fall in.
struct Part {
  struct Group {
    uint32_t first = kEnd;  // rows of this part, linked through next_in_group
    uint32_t last = kEnd;
    std::string key;  // the grouping values, as add_to_group() writes them
  };
  struct Slot {
    uint64_t hash = 0;
    uint32_t group = kEnd;  // kEnd: empty
  };

  std::unique_ptr<query::QueryCursor> rows;
  std::vector<Chunk> chunks;
  size_t bytes_in_memory = 0;
  std::FILE* spill = nullptr;
  uint64_t spilled = 0;                 // bytes written to spill
  std::vector<uint64_t> row_at;         // by row: chunk << 32 | offset in the chunk
  std::vector<uint32_t> next_in_group;  // by row
  std::vector<std::string> partitions;  // the rows' partition keys, in read order
  std::vector<Group> groups;
  std::vector<Slot> slots;  // group_of()'s hash table, half full at most
  Status status;
  // Scratch for appending a row.
  std::vector<std::optional<std::string_view>> fields;
  std::vector<std::optional<int64_t>> numbers;
  std::string key;

  explicit Part(std::unique_ptr<query::QueryCursor> r) : rows(std::move(r)) {}
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  ~Part() {
    if (spill != nullptr) std::fclose(spill);
  }

  bool fail(Status s) {
    status = std::move(s);
    return false;
  }

  // The group of the grouping values `key`, added if new.
  uint32_t group_of(const std::string& k) {
    if (2 * (groups.size() + 1) > slots.size()) grow_slots();
    const uint64_t hash = hash64(k);
    const size_t mask = slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& slot = slots[i];
      if (slot.group == kEnd) {
        slot = Slot{hash, static_cast<uint32_t>(groups.size())};
        groups.push_back(Group{kEnd, kEnd, k});
        return slot.group;
      }
      if (slot.hash == hash && groups[slot.group].key == k) return slot.group;
    }
  }
  void grow_slots() {
    std::vector<Slot> old =
        std::exchange(slots, std::vector<Slot>(std::max<size_t>(16, 2 * slots.size())));
    const size_t mask = slots.size() - 1;
    for (const Slot& slot : old) {
      if (slot.group == kEnd) continue;
      size_t i = slot.hash & mask;
      while (slots[i].group != kEnd) i = (i + 1) & mask;
      slots[i] = slot;
    }
  }

  // Moves the chunks held in memory to the temporary file, where they stay until the end.
  bool spill_chunks(const std::string& table) {
    auto write_error = [&] {
      return fail(Status::io_error(fmt::format("cannot write rows of {} to a temporary file: {}",
                                               table, std::strerror(errno))));
    };
    if (spill == nullptr) {
      spill = std::tmpfile();
      if (spill == nullptr) {
        return fail(
            Status::io_error(fmt::format("cannot create a temporary file to group rows of {}: {}",
                                         table, std::strerror(errno))));
      }
    }
    for (Chunk& chunk : chunks) {
      if (chunk.in_file() >= 0) continue;
      if (std::fwrite(chunk.bytes().data(), 1, chunk.size(), spill) != chunk.size()) {
        return write_error();
      }
      chunk.moved_to_file(static_cast<int64_t>(spilled));
      spilled += chunk.size();
    }
    bytes_in_memory = 0;
    return std::fflush(spill) == 0 || write_error();
  }

  // Reads up to n bytes at `at` of the file (fewer only at its end).
  bool read_back(uint64_t at, size_t n, std::string* out, const std::string& table) {
    out->resize(n);
    ssize_t got = ::pread(fileno(spill), out->data(), n, static_cast<off_t>(at));
    if (got < 0 || (static_cast<uint64_t>(got) < n && at + static_cast<uint64_t>(got) != spilled)) {
      return fail(Status::io_error(
          fmt::format("cannot read rows of {} back from a temporary file", table)));
    }
    out->resize(static_cast<size_t>(got));
    return true;
  }
};

class GroupedRows final : public query::QueryCursor {
 public:
  GroupedRows(std::vector<std::unique_ptr<query::QueryCursor>> parts,
              std::shared_ptr<const schema::TableDef> table, std::vector<GroupTerm> terms,
              KeptColumns keep, size_t memory_budget)
      : table_(std::move(table)),
        terms_(std::move(terms)),
        keep_(std::move(keep)),
        memory_budget_(memory_budget / std::max<size_t>(1, parts.size())) {
    for (auto& rows : parts) parts_.emplace_back(std::move(rows));
    for (const GroupTerm& term : terms_) {  // the grouping values are kept
      if (std::find(keep_.values.begin(), keep_.values.end(), term.column) == keep_.values.end()) {
        keep_.values.push_back(term.column);
      }
    }
    value_slot_.assign(table_->columns.size(), -1);
    writetime_slot_.assign(table_->columns.size(), -1);
    ttl_slot_.assign(table_->columns.size(), -1);
    int slot = kFirstColumnSlot;
    for (size_t c : keep_.values) value_slot_[c] = slot++;
    for (size_t c : keep_.writetimes) writetime_slot_[c] = slot++;
    for (size_t c : keep_.ttls) ttl_slot_[c] = slot++;
    field_count_ = static_cast<size_t>(slot);
    for (const GroupTerm& term : terms_) {
      term_field_.push_back(static_cast<size_t>(value_slot_[term.column]));
    }
  }

  bool next() override {
    if (!status_.is_ok()) return false;
    if (!filled_) {
      filled_ = true;
      if (!fill()) return false;
    }
    if (row_ != kEnd) row_ = parts_[part_].next_in_group[row_];
    while (row_ == kEnd) {
      if (group_ > 0 && run_ + 1 < current_runs().size()) {  // the current group's next run
        ++run_;
      } else {
        if (group_ >= group_order_.size()) return false;
        current_ = group_order_[group_++];
        run_ = 0;
      }
      part_ = current_runs()[run_].first;
      row_ = current_runs()[run_].second;
    }
    return load(parts_[part_], row_);
  }

  const Status& status() const override { return status_; }

  int64_t token() const override {
    uint64_t bits = 0;  // (0 when not kept: SQLite reads only the columns it said it uses)
    if (fields_[kTokenSlot]) std::memcpy(&bits, fields_[kTokenSlot]->data(), sizeof bits);
    return static_cast<int64_t>(bits);
  }

  std::optional<std::string_view> value(size_t column) override {
    return field(value_slot_[column]);
  }
  std::optional<int64_t> writetime(size_t column) const override {
    return number(writetime_slot_[column]);
  }
  std::optional<int64_t> ttl(size_t column) const override { return number(ttl_slot_[column]); }
  const std::string& partition_key() const override { return parts_[part_].partitions[partition_]; }
  const std::string& clustering() const override {  // (only xRowid asks: copied on demand)
    clustering_.assign(*fields_[kClusteringSlot]);
    return clustering_;
  }
  bool is_static_only() const override { return static_only_; }

 private:
  static constexpr int kTokenSlot = 0, kClusteringSlot = 1, kFirstColumnSlot = 2;

  // A group of all parts: its rows are those of each (part, first row) run.
  struct Group {
    std::string key;
    std::vector<std::pair<size_t, uint32_t>> runs;
  };
  const std::vector<std::pair<size_t, uint32_t>>& current_runs() const {
    return groups_[current_].runs;
  }

  std::optional<std::string_view> field(int slot) const {
    return slot < 0 ? std::nullopt : fields_[static_cast<size_t>(slot)];
  }
  std::optional<int64_t> number(int slot) const {
    std::optional<std::string_view> f = field(slot);
    if (!f) return std::nullopt;
    int64_t v;
    std::memcpy(&v, f->data(), sizeof v);
    return v;
  }

  // Fills every part, each but the first on a thread of its own; then gathers the parts' groups
  // into groups_ and orders them.
  bool fill() {
    std::vector<std::thread> threads;
    size_t inline_from = parts_.size();  // parts no thread could be started for: filled here
    for (size_t i = 1; i < parts_.size(); ++i) {
      try {
        threads.emplace_back([this, i] { fill_part(parts_[i]); });
      } catch (const std::system_error&) {
        inline_from = i;
        break;
      }
    }
    fill_part(parts_[0]);
    for (size_t i = inline_from; i < parts_.size(); ++i) fill_part(parts_[i]);
    for (std::thread& t : threads) t.join();
    for (const Part& part : parts_) {
      if (!part.status.is_ok()) {
        status_ = part.status;
        return false;
      }
    }
    merge_groups();
    order_groups();
    return true;
  }

  // Reads every row of a part into its chunks and groups. Runs on the part's thread: touches
  // nothing outside `part` but what is read-only while filling.
  void fill_part(Part& part) {
    try {
      while (part.rows->next()) {
        if (part.row_at.size() >= kEnd) {
          part.fail(Status::internal("too many rows to group"));
          return;
        }
        const auto row = static_cast<uint32_t>(part.row_at.size());
        part.next_in_group.push_back(kEnd);
        if (!append_current_row(part, row)) return;
        if (part.bytes_in_memory > memory_budget_ && !part.spill_chunks(table_->name)) return;
      }
      if (!part.rows->status().is_ok()) part.fail(part.rows->status());
    } catch (const std::exception& e) {  // bad_alloc: not to escape a thread
      part.fail(Status::internal(fmt::format("grouping rows of {}: {}", table_->name, e.what())));
    }
  }

  // One group per distinct key across the parts, with a run of rows from each part that has it.
  void merge_groups() {
    std::unordered_map<std::string, size_t> index;
    for (size_t p = 0; p < parts_.size(); ++p) {
      for (const Part::Group& g : parts_[p].groups) {
        auto [it, added] = index.try_emplace(g.key, groups_.size());
        if (added) groups_.push_back(Group{g.key, {}});
        groups_[it->second].runs.emplace_back(p, g.first);
      }
    }
  }

  // Appends the current row of `part` to its chunks (in a chunk of its own if it is bigger): its
  // length (4 bytes); a varint of its partition's index in partitions * 2 + 1 if the row is
  // static-only; its fields (see the slots), each a varint of its length + 1 (0 for NULL) and its
  // bytes. Then adds the row to its group.
  bool append_current_row(Part& part, uint32_t row) {
    query::QueryCursor& rows = *part.rows;
    const std::string& partition = rows.partition_key();
    if (part.partitions.empty() || part.partitions.back() != partition) {
      part.partitions.push_back(partition);
    }
    const uint64_t head = (part.partitions.size() - 1) * 2 + (rows.is_static_only() ? 1 : 0);
    auto& fields = part.fields;
    fields.clear();
    uint64_t token_bits = static_cast<uint64_t>(keep_.token ? rows.token() : 0);
    fields.emplace_back(keep_.token ? std::optional<std::string_view>(std::string_view(
                                          reinterpret_cast<const char*>(&token_bits), 8))
                                    : std::nullopt);
    fields.emplace_back(rows.clustering());
    for (size_t c : keep_.values) fields.push_back(rows.value(c));
    if (!rows.status().is_ok()) return part.fail(rows.status());
    auto& numbers = part.numbers;
    numbers.clear();
    for (size_t c : keep_.writetimes) numbers.push_back(rows.writetime(c));
    for (size_t c : keep_.ttls) numbers.push_back(rows.ttl(c));
    for (const std::optional<int64_t>& v : numbers) {
      fields.emplace_back(v ? std::optional<std::string_view>(
                                  std::string_view(reinterpret_cast<const char*>(&*v), sizeof *v))
                            : std::nullopt);
    }
    constexpr size_t kVarint = 10;  // the longest
    size_t bound = sizeof(uint32_t) + kVarint;
    for (const auto& f : fields) bound += kVarint + (f ? f->size() : 0);
    if (part.chunks.empty() || part.chunks.back().room() < bound) {
      part.chunks.emplace_back(bound);
      part.bytes_in_memory += std::max(Chunk::kBytes, bound);
    }
    Chunk& chunk = part.chunks.back();
    part.row_at.push_back(uint64_t{part.chunks.size() - 1} << 32 | chunk.size());
    char* const start = chunk.end();
    char* out = start + sizeof(uint32_t);
    out += coding::encode_varint64(out, head);
    for (const auto& f : fields) {
      out += coding::encode_varint64(out, f ? f->size() + 1 : 0);
      if (f) out = static_cast<char*>(std::memcpy(out, f->data(), f->size())) + f->size();
    }
    const auto length = static_cast<uint32_t>(out - start - sizeof(uint32_t));
    std::memcpy(start, &length, sizeof length);
    chunk.grow(static_cast<size_t>(out - start));
    add_to_group(part, row);
    return true;
  }

  // Adds `row` to the group of its grouping values: each a presence byte, a length and the
  // bytes. Values SQLite holds equal have equal bytes (groupable()), but for booleans, any
  // non-zero byte is true.
  void add_to_group(Part& part, uint32_t row) {
    std::string& key = part.key;
    key.clear();
    for (size_t i = 0; i < terms_.size(); ++i) {
      std::optional<std::string_view> v = part.fields[term_field_[i]];
      const bool boolean = table_->columns[terms_[i].column].type.kind == TypeKind::kBoolean;
      if (v && boolean && !v->empty())
        v = (*v)[0] != 0 ? std::string_view("\1", 1) : std::string_view("\0", 1);
      key.push_back(v ? '\1' : '\0');
      if (!v) continue;
      const auto length = static_cast<uint32_t>(v->size());
      key.append(reinterpret_cast<const char*>(&length), sizeof length);
      key.append(*v);
    }
    Part::Group& g = part.groups[part.group_of(key)];
    if (g.first == kEnd) {
      g.first = row;
    } else {
      part.next_in_group[g.last] = row;
    }
    g.last = row;
  }

  static std::vector<std::optional<std::string_view>> split_key(std::string_view key,
                                                                size_t terms) {
    std::vector<std::optional<std::string_view>> values;
    for (size_t i = 0; i < terms; ++i) {
      const bool present = key[0] != '\0';
      key.remove_prefix(1);
      if (!present) {
        values.emplace_back(std::nullopt);
        continue;
      }
      uint32_t length;
      std::memcpy(&length, key.data(), sizeof length);
      values.emplace_back(key.substr(sizeof length, length));
      key.remove_prefix(sizeof length + length);
    }
    return values;
  }

  void order_groups() {
    std::vector<std::vector<std::optional<std::string_view>>> values;
    values.reserve(groups_.size());
    for (const Group& g : groups_) values.push_back(split_key(g.key, terms_.size()));
    group_order_.resize(groups_.size());
    std::iota(group_order_.begin(), group_order_.end(), uint32_t{0});
    std::sort(group_order_.begin(), group_order_.end(), [&](uint32_t a, uint32_t b) {
      for (size_t i = 0; i < terms_.size(); ++i) {
        const types::CqlType& type = table_->columns[terms_[i].column].type;
        int c = compare_sql(type, values[a][i], values[b][i]);
        if (c != 0) return terms_[i].descending ? c > 0 : c < 0;
      }
      return false;
    });
  }

  // Points fields_ at the stored row `row` of `part` (in memory, or read back from its file).
  bool load(Part& part, uint32_t row) {
    const size_t chunk = part.row_at[row] >> 32;
    const uint64_t offset = part.row_at[row] & 0xFFFFFFFF;
    std::string_view bytes;
    uint32_t length = 0;
    auto read_back = [&](uint64_t at, size_t n) {
      if (part.read_back(at, n, &read_back_, table_->name)) return true;
      status_ = part.status;
      return false;
    };
    if (part.chunks[chunk].in_file() < 0) {
      bytes = part.chunks[chunk].bytes().substr(offset);
      std::memcpy(&length, bytes.data(), sizeof length);
      bytes = bytes.substr(sizeof length, length);
    } else {
      const uint64_t at = static_cast<uint64_t>(part.chunks[chunk].in_file()) + offset;
      if (!read_back(at, sizeof length)) return false;
      std::memcpy(&length, read_back_.data(), sizeof length);
      if (!read_back(at + sizeof length, length)) return false;
      bytes = read_back_;
    }
    uint64_t head = 0;
    coding::get_varint64(&bytes, &head);
    partition_ = head / 2;
    static_only_ = head % 2 != 0;
    fields_.resize(field_count_);
    for (auto& f : fields_) {
      uint64_t n = 0;
      coding::get_varint64(&bytes, &n);
      if (n == 0) {
        f.reset();
        continue;
      }
      f = bytes.substr(0, n - 1);
      bytes.remove_prefix(n - 1);
    }
    return true;
  }

  std::shared_ptr<const schema::TableDef> table_;
  std::vector<GroupTerm> terms_;
  KeptColumns keep_;
  size_t memory_budget_;                                     // each part's
  std::vector<int> value_slot_, writetime_slot_, ttl_slot_;  // by column; -1: not kept
  size_t field_count_ = 0;
  std::vector<size_t> term_field_;  // by term: its slot (group_rows() keeps terms' values)

  std::deque<Part> parts_;  // (a deque: Parts never move; threads hold references)
  std::vector<Group> groups_;
  std::vector<uint32_t> group_order_;  // groups_ indexes, in SQLite's order

  bool filled_ = false;
  size_t group_ = 0;      // next in group_order_
  uint32_t current_ = 0;  // the group being returned (once group_ > 0)
  size_t run_ = 0;        // its run being returned
  size_t part_ = 0;       // the current row's part
  uint32_t row_ = kEnd;   // the current row, in its part
  std::vector<std::optional<std::string_view>> fields_;  // of the current row
  std::string read_back_;
  size_t partition_ = 0;  // the current row's, in its part's partitions
  bool static_only_ = false;
  mutable std::string clustering_;
  Status status_;
};

}  // namespace

bool groupable(const types::CqlType& type) {
  switch (type.kind) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kBoolean:
    case TypeKind::kText:
    case TypeKind::kAscii:
    case TypeKind::kBlob:
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return true;
    default:
      return false;
  }
}

std::unique_ptr<query::QueryCursor> group_rows(
    std::vector<std::unique_ptr<query::QueryCursor>> parts,
    std::shared_ptr<const schema::TableDef> table, std::vector<GroupTerm> terms, KeptColumns keep,
    size_t memory_budget) {
  return std::make_unique<GroupedRows>(std::move(parts), std::move(table), std::move(terms),
                                       std::move(keep), memory_budget);
}

}  // namespace cassette::sqlite
