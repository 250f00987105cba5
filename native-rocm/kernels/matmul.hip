// matmul: C[M,N] = A[M,K] B[K,N] in f32 (matmul_f32), row-major; B may come transposed (Bt[N,K]), as quantizedMatmul's
// batched path and cosineSimilarity's many-query path use it. Also matmul_f16 (f32 accumulation).
//
// One 256-thread block computes a 128x128 tile of C; each thread an 8x8 sub-tile in registers, as two 4-wide
// row groups and two 4-wide column groups 64 apart, so every shared-memory read is a float4 and the warp's
// reads are broadcasts or contiguous. K advances BK at a time through double-buffered shared tiles: the next
// tile's global loads are in flight while the current one is multiplied, one barrier per step. A is stored
// transposed in shared memory (As[k][m]), padded by 4 floats so the transposed stores avoid bank conflicts.
// Any M, N, K work (edges zero-filled); the float4 path needs K and N multiples of 4, else scalar loads.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

constexpr int BM = 128;
constexpr int BN = kMatmulTileColumns;
constexpr int TM = 8;
constexpr int TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
constexpr int kPad = 4;

// 4 consecutive floats of a row-major [rows, cols] matrix at (row, col..col+3); zeros outside it.
template <bool kVec>
__device__ inline float4 load4(const float* __restrict__ p, int rows, int cols, int row, int col) {
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (row >= rows) return v;
  const float* src = p + static_cast<long long>(row) * cols + col;
  if (kVec) {
    if (col < cols) v = *reinterpret_cast<const float4*>(src);
  } else {
    if (col + 0 < cols) v.x = src[0];
    if (col + 1 < cols) v.y = src[1];
    if (col + 2 < cols) v.z = src[2];
    if (col + 3 < cols) v.w = src[3];
  }
  return v;
}

template <int BK, bool kTransB, bool kVec>
__global__ void __launch_bounds__(kThreads, 2)
    matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  constexpr int kLoads = BK / 8;  // float4 loads per thread per tile, for A and for B
  __shared__ __align__(16) float As[2][BK][BM + kPad];
  __shared__ __align__(16) float Bs[2][BK][BN + kPad];

  const int tid = threadIdx.x;
  const int tx = tid % (BN / TN);
  const int ty = tid / (BN / TN);
  const int row0 = blockIdx.x * BM;
  const int col0 = blockIdx.y * BN;

  float4 aReg[kLoads];
  float4 bReg[kLoads];

  auto loadTile = [&](int k0) {
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int f = tid + i * kThreads;
      aReg[i] = load4<kVec>(A, M, K, row0 + f / (BK / 4), k0 + (f % (BK / 4)) * 4);
      if (kTransB) {
        bReg[i] = load4<kVec>(B, N, K, col0 + f / (BK / 4), k0 + (f % (BK / 4)) * 4);
      } else {
        bReg[i] = load4<kVec>(B, K, N, k0 + f / (BN / 4), col0 + (f % (BN / 4)) * 4);
      }
    }
  };
  auto storeTile = [&](int buf) {
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const int f = tid + i * kThreads;
      const int r = f / (BK / 4);
      const int kq = (f % (BK / 4)) * 4;
      As[buf][kq + 0][r] = aReg[i].x;
      As[buf][kq + 1][r] = aReg[i].y;
      As[buf][kq + 2][r] = aReg[i].z;
      As[buf][kq + 3][r] = aReg[i].w;
      if (kTransB) {
        Bs[buf][kq + 0][r] = bReg[i].x;
        Bs[buf][kq + 1][r] = bReg[i].y;
        Bs[buf][kq + 2][r] = bReg[i].z;
        Bs[buf][kq + 3][r] = bReg[i].w;
      } else {
        *reinterpret_cast<float4*>(&Bs[buf][f / (BN / 4)][(f % (BN / 4)) * 4]) = bReg[i];
      }
    }
  };

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  const int numTiles = (K + BK - 1) / BK;
  if (numTiles > 0) {
    loadTile(0);
    storeTile(0);
  }
  __syncthreads();

  for (int t = 0; t < numTiles; ++t) {
    const int cur = t & 1;
    const bool more = t + 1 < numTiles;
    if (more) loadTile((t + 1) * BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM];
      float b[TN];
      const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][kk][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][kk][ty * 4 + BM / 2]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][kk][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][kk][tx * 4 + BN / 2]);
      a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
      a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
      b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
      b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) storeTile(cur ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + (i / 4) * (BM / 2) + ty * 4 + (i % 4);
    if (row >= M) continue;
    float* dst = C + static_cast<long long>(row) * N;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + h * (BN / 2) + tx * 4;
      if (kVec) {
        if (col < N) *reinterpret_cast<float4*>(dst + col) = make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < N) dst[col + j] = acc[i][h * 4 + j];
      }
    }
  }
}

