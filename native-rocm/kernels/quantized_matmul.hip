// quantized_matmul: out[m, n] = sum_k x[m, k] * w[n, k], w stored as ggml Q8_0 / Q4_0 rows (K/32 blocks of
// 34 / 18 bytes, f16 scale d first). Quantized values become floats through quant_decode.h (byte permute into
// the mantissa of 2^23, one subtraction): exact, and full-rate, unlike an int-to-float conversion.
//
// Mat-vec and small batches (M <= 8) read the blocks directly, in one of three shapes (variants, benchmarked):
//   direct (default, R = 2): a warp owns R consecutive rows; each group of 4 lanes decodes one block of each row (lane
//     quarter q takes 8 of its 32 values), so a warp covers warpSize / 4 consecutive blocks per step with 2-byte
//     loads the L1 merges into whole sectors. The 8 activations a lane needs are two float4 loads, reused for
//     the R rows. No shared memory and no barriers: many loads stay in flight.
//   split (experimental, untimed): as direct, but 4 warps share R = 8 rows, each taking a quarter of K.
//   staged: a warp copies R rows' chunks of warpSize blocks into shared memory with 16-byte loads, then lane l
//     decodes block l of the chunk (optionally prefetching the next chunk into registers).
// Each lane accumulates per (batch row, weight row); a warp sum finishes. Larger batches dequantize w into
// scratch and run the f32 tiled matmul with B transposed.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"
#include "quant_decode.h"

namespace tandem {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kMaxBatch = 4;       // x rows per launch of the direct kernels
constexpr int kDirectMaxRows = kQuantizedDirectMaxRows;  // above this M, dequantize + matmul

// ---- direct ------------------------------------------------------------------------------------------------

// Adds to acc[m][r] the dot products of batch rows m0.. with weight rows rowBase.. over quantized blocks
// [bBegin, bEnd), each group of 4 lanes decoding one block per step.
template <int BB, int MT, int R>
__device__ inline void accumulate_blocks(const float* __restrict__ x, const uint8_t* __restrict__ w, int N, int K, int m0, int rowBase, int bBegin, int bEnd, float (&acc)[MT][R]) {
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int quarter = lane & 3;
  const long long rowBytes = static_cast<long long>(K / 32) * BB;
  const uint32_t magic = magic_bits(N);
#pragma unroll 2
  for (int b = bBegin + lane / 4; b < bEnd; b += ws / 4) {
    // The 8 activations of the values this lane decodes: Q4_0 quarter q holds values 4q..4q+3 and 4q+16..4q+19,
    // Q8_0 quarter q values 8q..8q+7.
    float xv[MT][8];
#pragma unroll
    for (int m = 0; m < MT; ++m) {
      const float* xb = x + static_cast<long long>(m0 + m) * K + static_cast<long long>(b) * 32;
      const float4 a = *reinterpret_cast<const float4*>(xb + (BB == 18 ? 4 * quarter : 8 * quarter));
      const float4 c = *reinterpret_cast<const float4*>(xb + (BB == 18 ? 16 + 4 * quarter : 8 * quarter + 4));
      xv[m][0] = a.x; xv[m][1] = a.y; xv[m][2] = a.z; xv[m][3] = a.w;
      xv[m][4] = c.x; xv[m][5] = c.y; xv[m][6] = c.z; xv[m][7] = c.w;
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (rowBase + r >= N) continue;
      const uint16_t* h = reinterpret_cast<const uint16_t*>(w + (rowBase + r) * rowBytes + static_cast<long long>(b) * BB);
      const float d = tandem_half_bits_to_float(h[0]);
      if (BB == 18) {
        const uint32_t word = join16(h[1 + 2 * quarter], h[2 + 2 * quarter]);
#pragma unroll
        for (int m = 0; m < MT; ++m) acc[m][r] = fmaf(d, q4_dot8(word, xv[m], magic), acc[m][r]);
      } else {
        const uint32_t w0 = join16(h[1 + 4 * quarter], h[2 + 4 * quarter]);
        const uint32_t w1 = join16(h[3 + 4 * quarter], h[4 + 4 * quarter]);
#pragma unroll
        for (int m = 0; m < MT; ++m) acc[m][r] = fmaf(d, q8_dot4(w0, xv[m], magic) + q8_dot4(w1, xv[m] + 4, magic), acc[m][r]);
      }
    }
  }
}

// A warp owns R whole rows.
template <int BB, int MT, int R>
__global__ void __launch_bounds__(kWarpsPerBlock * 64)
    quantized_matvec_direct(const float* __restrict__ x, const uint8_t* __restrict__ w, float* __restrict__ out, int N, int K, int m0) {
  const int lane = threadIdx.x % warpSize;
  const int rowBase = (blockIdx.x * kWarpsPerBlock + threadIdx.x / warpSize) * R;
  if (rowBase >= N) return;  // whole warps; no barriers in this kernel
  float acc[MT][R];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;
  accumulate_blocks<BB, MT, R>(x, w, N, K, m0, rowBase, 0, K / 32, acc);
#pragma unroll
  for (int m = 0; m < MT; ++m) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const float s = warp_sum(acc[m][r]);
      if (lane == 0 && rowBase + r < N) out[static_cast<long long>(m0 + m) * N + rowBase + r] = s;
    }
  }
}

