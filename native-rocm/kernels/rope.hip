// rope: rotary position embedding on x [seq, heads, headDim]; token s has position positionOffset + s.
// Pair i (0 <= i < headDim/2) rotates by angle pos * base^(-2i / headDim): interleaved (ggml 'normal') pairs
// dimensions (2i, 2i+1), neox pairs (i, i + headDim/2). One thread per pair; the angle and its sine and cosine
// are computed in double, so large positions keep full f32 accuracy (the op is memory-bound either way).
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

__global__ void rope_pairs(const float* __restrict__ x, float* __restrict__ out, int seq, int heads, int headDim, long long positionOffset, double log2Base, bool neox) {
  const int half = headDim / 2;
  const long long pairs = static_cast<long long>(seq) * heads * half;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < pairs; p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = p / half;
    const int i = static_cast<int>(p % half);
    const long long s = row / heads;
    const long long i0 = neox ? row * headDim + i : row * headDim + 2 * i;
    const long long i1 = neox ? i0 + half : i0 + 1;
    const double angle = static_cast<double>(positionOffset + s) * exp2(-(2.0 * i / headDim) * log2Base);
    double sn;
    double cs;
    sincos(angle, &sn, &cs);
    const float c = static_cast<float>(cs);
    const float sf = static_cast<float>(sn);
    const float x0 = x[i0];
    const float x1 = x[i1];
    out[i0] = x0 * c - x1 * sf;
    out[i1] = x0 * sf + x1 * c;
  }
}

/** Rotary embedding of x [seq, heads, headDim]; neox pairs (i, i + headDim/2), else (2i, 2i+1). */
hipError_t launch_rope(const LaunchContext& ctx, const float* x, float* out, int seq, int heads, int headDim, long long positionOffset, double base, bool neox) {
  const long long pairs = static_cast<long long>(seq) * heads * (headDim / 2);
  if (pairs == 0) return hipSuccess;
  rope_pairs<<<grid_for(pairs, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(x, out, seq, heads, headDim, positionOffset, log2(base), neox);
  return hipGetLastError();
}

/** Parameters of rope_f32: x [seq, heads, headDim], positions from positionOffset, frequency base, pairing. */
struct RopeParams {
  int seq = 0;
  int heads = 0;
  int headDim = 0;
  double positionOffset = 0;
  double base = 10000;
  bool neox = false;
};

constexpr std::array<ParamField<RopeParams>, 6> kFields{{
    Dim("seq", &RopeParams::seq),
    Dim("heads", &RopeParams::heads),
    Dim("headDim", &RopeParams::headDim),
    Number("positionOffset", &RopeParams::positionOffset),
    Number("base", &RopeParams::base),
    Flag("neox", &RopeParams::neox),
}};

std::vector<double> rope_sizes(const RopeParams& p, int) {
  if (p.headDim % 2 != 0) throw Failure("TANDEM_BAD_PARAMS", "parameter 'headDim' must be even");
  const double n = static_cast<double>(p.seq) * p.heads * p.headDim;
  return {n * kF32Bytes, n * kF32Bytes};
}

hipError_t rope_launch(const OpCall& c, const RopeParams& p) {
  return launch_rope(*c.ctx, input<float>(c, 0), output<float>(c, 0), p.seq, p.heads, p.headDim, static_cast<long long>(p.positionOffset), p.base, p.neox);
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<RopeParams, 6>{"rope_f32", 1, 1, 1, kFields, rope_sizes, rope_launch});

}  // namespace

}  // namespace tandem
