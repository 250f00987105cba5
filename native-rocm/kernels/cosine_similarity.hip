// cosine_similarity: out[qi, t] = dot(queries[qi], targets[t]) / (|queries[qi]| |targets[t]|) for queries [Q, D],
// targets [T, D], out [Q, T], with the op's rules for special vectors (CosineSimilarityOp in
// packages/core/src/ops.ts): a NaN in either vector -> NaN; else a zero vector -> 0; else an infinity in either ->
// NaN; else the cosine, whatever the vectors' lengths. The fast paths below use f32 dots and norms; a pair where
// either norm is outside [2^-40, 2^63] (squared: [2^-80, 2^126]; zero, tiny, huge, Inf or NaN: rare) is
// recomputed by cosine_slow, which classifies both rows and rescales each by a power of two near 1 / max |entry|.
// On the warp path a staged query out of range is rescaled once in shared memory (rescale_staged), so only target
// rows out of range take the slow path there.
//
// Few queries (the search case, memory-bound on the targets): up to 8 queries are staged in shared memory with
// their norms; one warp per target streams the target row with float4 loads (coalesced), accumulating its
// squared norm and the dot with every staged query, then reduces across the warp. Targets are read once per
// group of 8 queries. Many queries (compute-bound): norms of both sides, the f32 tiled matmul with the targets
// as a transposed B, then a pass dividing by the norms.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

constexpr int kMaxStagedQueries = 8;
constexpr int kWarpQueryLimit = kCosineWarpQueryLimit;  // above this many queries, the matmul path
constexpr size_t kStageBytes = 48 * 1024;  // shared memory for staged queries
constexpr float kFastMinNorm = 0x1p-40f;   // norms the f32 fast path takes: [2^-40, 2^63]
constexpr float kFastMaxNorm = 0x1p63f;

/** Whether a norm is in the fast path's range (false for NaN and Inf). */
__device__ inline bool in_fast_range(float norm) { return norm >= kFastMinNorm && norm <= kFastMaxNorm; }

/** A power of two that brings `largest` (a finite non-zero |entry|) into [1, 4): exact scaling. */
__device__ inline float scale_for(float largest) {
  int e = static_cast<int>(__float_as_uint(largest) >> 23) - 127;
  e = e < -126 ? -126 : (e > 126 ? 126 : e);
  return __uint_as_float(static_cast<uint32_t>(127 - e) << 23);
}

/** Sum over the warp when kWarp (every lane gets it), else v itself. */
template <bool kWarp>
__device__ inline float reduce_sum(float v) { return kWarp ? warp_sum(v) : v; }

/** Maximum over the warp when kWarp, else v itself. */
template <bool kWarp>
__device__ inline float reduce_max(float v) { return kWarp ? warp_max(v) : v; }

/**
 * The score of one pair by the op's rules (the rare slow path). kWarp: the whole warp calls it with first = lane,
 * stride = warpSize, and every lane gets the score; else one thread with first 0, stride 1.
 */
template <bool kWarp>
__device__ __attribute__((noinline)) float cosine_slow(const float* q, const float* t, int dim, int first, int stride) {
  float qMax = 0.0f, tMax = 0.0f, nans = 0.0f;
  for (int c = first; c < dim; c += stride) {
    const float a = q[c], b = t[c];
    if (a != a || b != b) nans = 1.0f;
    qMax = fmaxf(qMax, fabsf(a));
    tMax = fmaxf(tMax, fabsf(b));
  }
  nans = reduce_sum<kWarp>(nans);
  qMax = reduce_max<kWarp>(qMax);
  tMax = reduce_max<kWarp>(tMax);
  if (nans > 0.0f) return __uint_as_float(0x7fc00000u);
  if (qMax == 0.0f || tMax == 0.0f) return 0.0f;
  if (qMax == INFINITY || tMax == INFINITY) return __uint_as_float(0x7fc00000u);
  const float qs = scale_for(qMax), ts = scale_for(tMax);
  float dot = 0.0f, qq = 0.0f, tt = 0.0f;
  for (int c = first; c < dim; c += stride) {
    const float a = q[c] * qs, b = t[c] * ts;
    dot = fmaf(a, b, dot);
    qq = fmaf(a, a, qq);
    tt = fmaf(b, b, tt);
  }
  dot = reduce_sum<kWarp>(dot);
  qq = reduce_sum<kWarp>(qq);
  tt = reduce_sum<kWarp>(tt);
  if (qq == 0.0f || tt == 0.0f) return 0.0f;  // subnormal rows a GPU flushes are zero vectors
  return dot / (sqrtf(qq) * sqrtf(tt));
}

