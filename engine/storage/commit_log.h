// The commit log: every write transaction as one checksummed record, appended to numbered segment
// files in <store>/log/ (000000000001.log, ...). A record is the unit of atomicity: replay applies
// a record whole or not at all. Layout in FORMAT.md.
//
// One writer at a time (the holder of the store lock) appends; any number of readers, in this
// process or others, read records from a position onwards to catch up. A record that is only
// partly on disk (a torn tail, or a writer in the middle of an append) ends the valid log: readers
// stop before it, and the next writer cuts it off (CommitLogWriter::open truncates there).
// A bad record that is followed by a good one is not a torn tail but corruption, reported with
// the file's name and offset.
#pragma once

#include <atomic>
#include <compare>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

enum class SyncMode {
  kFull,    // a commit returns once an fsync covers its record (the default, like SQLite's
            // synchronous=FULL); concurrent commits share one fsync (group commit)
  kNormal,  // a background thread fsyncs every few milliseconds
  kOff,     // never fsync (the OS writes back); a process crash still loses nothing
};

// "full", "normal" or "off" (any case), the spelling of every host's sync setting; anything
// else is an InvalidArgument naming `setting` and the three values.
Result<SyncMode> parse_sync_mode(std::string_view text, std::string_view setting);
std::string_view sync_mode_name(SyncMode mode);  // "full", "normal" or "off"

// A place in the log: a segment number and a byte offset inside it.
struct LogPosition {
  uint64_t segment = 0;
  uint64_t offset = 0;
  friend auto operator<=>(const LogPosition&, const LogPosition&) = default;
};

// Segment file names and the list of segments on disk, in order.
std::string commit_log_segment_name(uint64_t segment);
Result<std::vector<uint64_t>> list_commit_log_segments(const std::string& log_dir);

// Reads records from `from` to the end of the valid log, calling `fn(start, end, payload)` for
// each; `start`/`end` are the positions of the record and just past it. Stops (OK) at the end of
// the log or at a partial tail record; returns Corruption (naming file and offset) for a bad
// record followed by good data, and the first error `fn` returns. *valid_end receives the position
// just past the last good record (where the next record goes).
// A `from` inside a segment that no longer exists (removed after a flush) is NotFound.
using RecordFn =
    std::function<Status(LogPosition start, LogPosition end, std::string_view payload)>;
Status read_commit_log(const std::string& log_dir, LogPosition from, const RecordFn& fn,
                       LogPosition* valid_end);

class CommitLogWriter {
 public:
  // Opens the log for appending at `end` (the valid end found by read_commit_log): truncates a
  // torn tail there and removes segments after it. Creates the log directory and the first
  // segment when the log is empty. REQUIRES: the store lock.
  static Result<std::unique_ptr<CommitLogWriter>> open(const std::string& log_dir, LogPosition end,
                                                       SyncMode mode, uint64_t segment_bytes);
  ~CommitLogWriter();  // syncs what is unsynced

  // Appends one record; returns the position just past it. Starts a new segment first when the
  // current one has reached segment_bytes. With kFull the record is on stable storage on return
  // (this call syncs, or waits for a sync running, as wait_durable does).
  // REQUIRES: external synchronization and the store lock. `sync` false: not synced now even
  // with kFull (a commit that calls wait_durable once it has let go of its locks, or a prepared
  // record whose loss a later decision repairs); a later sync, the next roll or the destructor
  // makes it durable.
  Result<LogPosition> append(std::string_view payload, bool sync = true);
  // Group commit (kFull): returns once an fsync of this writer covers the log through
  // `position` (an end append returned). The first caller that finds no sync running leads: it
  // syncs everything appended so far, without any lock, while appends go on; the others wait for
  // it, and one of them leads the next sync if its record came after the leader began. A failed
  // sync fails every caller it did not cover, and every later append, sync and wait (no later
  // sync can be trusted: see abandon_failed_segment_locked). kNormal and kOff: OK at once.
  // Thread-safe; needs neither external synchronization nor the store lock.
  Status wait_durable(LogPosition position);
  // Makes everything appended so far durable.
  Status sync();
  // A write or sync failed: the writer takes no more records.
  bool failed();
  // Whether a sync of this writer covered `position` (kNormal and kOff: always, their commits
  // do not wait).
  bool covers(LogPosition position);
  // The fsyncs of segments this writer made (tests count them to see commits share them).
  uint64_t sync_count() const { return sync_count_.load(std::memory_order_relaxed); }
  // Starts a new segment now (a flush does this so the old segments can be removed once flushed).
  Status roll_segment();
  LogPosition end() const { return end_; }

 private:
  CommitLogWriter(std::string log_dir, SyncMode mode, uint64_t segment_bytes);
  Status open_segment(uint64_t segment, uint64_t offset, bool create);
  void group_commit_loop();
  Status pending_error();  // the first failed write or sync, reported by every later call
  // wait_durable's work. REQUIRES: `lock` holds sync_mutex_.
  Status sync_through_locked(std::unique_lock<std::mutex>& lock, LogPosition position);

  std::string log_dir_;
  SyncMode mode_;
  uint64_t segment_bytes_;
  LogPosition end_;
  file::UniqueFd fd_;
  std::string segment_path_;

  // kNormal: the group-commit thread syncs when `dirty_`.
  std::mutex sync_mutex_;
  std::condition_variable sync_cv_;
  bool dirty_ = false;
  bool stopping_ = false;
  bool syncing_ = false;  // a sync of fd_ runs outside the lock (one at a time)
  Status sync_error_;
  std::thread group_commit_;
  // kFull group commit (sync_mutex_): everything appended is before written_; an fsync covered
  // the log through durable_.
  LogPosition written_;
  LogPosition durable_;
  std::atomic<uint64_t> sync_count_{0};
};

// Removes the segments that hold only records before `covered` (a flush made them redundant).
Status remove_commit_log_segments_before(const std::string& log_dir, LogPosition covered);
// Makes the log durable up to `position`, whichever process wrote it and in whichever sync
// mode. Segments before its segment are durable already (a segment is synced before the next
// one is begun).
Status sync_commit_log_through(const std::string& log_dir, LogPosition position);

}  // namespace cassette::storage
