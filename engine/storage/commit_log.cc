// Commit-log segments and records; the byte layout and its invariants are in FORMAT.md
// ("Commit log"). Reading works on large chunks of a segment, not one system call per record, so
// replaying a whole log runs at the speed of the disk and the checksum.
#include "engine/storage/commit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace cassette::storage {
namespace {

constexpr char kMagic[8] = {'C', 'S', 'T', 'L', 'O', 'G', '0', '1'};
constexpr uint64_t kHeaderBytes = 16;        // magic + fixed64 segment number
constexpr uint64_t kRecordHeaderBytes = 8;   // masked crc32c + fixed32 length
constexpr size_t kReadChunkBytes = 4 << 20;  // one pread brings this much of a segment
constexpr auto kGroupCommitInterval = std::chrono::milliseconds(5);

std::string segment_path(const std::string& log_dir, uint64_t segment) {
  return file::join(log_dir, commit_log_segment_name(segment));
}

std::string encode_segment_header(uint64_t segment) {
  std::string out(kMagic, sizeof(kMagic));
  coding::put_fixed64(&out, segment);
  return out;
}

// The header that goes before `payload` in its record: masked crc32c + fixed32 length. Written
// apart from the payload, so a large transaction is not copied once more just to frame it.
std::string encode_record_header(std::string_view payload) {
  std::string length;
  coding::put_fixed32(&length, static_cast<uint32_t>(payload.size()));
  uint32_t crc = crc32c::extend(crc32c::value(length), payload.data(), payload.size());
  std::string out;
  coding::put_fixed32(&out, crc32c::mask(crc));
  out.append(length);
  return out;
}

// The payload length of the valid record that starts `bytes`, or nothing when none does (too
// short for its header or its payload, or a checksum mismatch).
std::optional<uint32_t> valid_record_length(std::string_view bytes) {
  if (bytes.size() < kRecordHeaderBytes) return std::nullopt;
  uint32_t length = coding::decode_fixed32(bytes.data() + 4);
  if (length > bytes.size() - kRecordHeaderBytes) return std::nullopt;
  uint32_t stored = crc32c::unmask(coding::decode_fixed32(bytes.data()));
  if (crc32c::extend(0, bytes.data() + 4, 4 + size_t{length}) != stored) return std::nullopt;
  return length;
}

// True when a valid record starts anywhere after the first byte of `tail`: then a bad record at
// the start of `tail` is corruption, not a torn write.
bool valid_record_follows(std::string_view tail) {
  for (size_t p = 1; p + kRecordHeaderBytes <= tail.size(); ++p) {
    if (valid_record_length(tail.substr(p))) return true;
  }
  return false;
}

// One segment file open for reading, with a window of its bytes in memory.
class SegmentReader {
 public:
  SegmentReader(file::UniqueFd fd, std::string path, uint64_t size)
      : fd_(std::move(fd)), path_(std::move(path)), size_(size) {}

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

  // Bytes [offset, offset + n) of the file. REQUIRES: offset + n <= size(). The view stays valid
  // until the next call.
  Result<std::string_view> view(uint64_t offset, uint64_t n) {
    if (offset < window_offset_ || offset + n > window_offset_ + window_.size()) {
      uint64_t want = std::min<uint64_t>(std::max<uint64_t>(n, kReadChunkBytes), size_ - offset);
      window_.resize(want);
      window_offset_ = offset;
      Status s = file::pread_exact(fd_.get(), offset, want, window_.data(), path_);
      if (!s.is_ok()) {
        window_.clear();
        return s;
      }
    }
    return std::string_view(window_).substr(offset - window_offset_, n);
  }

 private:
  file::UniqueFd fd_;
  std::string path_;
  uint64_t size_;
  std::string window_;
  uint64_t window_offset_ = 0;
};

Status corrupt_record(const std::string& path, uint64_t offset) {
  return Status::corruption(
      fmt::format("commit log {}: corrupt record at offset {}", path, offset));
}

// Opens segment `segment` and checks its header. Returns no reader (and OK) when the file is
// shorter than a header, which the caller accepts only for the last segment (a torn creation).
Result<std::optional<SegmentReader>> open_segment_for_reading(const std::string& log_dir,
                                                              uint64_t segment) {
  std::string path = segment_path(log_dir, segment);
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, file::open_file(path, O_RDONLY));
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file::file_size(fd.get(), path));
  if (size < kHeaderBytes) return std::optional<SegmentReader>();
  SegmentReader reader(std::move(fd), path, size);
  CASSETTE_ASSIGN_OR_RETURN(std::string_view header, reader.view(0, kHeaderBytes));
  if (header != encode_segment_header(segment)) {
    return Status::corruption(
        fmt::format("commit log {}: bad segment header (expected segment {})", path, segment));
  }
  return std::optional<SegmentReader>(std::move(reader));
}