/**
 * A staged query (shared memory) whose norm is out of the fast range: when it is finite and non-zero, scales it in
 * place by scale_for(max |entry|) (exact; its cosines do not change) and returns its new norm, else `norm`. The
 * whole warp calls it; each lane touches only its own entries.
 */
__device__ __attribute__((noinline)) float rescale_staged(float* query, int dim, int lane, int ws, float norm) {
  float largest = 0.0f, nans = 0.0f;
  for (int c = lane; c < dim; c += ws) {
    const float v = query[c];
    if (v != v) nans = 1.0f;
    largest = fmaxf(largest, fabsf(v));
  }
  nans = warp_sum(nans);
  largest = warp_max(largest);
  if (nans > 0.0f || largest == 0.0f || largest == INFINITY) return norm;
  const float scale = scale_for(largest);
  float s = 0.0f;
  for (int c = lane; c < dim; c += ws) {
    const float v = query[c] * scale;
    query[c] = v;
    s = fmaf(v, v, s);
  }
  return sqrtf(warp_sum(s));
}

template <int QT, bool kVec>
__global__ void __launch_bounds__(kBlock)
    cosine_warp(const float* __restrict__ queries, const float* __restrict__ targets, float* __restrict__ out, int numTargets, int dim, int q0) {
  extern __shared__ __align__(16) float staged[];  // QT * dim query values, then QT norms
  float* norms = staged + QT * dim;
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int warp = threadIdx.x / ws;
  const int warps = blockDim.x / ws;
  const float* src = queries + static_cast<long long>(q0) * dim;
  for (int i = threadIdx.x; i < QT * dim; i += blockDim.x) staged[i] = src[i];
  __syncthreads();
  for (int qi = warp; qi < QT; qi += warps) {
    float s = 0.0f;
    for (int c = lane; c < dim; c += ws) s = fmaf(staged[qi * dim + c], staged[qi * dim + c], s);
    float norm = sqrtf(warp_sum(s));
    if (!in_fast_range(norm)) norm = rescale_staged(staged + qi * dim, dim, lane, ws, norm);
    if (lane == 0) norms[qi] = norm;
  }
  __syncthreads();
  bool queriesFast = true;
  for (int qi = 0; qi < QT; ++qi) queriesFast = queriesFast && in_fast_range(norms[qi]);

  for (long long t = blockIdx.x * static_cast<long long>(warps) + warp; t < numTargets; t += static_cast<long long>(gridDim.x) * warps) {
    const float* row = targets + t * dim;
    float dot[QT];
#pragma unroll
    for (int qi = 0; qi < QT; ++qi) dot[qi] = 0.0f;
    float tt = 0.0f;
    if (kVec) {
#pragma unroll 4
      for (int c = lane * 4; c < dim; c += ws * 4) {
        const float4 tv = *reinterpret_cast<const float4*>(row + c);
        tt = fmaf(tv.x, tv.x, fmaf(tv.y, tv.y, fmaf(tv.z, tv.z, fmaf(tv.w, tv.w, tt))));
#pragma unroll
        for (int qi = 0; qi < QT; ++qi) {
          const float4 qv = *reinterpret_cast<const float4*>(staged + qi * dim + c);
          dot[qi] = fmaf(qv.x, tv.x, fmaf(qv.y, tv.y, fmaf(qv.z, tv.z, fmaf(qv.w, tv.w, dot[qi]))));
        }
      }
    } else {
      for (int c = lane; c < dim; c += ws) {
        const float tv = row[c];
        tt = fmaf(tv, tv, tt);
#pragma unroll
        for (int qi = 0; qi < QT; ++qi) dot[qi] = fmaf(staged[qi * dim + c], tv, dot[qi]);
      }
    }
    tt = warp_sum(tt);
#pragma unroll
    for (int qi = 0; qi < QT; ++qi) dot[qi] = warp_sum(dot[qi]);
    const float tn = sqrtf(tt);  // the same on every lane (butterfly sums), so the branch is warp-uniform
    if (queriesFast && in_fast_range(tn)) {
      if (lane == 0) {
#pragma unroll
        for (int qi = 0; qi < QT; ++qi) out[static_cast<long long>(q0 + qi) * numTargets + t] = dot[qi] / (norms[qi] * tn);
      }
    } else {
      for (int qi = 0; qi < QT; ++qi) {
        const float score = cosine_slow<true>(staged + qi * dim, row, dim, lane, ws);
        if (lane == 0) out[static_cast<long long>(q0 + qi) * numTargets + t] = score;
      }
    }
  }
}

