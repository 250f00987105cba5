// quantized_matmul_q8act: the opt-in mat-vec path of quantized_matmul that rounds the activations to int8
// (op parameter q8Activations = 1; RocmBackendOptions.quantizedActivations = 'q8'). Two kernels per call:
//   quantized_matvec_q8act_quantize_x: x [M, K] -> per 32 values an int8 block q and (d, d * sum(q)) with
//     d = max|x| / 127 and q = rint(x / d), so |x - d q| <= d / 2 = max|x| / 254 per value.
//   quantized_matvec_q8act: a weight block times an x block with integer 4-way byte dot products
//     (tandem_dp4a: __dp4a on NVIDIA, v_dot4_i32_i8 on AMD): Q4_0 nibbles (q + 8, masked out of 32-bit words) and
//     Q8_0 bytes go in unchanged; Q4_0's offset comes back through the block sum: sum((q - 8) x) = sum(q x) -
//     8 sum(x). Per block and row: 2 dp4a per unit, one int-to-float conversion, two FMAs: ~8x less ALU work
//     than decoding 32 values to f32.
// A block splits into 4 units of 8 values (Q4_0 unit u: qs word u, whose low nibbles pair with x word u and high
// nibbles with x word u + 4; Q8_0 unit u: qs words 2u, 2u + 1). A lane takes WPL consecutive units, so 4 / WPL
// lanes share a block and a warp covers warpSize * WPL / 4 blocks per step; a warp owns R rows and reuses its
// x loads across them. Error bound (per output, beyond f32 rounding): sum over blocks b of max|x_b| / 254 times
// sum |w| over the block. A non-finite activation gives NaN in every output of its batch row. M > 8 takes the
// f32 path (dequantize + matmul): rounding x there would save nothing.
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

constexpr int kWarps = 4;
constexpr int kMaxBatch = 4;    // x rows per launch of the dot kernel
constexpr int kMaxRows = 8;     // above this M, the f32 path
constexpr int kValues = 32;     // values per block of x and of w
constexpr float kLargest = 3.402823466e38f;

// ---- quantize x ------------------------------------------------------------------------------------------

// Thread i rounds x[i]; the 32 lanes of a block meet through xor shuffles of distance < 32, which stay inside a
// group of 32 lanes on 64-wide wavefronts too. count is a multiple of 32, so a group is wholly inside or out;
// every lane takes part in the shuffles.
__global__ void __launch_bounds__(kBlock)
    quantized_matvec_q8act_quantize_x(const float* __restrict__ x, int8_t* __restrict__ qx, float2* __restrict__ ds, long long count) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool inside = i < count;
  const float v = inside ? x[i] : 0.0f;
  const float a = fabsf(v);
  float amax = a <= kLargest ? a : INFINITY;  // NaN and +-inf both mark the block
  for (int offset = kValues / 2; offset > 0; offset >>= 1) amax = fmaxf(amax, tandem_shfl_xor(amax, offset));
  const bool finite = amax <= kLargest;
  const float d = finite ? amax / 127.0f : NAN;
  int q = finite && amax > 0.0f ? static_cast<int>(rintf(v / d)) : 0;
  q = q > 127 ? 127 : (q < -127 ? -127 : q);
  int sum = q;
  for (int offset = kValues / 2; offset > 0; offset >>= 1) sum += tandem_shfl_xor(sum, offset);
  if (!inside) return;
  qx[i] = static_cast<int8_t>(q);
  if (i % kValues == 0) ds[i / kValues] = float2{d, d * static_cast<float>(sum)};
}

// ---- dot products ----------------------------------------------------------------------------------------

/** Two aligned 16-bit halves as one word (lo first, little-endian). */
__device__ inline int word_of(uint16_t lo, uint16_t hi) { return static_cast<int>(static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16)); }

/** Which of a block's 8 x words unit u pairs with, half 0 or 1: Q4_0 words u and u + 4, Q8_0 words 2u and 2u + 1. */
template <int BB>
__device__ inline int x_word(int u, int half) { return BB == 18 ? u + 4 * half : 2 * u + half; }

/** acc + sum(q * xq) over unit u of a block (q as stored: Q4_0 nibbles are value + 8); x0, x1: its x words. */
template <int BB>
__device__ inline int unit_dot(const uint16_t* h, int u, int x0, int x1, int acc) {
  if (BB == 18) {
    const int word = word_of(h[1 + 2 * u], h[2 + 2 * u]);
    acc = tandem_dp4a(word & 0x0F0F0F0F, x0, acc);
    return tandem_dp4a((word >> 4) & 0x0F0F0F0F, x1, acc);
  }
  acc = tandem_dp4a(word_of(h[1 + 4 * u], h[2 + 4 * u]), x0, acc);
  return tandem_dp4a(word_of(h[3 + 4 * u], h[4 + 4 * u]), x1, acc);
}

