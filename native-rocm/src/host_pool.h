// host_pool.h: page-locked (pinned) host blocks that downloads land in and JavaScript then owns as external
// ArrayBuffers. A device-to-host copy into pageable memory goes through the runtime's own staging buffers and,
// into a freshly allocated array, through a page fault per 4 KiB page: an order of magnitude slower than into a
// pinned block. Pinning is slow and unpinning synchronizes the device (figures: docs/decisions.md, issue 29, from
// apps/bench/probes/host-copy-probe.cu), so neither happens per download: memory is pinned in 16 MiB chunks, each carved into blocks of one power-of-two
// size class when that class first runs short, and kept until the pool goes. The finalizer of the JavaScript
// array hands its block back (any thread; the pool locks) for the next download of that class. The arrays go
// back only when garbage-collected; a download finding its class empty and the limit reached carves an idle region
// of another class again, or borrows a free block of a larger class, and only when neither is there takes pageable
// memory, as every download did before the pool.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>
#include "tandem_hip.h"

namespace tandem {

/** Pinned host blocks by power-of-two size class, carved from regions; at most kLimit bytes pinned. */
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
    for (const auto& entry : regions_) (void)hipHostFree(entry.first);
  }

  /**
   * A pinned block of at least `bytes`: a free one of its size class, else one pinned anew under the limit, else
   * (at the limit) one of a region of another class whose blocks are all free, carved again into blocks of this
   * class (no unpinning: that would synchronize the device), else a free block of the smallest larger class, lent.
   * So the pinned bytes follow the sizes being downloaded now rather than the ones that came first. Sets
   * `*blockClass` to the class the block goes back to. Null when there is none or pinning fails (not an error).
   */
  void* Acquire(size_t bytes, size_t* blockClass) {
    const size_t size = SizeClass(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_[size].empty()) {
      const size_t regionBytes = size < kChunkBytes ? kChunkBytes : size;
      char* base = static_cast<char*>(Pin(regionBytes));
      if (base != nullptr) {
        Carve(regions_[base] = Region{regionBytes, size, 0, 0}, base);
      } else if (!Recarve(size)) {
        return Borrow(size, blockClass);
      }
    }
    std::vector<void*>& free = free_[size];
    void* p = free.back();
    free.pop_back();
    RegionOf(p).freeBlocks--;
    *blockClass = size;
    return p;
  }

  /** Whether Acquire(bytes) would find a block now: free in its class, room to pin, an idle region, a larger block. */
  bool CanServe(size_t bytes) {
    const size_t size = SizeClass(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    if (pinned_ + (size < kChunkBytes ? kChunkBytes : size) <= kLimit) return true;
    for (const auto& entry : free_) {
      if (entry.first >= size && !entry.second.empty()) return true;
    }
    return IdleRegion(size) != nullptr;
  }

  /** Returns a block from Acquire to the class it set. */
  void Release(void* p, size_t blockClass) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[blockClass].push_back(p);
    RegionOf(p).freeBlocks++;
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
  /** A pinned chunk or own block, carved into blocks of one class. */
  struct Region {
    size_t bytes;
    size_t blockClass;
    size_t blocks;
    size_t freeBlocks;
  };

  /** Carves `region` (at `base`, all free) into blocks of its class, lowest address handed out last. */
  void Carve(Region& region, char* base) {
    region.blocks = region.freeBlocks = region.bytes / region.blockClass;
    std::vector<void*>& free = free_[region.blockClass];
    for (size_t offset = region.bytes; offset >= region.blockClass; offset -= region.blockClass) free.push_back(base + offset - region.blockClass);
  }

  /** The region holding block `p` (mutex_ held; p came from this pool). */
  Region& RegionOf(void* p) {
    auto it = regions_.upper_bound(static_cast<char*>(p));
    --it;
    return it->second;
  }

  /** The smallest region of another class, at least `size` bytes, whose blocks are all free (mutex_ held), or null. */
  std::pair<char* const, Region>* IdleRegion(size_t size) {
    std::pair<char* const, Region>* best = nullptr;
    for (auto& entry : regions_) {
      const Region& r = entry.second;
      if (r.blockClass != size && r.bytes >= size && r.freeBlocks == r.blocks && (best == nullptr || r.bytes < best->second.bytes)) best = &entry;
    }
    return best;
  }

  /** Carves an idle region of another class into blocks of `size` (mutex_ held); false when there is none. */
  bool Recarve(size_t size) {
    auto* idle = IdleRegion(size);
    if (idle == nullptr) return false;
    char* base = idle->first;
    Region& region = idle->second;
    std::vector<void*>& old = free_[region.blockClass];
    old.erase(std::remove_if(old.begin(), old.end(), [&](void* p) { return static_cast<char*>(p) >= base && static_cast<char*>(p) < base + region.bytes; }), old.end());
    region.blockClass = size;
    Carve(region, base);
    return true;
  }

  /** A free block of the smallest class larger than `size` that has one (mutex_ held), or null. */
  void* Borrow(size_t size, size_t* blockClass) {
    std::vector<void*>* from = nullptr;
    size_t fromClass = 0;
    for (auto& entry : free_) {
      if (entry.first > size && !entry.second.empty() && (from == nullptr || entry.first < fromClass)) {
        from = &entry.second;
        fromClass = entry.first;
      }
    }
    if (from == nullptr) return nullptr;
    void* p = from->back();
    from->pop_back();
    RegionOf(p).freeBlocks--;
    *blockClass = fromClass;
    return p;
  }

  /** Pins `bytes` more under the limit; null when it would pass the limit or the runtime refuses. */
  void* Pin(size_t bytes) {
    if (pinned_ + bytes > kLimit) return nullptr;
    void* p = nullptr;
    if (hipHostMalloc(&p, bytes, hipHostMallocDefault) != hipSuccess) {
      (void)hipGetLastError();  // a failed pin is recorded by the runtime; the download falls back, not fails
      return nullptr;
    }
    pinned_ += bytes;
    return p;
  }

  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // free blocks by size class
  std::map<char*, Region> regions_;                      // every chunk and own block by base, unpinned with the pool
  size_t pinned_ = 0;
};

/** Host memory a download landed in: a pinned block of `pool`, or (pool null) std::malloc'd memory. */
struct HostBlock {
  /** Where the bytes are. */
  void* data = nullptr;
  /** Bytes the download asked for. */
  size_t bytes = 0;
  /** The pool's size class the block goes back to (pool blocks only). */
  size_t blockClass = 0;
  /** The pool the block goes back to; null for malloc'd memory. */
  std::shared_ptr<HostPool> pool;

  /** Gives the memory back (to the pool, or free). */
  void Release() {
    if (pool) {
      pool->Release(data, blockClass);
    } else {
      std::free(data);
    }
    data = nullptr;
  }
};

}  // namespace tandem
