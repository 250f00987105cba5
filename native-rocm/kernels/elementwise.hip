// elementwise: add and mul (b the same shape as a, or a suffix of it: b[i % bCount]), scale, silu, swiglu.
// Grid-stride loops, one element per step; f16 operands are converted to f32, computed, rounded back
// (round to nearest even, as core/half.ts). silu uses expf, not the fast intrinsic, to stay within 2 ulp.
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

#define TANDEM_GRID_STRIDE(i, n) \
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < (n); i += static_cast<long long>(gridDim.x) * blockDim.x)

__device__ inline float load_elem(const float* p, long long i) { return p[i]; }
__device__ inline float load_elem(const uint16_t* p, long long i) { return half_to_float(p[i]); }
__device__ inline void store_elem(float* p, long long i, float v) { p[i] = v; }
__device__ inline void store_elem(uint16_t* p, long long i, float v) { p[i] = float_to_half(v); }

template <typename T, BinaryKind kKind>
__global__ void binary(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, long long count, long long bCount) {
  TANDEM_GRID_STRIDE(i, count) {
    const float x = load_elem(a, i);
    const float y = load_elem(b, bCount == count ? i : i % bCount);
    store_elem(out, i, kKind == BinaryKind::Add ? x + y : x * y);
  }
}

template <typename T>
__global__ void scale(const T* __restrict__ x, T* __restrict__ out, long long count, float factor) {
  TANDEM_GRID_STRIDE(i, count) { store_elem(out, i, load_elem(x, i) * factor); }
}

__device__ inline float silu(float v) { return v / (1.0f + expf(-v)); }

__global__ void silu_f32(const float* __restrict__ x, float* __restrict__ out, long long count) {
  TANDEM_GRID_STRIDE(i, count) { out[i] = silu(x[i]); }
}

__global__ void swiglu_f32(const float* __restrict__ gate, const float* __restrict__ up, float* __restrict__ out, long long count) {
  TANDEM_GRID_STRIDE(i, count) { out[i] = silu(gate[i]) * up[i]; }
}

template <typename T>
hipError_t launch_binary_typed(const LaunchContext& ctx, BinaryKind kind, const void* a, const void* b, void* out, long long count, long long bCount) {
  const unsigned grid = grid_for(count, ctx.multiProcessors);
  const T* ta = static_cast<const T*>(a);
  const T* tb = static_cast<const T*>(b);
  T* to = static_cast<T*>(out);
  if (kind == BinaryKind::Add) {
    binary<T, BinaryKind::Add><<<grid, kBlock, 0, ctx.stream>>>(ta, tb, to, count, bCount);
  } else {
    binary<T, BinaryKind::Mul><<<grid, kBlock, 0, ctx.stream>>>(ta, tb, to, count, bCount);
  }
  return hipGetLastError();
}

}  // namespace

hipError_t launch_binary(const LaunchContext& ctx, BinaryKind kind, ElemType type, const void* a, const void* b, void* out, long long count, long long bCount) {
  if (count == 0) return hipSuccess;
  if (bCount <= 0) return hipErrorInvalidValue;
  return type == ElemType::F32 ? launch_binary_typed<float>(ctx, kind, a, b, out, count, bCount)
                               : launch_binary_typed<uint16_t>(ctx, kind, a, b, out, count, bCount);
}

hipError_t launch_scale(const LaunchContext& ctx, ElemType type, const void* x, void* out, long long count, float factor) {
  if (count == 0) return hipSuccess;
  const unsigned grid = grid_for(count, ctx.multiProcessors);
  if (type == ElemType::F32) {
    scale<float><<<grid, kBlock, 0, ctx.stream>>>(static_cast<const float*>(x), static_cast<float*>(out), count, factor);
  } else {
    scale<uint16_t><<<grid, kBlock, 0, ctx.stream>>>(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(out), count, factor);
  }
  return hipGetLastError();
}

hipError_t launch_silu(const LaunchContext& ctx, const float* x, float* out, long long count) {
  if (count == 0) return hipSuccess;
  silu_f32<<<grid_for(count, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(x, out, count);
  return hipGetLastError();
}

hipError_t launch_swiglu(const LaunchContext& ctx, const float* gate, const float* up, float* out, long long count) {
  if (count == 0) return hipSuccess;
  swiglu_f32<<<grid_for(count, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(gate, up, out, count);
  return hipGetLastError();
}

}  // namespace tandem
