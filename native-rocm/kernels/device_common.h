// device_common.h: helpers shared by the kernels. Warp-size agnostic: every reduction asks `warpSize`
// (64 on AMD CDNA, 32 on NVIDIA and on RDNA in wave32), and block sizes are multiples of 64.
#pragma once
#include <cstdint>
#include "tandem_hip.h"

namespace tandem {

/** Threads per block of the simple kernels: a multiple of every warp size. */
constexpr int kBlock = 256;

/** Sum over the calling warp; every lane gets the total. */
__device__ inline float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += tandem_shfl_xor(v, offset);
  return v;
}

/** Maximum over the calling warp; every lane gets it (fmaxf: a NaN lane loses to any number). */
__device__ inline float warp_max(float v) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v = fmaxf(v, tandem_shfl_xor(v, offset));
  return v;
}

/** Sum over the block; `shared` holds at least blockDim.x / warpSize floats. Every thread gets the total. */
__device__ inline float block_sum(float v, float* shared) {
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  v = warp_sum(v);
  __syncthreads();  // `shared` may still be read by a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (int i = 0; i < warps; ++i) total += shared[i];
  return total;
}

/** Maximum over the block; as block_sum. */
__device__ inline float block_max(float v, float* shared) {
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float best = -INFINITY;
  for (int i = 0; i < warps; ++i) best = fmaxf(best, shared[i]);
  return best;
}

/** IEEE binary16 bits -> float (exact). */
__device__ inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return sign ? -v : v;
  }
  const uint32_t bits = exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112u) << 23) | (mant << 13));
  return __uint_as_float(bits);
}

/** float -> IEEE binary16 bits, round to nearest even; overflow to +-Inf, NaN stays NaN (core/half.ts's rule). */
__device__ inline uint16_t float_to_half(float f) {
  const uint32_t x = __float_as_uint(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xffu);
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u : 0u));
  int e = exp - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    const uint32_t half = 1u << (shift - 1);
    const uint32_t rest = mant & ((1u << shift) - 1u);
    uint32_t m = mant >> shift;
    if (rest > half || (rest == half && (m & 1u))) m += 1;
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t m = mant >> 13;
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (m & 1u))) {
    m += 1;
    if (m == 0x400u) {
      m = 0;
      e += 1;
      if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    }
  }
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(e) << 10) | m);
}

/** Blocks for a grid-stride loop over n items: enough to fill the device, never zero. */
inline unsigned grid_for(long long n, int multiProcessors, int threads = kBlock) {
  long long blocks = (n + threads - 1) / threads;
  const long long cap = static_cast<long long>(multiProcessors > 0 ? multiProcessors : 1) * 32;
  if (blocks > cap) blocks = cap;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

}  // namespace tandem