// ---- split (experimental; not yet timed on a GPU) --------------------------------------------------------------
// A block of 4 warps owns R rows and warp i takes the i-th quarter of each row's blocks: R rows share every
// activation load (less L1 traffic than direct's 2 rows) while the row count per warp stays small. The 4 partial
// sums of a row meet in shared memory and are added in a fixed order.
template <int BB, int MT, int R>
__global__ void __launch_bounds__(kWarpsPerBlock * 64)
    quantized_matvec_split(const float* __restrict__ x, const uint8_t* __restrict__ w, float* __restrict__ out, int N, int K, int m0) {
  __shared__ float partial[kWarpsPerBlock][MT][R];
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int nb = K / 32;
  const int per = (nb + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const int bBegin = min(nb, warp * per);
  const int bEnd = min(nb, bBegin + per);
  const int rowBase = blockIdx.x * R;
  float acc[MT][R];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;
  accumulate_blocks<BB, MT, R>(x, w, N, K, m0, rowBase, bBegin, bEnd, acc);
#pragma unroll
  for (int m = 0; m < MT; ++m) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const float s = warp_sum(acc[m][r]);
      if (lane == 0) partial[warp][m][r] = s;
    }
  }
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < MT * R) {
    const int m = threadIdx.x / R;
    const int r = threadIdx.x % R;
    if (rowBase + r < N) {
      float s = 0.0f;
      for (int i = 0; i < kWarpsPerBlock; ++i) s += partial[i][m][r];
      out[static_cast<long long>(m0 + m) * N + rowBase + r] = s;
    }
  }
}

// ---- staged ------------------------------------------------------------------------------------------------

template <int BB>
__device__ inline float block_dot(const uint8_t* blk, const float (&xv)[32], uint32_t magic);

// Q8_0: f16 d, then 32 int8 (8 words).
template <>
__device__ inline float block_dot<34>(const uint8_t* blk, const float (&xv)[32], uint32_t magic) {
  const uint16_t* h = reinterpret_cast<const uint16_t*>(blk);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) s += q8_dot4(join16(h[1 + 2 * i], h[2 + 2 * i]), xv + 4 * i, magic);
  return tandem_half_bits_to_float(h[0]) * s;
}

// Q4_0: f16 d, then 16 bytes (4 words); word i's low nibbles are values 4i..4i+3, its high nibbles 4i+16...
template <>
__device__ inline float block_dot<18>(const uint8_t* blk, const float (&xv)[32], uint32_t magic) {
  const uint16_t* h = reinterpret_cast<const uint16_t*>(blk);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float x8[8] = {xv[4 * i], xv[4 * i + 1], xv[4 * i + 2], xv[4 * i + 3], xv[16 + 4 * i], xv[17 + 4 * i], xv[18 + 4 * i], xv[19 + 4 * i]};
    s += q4_dot8(join16(h[1 + 2 * i], h[2 + 2 * i]), x8, magic);
  }
  return tandem_half_bits_to_float(h[0]) * s;
}

