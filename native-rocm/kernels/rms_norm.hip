// rms_norm: out = x / sqrt(mean(x^2) + eps) * weight over the last dimension (n) of each row; one block per row
// (grid-stride over rows). weight may be null, meaning ones.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

__global__ void rms_norm_rows(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ out, long long rows, int n, float eps) {
  __shared__ float shared[kBlock / 32 + 1];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* src = x + row * n;
    float* dst = out + row * n;
    float s = 0.0f;
    for (int c = threadIdx.x; c < n; c += blockDim.x) s = fmaf(src[c], src[c], s);
    s = block_sum(s, shared);
    const float inv = 1.0f / sqrtf(s / static_cast<float>(n) + eps);
    for (int c = threadIdx.x; c < n; c += blockDim.x) dst[c] = weight != nullptr ? src[c] * inv * weight[c] : src[c] * inv;
  }
}

/** out = x / sqrt(mean(x^2) + eps) * weight per row of n; weight may be null (ones). */
hipError_t launch_rms_norm(const LaunchContext& ctx, const float* x, const float* weight, float* out, long long rows, int n, float eps) {
  if (rows == 0 || n == 0) return hipSuccess;
  long long grid = rows;
  const long long cap = static_cast<long long>(ctx.multiProcessors) * 64;
  if (grid > cap) grid = cap;
  rms_norm_rows<<<static_cast<unsigned>(grid), kBlock, 0, ctx.stream>>>(x, weight, out, rows, n, eps);
  return hipGetLastError();
}

/** Parameters of rms_norm_f32: rows of n values; the weight input [n] is optional. */
struct RmsNormParams {
  int rows = 0;
  int n = 0;
  double eps = 0;
};

constexpr std::array<ParamField<RmsNormParams>, 3> kFields{{Dim("rows", &RmsNormParams::rows), Dim("n", &RmsNormParams::n), Number("eps", &RmsNormParams::eps)}};

std::vector<double> rms_norm_sizes(const RmsNormParams& p, int inputs) {
  const double total = static_cast<double>(p.rows) * p.n;
  if (inputs == 2) return {total * kF32Bytes, p.n * kF32Bytes, total * kF32Bytes};
  return {total * kF32Bytes, total * kF32Bytes};
}

hipError_t rms_norm_launch(const OpCall& c, const RmsNormParams& p) {
  const float* weight = c.inputs.size() > 1 ? input<float>(c, 1) : nullptr;
  return launch_rms_norm(*c.ctx, input<float>(c, 0), weight, output<float>(c, 0), p.rows, p.n, static_cast<float>(p.eps));
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<RmsNormParams, 3>{"rms_norm_f32", 1, 2, 1, kFields, rms_norm_sizes, rms_norm_launch});

}  // namespace

}  // namespace tandem
