// dequantize: Q8_0 / Q4_0 blocks (ggml layouts: f16 scale d, then 32 int8, or 16 bytes of nibbles with value j
// in the low nibble of byte j and j + 16 in the high one, minus 8) or f16 bits -> f32. Grid-stride loops; a
// thread expands one quantized block (two-byte loads: blocks are only 2-byte aligned) or one f16 value.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

__global__ void dequantize_q8_0(const uint8_t* __restrict__ x, float* __restrict__ out, long long blocks) {
  for (long long b = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; b < blocks; b += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uint16_t* blk = reinterpret_cast<const uint16_t*>(x + b * 34);
    const float d = half_to_float(blk[0]);
    float4* dst = reinterpret_cast<float4*>(out + b * 32);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const uint16_t lo = blk[1 + 2 * i];
      const uint16_t hi = blk[2 + 2 * i];
      dst[i] = make_float4(d * static_cast<int8_t>(lo & 0xff), d * static_cast<int8_t>(lo >> 8), d * static_cast<int8_t>(hi & 0xff), d * static_cast<int8_t>(hi >> 8));
    }
  }
}

__global__ void dequantize_q4_0(const uint8_t* __restrict__ x, float* __restrict__ out, long long blocks) {
  for (long long b = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; b < blocks; b += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uint16_t* blk = reinterpret_cast<const uint16_t*>(x + b * 18);
    const float d = half_to_float(blk[0]);
    float* dst = out + b * 32;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const uint16_t u = blk[1 + i];
      dst[2 * i] = d * (static_cast<int>(u & 0xf) - 8);
      dst[2 * i + 1] = d * (static_cast<int>((u >> 8) & 0xf) - 8);
      dst[2 * i + 16] = d * (static_cast<int>((u >> 4) & 0xf) - 8);
      dst[2 * i + 17] = d * (static_cast<int>(u >> 12) - 8);
    }
  }
}

__global__ void dequantize_f16(const uint16_t* __restrict__ x, float* __restrict__ out, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    out[i] = half_to_float(x[i]);
  }
}

}  // namespace

hipError_t launch_dequantize(const LaunchContext& ctx, const void* x, float* out, long long count, QuantFormat format) {
  if (count == 0) return hipSuccess;
  const uint8_t* bytes = static_cast<const uint8_t*>(x);
  switch (format) {
    case QuantFormat::Q8_0:
      dequantize_q8_0<<<grid_for(count / 32, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(bytes, out, count / 32);
      break;
    case QuantFormat::Q4_0:
      dequantize_q4_0<<<grid_for(count / 32, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(bytes, out, count / 32);
      break;
    case QuantFormat::F16:
      dequantize_f16<<<grid_for(count, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(static_cast<const uint16_t*>(x), out, count);
      break;
  }
  return hipGetLastError();
}

namespace {

/** Parameters of dequantize_*: `count` values (a multiple of 32 for the block formats). */
struct DequantizeParams {
  int count = 0;
};

constexpr std::array<ParamField<DequantizeParams>, 1> kFields{{Dim("count", &DequantizeParams::count)}};

template <QuantFormat kFormat>
std::vector<double> dequantize_sizes(const DequantizeParams& p, int) {
  const double n = p.count;
  if (kFormat == QuantFormat::F16) return {n * kF16Bytes, n * kF32Bytes};
  if (p.count % 32 != 0) throw Failure("TANDEM_BAD_PARAMS", "parameter 'count' must be a multiple of 32");
  return {(n / 32) * (kFormat == QuantFormat::Q8_0 ? kQ8BlockBytes : kQ4BlockBytes), n * kF32Bytes};
}

template <QuantFormat kFormat>
hipError_t dequantize_launch(const OpCall& c, const DequantizeParams& p) {
  return launch_dequantize(*c.ctx, c.inputs[0], output<float>(c, 0), p.count, kFormat);
}

[[maybe_unused]] const bool kQ8 = Register(KernelDefinition<DequantizeParams, 1>{"dequantize_q8_0", 1, 1, 1, kFields, dequantize_sizes<QuantFormat::Q8_0>, dequantize_launch<QuantFormat::Q8_0>});
[[maybe_unused]] const bool kQ4 = Register(KernelDefinition<DequantizeParams, 1>{"dequantize_q4_0", 1, 1, 1, kFields, dequantize_sizes<QuantFormat::Q4_0>, dequantize_launch<QuantFormat::Q4_0>});
[[maybe_unused]] const bool kF16 = Register(KernelDefinition<DequantizeParams, 1>{"dequantize_f16", 1, 1, 1, kFields, dequantize_sizes<QuantFormat::F16>, dequantize_launch<QuantFormat::F16>});

}  // namespace

}  // namespace tandem