template <int BB, int MT, int kRowsPerWarp, bool kPrefetch>
__global__ void __launch_bounds__(kWarpsPerBlock * 64)
    quantized_matvec_staged(const float* __restrict__ x, const uint8_t* __restrict__ w, float* __restrict__ out, int N, int K, int m0) {
  extern __shared__ __align__(16) uint8_t staged[];
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int warp = threadIdx.x / ws;
  const int nb = K / 32;
  const long long rowBytes = static_cast<long long>(nb) * BB;
  const int segBytes = ws * BB;  // one row's chunk; a multiple of 16 for warp sizes that are multiples of 8
  uint8_t* mine = staged + static_cast<long long>(warp) * kRowsPerWarp * segBytes;
  const int rowBase = (blockIdx.x * kWarpsPerBlock + warp) * kRowsPerWarp;
  const bool aligned = rowBytes % 16 == 0;  // then every chunk starts 16-byte aligned (buffers are 256-aligned)
  const uint32_t magic = magic_bits(N);

  constexpr int kMaxVecPerLane = (BB + 15) / 16;  // 16-byte pieces per lane per row and chunk
  uint4 regs[kRowsPerWarp][kMaxVecPerLane];
  // Issues the 16-byte loads of the chunk starting at block c0 (only when `aligned`).
  auto fetch = [&](int c0) {
    const int n16 = min(ws, nb - c0) * BB / 16;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      const uint4* src = reinterpret_cast<const uint4*>(w + (rowBase + r) * rowBytes + static_cast<long long>(c0) * BB);
#pragma unroll
      for (int j = 0; j < kMaxVecPerLane; ++j) {
        const int i = lane + j * ws;
        if (rowBase + r < N && i < n16) regs[r][j] = src[i];
      }
    }
  };
  // Writes the fetched pieces to shared memory and copies what 16-byte loads could not cover, 2 bytes at a time.
  auto stash = [&](int c0) {
    const int bytes = min(ws, nb - c0) * BB;
    const int n16 = aligned ? bytes / 16 : 0;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      if (rowBase + r >= N) continue;
      uint4* dst = reinterpret_cast<uint4*>(mine + r * segBytes);
#pragma unroll
      for (int j = 0; j < kMaxVecPerLane; ++j) {
        const int i = lane + j * ws;
        if (i < n16) dst[i] = regs[r][j];
      }
      const uint16_t* src2 = reinterpret_cast<const uint16_t*>(w + (rowBase + r) * rowBytes + static_cast<long long>(c0) * BB);
      uint16_t* dst2 = reinterpret_cast<uint16_t*>(mine + r * segBytes);
      for (int i = n16 * 8 + lane; i < bytes / 2; i += ws) dst2[i] = src2[i];
    }
  };

  float acc[MT][kRowsPerWarp];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) acc[m][r] = 0.0f;

  if (aligned) fetch(0);
  stash(0);
  __syncthreads();
  for (int c0 = 0; c0 < nb; c0 += ws) {
    const bool more = c0 + ws < nb;
    if (kPrefetch && more && aligned) fetch(c0 + ws);
    if (lane < nb - c0) {
      const int b = c0 + lane;
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        const float4* xb = reinterpret_cast<const float4*>(x + static_cast<long long>(m0 + m) * K + static_cast<long long>(b) * 32);
        float xv[32];
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const float4 t = xb[i];
          xv[4 * i] = t.x;
          xv[4 * i + 1] = t.y;
          xv[4 * i + 2] = t.z;
          xv[4 * i + 3] = t.w;
        }
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) {
          if (rowBase + r < N) acc[m][r] += block_dot<BB>(mine + r * segBytes + lane * BB, xv, magic);
        }
      }
    }
    __syncthreads();
    if (more) {
      if (!kPrefetch && aligned) fetch(c0 + ws);
      stash(c0 + ws);
      __syncthreads();
    }
  }