// Reads the records of one segment from `offset`. Sets *stop when a bad record ends the log (only
// allowed in the last segment, and only when nothing valid follows it).
Status read_segment(SegmentReader& reader, uint64_t segment, uint64_t offset, bool is_last,
                    const RecordFn& fn, LogPosition* valid_end, bool* stop) {
  while (offset < reader.size()) {
    uint64_t remaining = reader.size() - offset;
    std::optional<uint32_t> length;
    if (remaining >= kRecordHeaderBytes) {
      CASSETTE_ASSIGN_OR_RETURN(std::string_view header, reader.view(offset, kRecordHeaderBytes));
      uint64_t record_bytes = kRecordHeaderBytes + coding::decode_fixed32(header.data() + 4);
      if (record_bytes <= remaining) {
        CASSETTE_ASSIGN_OR_RETURN(std::string_view record, reader.view(offset, record_bytes));
        length = valid_record_length(record);
      }
    }
    if (!length) {
      if (!is_last) return corrupt_record(reader.path(), offset);
      CASSETTE_ASSIGN_OR_RETURN(std::string_view tail, reader.view(offset, remaining));
      if (valid_record_follows(tail)) return corrupt_record(reader.path(), offset);
      *stop = true;  // a torn tail: the log ends before it
      return Status::ok();
    }
    uint64_t end = offset + kRecordHeaderBytes + *length;
    CASSETTE_ASSIGN_OR_RETURN(std::string_view payload,
                              reader.view(offset + kRecordHeaderBytes, *length));
    CASSETTE_RETURN_IF_ERROR(fn({segment, offset}, {segment, end}, payload));
    *valid_end = {segment, end};
    offset = end;
  }
  return Status::ok();
}

// Checks the header of an existing segment and truncates it to `offset`, durably.
Status cut_segment(int fd, const std::string& path, uint64_t segment, uint64_t size,
                   uint64_t offset) {
  std::string header(kHeaderBytes, '\0');
  CASSETTE_RETURN_IF_ERROR(file::pread_exact(fd, 0, kHeaderBytes, header.data(), path));
  if (header != encode_segment_header(segment)) {
    return Status::corruption(
        fmt::format("commit log {}: bad segment header (expected segment {})", path, segment));
  }
  if (offset < kHeaderBytes || offset > size) {
    return Status::invalid_argument(fmt::format(
        "commit log {}: cannot append at offset {} of a {}-byte segment", path, offset, size));
  }
  if (offset == size) return Status::ok();
  CASSETTE_RETURN_IF_ERROR(file::truncate_file(fd, offset, path));
  return file::fsync_file(fd, path);
}

// Where reading starts: {0, 0} means the first record of the first segment (segment 1 when there
// is none); an offset inside a segment's header means its first record.
LogPosition normalize_start(LogPosition from, const std::vector<uint64_t>& segments) {
  if (from.segment == 0) return {segments.empty() ? 1 : segments.front(), kHeaderBytes};
  return {from.segment, std::max(from.offset, kHeaderBytes)};
}

}  // namespace

Result<SyncMode> parse_sync_mode(std::string_view text, std::string_view setting) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "full") return SyncMode::kFull;
  if (lower == "normal") return SyncMode::kNormal;
  if (lower == "off") return SyncMode::kOff;
  return Status::invalid_argument(
      fmt::format("{} must be full, normal or off, not '{}'", setting, text));
}

std::string_view sync_mode_name(SyncMode mode) {
  switch (mode) {
    case SyncMode::kFull:
      return "full";
    case SyncMode::kNormal:
      return "normal";
    case SyncMode::kOff:
      return "off";
  }
  return "full";
}

std::string commit_log_segment_name(uint64_t segment) {
  return fmt::format("{:012d}.log", segment);
}

