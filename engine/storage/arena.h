// A bump allocator for memtable entries: memory is handed out in large blocks and freed all at
// once with the memtable. memory_usage() is what the memtable budget counts.
// REQUIRES: external synchronization for allocate(); memory_usage() may be read concurrently.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

namespace cassette::storage {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  char* allocate(size_t bytes);
  char* allocate_aligned(size_t bytes);  // aligned for pointers/atomics
  size_t memory_usage() const { return memory_usage_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kBlockSize = 64 << 10;  // small, so small budgets are measured well
  char* allocate_fallback(size_t bytes);
  char* allocate_new_block(size_t bytes);

  char* alloc_ptr_ = nullptr;
  size_t alloc_remaining_ = 0;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::atomic<size_t> memory_usage_{0};
};

inline char* Arena::allocate(size_t bytes) {
  if (bytes <= alloc_remaining_) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    alloc_remaining_ -= bytes;
    return result;
  }
  return allocate_fallback(bytes);
}

}  // namespace cassette::storage