#pragma unroll
  for (int m = 0; m < MT; ++m) {
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      const float s = warp_sum(acc[m][r]);
      if (lane == 0 && rowBase + r < N) out[static_cast<long long>(m0 + m) * N + rowBase + r] = s;
    }
  }
}

// ---- launch ------------------------------------------------------------------------------------------------

unsigned blocks_for_rows(int n, int rowsPerWarp) { return static_cast<unsigned>((n + kWarpsPerBlock * rowsPerWarp - 1) / (kWarpsPerBlock * rowsPerWarp)); }

/** Batch rows still to do from m0, at most kMaxBatch. */
int batch_at(int m, int m0) { return m - m0 < kMaxBatch ? m - m0 : kMaxBatch; }

template <int BB, int R>
hipError_t launch_direct(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k) {
  const unsigned blocks = blocks_for_rows(n, R);
  const unsigned threads = static_cast<unsigned>(kWarpsPerBlock * ctx.warpSize);
  for (int m0 = 0; m0 < m; m0 += kMaxBatch) {
    switch (batch_at(m, m0)) {
      case 1: quantized_matvec_direct<BB, 1, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
      case 2: quantized_matvec_direct<BB, 2, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
      case 3: quantized_matvec_direct<BB, 3, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
      default: quantized_matvec_direct<BB, 4, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
    }
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return err;
  }
  return hipSuccess;
}

template <int BB, int R>
hipError_t launch_split(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k) {
  const unsigned blocks = static_cast<unsigned>((n + R - 1) / R);
  const unsigned threads = static_cast<unsigned>(kWarpsPerBlock * ctx.warpSize);
  for (int m0 = 0; m0 < m; m0 += kMaxBatch) {
    switch (batch_at(m, m0)) {
      case 1: quantized_matvec_split<BB, 1, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
      case 2: quantized_matvec_split<BB, 2, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
      case 3: quantized_matvec_split<BB, 3, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
      default: quantized_matvec_split<BB, 4, R><<<blocks, threads, 0, ctx.stream>>>(x, w, out, n, k, m0); break;
    }
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return err;
  }
  return hipSuccess;
}

template <int BB, int R, bool kPrefetch>
hipError_t launch_staged(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k) {
  const unsigned blocks = blocks_for_rows(n, R);
  const unsigned threads = static_cast<unsigned>(kWarpsPerBlock * ctx.warpSize);
  const size_t shared = static_cast<size_t>(kWarpsPerBlock) * R * ctx.warpSize * BB;
  for (int m0 = 0; m0 < m; m0 += kMaxBatch) {
    switch (batch_at(m, m0)) {
      case 1: quantized_matvec_staged<BB, 1, R, kPrefetch><<<blocks, threads, shared, ctx.stream>>>(x, w, out, n, k, m0); break;
      case 2: quantized_matvec_staged<BB, 2, R, kPrefetch><<<blocks, threads, shared, ctx.stream>>>(x, w, out, n, k, m0); break;
      case 3: quantized_matvec_staged<BB, 3, R, kPrefetch><<<blocks, threads, shared, ctx.stream>>>(x, w, out, n, k, m0); break;
      default: quantized_matvec_staged<BB, 4, R, kPrefetch><<<blocks, threads, shared, ctx.stream>>>(x, w, out, n, k, m0); break;
    }
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return err;
  }
  return hipSuccess;
}

template <int BB>
hipError_t launch_variant(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k, int variant) {
  switch (variant) {
    case 0: return launch_direct<BB, 4>(ctx, x, w, out, m, n, k);
    case 2: return launch_direct<BB, 8>(ctx, x, w, out, m, n, k);
    case 3: return launch_staged<BB, 4, false>(ctx, x, w, out, m, n, k);
    case 4: return launch_staged<BB, 4, true>(ctx, x, w, out, m, n, k);
    case 5: return launch_split<BB, 8>(ctx, x, w, out, m, n, k);
    default: return launch_direct<BB, 2>(ctx, x, w, out, m, n, k);
  }
}

}  // namespace

