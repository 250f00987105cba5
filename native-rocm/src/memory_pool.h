// memory_pool.h: a caching allocator for device buffers, used only on the device's worker thread. Freed blocks
// are kept by rounded size and handed out again, so steady workloads (the same shapes op after op) skip
// hipMalloc / hipFree, which cost tens of microseconds and synchronize the device. When an allocation fails
// the cache is released and the allocation retried once.
#pragma once
#include <cstddef>
#include <unordered_map>
#include <vector>
#include "failure.h"

namespace tandem {

/** Device memory with a free-block cache. */
class MemoryPool {
 public:
  /** Bytes kept cached at most; blocks freed beyond it go back to the runtime. */
  static constexpr size_t kCacheLimit = size_t{2} << 30;

  MemoryPool() = default;
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;
  ~MemoryPool() { Trim(); }

  /** A block of at least `bytes` (null for 0); throws Failure (e.g. hipErrorOutOfMemory) naming `what`. */
  void* Allocate(size_t bytes, const std::string& what) {
    if (bytes == 0) return nullptr;
    const size_t size = Round(bytes);
    auto it = cache_.find(size);
    if (it != cache_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      cached_ -= size;
      return p;
    }
    void* p = nullptr;
    hipError_t err = hipMalloc(&p, size);
    if (err != hipSuccess && cached_ > 0) {
      (void)hipGetLastError();  // the runtime records the failure; clear it before retrying
      Trim();
      err = hipMalloc(&p, size);
    }
    if (err != hipSuccess) (void)hipGetLastError();  // else the next launch check would report it again
    check(err, what, static_cast<double>(bytes));
    return p;
  }

  /** Returns a block from Allocate (of the same requested size) to the cache or the runtime. */
  void Release(void* p, size_t bytes) {
    if (p == nullptr) return;
    const size_t size = Round(bytes);
    if (cached_ + size > kCacheLimit) {
      (void)hipFree(p);
      return;
    }
    cache_[size].push_back(p);
    cached_ += size;
  }

  /** Frees every cached block. */
  void Trim() {
    for (auto& entry : cache_) {
      for (void* p : entry.second) (void)hipFree(p);
    }
    cache_.clear();
    cached_ = 0;
  }

 private:
  static size_t Round(size_t bytes) { return (bytes + 511) / 512 * 512; }

  std::unordered_map<size_t, std::vector<void*>> cache_;
  size_t cached_ = 0;
};

}  // namespace tandem