// norms[r] = |rows[r]|, one warp per row.
__global__ void row_norms(const float* __restrict__ rows, float* __restrict__ norms, int count, int dim) {
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int warps = blockDim.x / ws;
  for (long long r = blockIdx.x * static_cast<long long>(warps) + threadIdx.x / ws; r < count; r += static_cast<long long>(gridDim.x) * warps) {
    float s = 0.0f;
    for (int c = lane; c < dim; c += ws) s = fmaf(rows[r * dim + c], rows[r * dim + c], s);
    s = warp_sum(s);
    if (lane == 0) norms[r] = sqrtf(s);
  }
}

// out[qi, t] /= qn[qi] * tn[t] when both norms are in the fast range, else the slow path's score.
__global__ void divide_by_norms(float* __restrict__ out, const float* __restrict__ qn, const float* __restrict__ tn, const float* __restrict__ queries,
                                const float* __restrict__ targets, int numQueries, int numTargets, int dim) {
  const long long total = static_cast<long long>(numQueries) * numTargets;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long qi = i / numTargets, ti = i % numTargets;
    const float a = qn[qi], b = tn[ti];
    out[i] = in_fast_range(a) && in_fast_range(b) ? out[i] / (a * b) : cosine_slow<false>(queries + qi * dim, targets + ti * dim, dim, 0, 1);
  }
}

// A persistent grid: as many blocks as fit at once (or as there are targets), so no partial second wave.
template <int QT, bool kVec>
hipError_t launch_staged(const LaunchContext& ctx, const float* queries, const float* targets, float* out, int numTargets, int dim, int q0) {
  const size_t shared = (static_cast<size_t>(QT) * dim + QT) * sizeof(float);
  const int warpsPerBlock = kBlock / ctx.warpSize;
  long long blocks = (numTargets + warpsPerBlock - 1) / warpsPerBlock;
  int resident = 0;
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&resident, cosine_warp<QT, kVec>, kBlock, shared) != hipSuccess || resident < 1) {
    (void)hipGetLastError();
    resident = 4;
  }
  const long long cap = static_cast<long long>(ctx.multiProcessors) * resident;
  if (blocks > cap) blocks = cap;
  cosine_warp<QT, kVec><<<static_cast<unsigned>(blocks < 1 ? 1 : blocks), kBlock, shared, ctx.stream>>>(queries, targets, out, numTargets, dim, q0);
  return hipGetLastError();
}

template <bool kVec>
hipError_t launch_warp_group(const LaunchContext& ctx, const float* queries, const float* targets, float* out, int numTargets, int dim, int q0, int qt) {
  switch (qt) {
    case 1: return launch_staged<1, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    case 2: return launch_staged<2, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    case 3: return launch_staged<3, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    case 4: return launch_staged<4, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    case 5: return launch_staged<5, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    case 6: return launch_staged<6, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    case 7: return launch_staged<7, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
    default: return launch_staged<8, kVec>(ctx, queries, targets, out, numTargets, dim, q0);
  }
}

