// softmax: row-wise over the last dimension of x [rows, cols], one block per row (grid-stride over rows):
// block max, block sum of exp(x - max), then the quotient. Rows whose visible entries are all -inf give zeros.
// Causal (causalRows > 0): row r of each [causalRows, cols] matrix sees columns c <= r + cols - causalRows;
// the rest count as -inf and are written as 0.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ out, long long rows, int cols, int causalRows) {
  __shared__ float shared[kBlock / 32 + 1];
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* src = x + row * cols;
    float* dst = out + row * cols;
    int visible = cols;
    if (causalRows > 0) {
      const long long limit = row % causalRows + static_cast<long long>(cols) - causalRows;  // last visible column
      visible = limit < 0 ? 0 : (limit + 1 < cols ? static_cast<int>(limit + 1) : cols);
    }
    float m = -INFINITY;
    for (int c = threadIdx.x; c < visible; c += blockDim.x) m = fmaxf(m, src[c]);
    m = block_max(m, shared);
    if (m == -INFINITY) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = 0.0f;
      __syncthreads();
      continue;
    }
    float s = 0.0f;
    for (int c = threadIdx.x; c < visible; c += blockDim.x) s += expf(src[c] - m);
    s = block_sum(s, shared);
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = c < visible ? expf(src[c] - m) * inv : 0.0f;
    __syncthreads();
  }
}

/** Row softmax of x [rows, cols]; causalRows > 0 masks column c of row r when c > r % causalRows + cols - causalRows. */
hipError_t launch_softmax(const LaunchContext& ctx, const float* x, float* out, long long rows, int cols, int causalRows) {
  if (rows == 0 || cols == 0) return hipSuccess;
  long long grid = rows;
  const long long cap = static_cast<long long>(ctx.multiProcessors) * 64;
  if (grid > cap) grid = cap;
  softmax_rows<<<static_cast<unsigned>(grid), kBlock, 0, ctx.stream>>>(x, out, rows, cols, causalRows);
  return hipGetLastError();
}

/** Parameters of softmax_f32: rows of cols values; causalRows > 0 is the causal mask's matrix height. */
struct SoftmaxParams {
  int rows = 0;
  int cols = 0;
  int causalRows = 0;
};

constexpr std::array<ParamField<SoftmaxParams>, 3> kFields{{Dim("rows", &SoftmaxParams::rows), Dim("cols", &SoftmaxParams::cols), Dim("causalRows", &SoftmaxParams::causalRows)}};

std::vector<double> softmax_sizes(const SoftmaxParams& p, int) {
  const double n = static_cast<double>(p.rows) * p.cols;
  return {n * kF32Bytes, n * kF32Bytes};
}

hipError_t softmax_launch(const OpCall& c, const SoftmaxParams& p) {
  return launch_softmax(*c.ctx, input<float>(c, 0), output<float>(c, 0), p.rows, p.cols, p.causalRows);
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<SoftmaxParams, 3>{"softmax_f32", 1, 1, 1, kFields, softmax_sizes, softmax_launch});

}  // namespace

}  // namespace tandem
