// spread_activation: `iterations` synchronous hops over a weighted CSR graph (row i's edges go to colIdx[e],
// rowPtr[i] <= e < rowPtr[i + 1]), for each of `seeds` activation vectors of `nodes` each (seed after seed):
//   next[j] = a[j] + decay * sum over edges i -> j with a[i] >= threshold of w(i, j) * a[i]
// Each hop copies a into next, then one warp per source row (lanes stride over its edges) adds its
// contributions with float atomics, so the order of the additions, and the last bits, vary between runs.
// Hops ping-pong between out and scratch so that the last one lands in out. Edges pointing outside the graph,
// and row pointers past the edge count, are ignored rather than trusted.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

__global__ void copy_activation(const float* __restrict__ src, float* __restrict__ dst, int nodes) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < nodes; i += static_cast<long long>(gridDim.x) * blockDim.x) dst[i] = src[i];
}

__global__ void spread_hop(const uint32_t* __restrict__ rowPtr, const uint32_t* __restrict__ colIdx, const float* __restrict__ weights, const float* __restrict__ current, float* __restrict__ next, int nodes, int edges, float decay, float threshold) {
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int warps = blockDim.x / ws;
  for (long long i = blockIdx.x * static_cast<long long>(warps) + threadIdx.x / ws; i < nodes; i += static_cast<long long>(gridDim.x) * warps) {
    const float a = current[i];
    if (!(a >= threshold)) continue;
    const float amount = decay * a;
    const uint32_t end = min(rowPtr[i + 1], static_cast<uint32_t>(edges));
    for (uint32_t e = rowPtr[i] + lane; e < end; e += ws) {
      const uint32_t j = colIdx[e];
      if (j < static_cast<uint32_t>(nodes)) atomicAdd(&next[j], weights[e] * amount);
    }
  }
}

/** `iterations` synchronous hops of spreading activation over a CSR graph for one seed; result in out [nodes]. */
hipError_t launch_spread_seed(const LaunchContext& ctx, const uint32_t* rowPtr, const uint32_t* colIdx, const float* weights, const float* initial, float* out, int nodes, int edges, float decay, float threshold, int iterations) {
  if (nodes == 0 || iterations <= 0) return hipSuccess;
  float* other = nullptr;
  if (iterations > 1) {
    void* scratch = nullptr;
    const hipError_t err = ctx.scratch->Reserve(static_cast<size_t>(nodes) * sizeof(float), &scratch);
    if (err != hipSuccess) return err;
    other = static_cast<float*>(scratch);
  }
  const unsigned copyGrid = grid_for(nodes, ctx.multiProcessors);
  const unsigned hopGrid = grid_for(nodes, ctx.multiProcessors, kBlock / ctx.warpSize);
  const float* src = initial;
  for (int t = 0; t < iterations; ++t) {
    float* dst = (iterations - 1 - t) % 2 == 0 ? out : other;
    copy_activation<<<copyGrid, kBlock, 0, ctx.stream>>>(src, dst, nodes);
    spread_hop<<<hopGrid, kBlock, 0, ctx.stream>>>(rowPtr, colIdx, weights, src, dst, nodes, edges, decay, threshold);
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return err;
    src = dst;
  }
  return hipSuccess;
}

/** Parameters of spread_activation: a CSR graph of nodes and edges, and the hops' dynamics. */
struct SpreadActivationParams {
  int nodes = 0;
  int edges = 0;
  double decay = 1;
  double threshold = 0;
  int iterations = 1;
  int seeds = 1;
};

constexpr std::array<ParamField<SpreadActivationParams>, 6> kFields{{
    Dim("nodes", &SpreadActivationParams::nodes),
    Dim("edges", &SpreadActivationParams::edges),
    Number("decay", &SpreadActivationParams::decay),
    Number("threshold", &SpreadActivationParams::threshold),
    Dim("iterations", &SpreadActivationParams::iterations),
    Dim("seeds", &SpreadActivationParams::seeds),
}};

std::vector<double> spread_sizes(const SpreadActivationParams& p, int) {
  const double nodes = p.nodes, edges = p.edges, seeds = p.seeds;
  return {(nodes + 1) * 4, edges * 4, edges * kF32Bytes, seeds * nodes * kF32Bytes, seeds * nodes * kF32Bytes};
}

hipError_t spread_launch(const OpCall& c, const SpreadActivationParams& p) {
  const size_t stride = static_cast<size_t>(p.nodes);
  for (int s = 0; s < p.seeds; ++s) {
    const hipError_t err = launch_spread_seed(*c.ctx, input<uint32_t>(c, 0), input<uint32_t>(c, 1), input<float>(c, 2), input<float>(c, 3) + s * stride, output<float>(c, 0) + s * stride, p.nodes, p.edges, static_cast<float>(p.decay), static_cast<float>(p.threshold), p.iterations);
    if (err != hipSuccess) return err;
  }
  return hipSuccess;
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<SpreadActivationParams, 6>{"spread_activation", 4, 4, 1, kFields, spread_sizes, spread_launch});

}  // namespace

}  // namespace tandem
