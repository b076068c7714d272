// SAI components, versions 2 and 3 (FORMAT.md, "SAI components"): each term once, its postings
// as offsets into a table holding each entry key once, the file mapped rather than read, and
// checked a piece at a time as lookups first touch it. Version 3 adds where each key's entry lies
// in the SSTable: its data block's ordinal next to the key, and a table of the data blocks.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "engine/storage/sai_component.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "engine/util/file.h"

namespace cassette::storage {

namespace {

constexpr uint64_t kSai2Magic = 0x32494153'74746573ull;  // "settSAI2" in file order
constexpr uint64_t kSai3Magic = 0x33494153'74746573ull;  // "settSAI3" in file order
constexpr size_t kFooterSize = 40;
constexpr size_t kFooter3Size = 48;
constexpr size_t kDataBlockEntry = 12;  // version 3's data block table: u64 offset, u32 size
constexpr uint32_t kHasPositions = 1;   // version 3's footer flags
constexpr size_t kTermsPerBlock = 16;
constexpr size_t kKeyChunk = 4096;  // the key table is checked in chunks of this size

size_t shared_prefix(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

class Sai2Builder : public IndexComponentBuilder {
 public:
  Sai2Builder(SaiColumn column, int version) : column_(std::move(column)), version_(version) {}

  void data_block(uint64_t offset, uint64_t size) override {
    data_blocks_.push_back({offset, size});
  }

  Status add(std::string_view key, std::string_view value) override {
    terms_.clear();
    // Expiring cells are indexed until compaction drops them: a reader re-checks the row.
    if (!sai_entry_terms(key, value, column_, 0, false, &terms_)) {
      return Status::corruption("SAI component: malformed entry");
    }
    if (terms_.empty()) return Status::ok();
    // Keys arrive in order: the key table is written as they come, each key once.
    const uint64_t key_at = keys_.size();
    coding::put_length_prefixed(&keys_, key);
    if (version_ >= 3) {
      // The entry lies in the data block the writer reports next (data_block).
      if (data_blocks_.size() > UINT32_MAX) positions_ = false;
      coding::put_varint32(&keys_, static_cast<uint32_t>(data_blocks_.size()));
      last_block_ = data_blocks_.size();
    }
    for (const std::string& t : terms_) {
      postings_.push_back({term_data_.size(), key_at, static_cast<uint32_t>(t.size())});
      term_data_.append(t);
    }
    ++key_count_;
    return Status::ok();
  }

  Status finish(const std::string& path) override {
    auto term = [&](const Posting& p) {
      return std::string_view(term_data_).substr(p.term, p.term_size);
    };
    // A stable sort keeps each term's keys in key order (the order they came in).
    std::stable_sort(postings_.begin(), postings_.end(),
                     [&](const Posting& a, const Posting& b) { return term(a) < term(b); });
    std::string out = std::move(keys_);
    const uint64_t terms_start = out.size();
    std::vector<uint32_t> blocks;
    uint32_t term_count = 0;
    std::string_view previous;
    size_t block_begin = 0;
    auto end_block = [&] {
      coding::put_fixed32(&out,
                          crc32c::mask(crc32c::value(std::string_view(out).substr(block_begin))));
    };
    for (size_t i = 0; i < postings_.size();) {
      std::string_view t = term(postings_[i]);
      size_t j = i;
      while (j < postings_.size() && term(postings_[j]) == t) ++j;
      if (term_count % kTermsPerBlock == 0) {
        if (term_count > 0) end_block();
        if (out.size() > UINT32_MAX) {
          return Status::invalid_argument("SAI component over 4 GiB: " + path);
        }
        block_begin = out.size();
        blocks.push_back(static_cast<uint32_t>(out.size()));
        previous = {};
      }
      const size_t shared = shared_prefix(previous, t);
      coding::put_varint64(&out, shared);
      coding::put_length_prefixed(&out, t.substr(shared));
      coding::put_varint64(&out, j - i);
      uint64_t last = 0;
      for (size_t k = i; k < j; ++k) {
        coding::put_varint64(&out, postings_[k].key - last);
        last = postings_[k].key;
      }
      previous = t;
      ++term_count;
      i = j;
    }
    if (term_count > 0) end_block();
    const uint64_t blocks_start = out.size();
    if (blocks_start > UINT32_MAX) {
      return Status::invalid_argument("SAI component over 4 GiB: " + path);
    }
    const size_t checked_from = out.size();
    for (uint32_t b : blocks) coding::put_fixed32(&out, b);
    for (uint64_t at = 0; at < terms_start; at += kKeyChunk) {
      const size_t n = std::min<uint64_t>(kKeyChunk, terms_start - at);
      coding::put_fixed32(&out, crc32c::mask(crc32c::value(std::string_view(out).substr(at, n))));
    }
    // Positions only when every key's block was reported (always, from an SSTableWriter or
    // build_index_component; a builder fed by anything else writes none).
    const bool positions = version_ >= 3 && positions_ &&
                           (key_count_ == 0 || last_block_ < data_blocks_.size()) &&
                           data_blocks_.size() <= UINT32_MAX;
    if (positions) {
      for (const auto& [offset, size] : data_blocks_) {
        coding::put_fixed64(&out, offset);
        coding::put_fixed32(&out, static_cast<uint32_t>(size));
      }
    }
    coding::put_fixed64(&out, terms_start);
    coding::put_fixed64(&out, blocks_start);
    coding::put_fixed32(&out, static_cast<uint32_t>(blocks.size()));
    coding::put_fixed32(&out, term_count);
    coding::put_fixed32(&out, key_count_);
    if (version_ >= 3) {
      coding::put_fixed32(&out, positions ? static_cast<uint32_t>(data_blocks_.size()) : 0);
      coding::put_fixed32(&out, positions ? kHasPositions : 0);
    }
    coding::put_fixed32(&out,
                        crc32c::mask(crc32c::value(std::string_view(out).substr(checked_from))));
    coding::put_fixed64(&out, version_ >= 3 ? kSai3Magic : kSai2Magic);
    CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd,
                              file::open_file(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC));
    CASSETTE_RETURN_IF_ERROR(file::write_all(fd.get(), out, path));
    return file::fsync_file(fd.get(), path);
  }

 private:
  struct Posting {
    uint64_t term;  // offset into term_data_
    uint64_t key;   // offset of the key in the key table
    uint32_t term_size;
  };
  SaiColumn column_;
  const int version_;
  std::vector<std::string> terms_;
  std::string keys_;
  std::string term_data_;
  std::vector<Posting> postings_;
  uint32_t key_count_ = 0;
  // Version 3: the data blocks reported so far (offset, size), and the ordinal of the last key's.
  std::vector<std::pair<uint64_t, uint64_t>> data_blocks_;
  uint64_t last_block_ = 0;
  bool positions_ = true;
};

}  // namespace

std::unique_ptr<IndexComponentBuilder> make_sai_builder(const SaiColumn& column) {
  return std::make_unique<Sai2Builder>(column, 3);
}

std::unique_ptr<IndexComponentBuilder> make_sai_v2_builder(const SaiColumn& column) {
  return std::make_unique<Sai2Builder>(column, 2);
}

bool is_sai2_component(std::string_view bytes) {
  if (bytes.size() < kFooterSize) return false;
  const uint64_t magic = coding::decode_fixed64(bytes.data() + bytes.size() - 8);
  return magic == kSai2Magic || (magic == kSai3Magic && bytes.size() >= kFooter3Size);
}

struct Sai2ComponentReader::Checked {
  explicit Checked(size_t n) : flags(new std::atomic<uint8_t>[n]) {
    for (size_t i = 0; i < n; ++i) flags[i].store(0, std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<uint8_t>[]> flags;  // blocks, then key chunks: 1 once verified
  // The first term of every `every`-th block (every block's unless that would pass the reader's
  // sample_bytes_), one after another (`samples`, the end of each in `sample_ends`), copied at
  // the first lookup: a lookup's binary search runs over these instead of touching some twenty
  // cache lines spread over the whole mapping. Unchecked copies: a lookup checks the block it
  // starts in (Sai2ComponentReader::lookup). `sampling`: a malformed first term.
  std::once_flag sampled;
  uint64_t every = 1;
  std::string samples;
  std::vector<uint32_t> sample_ends;
  Status sampling;
  std::string_view sample(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : sample_ends[i - 1];
    return std::string_view(samples).substr(begin, sample_ends[i] - begin);
  }
  // The 8 bytes of each sample after the prefix every sample shares (`shared`; zero-padded, as a
  // big-endian number): the search compares these first, a few cache lines where the samples
  // take some hundred, and the samples themselves only where they tie.
  size_t shared = 0;
  std::vector<uint64_t> heads;
  static uint64_t head(std::string_view term, size_t from) {
    uint64_t h = 0;
    for (size_t i = 0; i < 8; ++i) {
      const size_t at = from + i;
      h = (h << 8) | (at < term.size() ? static_cast<uint8_t>(term[at]) : 0);
    }
    return h;
  }
  void make_heads() {
    if (sample_ends.empty()) return;
    shared = shared_prefix(sample(0), sample(sample_ends.size() - 1));
    heads.reserve(sample_ends.size());
    for (size_t i = 0; i < sample_ends.size(); ++i) heads.push_back(head(sample(i), shared));
  }
  // The samples [lo, hi) that may not be before `term`'s place (the rest of them are).
  std::pair<size_t, size_t> candidates(std::string_view term) const {
    if (term.size() < shared || term.substr(0, shared) != sample(0).substr(0, shared)) {
      return {0, sample_ends.size()};
    }
    const uint64_t h = head(term, shared);
    return {static_cast<size_t>(std::lower_bound(heads.begin(), heads.end(), h) - heads.begin()),
            static_cast<size_t>(std::upper_bound(heads.begin(), heads.end(), h) - heads.begin())};
  }
  // Keeps every second sample (those of blocks 0, 2 * every, 4 * every...).
  void thin() {
    std::string kept;
    std::vector<uint32_t> kept_ends;
    for (size_t i = 0; i < sample_ends.size(); i += 2) {
      kept.append(sample(i));
      kept_ends.push_back(static_cast<uint32_t>(kept.size()));
    }
    samples = std::move(kept);
    sample_ends = std::move(kept_ends);
    every *= 2;
  }
};

Sai2ComponentReader::~Sai2ComponentReader() {
  if (map_ != nullptr) ::munmap(map_, data_.size());
}

Result<std::shared_ptr<const Sai2ComponentReader>> Sai2ComponentReader::map(const std::string& path,
                                                                            size_t sample_bytes) {
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY | O_CLOEXEC));
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file::file_size(fd.get(), path));
  auto reader = std::shared_ptr<Sai2ComponentReader>(new Sai2ComponentReader);
  reader->path_ = path;
  reader->sample_bytes_ = sample_bytes;
  if (size > 0) {
    // Populated at once: lookups land on random pages, and a fault per page they first touch
    // cost more in all (20,000 lookups of the 1M-row bench) than mapping every page up front
    // (a few milliseconds for 47 MB in the page cache; no copy, unlike version 1's read).
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
    if (map == MAP_FAILED) return file::errno_status("mmap", path);
    reader->map_ = map;
    reader->data_ = std::string_view(static_cast<const char*>(map), size);
  }
  CASSETTE_RETURN_IF_ERROR(reader->check_footer());
  return std::shared_ptr<const Sai2ComponentReader>(std::move(reader));
}

