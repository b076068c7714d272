#include "engine/storage/sstable_reader.h"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>

#include "engine/storage/block.h"
#include "engine/storage/sstable_footer.h"
#include "engine/storage/sstable_iterator.h"
#include "engine/storage/sstable_reader_impl.h"
#include "engine/storage/sstable_stats.h"

namespace cassette::storage {

// ---- SSTableReader::Impl ---------------------------------------------------------------------

SSTableReader::Impl::~Impl() {
  if (tables != nullptr) tables->erase(table_id);
}

Result<TableCache::Handle> SSTableReader::Impl::descriptor() const {
  if (tables == nullptr) return own_fd;
  return tables->descriptor(table_id, path);
}

Status SSTableReader::Impl::corruption(std::string_view what, uint64_t offset) const {
  return Status::corruption(fmt::format("sstable {}: {} at offset {}", path, what, offset));
}

Status SSTableReader::Impl::out_of_range(const BlockHandle& handle) const {
  return corruption(fmt::format("block handle (size {}) out of range", handle.size), handle.offset);
}

bool SSTableReader::Impl::handle_in_range(const BlockHandle& handle) const {
  return handle.offset <= blocks_end && handle.size <= blocks_end - handle.offset &&
         kBlockTrailerSize <= blocks_end - handle.offset - handle.size;
}

Result<std::string> SSTableReader::Impl::read_block_uncached(const BlockHandle& handle) const {
  std::string block;
  CASSETTE_RETURN_IF_ERROR(read_block_into(handle, &block));
  return block;
}

Status SSTableReader::Impl::read_block_into(const BlockHandle& handle, std::string* out) const {
  if (!handle_in_range(handle)) return out_of_range(handle);
  const size_t n = handle.size + kBlockTrailerSize;
  // A block's stored bytes are read, checked and decompressed, then not needed: one buffer per
  // thread serves every read (grown to the largest block, no zero-fill after that), but a rare
  // huge block is read into its own.
  constexpr size_t kMaxReusedBytes = 1 << 20;
  thread_local std::string reused;
  std::string own;
  std::string& stored = n <= kMaxReusedBytes ? reused : own;
  if (stored.size() < n) stored.resize(n);
  CASSETTE_ASSIGN_OR_RETURN(TableCache::Handle fd, descriptor());
  CASSETTE_RETURN_IF_ERROR(file::pread_exact(fd->get(), handle.offset, n, stored.data(), path));
  return unframe_block_into(std::string_view(stored.data(), n), handle, path, out);
}

Result<std::string_view> SSTableReader::Impl::stored_in_window(const BlockHandle& handle,
                                                               ReadAhead* ahead,
                                                               bool forward) const {
  if (!handle_in_range(handle)) return out_of_range(handle);
  const size_t n = handle.size + kBlockTrailerSize;
  if (!ahead->covers(handle.offset, n)) {
    // A window of at least this block, from it towards where the caller is going, inside the
    // blocks (handle_in_range: the block ends at or before blocks_end).
    const uint64_t window = std::max<uint64_t>(n, ReadAhead::kWindowBytes);
    uint64_t start = handle.offset;
    uint64_t end = std::min(blocks_end, handle.offset + window);
    if (!forward) {
      end = handle.offset + n;
      start = end > window ? end - window : 0;
    }
    ahead->bytes.resize(end - start);
    ahead->offset = start;
    Result<TableCache::Handle> fd = descriptor();
    Status read = fd.is_ok() ? file::pread_exact(fd.value()->get(), start, end - start,
                                                 ahead->bytes.data(), path)
                             : fd.status();
    if (!read.is_ok()) {
      ahead->bytes.clear();
      return read;
    }
  }
  return std::string_view(ahead->bytes.data() + (handle.offset - ahead->offset), n);
}

Result<BlockCache::Block> SSTableReader::Impl::read_block(const BlockHandle& handle,
                                                          ReadAhead* ahead, bool forward) const {
  if (cache != nullptr) {
    if (BlockCache::Block hit = cache->lookup(cache_id, handle.offset)) return hit;
  }
  // Every block read is checked here, once, before it is cached: iterators then take blocks on
  // trust (BlockIterator::reset_checked) however often the cache serves them.
  if (ahead == nullptr) {
    // The stored bytes go to a buffer this thread reuses, the block to a buffer the cache evicted
    // (spare_buffer): a miss neither allocates nor zero-fills, and frees nothing cold.
    std::shared_ptr<std::string> block = cache != nullptr
                                             ? cache->spare_buffer(cache_id, handle.offset)
                                             : std::make_shared<std::string>();
    CASSETTE_RETURN_IF_ERROR(read_block_into(handle, block.get()));
    CASSETTE_RETURN_IF_ERROR(check_block(*block, path, handle.offset));
    if (cache != nullptr) return cache->insert(cache_id, handle.offset, std::move(block));
    return BlockCache::Block(std::move(block));
  }
  std::shared_ptr<std::string> buffer = ahead->free_buffer();
  CASSETTE_ASSIGN_OR_RETURN(std::string_view stored, stored_in_window(handle, ahead, forward));
  CASSETTE_RETURN_IF_ERROR(unframe_block_into(stored, handle, path, buffer.get()));
  CASSETTE_RETURN_IF_ERROR(check_block(*buffer, path, handle.offset));
  if (cache != nullptr) cache->admit_if_room(cache_id, handle.offset, buffer);
  return BlockCache::Block(std::move(buffer));
}

namespace {

Status load_footer(SSTableReader::Impl* table, SSTableFooter* footer) {
  if (table->size < kSSTableFooterSize) {
    return table->corruption(
        fmt::format("file of {} bytes is too short to be an SSTable", table->size), 0);
  }
  table->blocks_end = table->size - kSSTableFooterSize;
  std::string bytes(kSSTableFooterSize, '\0');
  CASSETTE_ASSIGN_OR_RETURN(TableCache::Handle fd, table->descriptor());
  CASSETTE_RETURN_IF_ERROR(
      file::pread_exact(fd->get(), table->blocks_end, bytes.size(), bytes.data(), table->path));
  switch (decode_footer(bytes, footer)) {
    case FooterError::kNone:
      break;
    case FooterError::kBadMagic:
      return table->corruption("bad footer magic (not an SSTable, or truncated)",
                               table->blocks_end);
    case FooterError::kBadChecksum:
      return table->corruption("footer checksum mismatch", table->blocks_end);
    case FooterError::kBadVersion:
      return table->corruption(fmt::format("unsupported format version {}", footer->version),
                               table->blocks_end);
  }
  return Status::ok();
}

// The summary block: last key of each index block -> its handle. Keys strictly increase and the
// index blocks follow each other in the file.
Status load_summary(SSTableReader::Impl* table, const BlockHandle& handle) {
  CASSETTE_ASSIGN_OR_RETURN(std::string bytes, table->read_block_uncached(handle));
  BlockIterator it;
  it.reset(std::make_shared<const std::string>(std::move(bytes)), &table->path, handle.offset);
  for (it.seek_to_first(); it.valid(); it.next()) {
    std::string_view value = it.value();
    BlockHandle child;
    if (!decode_block_handle(&value, &child) || !value.empty() || !table->handle_in_range(child)) {
      return table->corruption("bad block handle in index summary", handle.offset);
    }
    if (!table->summary_keys.empty() && (it.key() <= std::string_view(table->summary_keys.back()) ||
                                         child.offset <= table->summary_handles.back().offset)) {
      return table->corruption("index summary out of order", handle.offset);
    }
    table->summary_keys.emplace_back(it.key());
    table->summary_handles.push_back(child);
  }
  return it.status();
}

}  // namespace

// ---- SSTableReader ---------------------------------------------------------------------------

SSTableReader::SSTableReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SSTableReader::~SSTableReader() = default;

Result<std::shared_ptr<SSTableReader>> SSTableReader::open(const std::string& path,
                                                           BlockCache* cache,
                                                           std::shared_ptr<TableCache> tables) {
  auto table = std::make_unique<Impl>();
  table->path = path;
  table->cache = cache;
  if (cache != nullptr) table->cache_id = cache->new_id();
  if (tables != nullptr) {
    table->table_id = tables->new_id();
    table->tables = std::move(tables);
  } else {
    CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
    table->own_fd = std::make_shared<const file::UniqueFd>(std::move(fd));
  }
  {
    CASSETTE_ASSIGN_OR_RETURN(TableCache::Handle fd, table->descriptor());
    CASSETTE_ASSIGN_OR_RETURN(table->size, file::file_size(fd->get(), path));
  }

  SSTableFooter footer;
  CASSETTE_RETURN_IF_ERROR(load_footer(table.get(), &footer));
  CASSETTE_RETURN_IF_ERROR(load_summary(table.get(), footer.summary));
  table->bloom_offset = footer.bloom.offset;
  table->stats_offset = footer.stats.offset;
  CASSETTE_ASSIGN_OR_RETURN(std::string bloom, table->read_block_uncached(footer.bloom));
  if (!table->bloom.load(std::move(bloom))) {
    return table->corruption("malformed bloom filter", footer.bloom.offset);
  }
  CASSETTE_ASSIGN_OR_RETURN(std::string stats, table->read_block_uncached(footer.stats));
  if (!decode_stats(stats, &table->stats)) {
    return table->corruption("malformed statistics block", footer.stats.offset);
  }
  if ((table->stats.entries == 0) != table->summary_keys.empty()) {
    return table->corruption("statistics do not match the index summary", footer.stats.offset);
  }
  return std::shared_ptr<SSTableReader>(new SSTableReader(std::move(table)));
}

const std::string& SSTableReader::path() const {
  return impl_->path;
}
uint64_t SSTableReader::file_size() const {
  return impl_->size;
}
const SSTableStats& SSTableReader::stats() const {
  return impl_->stats;
}

bool SSTableReader::may_contain_partition(std::string_view partition_prefix) const {
  return impl_->bloom.may_contain(partition_prefix);
}

std::unique_ptr<EntryIterator> SSTableReader::new_iterator() const {
  return new_sstable_iterator(impl_.get());
}

}  // namespace cassette::storage