Result<std::vector<uint64_t>> list_commit_log_segments(const std::string& log_dir) {
  std::vector<uint64_t> segments;
  if (!file::exists(log_dir)) return segments;
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> names, file::list_directory(log_dir));
  for (const std::string& name : names) {
    if (!name.ends_with(".log")) continue;
    std::string_view digits = std::string_view(name).substr(0, name.size() - 4);
    if (digits.empty() || digits.size() > 19) continue;
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    uint64_t segment = std::stoull(std::string(digits));
    if (commit_log_segment_name(segment) == name) segments.push_back(segment);
  }
  std::sort(segments.begin(), segments.end());
  return segments;
}

Status read_commit_log(const std::string& log_dir, LogPosition from, const RecordFn& fn,
                       LogPosition* valid_end) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<uint64_t> segments, list_commit_log_segments(log_dir));
  LogPosition start = normalize_start(from, segments);
  *valid_end = start;
  auto first = std::lower_bound(segments.begin(), segments.end(), start.segment);
  if (first == segments.end()) return Status::ok();  // nothing written at or after `from` yet
  if (*first != start.segment) {
    return Status::not_found(fmt::format("commit log {}: segment no longer exists",
                                         segment_path(log_dir, start.segment)));
  }
  for (auto it = first; it != segments.end(); ++it) {
    uint64_t segment = *it;
    bool is_last = std::next(it) == segments.end();
    if (it != first && segment != *std::prev(it) + 1) {
      return Status::corruption(fmt::format("commit log {}: segment is missing",
                                            segment_path(log_dir, *std::prev(it) + 1)));
    }
    CASSETTE_ASSIGN_OR_RETURN(std::optional<SegmentReader> reader,
                              open_segment_for_reading(log_dir, segment));
    uint64_t offset = it == first ? start.offset : kHeaderBytes;
    if (!reader) {
      if (is_last) return Status::ok();  // torn creation: the segment was never begun
      return Status::corruption(fmt::format("commit log {}: segment header is truncated",
                                            segment_path(log_dir, segment)));
    }
    if (offset > reader->size()) {
      return Status::corruption(fmt::format("commit log {}: position {} is past the end ({} bytes)",
                                            reader->path(), offset, reader->size()));
    }
    if (it != first) *valid_end = {segment, kHeaderBytes};
    bool stop = false;
    CASSETTE_RETURN_IF_ERROR(read_segment(*reader, segment, offset, is_last, fn, valid_end, &stop));
    if (stop) break;
  }
  return Status::ok();
}

Status remove_commit_log_segments_before(const std::string& log_dir, LogPosition covered) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<uint64_t> segments, list_commit_log_segments(log_dir));
  bool removed = false;
  // Oldest first, so a crash part-way leaves a contiguous run of segments.
  for (uint64_t segment : segments) {
    if (segment >= covered.segment) break;
    CASSETTE_RETURN_IF_ERROR(file::remove_file(segment_path(log_dir, segment)));
    removed = true;
  }
  return removed ? file::sync_directory(log_dir) : Status::ok();
}

Status sync_commit_log_through(const std::string& log_dir, LogPosition position) {
  std::string path = segment_path(log_dir, position.segment);
  Result<file::UniqueFd> fd = file::open_file(path, O_RDONLY);
  if (!fd.is_ok()) return fd.status().is_not_found() ? Status::ok() : fd.status();
  return file::fsync_file(fd->get(), path);
}

// ---- CommitLogWriter --------------------------------------------------------------------------

CommitLogWriter::CommitLogWriter(std::string log_dir, SyncMode mode, uint64_t segment_bytes)
    : log_dir_(std::move(log_dir)), mode_(mode), segment_bytes_(segment_bytes) {}

Result<std::unique_ptr<CommitLogWriter>> CommitLogWriter::open(const std::string& log_dir,
                                                               LogPosition end, SyncMode mode,
                                                               uint64_t segment_bytes) {
  CASSETTE_RETURN_IF_ERROR(file::create_directories(log_dir));
  CASSETTE_ASSIGN_OR_RETURN(std::vector<uint64_t> segments, list_commit_log_segments(log_dir));
  std::unique_ptr<CommitLogWriter> writer(new CommitLogWriter(log_dir, mode, segment_bytes));
  if (segments.empty()) {
    CASSETTE_RETURN_IF_ERROR(writer->open_segment(std::max<uint64_t>(end.segment, 1), 0, true));
  } else {
    if (end.segment == 0) {
      return Status::invalid_argument(fmt::format(
          "commit log {}: cannot append at the start of a log that has segments", log_dir));
    }
    if (end.segment < segments.front()) {
      return Status::not_found(fmt::format("commit log {}: segment no longer exists",
                                           segment_path(log_dir, end.segment)));
    }
    // Newest first, so a crash part-way never leaves a gap between segments.
    bool removed = false;
    for (auto it = segments.rbegin(); it != segments.rend() && *it > end.segment; ++it) {
      CASSETTE_RETURN_IF_ERROR(file::remove_file(segment_path(log_dir, *it)));
      removed = true;
    }
    if (removed) CASSETTE_RETURN_IF_ERROR(file::sync_directory(log_dir));
    CASSETTE_RETURN_IF_ERROR(writer->open_segment(end.segment, end.offset, false));
  }
  if (mode == SyncMode::kNormal) {
    writer->group_commit_ = std::thread([w = writer.get()] { w->group_commit_loop(); });
  }
  return writer;
}

