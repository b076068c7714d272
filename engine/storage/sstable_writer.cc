#include "engine/storage/sstable_writer.h"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/storage/block_builder.h"
#include "engine/storage/block_format.h"
#include "engine/storage/bloom_filter.h"
#include "engine/storage/index_key.h"
#include "engine/storage/sstable_footer.h"
#include "engine/storage/sstable_stats.h"

namespace cassette::storage {
namespace {

constexpr size_t kWriteBufferBytes = 1 << 20;  // bytes gathered before one write()
constexpr int kDataRestartInterval = 16;
constexpr int kIndexRestartInterval = 4;
// An entry and a block of the largest block size fit well below kMaxBlockBytes together.
constexpr size_t kMaxEntryBytes = 256u << 20;
constexpr size_t kMaxBlockSize = 256u << 20;

}  // namespace

struct SSTableWriter::Impl {
  std::string path;
  SSTableWriterOptions options;
  file::UniqueFd fd;
  std::string buffer;   // framed blocks not yet written
  uint64_t offset = 0;  // file offset of the end of buffer
  Status error;         // sticky: the first write error
  bool finished = false;
  std::unique_ptr<IndexComponentWriters> components;
  std::vector<std::string> component_names;

  BlockCompressor compressor;
  BlockBuilder data{kDataRestartInterval};
  BlockBuilder index{kIndexRestartInterval};
  // The last data block's handle waits for the next key, so that its index key can be a short
  // separator between the two blocks.
  bool index_entry_pending = false;
  BlockHandle pending_handle;
  uint64_t data_blocks = 0;  // written so far: pending_handle is the last one's
  std::string pending_last_key;
  std::vector<std::pair<std::string, BlockHandle>> summary;  // per index block
  BloomFilterBuilder bloom;
  SSTableStatsCollector stats{&path};

  Impl(std::string p, const SSTableWriterOptions& o)
      : path(std::move(p)),
        options(o),
        compressor(o.compression_level),
        bloom(o.bloom_bits_per_key, o.expected_partitions) {
    options.block_size = std::min(options.block_size, kMaxBlockSize);
  }

