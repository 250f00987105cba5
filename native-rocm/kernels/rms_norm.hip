// rms_norm: out = x / sqrt(mean(x^2) + eps) * weight over the last dimension (n) of each row; one block per row
// (grid-stride over rows). weight may be null, meaning ones.
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

}  // namespace

hipError_t launch_rms_norm(const LaunchContext& ctx, const float* x, const float* weight, float* out, long long rows, int n, float eps) {
  if (rows == 0 || n == 0) return hipSuccess;
  long long grid = rows;
  const long long cap = static_cast<long long>(ctx.multiProcessors) * 64;
  if (grid > cap) grid = cap;
  rms_norm_rows<<<static_cast<unsigned>(grid), kBlock, 0, ctx.stream>>>(x, weight, out, rows, n, eps);
  return hipGetLastError();
}

}  // namespace tandem