Result<std::shared_ptr<const Sai2ComponentReader>> Sai2ComponentReader::parse(
    std::string bytes, const std::string& path, size_t sample_bytes) {
  auto reader = std::shared_ptr<Sai2ComponentReader>(new Sai2ComponentReader);
  reader->path_ = path;
  reader->sample_bytes_ = sample_bytes;
  reader->owned_ = std::move(bytes);
  reader->data_ = reader->owned_;
  CASSETTE_RETURN_IF_ERROR(reader->check_footer());
  return std::shared_ptr<const Sai2ComponentReader>(std::move(reader));
}

Status Sai2ComponentReader::corrupt(std::string_view what) const {
  return Status::corruption(fmt::format("SAI component {}: {}", path_, what));
}

Status Sai2ComponentReader::check_footer() {
  if (data_.size() < kFooterSize) return corrupt("too short");
  const uint64_t magic = coding::decode_fixed64(data_.data() + data_.size() - 8);
  if (magic == kSai3Magic) {
    version_ = 3;
  } else if (magic != kSai2Magic) {
    return corrupt("bad magic");
  }
  const size_t footer_size = version_ >= 3 ? kFooter3Size : kFooterSize;
  if (data_.size() < footer_size) return corrupt("too short");
  const char* footer = data_.data() + data_.size() - footer_size;
  terms_start_ = coding::decode_fixed64(footer);
  blocks_start_ = coding::decode_fixed64(footer + 8);
  block_count_ = coding::decode_fixed32(footer + 16);
  term_count_ = coding::decode_fixed32(footer + 20);
  key_count_ = coding::decode_fixed32(footer + 24);
  uint32_t flags = 0;
  if (version_ >= 3) {
    data_block_count_ = coding::decode_fixed32(footer + 28);
    flags = coding::decode_fixed32(footer + 32);
  }
  const uint64_t chunks = (terms_start_ + kKeyChunk - 1) / kKeyChunk;
  if (terms_start_ > blocks_start_ || blocks_start_ > data_.size() ||
      (uint64_t{block_count_} + chunks) * 4 + uint64_t{data_block_count_} * kDataBlockEntry !=
          data_.size() - footer_size - blocks_start_ ||
      (flags & ~kHasPositions) != 0 || ((flags & kHasPositions) == 0) != (data_block_count_ == 0)) {
    return corrupt("bad footer");
  }
  const std::string_view checked = data_.substr(blocks_start_, data_.size() - blocks_start_ - 12);
  if (crc32c::value(checked) !=
      crc32c::unmask(coding::decode_fixed32(data_.data() + data_.size() - 12))) {
    return corrupt("checksum mismatch");
  }
  positions_ = (flags & kHasPositions) != 0;
  data_blocks_start_ = blocks_start_ + (uint64_t{block_count_} + chunks) * 4;
  if ((term_count_ + kTermsPerBlock - 1) / kTermsPerBlock != block_count_) {
    return corrupt("bad footer");
  }
  for (uint32_t b = 0; b < block_count_; ++b) {
    const uint64_t begin = block_offset(b);
    const uint64_t end = b + 1 < block_count_ ? block_offset(b + 1) : blocks_start_;
    if (begin < terms_start_ || begin + 4 > end || end > blocks_start_ ||
        (b == 0 && begin != terms_start_)) {
      return corrupt("bad block offsets");
    }
  }
  if (block_count_ == 0 && terms_start_ != blocks_start_) return corrupt("bad block offsets");
  checked_ = std::make_shared<Checked>(block_count_ + chunks);
  return Status::ok();
}

