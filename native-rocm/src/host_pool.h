// host_pool.h: page-locked (pinned) host blocks that downloads land in and JavaScript then owns as external
// ArrayBuffers. A device-to-host copy into pageable memory goes through the runtime's own staging buffers and,
// into a freshly allocated array, through a page fault per 4 KiB page: on the H100 host (2026-11-23,
// packages/rocm/scripts/host-copy-probe.cu) 4 MiB took 1.26 ms into a fresh calloc'd array and 0.09 ms into a
// pinned block. Pinning costs 3.4 ms per 4 MiB, so blocks are kept: the finalizer of the JavaScript array hands
// its block back (any thread; the pool locks), and the next download of that size class reuses it.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>
#include "tandem_hip.h"

namespace tandem {

/** Pinned host blocks by power-of-two size class, at most kLimit bytes pinned at once (in use or cached). */
class HostPool {
 public:
  /** Downloads smaller than this go into an ordinary JavaScript array (pinning gains microseconds there). */
  static constexpr size_t kMinBytes = size_t{64} << 10;
  /** Bytes pinned at most; beyond it a download takes pageable memory, as it did before the pool. */
  static constexpr size_t kLimit = size_t{256} << 20;

  HostPool() = default;
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;
  ~HostPool() {
    for (auto& entry : cache_) {
      for (void* p : entry.second) (void)hipHostFree(p);
    }
  }

  /** A pinned block of at least `bytes`, or null when the limit is reached or pinning fails (not an error). */
  void* Acquire(size_t bytes) {
    const size_t size = SizeClass(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(size);
    if (it != cache_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      return p;
    }
    if (pinned_ + size > kLimit) TrimLocked(size);
    if (pinned_ + size > kLimit) return nullptr;
    void* p = nullptr;
    if (hipHostMalloc(&p, size, hipHostMallocDefault) != hipSuccess) {
      (void)hipGetLastError();  // a failed pin is recorded by the runtime; the download falls back, not fails
      return nullptr;
    }
    pinned_ += size;
    return p;
  }

  /** Returns a block from Acquire(bytes) to the cache. */
  void Release(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    cache_[SizeClass(bytes)].push_back(p);
  }

  /** Bytes pinned now (in use or cached). */
  size_t pinned() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pinned_;
  }

  /** The smallest power of two >= bytes. */
  static size_t SizeClass(size_t bytes) {
    size_t size = kMinBytes;
    while (size < bytes) size <<= 1;
    return size;
  }

 private:
  /** Unpins cached blocks of other classes until `wanted` more bytes fit under the limit (or none are left). */
  void TrimLocked(size_t wanted) {
    for (auto& entry : cache_) {
      while (!entry.second.empty() && pinned_ + wanted > kLimit) {
        (void)hipHostFree(entry.second.back());
        entry.second.pop_back();
        pinned_ -= entry.first;
      }
    }
  }

  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> cache_;
  size_t pinned_ = 0;
};

/** Host memory a download landed in: a pinned block of `pool`, or (pool null) std::malloc'd memory. */
struct HostBlock {
  /** Where the bytes are. */
  void* data = nullptr;
  /** Bytes the download asked for. */
  size_t bytes = 0;
  /** The pool the block goes back to; null for malloc'd memory. */
  std::shared_ptr<HostPool> pool;

  /** Gives the memory back (to the pool, or free). */
  void Release() {
    if (pool) {
      pool->Release(data, bytes);
    } else {
      std::free(data);
    }
    data = nullptr;
  }
};

}  // namespace tandem
