#include "engine/storage/commit_trace.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cassette::storage {

namespace {
// The threshold in microseconds, or -1 when tracing is off.
int64_t threshold_micros() {
  static const int64_t value = [] {
    const char* env = std::getenv("CASSETTE_COMMIT_TRACE_MS");
    if (env == nullptr || *env == '\0') return int64_t{-1};
    return static_cast<int64_t>(std::strtod(env, nullptr) * 1000);
  }();
  return value;
}
}  // namespace

thread_local CommitTrace* CommitTrace::current_ = nullptr;

CommitTrace::CommitTrace() {
  if (threshold_micros() < 0 || current_ != nullptr) return;  // the outermost commit only
  on_ = true;
  outer_ = current_;
  current_ = this;
  start_ = last_ = std::chrono::steady_clock::now();
}

void CommitTrace::add(const char* name) {
  const auto now = std::chrono::steady_clock::now();
  const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(now - last_).count();
  last_ = now;
  for (int i = 0; i < count_; ++i) {
    if (names_[i] == name) {  // a phase passed twice adds up
      micros_[i] += micros;
      return;
    }
  }
  if (count_ == kMaxPhases) return;
  names_[count_] = name;
  micros_[count_++] = micros;
}

CommitTrace::~CommitTrace() {
  if (!on_) return;
  current_ = outer_;
  const auto now = std::chrono::steady_clock::now();
  const int64_t total = std::chrono::duration_cast<std::chrono::microseconds>(now - start_).count();
  if (total < threshold_micros()) return;
  std::string line = "cassette slow commit: " + std::to_string(total / 1000.0) + " ms:";
  int64_t accounted = 0;
  for (int i = 0; i < count_; ++i) {
    if (micros_[i] < 100) continue;  // under 0.1 ms: not where the time went
    accounted += micros_[i];
    line += " " + std::string(names_[i]) + "=" + std::to_string(micros_[i] / 1000.0);
  }
  line += " rest=" + std::to_string((total - accounted) / 1000.0) + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace cassette::storage