uint64_t Sai2ComponentReader::block_offset(uint32_t b) const {
  return coding::decode_fixed32(data_.data() + blocks_start_ + 4 * uint64_t{b});
}

Result<std::string_view> Sai2ComponentReader::block(uint32_t b) const {
  const uint64_t begin = block_offset(b);
  const uint64_t end = b + 1 < block_count_ ? block_offset(b + 1) : blocks_start_;
  std::string_view bytes = data_.substr(begin, end - begin - 4);
  std::atomic<uint8_t>& flag = checked_->flags[b];
  if (flag.load(std::memory_order_acquire) == 0) {
    if (crc32c::value(bytes) != crc32c::unmask(coding::decode_fixed32(data_.data() + end - 4))) {
      return corrupt(fmt::format("checksum mismatch in term block {}", b));
    }
    flag.store(1, std::memory_order_release);
  }
  return bytes;
}

Result<std::string_view> Sai2ComponentReader::key_at(uint64_t offset, BlockHandle* position) const {
  std::string_view in = data_.substr(0, terms_start_);
  uint64_t n = 0;
  if (offset >= in.size()) return corrupt("bad key offset");
  in.remove_prefix(offset);
  const size_t before = in.size();
  if (!coding::get_varint64(&in, &n) || n > in.size()) return corrupt("bad key");
  const std::string_view key = in.substr(0, n);
  in.remove_prefix(n);
  uint32_t block = 0;  // version 3: the ordinal of the key's data block
  if (version_ >= 3 && !coding::get_varint32(&in, &block)) return corrupt("bad key");
  const uint64_t end = offset + (before - in.size());  // the key's bytes are checked up to here
  const uint64_t chunks_at = blocks_start_ + 4 * uint64_t{block_count_};
  for (uint64_t c = offset / kKeyChunk; c * kKeyChunk < end; ++c) {
    std::atomic<uint8_t>& flag = checked_->flags[block_count_ + c];
    if (flag.load(std::memory_order_acquire) != 0) continue;
    const std::string_view chunk =
        data_.substr(c * kKeyChunk, std::min<uint64_t>(kKeyChunk, terms_start_ - c * kKeyChunk));
    if (crc32c::value(chunk) !=
        crc32c::unmask(coding::decode_fixed32(data_.data() + chunks_at + 4 * c))) {
      return corrupt(fmt::format("checksum mismatch in key chunk {}", c));
    }
    flag.store(1, std::memory_order_release);
  }
  if (position != nullptr) {
    *position = BlockHandle{};
    if (positions_) {
      if (block >= data_block_count_) return corrupt("bad block position");
      const char* entry = data_.data() + data_blocks_start_ + kDataBlockEntry * uint64_t{block};
      *position = BlockHandle{coding::decode_fixed64(entry), coding::decode_fixed32(entry + 8)};
    }
  }
  return key;
}

