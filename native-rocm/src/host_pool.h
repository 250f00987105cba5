// host_pool.h: page-locked (pinned) host blocks that downloads land in and JavaScript then owns as external
// ArrayBuffers. A device-to-host copy into pageable memory goes through the runtime's own staging buffers and,
// into a freshly allocated array, through a page fault per 4 KiB page: on the H100 host (2026-11-23,
// packages/rocm/scripts/host-copy-probe.cu) 4 MiB took 1.26 ms into a fresh calloc'd array and 0.09 ms into a
// pinned block. Pinning is slow (3.4 ms for 4 MiB, 21 ms for 32 MiB) and unpinning synchronizes the device, so
// neither happens per download: memory is pinned in 16 MiB chunks, each carved into blocks of one power-of-two
// size class when that class first runs short, and kept until the pool goes. The finalizer of the JavaScript
// array hands its block back (any thread; the pool locks) for the next download of that class. The arrays go
// back only when garbage-collected; a download finding its class empty and the limit reached takes pageable
// memory, as every download did before the pool.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>
#include "tandem_hip.h"

namespace tandem {

/** Pinned host blocks by power-of-two size class, carved from chunks; at most kLimit bytes pinned. */
class HostPool {
 public:
  /** Downloads smaller than this go into an ordinary JavaScript array (pinning gains microseconds there). */
  static constexpr size_t kMinBytes = size_t{64} << 10;
  /** Bytes pinned at a time; classes this large or larger get a pinned block of their own. */
  static constexpr size_t kChunkBytes = size_t{16} << 20;
  /** Bytes pinned at most (chunks and own blocks); past it downloads take pageable memory. */
  static constexpr size_t kLimit = size_t{256} << 20;

  HostPool() = default;
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;
  ~HostPool() {
    for (void* p : pinnedRegions_) (void)hipHostFree(p);
  }

  /** A pinned block of at least `bytes`, or null when the limit is reached or pinning fails (not an error). */
  void* Acquire(size_t bytes) {
    const size_t size = SizeClass(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<void*>& free = free_[size];
    if (free.empty()) {
      const size_t region = size < kChunkBytes ? kChunkBytes : size;
      char* base = static_cast<char*>(Pin(region));
      if (base == nullptr) return nullptr;
      for (size_t offset = region; offset >= size; offset -= size) free.push_back(base + offset - size);
    }
    void* p = free.back();
    free.pop_back();
    return p;
  }

  /** Whether Acquire(bytes) would find a block now: a free one of its class, or room under the limit to pin more. */
  bool CanServe(size_t bytes) {
    const size_t size = SizeClass(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) return true;
    return pinned_ + (size < kChunkBytes ? kChunkBytes : size) <= kLimit;
  }

  /** Returns a block from Acquire(bytes) to its class. */
  void Release(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[SizeClass(bytes)].push_back(p);
  }

  /** Bytes pinned now (blocks in use and free). */
  size_t pinned() {
    std::lock_guard<std::mutex> lock(mutex_);
    return pinned_;
  }

  /** The smallest power of two >= max(bytes, kMinBytes). */
  static size_t SizeClass(size_t bytes) {
    size_t size = kMinBytes;
    while (size < bytes) size <<= 1;
    return size;
  }

 private:
  /** Pins `bytes` more under the limit; null when it would pass the limit or the runtime refuses. */
  void* Pin(size_t bytes) {
    if (pinned_ + bytes > kLimit) return nullptr;
    void* p = nullptr;
    if (hipHostMalloc(&p, bytes, hipHostMallocDefault) != hipSuccess) {
      (void)hipGetLastError();  // a failed pin is recorded by the runtime; the download falls back, not fails
      return nullptr;
    }
    pinnedRegions_.push_back(p);
    pinned_ += bytes;
    return p;
  }

  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // free blocks by size class
  std::vector<void*> pinnedRegions_;                     // every chunk and own block, unpinned with the pool
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