// Opens segment `segment` for appending at `offset`, cutting anything after it; with `create`
// (or when the segment is missing or shorter than its header and offset is at most the header),
// writes a fresh header instead. Swaps the new file in under sync_mutex_ so the group-commit
// thread never syncs a closed descriptor.
Status CommitLogWriter::open_segment(uint64_t segment, uint64_t offset, bool create) {
  std::string path = segment_path(log_dir_, segment);
  file::UniqueFd fd;
  if (!create) {
    Result<file::UniqueFd> opened = file::open_file(path, O_RDWR | O_APPEND);
    if (opened.is_ok()) {
      fd = std::move(opened).value();
      CASSETTE_ASSIGN_OR_RETURN(uint64_t size, file::file_size(fd.get(), path));
      create = size < kHeaderBytes;
      if (!create) CASSETTE_RETURN_IF_ERROR(cut_segment(fd.get(), path, segment, size, offset));
    } else if (opened.status().is_not_found()) {
      create = true;
    } else {
      return opened.status();
    }
    if (create && offset > kHeaderBytes) {
      return Status::corruption(fmt::format(
          "commit log {}: segment is missing or torn but should hold {} bytes", path, offset));
    }
  }
  if (create) {
    CASSETTE_ASSIGN_OR_RETURN(fd, file::open_file(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND));
    CASSETTE_RETURN_IF_ERROR(file::write_all(fd.get(), encode_segment_header(segment), path));
    CASSETTE_RETURN_IF_ERROR(file::fsync_file(fd.get(), path));
    CASSETTE_RETURN_IF_ERROR(file::sync_directory(log_dir_));
    offset = kHeaderBytes;
  }
  std::unique_lock lock(sync_mutex_);
  sync_cv_.wait(lock, [&] { return !syncing_; });
  fd_ = std::move(fd);  // the old descriptor, already synced by the caller, closes here
  segment_path_ = std::move(path);
  end_ = written_ = {segment, offset};
  // A new segment's header is synced; an old one's bytes may not be (another process's, with
  // sync off or normal), so the first sync or roll syncs them too.
  durable_ = create ? end_ : LogPosition{segment, 0};
  dirty_ = false;
  return Status::ok();
}

CommitLogWriter::~CommitLogWriter() {
  {
    std::lock_guard lock(sync_mutex_);
    stopping_ = true;
  }
  sync_cv_.notify_all();
  if (group_commit_.joinable()) group_commit_.join();
  if (dirty_ && fd_.valid()) (void)file::fsync_file(fd_.get(), segment_path_);
}

Result<LogPosition> CommitLogWriter::append(std::string_view payload, bool sync) {
  CASSETTE_RETURN_IF_ERROR(pending_error());
  if (payload.size() > UINT32_MAX) {
    return Status::invalid_argument(
        fmt::format("commit log {}: a record of {} bytes is too large", log_dir_, payload.size()));
  }
  if (end_.offset >= segment_bytes_) CASSETTE_RETURN_IF_ERROR(roll_segment());
  const std::string header = encode_record_header(payload);
  Status s = file::write_all(fd_.get(), header, segment_path_);
  if (s.is_ok()) s = file::write_all(fd_.get(), payload, segment_path_);
  const bool sync_now = mode_ == SyncMode::kFull && sync;
  const LogPosition end{end_.segment, end_.offset + header.size() + payload.size()};
  if (s.is_ok()) {
    std::unique_lock lock(sync_mutex_);
    written_ = end;
    dirty_ = true;
    if (sync_now) s = sync_through_locked(lock, end);
  }
  if (!s.is_ok()) {
    // Take the record back so nothing follows a half-written one, and refuse further appends:
    // after a failed write or sync the file's state is unknown.
    (void)file::truncate_file(fd_.get(), end_.offset, segment_path_);
    std::lock_guard lock(sync_mutex_);
    if (sync_error_.is_ok()) sync_error_ = s;
    return s;
  }
  end_ = end;
  if (mode_ == SyncMode::kNormal) sync_cv_.notify_all();
  return end_;
}

