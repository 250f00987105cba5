// elementwise.h: what the elementwise kernel files share: a grid-stride loop, f16 loads and stores through f32
// (round to nearest even, as core/half.ts), add and mul's binary kernel with its registration, and the unary
// family's kernel and registration: a unary op's file (silu.hip, ...) defines its function as a functor and calls
// RegisterUnary<F>("<op>_f32"[, "<op>_f16"]), one kernel per dtype with parameters { count }.
#pragma once
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {

#define TANDEM_GRID_STRIDE(i, n) \
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < (n); i += static_cast<long long>(gridDim.x) * blockDim.x)

__device__ inline float load_elem(const float* p, long long i) { return p[i]; }
__device__ inline float load_elem(const uint16_t* p, long long i) { return half_to_float(p[i]); }
__device__ inline void store_elem(float* p, long long i, float v) { p[i] = v; }
__device__ inline void store_elem(uint16_t* p, long long i, float v) { p[i] = float_to_half(v); }

/** Bytes per element of T in the size checks. */
template <typename T>
constexpr double elem_bytes() { return sizeof(T) == 2 ? kF16Bytes : kF32Bytes; }

// ---- binary: add, mul ----------------------------------------------------------------------------------------

/** Parameters of add_* and mul_*: out[i] = a[i] op b[i % bCount] for i < count. */
struct BinaryParams {
  int count = 0;
  int bCount = 0;
};

constexpr std::array<ParamField<BinaryParams>, 2> kBinaryFields{{Dim("count", &BinaryParams::count), Dim("bCount", &BinaryParams::bCount)}};

template <typename T, typename Op>
__global__ void binary_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, long long count, long long bCount) {
  const Op op{};
  TANDEM_GRID_STRIDE(i, count) { store_elem(out, i, op(load_elem(a, i), load_elem(b, bCount == count ? i : i % bCount))); }
}

template <typename T>
std::vector<double> binary_sizes(const BinaryParams& p, int) {
  if (p.count > 0 && (p.bCount == 0 || p.count % p.bCount != 0)) throw Failure("TANDEM_BAD_PARAMS", "'bCount' must divide 'count'");
  return {p.count * elem_bytes<T>(), p.bCount * elem_bytes<T>(), p.count * elem_bytes<T>()};
}

template <typename T, typename Op>
hipError_t binary_launch(const OpCall& c, const BinaryParams& p) {
  if (p.count == 0) return hipSuccess;
  binary_kernel<T, Op><<<grid_for(p.count, c.ctx->multiProcessors), kBlock, 0, c.ctx->stream>>>(input<T>(c, 0), input<T>(c, 1), output<T>(c, 0), p.count, p.bCount);
  return hipGetLastError();
}

/** Registers `<f32Name>` and `<f16Name>`: the binary kernel with functor Op. */
template <typename Op>
bool RegisterBinary(const char* f32Name, const char* f16Name) {
  Register(KernelDefinition<BinaryParams, 2>{f32Name, 2, 2, 1, kBinaryFields, binary_sizes<float>, binary_launch<float, Op>});
  return Register(KernelDefinition<BinaryParams, 2>{f16Name, 2, 2, 1, kBinaryFields, binary_sizes<uint16_t>, binary_launch<uint16_t, Op>});
}

/** silu(v) = v / (1 + e^-v): silu.hip's function, and swiglu's gate. expf, not the fast intrinsic: within 2 ulp. */
struct Silu {
  __device__ float operator()(float v) const { return v / (1.0f + expf(-v)); }
};

// ---- the unary family: silu, ... -----------------------------------------------------------------------------

/** Parameters of a unary op's kernels: out[i] = f(x[i]) for i < count. */
struct UnaryParams {
  int count = 0;
};

constexpr std::array<ParamField<UnaryParams>, 1> kUnaryFields{{Dim("count", &UnaryParams::count)}};

template <typename T, typename F>
__global__ void unary_kernel(const T* __restrict__ x, T* __restrict__ out, long long count) {
  const F f{};
  TANDEM_GRID_STRIDE(i, count) { store_elem(out, i, f(load_elem(x, i))); }
}

template <typename T>
std::vector<double> unary_sizes(const UnaryParams& p, int) {
  return {p.count * elem_bytes<T>(), p.count * elem_bytes<T>()};
}

template <typename T, typename F>
hipError_t unary_launch(const OpCall& c, const UnaryParams& p) {
  if (p.count == 0) return hipSuccess;
  unary_kernel<T, F><<<grid_for(p.count, c.ctx->multiProcessors), kBlock, 0, c.ctx->stream>>>(input<T>(c, 0), output<T>(c, 0), p.count);
  return hipGetLastError();
}

/** Registers a unary op's kernels with functor F: `<f32Name>`, and `<f16Name>` unless it is null (f32 only). */
template <typename F>
bool RegisterUnary(const char* f32Name, const char* f16Name = nullptr) {
  Register(KernelDefinition<UnaryParams, 1>{f32Name, 1, 1, 1, kUnaryFields, unary_sizes<float>, unary_launch<float, F>});
  if (f16Name != nullptr) Register(KernelDefinition<UnaryParams, 1>{f16Name, 1, 1, 1, kUnaryFields, unary_sizes<uint16_t>, unary_launch<uint16_t, F>});
  return true;
}

}  // namespace tandem
