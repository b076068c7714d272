// Where a slow commit's time went, for finding the causes of commit latency outliers
// (tests/bench/bench_latency.sh): with CASSETTE_COMMIT_TRACE_MS=N in the environment, every
// Store::apply_locked that takes N ms or more prints one line to stderr with the milliseconds
// of each phase (lock waits, inline flush and compaction steps, waiting for memtable room, the
// log append, the sync, ...). Off (one thread-local load per mark) without the variable.
#pragma once

#include <chrono>
#include <cstdint>

namespace cassette::storage {

class CommitTrace {
 public:
  CommitTrace();   // starts timing when tracing is on
  ~CommitTrace();  // prints the phases when the whole took the threshold or more
  CommitTrace(const CommitTrace&) = delete;
  CommitTrace& operator=(const CommitTrace&) = delete;

  // Ends the phase `name` (a string literal) of the commit this thread is tracing, if any.
  static void mark(const char* name) {
    if (current_ != nullptr) current_->add(name);
  }

 private:
  static constexpr int kMaxPhases = 24;
  void add(const char* name);

  static thread_local CommitTrace* current_;
  CommitTrace* outer_ = nullptr;
  bool on_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  const char* names_[kMaxPhases] = {};
  int64_t micros_[kMaxPhases] = {};
  int count_ = 0;
};

}  // namespace cassette::storage
