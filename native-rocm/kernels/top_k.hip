// top_k: per row of x [rows, n], the k largest values in descending order and their indices; ties go to the
// lower index, NaN ranks below -inf, -0 ties +0. One block per row (grid-stride over rows):
//   1. Each value maps to a 32-bit key whose unsigned order is the ranking (NaN -> 0). A 4-pass radix select
//      (8 bits a pass, shared-memory histograms) finds the key T of the k-th largest and how many keys equal
//      to T are needed.
//   2. One ordered pass gathers every key > T and the first needed keys == T (lowest indices; a block scan runs
//      only in the tile where the needed ones run out) as 64-bit (key << 32 | ~index) into shared memory.
//   3. A bitonic sort of those k entries, descending, which orders ties by ascending index; then the output.
// k <= kTopKMax (4096); the TypeScript side refuses larger k for this backend.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

constexpr int kThreads = 256;

__device__ inline uint32_t order_key(float v) {
  if (v != v) return 0u;
  const uint32_t b = __float_as_uint(v == 0.0f ? 0.0f : v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

__device__ inline int block_exclusive_scan(int v, int* buf) {
  const int tid = threadIdx.x;
  buf[tid] = v;
  __syncthreads();
  for (int off = 1; off < static_cast<int>(blockDim.x); off <<= 1) {
    const int add = tid >= off ? buf[tid - off] : 0;
    __syncthreads();
    buf[tid] += add;
    __syncthreads();
  }
  const int inclusive = buf[tid];
  __syncthreads();
  return inclusive - v;
}

__global__ void __launch_bounds__(kThreads) top_k_rows(const float* __restrict__ x, float* __restrict__ values, int32_t* __restrict__ indices, int rows, int n, int k) {
  __shared__ uint32_t hist[256];
  __shared__ unsigned long long list[kTopKMax];
  __shared__ int scanBuf[kThreads];
  __shared__ uint32_t sPrefix;
  __shared__ int sRemaining;
  __shared__ int sCount;
  const int tid = threadIdx.x;
  int padded = 1;
  while (padded < k) padded <<= 1;

  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* src = x + static_cast<long long>(row) * n;

    // 1. Radix select on the 32-bit keys, most significant byte first.
    uint32_t prefix = 0;
    uint32_t mask = 0;
    int remaining = k;
    for (int shift = 24; shift >= 0; shift -= 8) {
      for (int i = tid; i < 256; i += blockDim.x) hist[i] = 0;
      __syncthreads();
      for (int i = tid; i < n; i += blockDim.x) {
        const uint32_t key = order_key(src[i]);
        if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255u], 1u);
      }
      __syncthreads();
      if (tid == 0) {
        int above = 0;
        for (int d = 255; d >= 0; --d) {
          const int c = static_cast<int>(hist[d]);
          if (above + c >= remaining) {
            sPrefix = prefix | (static_cast<uint32_t>(d) << shift);
            sRemaining = remaining - above;
            break;
          }
          above += c;
        }
      }
      __syncthreads();
      prefix = sPrefix;
      remaining = sRemaining;
      mask |= 255u << shift;
    }
    const uint32_t threshold = prefix;

    // 2. Gather: all keys above the threshold, and the `remaining` lowest-index keys equal to it.
    if (tid == 0) sCount = 0;
    __syncthreads();
    int eqBefore = 0;
    for (int base = 0; base < n; base += blockDim.x) {
      const int i = base + tid;
      const uint32_t key = i < n ? order_key(src[i]) : 0u;
      const bool gt = i < n && key > threshold;
      const bool eq = i < n && key == threshold;
      const int eqHere = __syncthreads_count(eq);
      bool take = gt;
      if (eqHere > 0 && eqBefore < remaining) {
        if (eqBefore + eqHere <= remaining) {
          take = take || eq;
        } else {
          const int rank = block_exclusive_scan(eq ? 1 : 0, scanBuf);
          take = take || (eq && eqBefore + rank < remaining);
        }
      }
      if (take) list[atomicAdd(&sCount, 1)] = (static_cast<unsigned long long>(key) << 32) | static_cast<uint32_t>(~static_cast<uint32_t>(i));
      eqBefore += eqHere;
    }
    __syncthreads();
    for (int i = k + tid; i < padded; i += blockDim.x) list[i] = 0ull;
    __syncthreads();

    // 3. Bitonic sort, descending.
    for (int size = 2; size <= padded; size <<= 1) {
      for (int stride = size / 2; stride > 0; stride >>= 1) {
        for (int i = tid; i < padded; i += blockDim.x) {
          const int j = i ^ stride;
          if (j > i) {
            const unsigned long long a = list[i];
            const unsigned long long b = list[j];
            const bool descending = (i & size) == 0;
            if (descending ? a < b : a > b) {
              list[i] = b;
              list[j] = a;
            }
          }
        }
        __syncthreads();
      }
    }

    for (int i = tid; i < k; i += blockDim.x) {
      const uint32_t index = ~static_cast<uint32_t>(list[i] & 0xffffffffull);
      values[static_cast<long long>(row) * k + i] = src[index];
      indices[static_cast<long long>(row) * k + i] = static_cast<int32_t>(index);
    }
    __syncthreads();
  }
}

/** Per row of x [rows, n]: the k largest values (descending) and their indices; ties to the lower index, NaN last. */
hipError_t launch_top_k(const LaunchContext& ctx, const float* x, float* values, int32_t* indices, int rows, int n, int k) {
  if (rows == 0 || k == 0) return hipSuccess;
  if (k > kTopKMax || k > n) return hipErrorInvalidValue;
  int grid = rows;
  const int cap = ctx.multiProcessors * 16;
  if (grid > cap) grid = cap;
  top_k_rows<<<grid, kThreads, 0, ctx.stream>>>(x, values, indices, rows, n, k);
  return hipGetLastError();
}

/** Parameters of top_k_f32: rows of n values, the k largest of each. */
struct TopKParams {
  int rows = 0;
  int n = 0;
  int k = 0;
};

constexpr std::array<ParamField<TopKParams>, 3> kFields{{Dim("rows", &TopKParams::rows), Dim("n", &TopKParams::n), Dim("k", &TopKParams::k)}};

std::vector<double> top_k_sizes(const TopKParams& p, int) {
  if (p.k < 1 || p.k > p.n || p.k > kTopKMax) throw Failure("TANDEM_BAD_PARAMS", "parameter 'k' must be in [1, min(n, " + std::to_string(kTopKMax) + ")]");
  const double rows = p.rows, n = p.n, k = p.k;
  return {rows * n * kF32Bytes, rows * k * kF32Bytes, rows * k * 4};
}

hipError_t top_k_launch(const OpCall& c, const TopKParams& p) {
  return launch_top_k(*c.ctx, input<float>(c, 0), output<float>(c, 0), output<int32_t>(c, 1), p.rows, p.n, p.k);
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<TopKParams, 3>{"top_k_f32", 1, 1, 2, kFields, top_k_sizes, top_k_launch});

}  // namespace

}  // namespace tandem
