// tandem_hip_emulated.h: a CPU emulation of the HIP subset Tandem uses, for testing kernels and the addon on
// machines without a GPU (built by `build.mjs --variant emulated`, never by `auto`). Not fast, not a
// general HIP: blocks run one after another, each GPU thread is a fiber on the launching OS thread
// (tandem_emu_fibers.h), __shared__ variables are function statics (one block at a time makes that correct), and
// barriers and warp shuffles are rendezvous of those fibers.
// The warp size comes from TANDEM_EMU_WARP (32 or 64), so both vendors' warp sizes can be exercised.
// build.mjs rewrites `kernel<<<cfg>>>(args)` into `tandem_emu::Config(cfg).run(kernel, args)` and
// `extern __shared__ T name[]` into a pointer to the launch's dynamic shared memory.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tandem_emu_fibers.h"

#define TANDEM_HIP_PLATFORM "emulated"

#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(8) float2 { float x, y; };
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

using std::max;
using std::min;

inline float __uint_as_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t __float_as_uint(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

/** CUDA's __byte_perm: byte i of the result is byte (s >> 4i) & 7 of the 8-byte value {y:x}. */
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}

/** c + the dot product of the 4 signed bytes of a and b (CUDA's __dp4a, AMD's v_dot4_i32_i8). */
inline int tandem_dp4a(int a, int b, int c) {
  for (int i = 0; i < 32; i += 8) c += static_cast<int8_t>(a >> i) * static_cast<int8_t>(b >> i);
  return c;
}

/** binary16 bits -> float (exact; also subnormals, infinities, NaN). */
inline float tandem_half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return __uint_as_float(exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112u) << 23) | (mant << 13)));
}

namespace tandem_emu {

/** What the threads of the block being run share besides their barriers. */
struct BlockState {
  std::atomic<int> count[2] = {0, 0};
  /** Per warp: the lanes' values in a shuffle. */
  std::vector<std::array<double, 64>> exchange;
  std::vector<unsigned char> dynamicShared;
};

inline int& configured_warp() {
  static int w = [] {
    const char* env = std::getenv("TANDEM_EMU_WARP");
    return env != nullptr && std::atoi(env) == 64 ? 64 : 32;
  }();
  return w;
}

inline thread_local BlockState* tl_block = nullptr;

}  // namespace tandem_emu

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;
/** Threads per warp of the emulated device (TANDEM_EMU_WARP). */
inline const int warpSize = tandem_emu::configured_warp();

inline unsigned tandem_emu_linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

inline void __syncthreads() { tandem_emu::arrive_and_wait(tandem_emu::tl_fibers->block); }

inline int __syncthreads_count(int predicate) {
  auto* b = tandem_emu::tl_block;
  int& slotOfThread = tandem_emu::tl_fibers->current->countSlot;
  const int slot = slotOfThread;
  slotOfThread ^= 1;
  if (predicate) b->count[slot].fetch_add(1);
  __syncthreads();
  const int total = b->count[slot].load();
  __syncthreads();
  if (tandem_emu_linear_thread() == 0) b->count[slot].store(0);
  return total;
}

template <typename T>
T tandem_emu_shfl_xor(T value, int laneMask) {
  const unsigned t = tandem_emu_linear_thread();
  const unsigned ws = static_cast<unsigned>(warpSize);
  auto& exchange = tandem_emu::tl_block->exchange[t / ws];
  auto& barrier = tandem_emu::tl_fibers->warps[t / ws];
  const unsigned lane = t % ws;
  exchange[lane] = static_cast<double>(value);
  tandem_emu::arrive_and_wait(barrier);
  const T other = static_cast<T>(exchange[lane ^ static_cast<unsigned>(laneMask)]);
  tandem_emu::arrive_and_wait(barrier);
  return other;
}
#define tandem_shfl_xor(value, lane_mask) tandem_emu_shfl_xor((value), (lane_mask))

