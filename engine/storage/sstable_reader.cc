#include "engine/storage/sstable_reader.h"

#include <fcntl.h>

#include <algorithm>

#include "engine/storage/block_cache.h"
#include "engine/storage/bloom_filter.h"
#include "engine/storage/sstable_block.h"
#include "engine/storage/sstable_footer.h"

namespace cassette::storage {

struct SSTableReader::Impl {
  std::string path;
  file::UniqueFd fd;
  uint64_t size = 0;
  uint64_t data_end = 0;  // where the footer starts: every block handle points below it
  BlockCache* cache = nullptr;
  uint64_t cache_id = 0;
  std::vector<std::string> summary_keys;  // last key of each index block
  std::vector<BlockHandle> summary_handles;
  std::string bloom;
  SSTableStats stats;

  Status corrupt(std::string_view what, uint64_t offset) const {
    return Status::corruption(fmt::format("sstable {}: {} at offset {}", path, what, offset));
  }

  bool handle_in_range(const BlockHandle& h) const {
    return h.offset <= data_end && h.size <= data_end - h.offset &&
           kBlockTrailerSize <= data_end - h.offset - h.size;
  }

  Result<std::string> read_raw_block(const BlockHandle& h) const {
    if (!handle_in_range(h)) return corrupt("block handle out of range", h.offset);
    std::string stored(h.size + kBlockTrailerSize, '\0');
    CASSETTE_RETURN_IF_ERROR(file::pread_exact(fd.get(), h.offset, stored.size(), stored.data(), path));
    return unframe_block(stored, h, path);
  }

  Result<std::shared_ptr<const std::string>> read_block(const BlockHandle& h) const {
    if (cache != nullptr) {
      if (auto hit = cache->lookup(cache_id, h.offset)) return hit;
    }
    CASSETTE_ASSIGN_OR_RETURN(std::string block, read_raw_block(h));
    if (cache != nullptr) return cache->insert(cache_id, h.offset, std::move(block));
    return std::make_shared<const std::string>(std::move(block));
  }

  Status load_summary(const BlockHandle& h) {
    CASSETTE_ASSIGN_OR_RETURN(std::string block, read_raw_block(h));
    BlockIterator it;
    it.reset(std::make_shared<const std::string>(std::move(block)), path);
    for (it.seek_to_first(); it.valid(); it.next()) {
      std::string_view value = it.value();
      BlockHandle child;
      if (!decode_block_handle(&value, &child) || !value.empty() || !handle_in_range(child) ||
          (!summary_keys.empty() && it.key() <= std::string_view(summary_keys.back()))) {
        return corrupt("malformed index summary", h.offset);
      }
      summary_keys.emplace_back(it.key());
      summary_handles.push_back(child);
    }
    if (!it.status().is_ok()) return corrupt("malformed index summary", h.offset);
    return Status::ok();
  }
};

SSTableReader::SSTableReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SSTableReader::~SSTableReader() = default;

Result<std::shared_ptr<SSTableReader>> SSTableReader::open(const std::string& path, BlockCache* cache) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->cache = cache;
  if (cache != nullptr) impl->cache_id = cache->new_id();
  CASSETTE_ASSIGN_OR_RETURN(impl->fd, file::open_file(path, O_RDONLY));
  CASSETTE_ASSIGN_OR_RETURN(impl->size, file::file_size(impl->fd.get(), path));
  if (impl->size < kSSTableFooterSize) return impl->corrupt("file too short for a footer", 0);
  impl->data_end = impl->size - kSSTableFooterSize;
  std::string footer_bytes(kSSTableFooterSize, '\0');
  CASSETTE_RETURN_IF_ERROR(file::pread_exact(impl->fd.get(), impl->data_end, kSSTableFooterSize,
                                             footer_bytes.data(), path));
  SSTableFooter footer;
  if (!decode_footer(footer_bytes, &footer)) return impl->corrupt("bad footer magic", impl->data_end);
  if (footer.version != kSSTableFormatVersion) {
    return impl->corrupt(fmt::format("unsupported format version {}", footer.version), impl->data_end);
  }
  CASSETTE_RETURN_IF_ERROR(impl->load_summary(footer.summary));
  CASSETTE_ASSIGN_OR_RETURN(impl->bloom, impl->read_raw_block(footer.bloom));
  if (!bloom_filter_is_valid(impl->bloom)) return impl->corrupt("malformed bloom filter", footer.bloom.offset);
  CASSETTE_ASSIGN_OR_RETURN(std::string stats, impl->read_raw_block(footer.stats));
  if (!decode_stats(stats, &impl->stats)) return impl->corrupt("malformed statistics", footer.stats.offset);
  return std::shared_ptr<SSTableReader>(new SSTableReader(std::move(impl)));
}

const std::string& SSTableReader::path() const { return impl_->path; }
uint64_t SSTableReader::file_size() const { return impl_->size; }
const SSTableStats& SSTableReader::stats() const { return impl_->stats; }

