// Coordination between processes that share a store directory (docs/ARCHITECTURE.md §6).
//
// StoreLock: the exclusive write lock, an flock() on <store>/LOCK. A writer holds it for one
// transaction (catch up, append, sync); flush and compaction install their results under it. The
// kernel drops it when a process dies, so a crashed writer never wedges the store.
//
// ChangeCounter: a 64-bit counter in a shared file (<store>/SHARED) that every lock holder bumps
// after changing the log or the manifest. A reader compares it with the value it last saw: equal
// means no other process changed anything, so a statement starts without reading the manifest.
// It is a hint only: the log and the manifest stay the truth. It is read with pread, not through
// a mapping: a mapped file that someone truncates kills the process with SIGBUS on the next
// access, and a library must neither die of that nor install a signal handler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

class StoreLock {
 public:
  static Result<StoreLock> open(const std::string& store_dir);
  StoreLock(StoreLock&&) = default;
  StoreLock& operator=(StoreLock&&) = default;

  // Waits up to `timeout` for the lock; Busy ("store is busy") after that.
  // REQUIRES: not already held by this object (one holder per process: the store's write mutex).
  Status lock(std::chrono::milliseconds timeout);
  void unlock();
  bool held() const { return held_; }

 private:
  StoreLock(file::UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  file::UniqueFd fd_;
  std::string path_;
  bool held_ = false;
};

// Holds a StoreLock for one scope: lock() it, and it is released when the holder goes.
class StoreLockHolder {
 public:
  explicit StoreLockHolder(StoreLock& lock) : lock_(lock) {}
  ~StoreLockHolder() {
    if (held_) lock_.unlock();
  }
  StoreLockHolder(const StoreLockHolder&) = delete;
  StoreLockHolder& operator=(const StoreLockHolder&) = delete;
  Status lock(std::chrono::milliseconds timeout) {
    Status s = lock_.lock(timeout);
    held_ = s.is_ok();
    return s;
  }

 private:
  StoreLock& lock_;
  bool held_ = false;
};

class ChangeCounter {
 public:
  static Result<ChangeCounter> open(const std::string& store_dir);
  // For a read-only store: the counter read as it is, never bumped; a missing file is a
  // counter that never matches (every snapshot catches up).
  static Result<ChangeCounter> open_read_only(const std::string& store_dir);

  // The counter, or nullopt when the file cannot be read (truncated, an I/O error): then it
  // equals no value seen, and the reader catches up.
  std::optional<uint64_t> load() const;
  // REQUIRES: the StoreLock is held. Returns the new value. A counter that cannot be read is
  // rewritten from the clock, so that it matches no value another process saw before.
  uint64_t bump();

 private:
  ChangeCounter(file::UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  file::UniqueFd fd_;
  std::string path_;
};

}  // namespace cassette::storage