/** __syncwarp: the calling thread's warp meets at its barrier. */
inline void tandem_syncwarp() {
  const unsigned ws = static_cast<unsigned>(warpSize);
  tandem_emu::arrive_and_wait(tandem_emu::tl_fibers->warps[tandem_emu_linear_thread() / ws]);
}

template <typename T, typename U>
T atomicAdd(T* address, U value) {
  return std::atomic_ref<T>(*address).fetch_add(static_cast<T>(value));
}

namespace tandem_emu {
inline void* dynamic_shared() { return tl_block->dynamicShared.data(); }
}  // namespace tandem_emu

// ---- runtime API -------------------------------------------------------------------------------------------
enum hipError_t { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorOutOfMemory = 2, hipErrorNoDevice = 100, hipErrorInvalidDevice = 101, hipErrorInvalidConfiguration = 9, hipErrorLaunchFailure = 719 };
typedef struct EmuStream* hipStream_t;
typedef struct EmuEvent { std::chrono::steady_clock::time_point at; }* hipEvent_t;
enum hipMemcpyKind { hipMemcpyHostToDevice, hipMemcpyDeviceToHost, hipMemcpyDeviceToDevice };
enum hipDeviceAttribute_t { hipDeviceAttributeClockRate, hipDeviceAttributeMemoryClockRate, hipDeviceAttributeMemoryBusWidth };
constexpr unsigned hipStreamNonBlocking = 1;

struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  int multiProcessorCount;
  int warpSize;
  size_t sharedMemPerBlock;
  int major;
  int minor;
};

namespace tandem_emu {
inline thread_local hipError_t tl_lastError = hipSuccess;
inline hipError_t fail(hipError_t e) {
  tl_lastError = e;
  return e;
}
}  // namespace tandem_emu

inline const char* hipGetErrorName(hipError_t e) {
  switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
  }
  return "hipErrorUnknown";
}
inline const char* hipGetErrorString(hipError_t e) { return hipGetErrorName(e); }
inline hipError_t hipGetLastError() {
  const hipError_t e = tandem_emu::tl_lastError;
  tandem_emu::tl_lastError = hipSuccess;
  return e;
}
inline hipError_t hipGetDeviceCount(int* count) {
  *count = 1;
  return hipSuccess;
}
inline hipError_t hipSetDevice(int index) { return index == 0 ? hipSuccess : tandem_emu::fail(hipErrorInvalidDevice); }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int index) {
  if (index != 0) return tandem_emu::fail(hipErrorInvalidDevice);
  std::memset(p, 0, sizeof(*p));
  std::strcpy(p->name, "Tandem HIP CPU emulation");
  p->totalGlobalMem = size_t{1} << 30;
  p->multiProcessorCount = 2;
  p->warpSize = warpSize;
  p->sharedMemPerBlock = 64 * 1024;
  return hipSuccess;
}
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t, int) {
  *value = 0;
  return hipSuccess;
}
inline hipError_t hipRuntimeGetVersion(int* v) { *v = 1; return hipSuccess; }
inline hipError_t hipDriverGetVersion(int* v) { *v = 1; return hipSuccess; }
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
template <typename Kernel>
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, Kernel, int, size_t) {
  *blocks = 2;
  return hipSuccess;
}
/** Kernel attributes: only the dynamic shared memory limit is set (the emulation allocates whatever a launch asks). */
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize };
inline hipError_t hipFuncSetAttribute(const void*, hipFuncAttribute, int) { return hipSuccess; }
inline hipError_t hipMemGetInfo(size_t* freeBytes, size_t* total) {
  *freeBytes = size_t{1} << 30;
  *total = size_t{1} << 30;
  return hipSuccess;
}
inline hipError_t hipMalloc(void** p, size_t bytes) {
  if (bytes > (size_t{1} << 30)) return tandem_emu::fail(hipErrorOutOfMemory);
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  return *p == nullptr ? tandem_emu::fail(hipErrorOutOfMemory) : hipSuccess;
}
inline hipError_t hipFree(void* p) {
  std::free(p);
  return hipSuccess;
}
constexpr unsigned hipHostMallocDefault = 0;
/** Pinned host memory: ordinary memory here. */
inline hipError_t hipHostMalloc(void** p, size_t bytes, unsigned) {
  *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  return *p == nullptr ? tandem_emu::fail(hipErrorOutOfMemory) : hipSuccess;
}
inline hipError_t hipHostFree(void* p) {
  std::free(p);
  return hipSuccess;
}
inline hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind) {
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind, hipStream_t) {
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}
inline hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t) {
  std::memset(dst, value, bytes);
  return hipSuccess;
}
inline hipError_t hipStreamCreateWithFlags(hipStream_t* s, unsigned) {
  *s = reinterpret_cast<hipStream_t>(new int(0));
  return hipSuccess;
}
inline hipError_t hipStreamDestroy(hipStream_t s) {
  delete reinterpret_cast<int*>(s);
  return hipSuccess;
}
inline hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
inline hipError_t hipEventCreate(hipEvent_t* e) {
  *e = new EmuEvent{};
  return hipSuccess;
}
inline hipError_t hipEventDestroy(hipEvent_t e) {
  delete e;
  return hipSuccess;
}
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t) {
  e->at = std::chrono::steady_clock::now();
  return hipSuccess;
}
inline hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return hipSuccess;
}