  Status flush_buffer() {
    if (buffer.empty()) return Status::ok();
    Status s = file::write_all(fd.get(), buffer, path);
    buffer.clear();
#ifdef __linux__
    // Starts the writeback of what is written so far without waiting for it (RocksDB's
    // bytes_per_sync), so that finish()'s fsync has only the tail to wait for: a file written
    // step by step by inline flushes must not leave a whole memtable of dirty pages to the
    // commit that finishes it, nor burst them onto the disk a commit-log sync waits behind.
    if (s.is_ok()) (void)::sync_file_range(fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    return s;
  }

  Result<BlockHandle> write_block(std::string_view block) {
    BlockHandle handle{offset, compressor.append_framed(block, &buffer)};
    offset += handle.size + kBlockTrailerSize;
    if (buffer.size() >= kWriteBufferBytes) CASSETTE_RETURN_IF_ERROR(flush_buffer());
    return handle;
  }

  Status flush_index_block() {
    if (index.empty()) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(BlockHandle handle, write_block(index.finish()));
    summary.emplace_back(index.last_key(), handle);
    index.reset();
    return Status::ok();
  }

  Status add_index_entry(const std::string& index_key, const BlockHandle& handle) {
    std::string encoded;
    encode_block_handle(handle, &encoded);
    index.add(index_key, encoded);
    index_entry_pending = false;
    if (index.size_estimate() >= options.block_size) return flush_index_block();
    return Status::ok();
  }

  Status flush_data_block() {
    if (data.empty()) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(pending_handle, write_block(data.finish()));
    ++data_blocks;
    pending_last_key = data.last_key();
    index_entry_pending = true;
    data.reset();
    return Status::ok();
  }

  Status add(std::string_view key, std::string_view value) {
    if (finished)
      return Status::invalid_argument(fmt::format("sstable {}: add() after finish()", path));
    CASSETTE_RETURN_IF_ERROR(error);
    if (stats.entries() > 0 && key <= std::string_view(stats.last_key())) {
      return Status::invalid_argument(fmt::format(
          "sstable {}: entry keys must strictly increase (entry {} is not above the one before)",
          path, stats.entries()));
    }
    if (key.size() + value.size() > kMaxEntryBytes) {
      return Status::invalid_argument(fmt::format("sstable {}: entry of {} bytes is too large",
                                                  path, key.size() + value.size()));
    }
    CASSETTE_ASSIGN_OR_RETURN(bool new_partition, stats.add(key, value));
    if (new_partition) bloom.add(stats.current_partition());
    if (index_entry_pending) {
      CASSETTE_RETURN_IF_ERROR(
          add_index_entry(shortest_separator(pending_last_key, key), pending_handle));
    }
    data.add(key, value);
    if (data.size_estimate() >= options.block_size) return flush_data_block();
    return Status::ok();
  }

  Result<uint64_t> finish() {
    if (finished) return Status::invalid_argument(fmt::format("sstable {}: finish() twice", path));
    CASSETTE_RETURN_IF_ERROR(error);
    CASSETTE_RETURN_IF_ERROR(flush_data_block());
    if (index_entry_pending) {
      CASSETTE_RETURN_IF_ERROR(add_index_entry(short_successor(pending_last_key), pending_handle));
    }
    CASSETTE_RETURN_IF_ERROR(flush_index_block());

    BlockBuilder summary_block(1);
    std::string encoded;
    for (const auto& [key, handle] : summary) {
      encoded.clear();
      encode_block_handle(handle, &encoded);
      summary_block.add(key, encoded);
    }
    SSTableFooter footer;
    CASSETTE_ASSIGN_OR_RETURN(footer.summary, write_block(summary_block.finish()));
    CASSETTE_ASSIGN_OR_RETURN(footer.bloom, write_block(bloom.finish()));
    std::string stats_block;
    encode_stats(stats.stats(), &stats_block);
    CASSETTE_ASSIGN_OR_RETURN(footer.stats, write_block(stats_block));
    encode_footer(footer, &buffer);
    offset += kSSTableFooterSize;
    CASSETTE_RETURN_IF_ERROR(flush_buffer());
    CASSETTE_RETURN_IF_ERROR(file::fsync_file(fd.get(), path));
    fd.reset();
    finished = true;
    return offset;
  }
};

SSTableWriter::SSTableWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SSTableWriter::~SSTableWriter() {
  if (impl_ != nullptr && !impl_->finished) {
    impl_->fd.reset();
    (void)file::remove_file(impl_->path);
  }
}

Result<std::unique_ptr<SSTableWriter>> SSTableWriter::create(const std::string& path,
                                                             const SSTableWriterOptions& options) {
  auto impl = std::make_unique<Impl>(path, options);
  CASSETTE_ASSIGN_OR_RETURN(impl->fd,
                            file::open_file(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC));
  impl->buffer.reserve(kWriteBufferBytes + (64 << 10));
  if (!options.components.empty()) {
    impl->components = std::make_unique<IndexComponentWriters>(options.components);
  }
  return std::unique_ptr<SSTableWriter>(new SSTableWriter(std::move(impl)));
}

Status SSTableWriter::add(std::string_view key, std::string_view value) {
  const uint64_t blocks = impl_->data_blocks;
  Status s = impl_->add(key, value);
  if (!s.is_ok() && s.code() == StatusCode::kIOError) impl_->error = s;
  if (s.is_ok() && impl_->components != nullptr) {
    s = impl_->components->add(key, value);
    // The entry ended a data block: the components learn where its entries went.
    if (s.is_ok() && impl_->data_blocks != blocks) {
      impl_->components->data_block(impl_->pending_handle.offset, impl_->pending_handle.size);
    }
  }
  return s;
}

Result<uint64_t> SSTableWriter::finish() {
  const uint64_t blocks = impl_->data_blocks;
  Result<uint64_t> size = impl_->finish();
  if (!size.is_ok() && size.status().code() == StatusCode::kIOError) impl_->error = size.status();
  if (size.is_ok() && impl_->components != nullptr) {
    if (impl_->data_blocks != blocks) {
      impl_->components->data_block(impl_->pending_handle.offset, impl_->pending_handle.size);
    }
    Result<std::vector<std::string>> names = impl_->components->finish(impl_->path);
    if (!names.is_ok()) {
      impl_->finished = false;  // the destructor removes the file: no SSTable without them
      return names.status();
    }
    impl_->component_names = std::move(*names);
  }
  return size;
}

uint64_t SSTableWriter::entries() const {
  return impl_->stats.entries();
}
const std::vector<std::string>& SSTableWriter::components() const {
  return impl_->component_names;
}
uint64_t SSTableWriter::file_size() const {
  return impl_->offset;
}

}  // namespace cassette::storage