template <int BK, bool kTransB>
hipError_t launch_tiled(const LaunchContext& ctx, const float* a, const float* b, float* c, int m, int n, int k) {
  const dim3 grid((m + BM - 1) / BM, (n + BN - 1) / BN);
  const bool vec = k % 4 == 0 && n % 4 == 0;
  if (vec) {
    matmul_tiled<BK, kTransB, true><<<grid, kThreads, 0, ctx.stream>>>(a, b, c, m, n, k);
  } else {
    matmul_tiled<BK, kTransB, false><<<grid, kThreads, 0, ctx.stream>>>(a, b, c, m, n, k);
  }
  return hipGetLastError();
}

// f16: 16x16 tiles converted to f32 in shared memory, one output per thread.
constexpr int kHalfTile = kMatmulF16TileColumns;

__global__ void matmul_f16_tiled(const uint16_t* __restrict__ A, const uint16_t* __restrict__ B, uint16_t* __restrict__ C, int M, int N, int K) {
  __shared__ float As[kHalfTile][kHalfTile + 1];
  __shared__ float Bs[kHalfTile][kHalfTile + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.x * kHalfTile + ty;
  const int col = blockIdx.y * kHalfTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kHalfTile) {
    As[ty][tx] = (row < M && k0 + tx < K) ? half_to_float(A[static_cast<long long>(row) * K + k0 + tx]) : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? half_to_float(B[static_cast<long long>(k0 + ty) * N + col]) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kHalfTile; ++kk) acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<long long>(row) * N + col] = float_to_half(acc);
}

}  // namespace

hipError_t launch_matmul_f32(const LaunchContext& ctx, const float* a, const float* b, float* c, int m, int n, int k, bool transB, int variant) {
  if (m == 0 || n == 0) return hipSuccess;
  if (variant == 1) return transB ? launch_tiled<16, true>(ctx, a, b, c, m, n, k) : launch_tiled<16, false>(ctx, a, b, c, m, n, k);
  return transB ? launch_tiled<8, true>(ctx, a, b, c, m, n, k) : launch_tiled<8, false>(ctx, a, b, c, m, n, k);
}

namespace {

/** f16 matmul, accumulating in f32: c[m,n] = a[m,k] b[k,n]. */
hipError_t launch_matmul_f16(const LaunchContext& ctx, const uint16_t* a, const uint16_t* b, uint16_t* c, int m, int n, int k) {
  if (m == 0 || n == 0) return hipSuccess;
  const dim3 grid((m + kHalfTile - 1) / kHalfTile, (n + kHalfTile - 1) / kHalfTile);
  matmul_f16_tiled<<<grid, dim3(kHalfTile, kHalfTile), 0, ctx.stream>>>(a, b, c, m, n, k);
  return hipGetLastError();
}

/** Parameters of matmul_f32 (variant: kMatmulVariants) and matmul_f16 (no variant). */
struct MatmulParams {
  int m = 0;
  int n = 0;
  int k = 0;
  int variant = kMatmulDefaultVariant;
};

constexpr std::array<ParamField<MatmulParams>, 4> kF32Fields{{Dim("m", &MatmulParams::m), Dim("n", &MatmulParams::n), Dim("k", &MatmulParams::k), OptionalDim("variant", &MatmulParams::variant)}};
constexpr std::array<ParamField<MatmulParams>, 3> kF16Fields{{Dim("m", &MatmulParams::m), Dim("n", &MatmulParams::n), Dim("k", &MatmulParams::k)}};

template <int kBytes>
std::vector<double> matmul_sizes(const MatmulParams& p, int) {
  const double m = p.m, n = p.n, k = p.k;
  return {m * k * kBytes, k * n * kBytes, m * n * kBytes};
}

hipError_t matmul_f32_launch(const OpCall& c, const MatmulParams& p) {
  return launch_matmul_f32(*c.ctx, input<float>(c, 0), input<float>(c, 1), output<float>(c, 0), p.m, p.n, p.k, false, p.variant % kMatmulVariants);
}

hipError_t matmul_f16_launch(const OpCall& c, const MatmulParams& p) {
  return launch_matmul_f16(*c.ctx, input<uint16_t>(c, 0), input<uint16_t>(c, 1), output<uint16_t>(c, 0), p.m, p.n, p.k);
}

[[maybe_unused]] const bool kF32 = Register(KernelDefinition<MatmulParams, 4>{"matmul_f32", 2, 2, 1, kF32Fields, matmul_sizes<4>, matmul_f32_launch});
[[maybe_unused]] const bool kF16 = Register(KernelDefinition<MatmulParams, 3>{"matmul_f16", 2, 2, 1, kF16Fields, matmul_sizes<2>, matmul_f16_launch});

}  // namespace

}  // namespace tandem