#define tandem_arch_name(prop) (std::string("emulated-w") + std::to_string((prop).warpSize))

namespace tandem_emu {

/** A launch configuration; run() executes every block, one after another. */
struct Config {
  Config(dim3 grid, dim3 block, size_t shared = 0, hipStream_t = nullptr) : grid_(grid), block_(block), shared_(shared) {}

  template <typename Kernel, typename... Args>
  void run(Kernel kernel, Args... args) {
    const unsigned threads = block_.x * block_.y * block_.z;
    if (threads == 0 || threads > 1024 || grid_.x == 0 || grid_.y == 0 || grid_.z == 0 || grid_.y > 65535 || grid_.z > 65535 || shared_ > 65536) {
      fail(hipErrorInvalidConfiguration);
      return;
    }
    // The kernel call every fiber of a block makes.
    struct Call {
      Kernel kernel;
      std::tuple<Args...> args;
      static void invoke(void* self) { std::apply(static_cast<Call*>(self)->kernel, static_cast<Call*>(self)->args); }
    } call{kernel, std::tuple<Args...>(args...)};
    const unsigned ws = static_cast<unsigned>(warpSize);
    blockDim = block_;
    gridDim = grid_;
    unsigned long long blockNumber = 0;
    for (unsigned bz = 0; bz < grid_.z; ++bz)
      for (unsigned by = 0; by < grid_.y; ++by)
        for (unsigned bx = 0; bx < grid_.x; ++bx, ++blockNumber) {
          BlockState state;
          state.exchange.resize((threads + ws - 1) / ws);
          state.dynamicShared.assign(shared_ + 16, 0xcd);  // garbage, as on a GPU
          tl_block = &state;
          blockIdx = dim3(bx, by, bz);
          // Odd blocks start from the last thread (see tandem_emu_fibers.h).
          const bool done = run_fiber_block(threads, ws, blockNumber % 2 == 1, set_thread, &Call::invoke, &call);
          tl_block = nullptr;
          if (!done) {
            fail(hipErrorLaunchFailure);
            return;
          }
        }
  }

 private:
  /** Makes thread `linear` of the block current (threadIdx), before each of its turns. */
  static void set_thread(unsigned linear) {
    threadIdx = dim3(linear % blockDim.x, (linear / blockDim.x) % blockDim.y, linear / (blockDim.x * blockDim.y));
  }
  dim3 grid_, block_;
  size_t shared_;
};

}  // namespace tandem_emu
