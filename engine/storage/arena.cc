#include "engine/storage/arena.h"

#include <cstdint>

namespace cassette::storage {

char* Arena::allocate_fallback(size_t bytes) {
  if (bytes > kBlockSize / 4) return allocate_new_block(bytes);  // big entries get their own block
  alloc_ptr_ = allocate_new_block(kBlockSize);
  alloc_remaining_ = kBlockSize;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  alloc_remaining_ -= bytes;
  return result;
}

char* Arena::allocate_aligned(size_t bytes) {
  constexpr size_t kAlign = alignof(std::max_align_t) > 8 ? alignof(std::max_align_t) : 8;
  size_t mod = reinterpret_cast<uintptr_t>(alloc_ptr_) & (kAlign - 1);
  size_t slop = mod == 0 ? 0 : kAlign - mod;
  if (bytes + slop <= alloc_remaining_) {
    char* result = alloc_ptr_ + slop;
    alloc_ptr_ += bytes + slop;
    alloc_remaining_ -= bytes + slop;
    return result;
  }
  return allocate_fallback(bytes);  // new blocks are max_align_t-aligned
}

char* Arena::allocate_new_block(size_t bytes) {
  blocks_.push_back(std::unique_ptr<char[]>(new char[bytes]));  // not zeroed: written before read
  memory_usage_.fetch_add(bytes + sizeof(char*), std::memory_order_relaxed);
  return blocks_.back().get();
}

}  // namespace cassette::storage
