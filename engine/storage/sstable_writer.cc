#include "engine/storage/sstable_writer.h"

#include <fcntl.h>

#include "engine/storage/bloom_filter.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sstable_footer.h"

namespace cassette::storage {
namespace {
constexpr size_t kWriteBufferBytes = 1 << 20;
}  // namespace

struct SSTableWriter::Impl {
  std::string path;
  SSTableWriterOptions options;
  file::UniqueFd fd;
  std::string buffer;  // bytes not yet written
  uint64_t offset = 0;  // file offset of buffer's end
  bool finished = false;

  BlockBuilder data;
  BlockBuilder index;
  std::vector<std::pair<std::string, BlockHandle>> summary;
  BloomFilterBuilder bloom;
  SSTableStats stats;
  RowTimes times;
  std::string last_prefix;

  explicit Impl(const SSTableWriterOptions& o) : options(o), bloom(o.bloom_bits_per_key) {}

  Status flush_buffer() {
    CASSETTE_RETURN_IF_ERROR(file::write_all(fd.get(), buffer, path));
    buffer.clear();
    return Status::ok();
  }
  Result<BlockHandle> write_block(std::string_view block, int level) {
    std::string framed = frame_block(block, level);
    BlockHandle handle{offset, framed.size() - kBlockTrailerSize};
    buffer += framed;
    offset += framed.size();
    if (buffer.size() >= kWriteBufferBytes) CASSETTE_RETURN_IF_ERROR(flush_buffer());
    return handle;
  }
  Status finish_index_block() {
    if (index.empty()) return Status::ok();
    std::string last = index.last_key();
    CASSETTE_ASSIGN_OR_RETURN(BlockHandle handle, write_block(index.finish(), options.compression_level));
    summary.emplace_back(std::move(last), handle);
    index.reset();
    return Status::ok();
  }
  Status finish_data_block() {
    if (data.empty()) return Status::ok();
    std::string last = data.last_key();
    CASSETTE_ASSIGN_OR_RETURN(BlockHandle handle, write_block(data.finish(), options.compression_level));
    data.reset();
    std::string encoded;
    encode_block_handle(handle, &encoded);
    index.add(last, encoded);
    if (index.size_estimate() >= options.block_size) CASSETTE_RETURN_IF_ERROR(finish_index_block());
    return Status::ok();
  }
  Status note_value(std::string_view key, std::string_view value) {
    size_t prefix = partition_prefix_length(key);
    if (prefix == 0 || prefix >= key.size()) {
      return Status::invalid_argument(fmt::format("sstable {}: malformed entry key", path));
    }
    if (std::string_view(last_prefix) != key.substr(0, prefix)) {
      last_prefix.assign(key.substr(0, prefix));
      bloom.add(last_prefix);
      ++stats.partitions;
    }
    auto kind = static_cast<EntryKind>(key[prefix]);
    bool ok;
    if (kind == EntryKind::kPartitionHeader) {
      PartitionHeader header;
      ok = decode_header(value, &header);
      if (ok) collect_header_times(header, &times);
      ++stats.headers;
    } else {
      Row row;
      ok = decode_row(value, &row);
      if (ok) collect_row_times(row, &times);
      ++(kind == EntryKind::kRow ? stats.rows : stats.static_rows);
    }
    if (!ok) return Status::invalid_argument(fmt::format("sstable {}: malformed entry value", path));
    return Status::ok();
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
  auto impl = std::make_unique<Impl>(options);
  impl->path = path;
  CASSETTE_ASSIGN_OR_RETURN(impl->fd, file::open_file(path, O_WRONLY | O_CREAT | O_TRUNC));
  return std::unique_ptr<SSTableWriter>(new SSTableWriter(std::move(impl)));
}

Status SSTableWriter::add(std::string_view key, std::string_view value) {
  Impl& w = *impl_;
  if (w.stats.entries > 0 && key <= std::string_view(w.stats.last_key)) {
    return Status::invalid_argument(fmt::format("sstable {}: keys added out of order", w.path));
  }
  CASSETTE_RETURN_IF_ERROR(w.note_value(key, value));
  if (w.stats.entries == 0) w.stats.first_key.assign(key);
  w.stats.last_key.assign(key);
  ++w.stats.entries;
  w.stats.data_bytes += key.size() + value.size();
  w.data.add(key, value);
  if (w.data.size_estimate() >= w.options.block_size) CASSETTE_RETURN_IF_ERROR(w.finish_data_block());
  return Status::ok();
}

Result<uint64_t> SSTableWriter::finish() {
  Impl& w = *impl_;
  CASSETTE_RETURN_IF_ERROR(w.finish_data_block());
  CASSETTE_RETURN_IF_ERROR(w.finish_index_block());
  BlockBuilder summary;
  for (const auto& [key, handle] : w.summary) {
    std::string encoded;
    encode_block_handle(handle, &encoded);
    summary.add(key, encoded);
  }
  SSTableFooter footer;
  CASSETTE_ASSIGN_OR_RETURN(footer.summary, w.write_block(summary.finish(), 0));
  CASSETTE_ASSIGN_OR_RETURN(footer.bloom, w.write_block(w.bloom.finish(), 0));
  w.stats.min_timestamp = w.times.min_timestamp;
  w.stats.max_timestamp = w.times.max_timestamp;
  w.stats.max_local_deletion_time = w.times.max_local_deletion_time;
  w.stats.tombstones = w.times.tombstones;
  std::string stats;
  encode_stats(w.stats, &stats);
  CASSETTE_ASSIGN_OR_RETURN(footer.stats, w.write_block(stats, 0));
  encode_footer(footer, &w.buffer);
  w.offset += kSSTableFooterSize;
  CASSETTE_RETURN_IF_ERROR(w.flush_buffer());
  CASSETTE_RETURN_IF_ERROR(file::fsync_file(w.fd.get(), w.path));
  w.fd.reset();
  w.finished = true;
  return w.offset;
}

uint64_t SSTableWriter::entries() const { return impl_->stats.entries; }
uint64_t SSTableWriter::file_size() const { return impl_->offset; }

}  // namespace cassette::storage