bool SSTableReader::may_contain_partition(std::string_view partition_prefix) const {
  return bloom_may_contain(impl_->bloom, partition_prefix);
}

namespace {

// Three levels: the in-memory summary picks an index block, whose entry picks a data block.
class SSTableIterator final : public EntryIterator {
 public:
  explicit SSTableIterator(const SSTableReader::Impl* t) : t_(t) {}

  bool valid() const override { return status_.is_ok() && data_loaded_ && data_.valid(); }
  Status status() const override { return status_; }
  std::string_view key() const override { return data_.key(); }
  std::string_view value() const override { return data_.value(); }

  void seek(std::string_view target) override {
    auto it = std::lower_bound(t_->summary_keys.begin(), t_->summary_keys.end(), target,
                               [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
    if (!load_index(static_cast<size_t>(it - t_->summary_keys.begin()))) return;
    index_.seek(target);
    if (!load_data_from_index()) return;
    data_.seek(target);
    skip_forward();
  }
  void seek_for_prev(std::string_view target) override {
    seek(target);
    if (!status_.is_ok()) return;
    if (!valid()) {
      seek_to_last();
    } else if (key() != target) {
      prev();
    }
  }
  void seek_to_last() override {
    if (t_->summary_keys.empty()) return invalidate();
    if (!load_index(t_->summary_keys.size() - 1)) return;
    index_.seek_to_last();
    if (!load_data_from_index()) return;
    data_.seek_to_last();
    skip_backward();
  }
  void next() override {
    data_.next();
    skip_forward();
  }
  void prev() override {
    data_.prev();
    skip_backward();
  }

 private:
  void invalidate() { data_loaded_ = false; }
  bool fail(Status s) {
    if (status_.is_ok()) status_ = std::move(s);
    data_loaded_ = false;
    return false;
  }
  bool load_index(size_t i) {
    summary_pos_ = i;
    data_loaded_ = false;
    if (i >= t_->summary_keys.size()) return false;
    auto block = t_->read_block(t_->summary_handles[i]);
    if (!block.is_ok()) return fail(block.status());
    index_.reset(*block, t_->path);
    return index_.status().is_ok() || fail(index_.status());
  }
  // Loads the data block the index iterator points at (false when it is exhausted).
  bool load_data_from_index() {
    data_loaded_ = false;
    if (!index_.valid()) return index_.status().is_ok() || fail(index_.status());
    std::string_view value = index_.value();
    BlockHandle handle;
    if (!decode_block_handle(&value, &handle) || !value.empty()) {
      return fail(t_->corrupt("malformed index entry", t_->summary_handles[summary_pos_].offset));
    }
    auto block = t_->read_block(handle);
    if (!block.is_ok()) return fail(block.status());
    data_.reset(*block, t_->path);
    if (!data_.status().is_ok()) return fail(data_.status());
    data_loaded_ = true;
    return true;
  }
  void skip_forward() {
    while (status_.is_ok() && data_loaded_ && !data_.valid()) {
      if (!data_.status().is_ok()) return (void)fail(data_.status());
      index_.next();
      if (!index_.valid()) {
        if (!index_.status().is_ok()) return (void)fail(index_.status());
        if (!load_index(summary_pos_ + 1)) return;
        index_.seek_to_first();
      }
      if (!load_data_from_index()) return;
      data_.seek_to_first();
    }
  }
  void skip_backward() {
    while (status_.is_ok() && data_loaded_ && !data_.valid()) {
      if (!data_.status().is_ok()) return (void)fail(data_.status());
      index_.prev();
      if (!index_.valid()) {
        if (!index_.status().is_ok()) return (void)fail(index_.status());
        if (summary_pos_ == 0) return invalidate();
        if (!load_index(summary_pos_ - 1)) return;
        index_.seek_to_last();
      }
      if (!load_data_from_index()) return;
      data_.seek_to_last();
    }
  }

  const SSTableReader::Impl* t_;
  size_t summary_pos_ = 0;
  BlockIterator index_;
  BlockIterator data_;
  bool data_loaded_ = false;
  Status status_;
};

}  // namespace

std::unique_ptr<EntryIterator> SSTableReader::new_iterator() const {
  return std::make_unique<SSTableIterator>(impl_.get());
}

Status SSTableReader::verify() const {
  auto it = new_iterator();
  std::string last;
  uint64_t entries = 0;
  for (it->seek({}); it->valid(); it->next()) {
    if (entries > 0 && it->key() <= std::string_view(last)) return impl_->corrupt("keys out of order", 0);
    last.assign(it->key());
    ++entries;
  }
  CASSETTE_RETURN_IF_ERROR(it->status());
  if (entries != impl_->stats.entries) return impl_->corrupt("entry count differs from statistics", 0);
  return Status::ok();
}

}  // namespace cassette::storage
