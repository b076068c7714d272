// The one source of "now" for a store: write timestamps, TTL expiry and gc_grace decisions all
// ask it, so tests replace it with a ManualClock and drive time forward without sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace cassette::storage {

class Clock {
 public:
  virtual ~Clock() = default;
  // Microseconds since the Unix epoch.
  virtual int64_t now_micros() const = 0;
  int64_t now_seconds() const { return now_micros() / 1'000'000; }
};

class SystemClock final : public Clock {
 public:
  int64_t now_micros() const override {
    using namespace std::chrono;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
  }
  static SystemClock* instance() {
    static SystemClock clock;
    return &clock;
  }
};

// A clock that moves only when told to. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_micros = 1'700'000'000'000'000) : now_(start_micros) {}
  int64_t now_micros() const override { return now_.load(std::memory_order_relaxed); }
  void set_micros(int64_t micros) { now_.store(micros, std::memory_order_relaxed); }
  void advance_seconds(int64_t seconds) {
    now_.fetch_add(seconds * 1'000'000, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace cassette::storage