Status CommitLogWriter::wait_durable(LogPosition position) {
  if (mode_ != SyncMode::kFull) return Status::ok();
  std::unique_lock lock(sync_mutex_);
  return sync_through_locked(lock, position);
}

// One sync at a time (syncing_): the leader takes the descriptor and the target under the lock,
// syncs without it, and publishes durable_. A record appended while it syncs may or may not
// reach the disk with this sync; it counts as durable only with the next one. A failure is sticky
// (sync_error_), and a position a successful sync covered before it stays durable.
Status CommitLogWriter::sync_through_locked(std::unique_lock<std::mutex>& lock,
                                            LogPosition position) {
  while (durable_ < position) {
    if (!sync_error_.is_ok()) return sync_error_;
    if (syncing_) {
      sync_cv_.wait(lock);
      continue;
    }
    syncing_ = true;
    const LogPosition target = written_;
    const int fd = fd_.get();  // open_segment swaps fd_ only once syncing_ is false
    const std::string path = segment_path_;
    lock.unlock();
    Status s = file::fsync_file(fd, path);
    sync_count_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
    syncing_ = false;
    if (!s.is_ok()) {
      if (sync_error_.is_ok()) sync_error_ = s;
    } else if (sync_error_.is_ok()) {  // a failure meanwhile (a write) leaves durable_ alone
      durable_ = std::max(durable_, target);
      if (durable_ == written_) dirty_ = false;
    }
    sync_cv_.notify_all();
  }
  return Status::ok();
}

Status CommitLogWriter::sync() {
  std::unique_lock lock(sync_mutex_);
  return sync_through_locked(lock, written_);
}

bool CommitLogWriter::failed() {
  return !pending_error().is_ok();
}

bool CommitLogWriter::covers(LogPosition position) {
  if (mode_ != SyncMode::kFull) return true;
  std::lock_guard lock(sync_mutex_);
  return position <= durable_;
}

Status CommitLogWriter::roll_segment() {
  // The old segment is durable before the new one exists: a bad record in any segment but the
  // last is then always corruption, never a torn write. (Group commit: the records of commits
  // still waiting in it are durable with this sync.)
  {
    std::unique_lock lock(sync_mutex_);
    if (!sync_error_.is_ok()) return sync_error_;
    CASSETTE_RETURN_IF_ERROR(sync_through_locked(lock, written_));
  }
  return open_segment(end_.segment + 1, 0, true);
}

Status CommitLogWriter::pending_error() {
  std::lock_guard lock(sync_mutex_);
  return sync_error_;
}

// kNormal: wakes when an append leaves unsynced data, syncs it, then waits out the interval so
// that the appends of the next few milliseconds share one sync. The destructor syncs the rest.
// It waits for a sync under way (a roll's, sync()'s) to end first, as sync_through_locked does:
// open_segment swaps and closes the descriptor once syncing_ is false, so a second sync started
// meanwhile could run on a closed descriptor (EBADF, a write failed for nothing) or on whatever
// file reused its number.
void CommitLogWriter::group_commit_loop() {
  std::unique_lock lock(sync_mutex_);
  while (true) {
    sync_cv_.wait(lock, [&] { return (dirty_ && !syncing_) || stopping_; });
    if (stopping_) return;
    dirty_ = false;
    syncing_ = true;
    const LogPosition target = written_;
    int fd = fd_.get();
    std::string path = segment_path_;
    lock.unlock();
    Status s = file::fsync_file(fd, path);
    sync_count_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
    syncing_ = false;
    if (!s.is_ok() && sync_error_.is_ok()) sync_error_ = s;  // sticky: no retry can be trusted
    // A roll that follows finds its segment synced already.
    if (s.is_ok() && sync_error_.is_ok()) durable_ = std::max(durable_, target);
    sync_cv_.notify_all();
    sync_cv_.wait_for(lock, kGroupCommitInterval, [&] { return stopping_; });
  }
}

}  // namespace cassette::storage