// Block b's first term, read without checking the block's checksum: what the samples copy and
// what the binary search of a lookup probes past them. The lookup checks the block it starts in
// instead (its first term must sort before the range's lower end), which a search misled by a
// damaged term into starting too late cannot satisfy: the terms are sorted. One misled into
// starting too early reads more blocks, each checked as it is read.
Result<std::string_view> Sai2ComponentReader::first_term(uint32_t b) const {
  const uint64_t begin = block_offset(b);  // offsets checked by check_footer
  const uint64_t end = b + 1 < block_count_ ? block_offset(b + 1) : blocks_start_;
  std::string_view in = data_.substr(begin, end - begin - 4);
  uint64_t shared = 0, n = 0;
  if (!coding::get_varint64(&in, &shared) || shared != 0 || !coding::get_varint64(&in, &n) ||
      n > in.size()) {
    return corrupt(fmt::format("bad term in block {}", b));
  }
  return in.substr(0, n);
}

Status Sai2ComponentReader::lookup(const TermRange& range, std::vector<std::string>* keys,
                                   std::vector<BlockHandle>* positions) const {
  if (block_count_ == 0) return Status::ok();
  auto before = [&](std::string_view term) {  // whether `term` sorts before the range
    if (!range.lower) return false;
    int c = term.compare(*range.lower);
    return c < 0 || (c == 0 && !range.lower_inclusive);
  };
  // The first block whose first term is not before the range: the range starts in the block
  // before it (or at its first term).
  uint32_t a = 0, z = block_count_;
  if (range.lower) {
    Checked& checked = *checked_;
    std::call_once(checked.sampled, [&] {
      for (uint64_t b = 0; b < block_count_; b += checked.every) {
        Result<std::string_view> t = first_term(static_cast<uint32_t>(b));
        if (!t.is_ok()) {
          checked.sampling = t.status();
          return;
        }
        checked.samples.append(*t);
        checked.sample_ends.push_back(static_cast<uint32_t>(checked.samples.size()));
        if (checked.samples.size() > sample_bytes_ && checked.sample_ends.size() > 1) {
          checked.thin();
          b = (checked.sample_ends.size() - 1) * checked.every;  // the last block kept
        }
      }
      checked.make_heads();
    });
    CASSETTE_RETURN_IF_ERROR(checked.sampling);
    // The first sample not before the range: the block sought is at most its block and after
    // the sample before it. Samples whose heads sort before the lower end's are before the
    // range, those after it are not: the search ends among those with the same head.
    auto [lo, hi] = checked.candidates(*range.lower);
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (before(checked.sample(mid))) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo > 0) a = static_cast<uint32_t>((lo - 1) * checked.every + 1);
    z = static_cast<uint32_t>(std::min<uint64_t>(block_count_, lo * checked.every));
    while (a < z) {
      uint32_t mid = a + (z - a) / 2;
      CASSETTE_ASSIGN_OR_RETURN(std::string_view t, first_term(mid));
      if (before(t)) {
        a = mid + 1;
      } else {
        z = mid;
      }
    }
    // Checked: block a-1, where the reading starts, starts before the range's lower end.
    if (a > 0) {
      CASSETTE_RETURN_IF_ERROR(block(a - 1).status());
      CASSETTE_ASSIGN_OR_RETURN(std::string_view t, first_term(a - 1));
      if (!before(t)) return corrupt("term blocks out of order");
    }
  }
  std::string term;
  for (uint32_t b = a == 0 ? 0 : a - 1; b < block_count_; ++b) {
    CASSETTE_ASSIGN_OR_RETURN(std::string_view in, block(b));
    term.clear();
    while (!in.empty()) {
      uint64_t shared = 0, n = 0, count = 0;
      if (!coding::get_varint64(&in, &shared) || shared > term.size() ||
          !coding::get_varint64(&in, &n) || n > in.size()) {
        return corrupt(fmt::format("bad term in block {}", b));
      }
      term.resize(shared);
      term.append(in.substr(0, n));
      in.remove_prefix(n);
      if (!coding::get_varint64(&in, &count)) {
        return corrupt(fmt::format("bad postings in block {}", b));
      }
      const bool skip = before(term);
      if (!skip && !range.contains(term)) return Status::ok();  // past the upper end
      uint64_t key = 0;
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t delta = 0;
        if (!coding::get_varint64(&in, &delta)) {
          return corrupt(fmt::format("bad postings in block {}", b));
        }
        if (skip) continue;
        key += delta;
        BlockHandle position;
        CASSETTE_ASSIGN_OR_RETURN(std::string_view k,
                                  key_at(key, positions != nullptr ? &position : nullptr));
        keys->emplace_back(k);
        if (positions != nullptr) positions->push_back(position);
      }
    }
  }
  return Status::ok();
}

}  // namespace cassette::storage