// A warp owns R consecutive rows; 4 / WPL lanes share each block.
template <int BB, int MT, int R, int WPL>
__global__ void __launch_bounds__(kWarps * 64)
    quantized_matvec_q8act(const uint8_t* __restrict__ w, const int8_t* __restrict__ qx, const float2* __restrict__ ds, float* __restrict__ out, int N, int K, int m0) {
  constexpr int kLanesPerBlock = 4 / WPL;
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int firstUnit = (lane % kLanesPerBlock) * WPL;
  const int rowBase = (blockIdx.x * kWarps + threadIdx.x / ws) * R;
  if (rowBase >= N) return;  // whole warps; no barriers in this kernel
  const int nb = K / kValues;
  const long long rowBytes = static_cast<long long>(nb) * BB;
  float acc[MT][R];
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;

#pragma unroll 2
  for (int b = lane / kLanesPerBlock; b < nb; b += ws / kLanesPerBlock) {
    int xw[MT][WPL][2];  // compile-time indices only: registers, not local memory
    float dx[MT], sx[MT];
#pragma unroll
    for (int m = 0; m < MT; ++m) {
      const long long blockIndex = static_cast<long long>(m0 + m) * nb + b;
      const int* xb = reinterpret_cast<const int*>(qx + blockIndex * kValues);
#pragma unroll
      for (int j = 0; j < WPL; ++j) {
        xw[m][j][0] = xb[x_word<BB>(firstUnit + j, 0)];
        xw[m][j][1] = xb[x_word<BB>(firstUnit + j, 1)];
      }
      const float2 s = ds[blockIndex];
      dx[m] = s.x;
      sx[m] = s.y;
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (rowBase + r >= N) continue;
      const uint16_t* h = reinterpret_cast<const uint16_t*>(w + (rowBase + r) * rowBytes + static_cast<long long>(b) * BB);
      const float dw = tandem_half_bits_to_float(h[0]);
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        int sumi = 0;
#pragma unroll
        for (int j = 0; j < WPL; ++j) sumi = unit_dot<BB>(h, firstUnit + j, xw[m][j][0], xw[m][j][1], sumi);
        // Q4_0: this lane's share of -8 sum(x) over the block is -2 sum(x) per unit.
        const float offset = BB == 18 ? -2.0f * WPL * sx[m] : 0.0f;
        acc[m][r] = fmaf(dw, fmaf(dx[m], static_cast<float>(sumi), offset), acc[m][r]);
      }
    }
  }
#pragma unroll
  for (int m = 0; m < MT; ++m) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const float s = warp_sum(acc[m][r]);
      if (lane == 0 && rowBase + r < N) out[static_cast<long long>(m0 + m) * N + rowBase + r] = s;
    }
  }
}

// ---- launch ------------------------------------------------------------------------------------------------

template <int BB, int R, int WPL>
hipError_t launch_dots(const LaunchContext& ctx, const uint8_t* w, const int8_t* qx, const float2* ds, float* out, int m, int n, int k) {
  const unsigned blocks = static_cast<unsigned>((n + kWarps * R - 1) / (kWarps * R));
  const unsigned threads = static_cast<unsigned>(kWarps * ctx.warpSize);
  for (int m0 = 0; m0 < m; m0 += kMaxBatch) {
    switch (m - m0 < kMaxBatch ? m - m0 : kMaxBatch) {
      case 1: quantized_matvec_q8act<BB, 1, R, WPL><<<blocks, threads, 0, ctx.stream>>>(w, qx, ds, out, n, k, m0); break;
      case 2: quantized_matvec_q8act<BB, 2, R, WPL><<<blocks, threads, 0, ctx.stream>>>(w, qx, ds, out, n, k, m0); break;
      case 3: quantized_matvec_q8act<BB, 3, R, WPL><<<blocks, threads, 0, ctx.stream>>>(w, qx, ds, out, n, k, m0); break;
      default: quantized_matvec_q8act<BB, 4, R, WPL><<<blocks, threads, 0, ctx.stream>>>(w, qx, ds, out, n, k, m0); break;
    }
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return err;
  }
  return hipSuccess;
}

template <int BB>
hipError_t launch_dot_variant(const LaunchContext& ctx, const uint8_t* w, const int8_t* qx, const float2* ds, float* out, int m, int n, int k, int variant) {
  switch (variant) {
    case 1: return launch_dots<BB, 2, 1>(ctx, w, qx, ds, out, m, n, k);
    case 2: return launch_dots<BB, 4, 2>(ctx, w, qx, ds, out, m, n, k);
    case 3: return launch_dots<BB, 2, 4>(ctx, w, qx, ds, out, m, n, k);
    default: return launch_dots<BB, 2, 2>(ctx, w, qx, ds, out, m, n, k);
  }
}

}  // namespace

hipError_t launch_quantized_matvec_q8act(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k, QuantFormat format, int variant) {
  if (m > kMaxRows || k == 0 || n == 0 || m == 0) return launch_quantized_matmul(ctx, x, w, out, m, n, k, format, kQuantizedDefaultVariant);
  const long long count = static_cast<long long>(m) * k;
  const size_t qxBytes = static_cast<size_t>((count + 255) / 256 * 256);  // keeps ds 256-byte aligned
  void* scratch = nullptr;
  hipError_t err = ctx.scratch->Reserve(qxBytes + static_cast<size_t>(count / kValues) * sizeof(float2), &scratch);
  if (err != hipSuccess) return err;
  int8_t* qx = static_cast<int8_t*>(scratch);
  float2* ds = reinterpret_cast<float2*>(static_cast<uint8_t*>(scratch) + qxBytes);
  const unsigned blocks = static_cast<unsigned>((count + kBlock - 1) / kBlock);
  quantized_matvec_q8act_quantize_x<<<blocks, kBlock, 0, ctx.stream>>>(x, qx, ds, count);
  err = hipGetLastError();
  if (err != hipSuccess) return err;
  return format == QuantFormat::Q8_0 ? launch_dot_variant<34>(ctx, w, qx, ds, out, m, n, k, variant) : launch_dot_variant<18>(ctx, w, qx, ds, out, m, n, k, variant);
}

}  // namespace tandem
