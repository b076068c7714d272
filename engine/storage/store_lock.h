// Coordination between processes that share a store directory (DESIGN §4).
//
// StoreLock: the exclusive write lock, an flock() on <store>/LOCK. A writer holds it for one
// transaction (catch up, append, sync); flush and compaction install their results under it. The
// kernel drops it when a process dies, so a crashed writer never wedges the store.
//
// ChangeCounter: a 64-bit counter in a shared memory-mapped file (<store>/SHARED) that every
// lock holder bumps after changing the log or the manifest. A reader compares it with the value
// it last saw: equal means no other process changed anything, so a statement starts without a
// single system call. It is a hint only: the log and the manifest stay the truth.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
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
  ChangeCounter(ChangeCounter&& other) noexcept;
  ChangeCounter& operator=(ChangeCounter&&) = delete;
  ChangeCounter(const ChangeCounter&) = delete;
  ~ChangeCounter();

  uint64_t load() const { return counter_->load(std::memory_order_acquire); }
  // REQUIRES: the StoreLock is held. Returns the new value.
  uint64_t bump() { return counter_->fetch_add(1, std::memory_order_acq_rel) + 1; }

 private:
  ChangeCounter(void* map, std::atomic<uint64_t>* counter) : map_(map), counter_(counter) {}
  void* map_ = nullptr;
  std::atomic<uint64_t>* counter_ = nullptr;
};

}  // namespace cassette::storage