hipError_t launch_quantized_matmul(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k, QuantFormat format, int variant) {
  if (m == 0 || n == 0) return hipSuccess;
  if (k == 0) return hipMemsetAsync(out, 0, static_cast<size_t>(m) * n * sizeof(float), ctx.stream);
  if (variant == 6 && quantized_matvec_streams(m, k, format, ctx.warpSize)) return launch_quantized_matvec_stream(ctx, x, w, out, n, k);
  if (m <= kDirectMaxRows) {
    return format == QuantFormat::Q8_0 ? launch_variant<34>(ctx, x, w, out, m, n, k, variant) : launch_variant<18>(ctx, x, w, out, m, n, k, variant);
  }
  void* scratch = nullptr;
  hipError_t err = ctx.scratch->Reserve(static_cast<size_t>(n) * k * sizeof(float), &scratch);
  if (err != hipSuccess) return err;
  float* wf = static_cast<float*>(scratch);
  err = launch_dequantize(ctx, w, wf, static_cast<long long>(n) * k, format);
  if (err != hipSuccess) return err;
  return launch_matmul_f32(ctx, x, wf, out, m, n, k, true, kMatmulDefaultVariant);
}

namespace {

/** Parameters of quantized_matmul_*: the f32 path, or with q8Activations the int8-activation one (q8act.hip). */
struct QuantizedMatmulParams {
  int m = 0;
  int n = 0;
  int k = 0;
  bool q8Activations = false;
  int variant = -1;  // absent: each path's default variant
};

constexpr std::array<ParamField<QuantizedMatmulParams>, 5> kFields{{
    Dim("m", &QuantizedMatmulParams::m),
    Dim("n", &QuantizedMatmulParams::n),
    Dim("k", &QuantizedMatmulParams::k),
    OptionalFlag("q8Activations", &QuantizedMatmulParams::q8Activations),
    OptionalDim("variant", &QuantizedMatmulParams::variant),
}};

template <QuantFormat kFormat>
std::vector<double> quantized_sizes(const QuantizedMatmulParams& p, int) {
  if (p.k % 32 != 0) throw Failure("TANDEM_BAD_PARAMS", "parameter 'k' must be a multiple of 32");
  const double m = p.m, n = p.n, k = p.k;
  return {m * k * kF32Bytes, n * (k / 32) * (kFormat == QuantFormat::Q8_0 ? kQ8BlockBytes : kQ4BlockBytes), m * n * kF32Bytes};
}

template <QuantFormat kFormat>
hipError_t quantized_launch(const OpCall& c, const QuantizedMatmulParams& p) {
  if (p.q8Activations) {
    const int variant = p.variant < 0 ? kQuantizedQ8ActDefaultVariant : p.variant % kQuantizedQ8ActVariants;
    return launch_quantized_matvec_q8act(*c.ctx, input<float>(c, 0), input<uint8_t>(c, 1), output<float>(c, 0), p.m, p.n, p.k, kFormat, variant);
  }
  const int variant = p.variant < 0 ? kQuantizedDefaultVariant : p.variant % kQuantizedVariants;
  return launch_quantized_matmul(*c.ctx, input<float>(c, 0), input<uint8_t>(c, 1), output<float>(c, 0), p.m, p.n, p.k, kFormat, variant);
}

[[maybe_unused]] const bool kQ8 = Register(KernelDefinition<QuantizedMatmulParams, 5>{"quantized_matmul_q8_0", 2, 2, 1, kFields, quantized_sizes<QuantFormat::Q8_0>, quantized_launch<QuantFormat::Q8_0>});
[[maybe_unused]] const bool kQ4 = Register(KernelDefinition<QuantizedMatmulParams, 5>{"quantized_matmul_q4_0", 2, 2, 1, kFields, quantized_sizes<QuantFormat::Q4_0>, quantized_launch<QuantFormat::Q4_0>});

}  // namespace

}  // namespace tandem