hipError_t launch_matmul_path(const LaunchContext& ctx, const float* queries, const float* targets, float* out, int numQueries, int numTargets, int dim) {
  void* scratch = nullptr;
  hipError_t err = ctx.scratch->Reserve((static_cast<size_t>(numQueries) + numTargets) * sizeof(float), &scratch);
  if (err != hipSuccess) return err;
  float* qn = static_cast<float*>(scratch);
  float* tn = qn + numQueries;
  row_norms<<<grid_for(numQueries, ctx.multiProcessors, kBlock / ctx.warpSize), kBlock, 0, ctx.stream>>>(queries, qn, numQueries, dim);
  row_norms<<<grid_for(numTargets, ctx.multiProcessors, kBlock / ctx.warpSize), kBlock, 0, ctx.stream>>>(targets, tn, numTargets, dim);
  err = hipGetLastError();
  if (err != hipSuccess) return err;
  err = launch_matmul_f32(ctx, queries, targets, out, numQueries, numTargets, dim, true, kMatmulDefaultVariant);
  if (err != hipSuccess) return err;
  divide_by_norms<<<grid_for(static_cast<long long>(numQueries) * numTargets, ctx.multiProcessors), kBlock, 0, ctx.stream>>>(out, qn, tn, queries, targets, numQueries, numTargets, dim);
  return hipGetLastError();
}

/** out[qi, t] = cos(queries[qi], targets[t]); 0 when either vector is zero. */
hipError_t launch_cosine_similarity(const LaunchContext& ctx, const float* queries, const float* targets, float* out, int numQueries, int numTargets, int dim) {
  if (numQueries == 0 || numTargets == 0) return hipSuccess;
  if (dim == 0) return hipMemsetAsync(out, 0, static_cast<size_t>(numQueries) * numTargets * sizeof(float), ctx.stream);
  const int fit = static_cast<int>(kStageBytes / sizeof(float) / (static_cast<size_t>(dim) + 1));
  const int perGroup = fit < kMaxStagedQueries ? fit : kMaxStagedQueries;
  if (numQueries > kWarpQueryLimit || perGroup < 1) return launch_matmul_path(ctx, queries, targets, out, numQueries, numTargets, dim);
  const bool vec = dim % 4 == 0;
  for (int q0 = 0; q0 < numQueries; q0 += perGroup) {
    const int qt = numQueries - q0 < perGroup ? numQueries - q0 : perGroup;
    const hipError_t err = vec ? launch_warp_group<true>(ctx, queries, targets, out, numTargets, dim, q0, qt)
                               : launch_warp_group<false>(ctx, queries, targets, out, numTargets, dim, q0, qt);
    if (err != hipSuccess) return err;
  }
  return hipSuccess;
}

/** Parameters of cosine_similarity_f32: queries [queries, dim] x targets [targets, dim]. */
struct CosineSimilarityParams {
  int queries = 0;
  int targets = 0;
  int dim = 0;
};

constexpr std::array<ParamField<CosineSimilarityParams>, 3> kFields{{Dim("queries", &CosineSimilarityParams::queries), Dim("targets", &CosineSimilarityParams::targets), Dim("dim", &CosineSimilarityParams::dim)}};

std::vector<double> cosine_sizes(const CosineSimilarityParams& p, int) {
  const double q = p.queries, t = p.targets, d = p.dim;
  return {q * d * kF32Bytes, t * d * kF32Bytes, q * t * kF32Bytes};
}

hipError_t cosine_launch(const OpCall& c, const CosineSimilarityParams& p) {
  return launch_cosine_similarity(*c.ctx, input<float>(c, 0), input<float>(c, 1), output<float>(c, 0), p.queries, p.targets, p.dim);
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<CosineSimilarityParams, 3>{"cosine_similarity_f32", 2, 2, 1, kFields, cosine_sizes, cosine_launch});

}  // namespace

}  // namespace tandem
