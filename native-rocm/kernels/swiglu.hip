// swiglu: out[i] = silu(gate[i]) * up[i], f32, the Llama MLP's gating. Grid-stride.
#include "elementwise.h"

namespace tandem {
namespace {

/** Parameters of swiglu_f32. */
struct SwigluParams {
  int count = 0;
};

constexpr std::array<ParamField<SwigluParams>, 1> kSwigluFields{{Dim("count", &SwigluParams::count)}};

__global__ void swiglu_f32(const float* __restrict__ gate, const float* __restrict__ up, float* __restrict__ out, long long count) {
  const Silu silu{};
  TANDEM_GRID_STRIDE(i, count) { out[i] = silu(gate[i]) * up[i]; }
}

std::vector<double> swiglu_sizes(const SwigluParams& p, int) { return {p.count * kF32Bytes, p.count * kF32Bytes, p.count * kF32Bytes}; }

hipError_t swiglu_launch(const OpCall& c, const SwigluParams& p) {
  if (p.count == 0) return hipSuccess;
  swiglu_f32<<<grid_for(p.count, c.ctx->multiProcessors), kBlock, 0, c.ctx->stream>>>(input<float>(c, 0), input<float>(c, 1), output<float>(c, 0), p.count);
  return hipGetLastError();
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<SwigluParams, 1>{"swiglu_f32", 2, 2, 1, kSwigluFields, swiglu_sizes, swiglu_launch});

}  // namespace
}  // namespace tandem
