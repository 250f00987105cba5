// quantized_matmul, the streamed Q4_0 mat-vec (M = 1): out[n] = sum_k x[k] * w[n, k], read at close to the speed of
// a plain read of w. The direct kernel (quantized_matmul.hip) reads each block with 2-byte loads, 4 lanes to a block,
// and spends ~6 instructions per value, well short of the read speed. Here:
//   - x is staged once per block in shared memory, in groups of 4 blocks (128 floats) padded by 4 floats, so
//     that each lane's float4 reads of its own group hit distinct banks;
//   - each warp walks its rows (row = warp id, + all warps, ...) in chunks of 4 * warpSize blocks: the chunk's
//     weights arrive as 9 coalesced 8-byte loads per lane, go through the warp's shared-memory slot, and come back
//     as the lane's own 72 contiguous bytes (4 whole blocks), decoded with compile-time byte offsets;
//   - the next chunk's loads are issued before the current one is decoded, so they are in flight meanwhile;
//   - 16 warps per multiprocessor (blocks of 8 warps, or of 4 where 8 slots and x do not fit): warps that each stream
//     several rows overlap their loads best (figures per block shape: docs/decisions.md, issue 29).
// Needs K a multiple of 128 (every row 8-byte aligned) and x plus the weight slots within 64 KiB of shared memory
// (32-wide warps: K up to 7,424 with 8-warp blocks in the default 48 KiB, 9,600 with 4; past that the launch opts in
// to 64 KiB, AMD's LDS size and within NVIDIA's opt-in limit: K up to 11,392 with 8 warps, 12,800 with 4, e.g.
// a 7B model's down projection, K = 11,008); other shapes take the direct kernel. Exact: the same f32 products as
// the direct kernel.
#include "device_common.h"
#include "kernels.h"
#include "quant_decode.h"

namespace tandem {
namespace {

constexpr int kBlocksPerGroup = 4;                    // Q4_0 blocks a lane owns per chunk
constexpr int kGroupBytes = kBlocksPerGroup * 18;     // 72: 9 eight-byte words
constexpr int kGroupWords = kGroupBytes / 8;          // 9
constexpr int kGroupFloats = kBlocksPerGroup * 32;    // 128 values of x
constexpr int kGroupStride = kGroupFloats + 4;        // padded, in floats
constexpr size_t kSharedLimit = 48 * 1024;            // every device's default per-block limit
constexpr size_t kSharedOptIn = 64 * 1024;            // what a launch may opt in to on every device built for
constexpr int kWarpsPerMultiprocessor = 16;           // the grid: this many warps per multiprocessor

/** Shared bytes of one launch of `warps` warps per block: x's padded groups, then a weight slot per warp. */
size_t stream_shared_bytes(int k, int warpSize, int warps) {
  const size_t groups = static_cast<size_t>(k) / 32 / kBlocksPerGroup;
  return groups * kGroupStride * sizeof(float) + static_cast<size_t>(warps) * kGroupBytes * warpSize;
}

/**
 * Warps per block for this K: 8 (a little faster than 4), or 4 when 8 slots and x do not fit the default limit;
 * then the same past it, up to the opt-in limit; 0: neither.
 */
int stream_warps(int k, int warpSize) {
  for (size_t limit : {kSharedLimit, kSharedOptIn}) {
    for (int warps : {8, 4}) {
      if (stream_shared_bytes(k, warpSize, warps) <= limit) return warps;
    }
  }
  return 0;
}

/** Lets `kernel` launch with up to kSharedOptIn bytes of dynamic shared memory (once per kernel). */
template <typename Kernel>
hipError_t allow_opt_in_shared(Kernel kernel, bool& done) {
  if (done) return hipSuccess;
  const hipError_t err = hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), hipFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSharedOptIn));
  done = err == hipSuccess;
  return err;
}

/** The lane's 4 blocks (72 bytes from `group`, 8-byte aligned) dotted with its 128 values of x (`xg`). */
__device__ inline float q4_group_dot(const uint8_t* group, const float* xg, uint32_t magic) {
  uint32_t words[kGroupBytes / 4];
#pragma unroll
  for (int j = 0; j < kGroupWords; ++j) {
    const uint2 t = reinterpret_cast<const uint2*>(group)[j];
    words[2 * j] = t.x;
    words[2 * j + 1] = t.y;
  }
  float acc = 0.0f;
#pragma unroll
  for (int b = 0; b < kBlocksPerGroup; ++b) {
    const int at = 18 * b;  // block b's first byte: its f16 scale, then 16 bytes of nibbles
    const uint32_t first = words[at / 4];
    const uint16_t d = static_cast<uint16_t>(at % 4 == 0 ? first & 0xffffu : first >> 16);
    float xv[32];
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      const float4 f = reinterpret_cast<const float4*>(xg + 32 * b)[t];
      xv[4 * t] = f.x;
      xv[4 * t + 1] = f.y;
      xv[4 * t + 2] = f.z;
      xv[4 * t + 3] = f.w;
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int q = at + 2 + 4 * i;  // nibble word i: values 4i..4i+3 (low nibbles) and 4i+16..4i+19 (high)
      const uint32_t word = q % 4 == 0 ? words[q / 4] : __byte_perm(words[q / 4], words[q / 4 + 1], 0x5432);
      const float x8[8] = {xv[4 * i], xv[4 * i + 1], xv[4 * i + 2], xv[4 * i + 3], xv[16 + 4 * i], xv[17 + 4 * i], xv[18 + 4 * i], xv[19 + 4 * i]};
      s += q4_dot8(word, x8, magic);
    }
    acc = fmaf(tandem_half_bits_to_float(d), s, acc);
  }
  return acc;
}

template <int W>
__global__ void __launch_bounds__(W * 64) quantized_matvec_q4_stream(const float* __restrict__ x, const uint8_t* __restrict__ w, float* __restrict__ out, int N, int K) {
  extern __shared__ __align__(16) uint8_t shared[];
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const int warp = threadIdx.x / ws;
  const int groups = K / 32 / kBlocksPerGroup;
  const int chunks = (groups + ws - 1) / ws;
  const long long rowBytes = static_cast<long long>(K / 32) * 18;
  float* xs = reinterpret_cast<float*>(shared);
  uint8_t* slot = shared + static_cast<size_t>(groups) * kGroupStride * sizeof(float) + static_cast<size_t>(warp) * kGroupBytes * ws;
  const uint32_t magic = magic_bits(N);
  const int warpsInGrid = gridDim.x * W;

  uint2 pending[kGroupWords];
  // Issues the loads of row `row`'s chunk `chunk`: word j of lane l is the chunk's 8-byte word j * ws + l.
  auto fetch = [&](int row, int chunk) {
    const uint2* src = reinterpret_cast<const uint2*>(w + row * rowBytes + static_cast<long long>(chunk) * ws * kGroupBytes);
    const int words = min(ws, groups - chunk * ws) * kGroupWords;
#pragma unroll
    for (int j = 0; j < kGroupWords; ++j) {
      const int i = j * ws + lane;
      if (i < words) pending[j] = src[i];
    }
  };

  int row = blockIdx.x * W + warp;
  int chunk = 0;
  if (row < N) fetch(row, 0);  // in flight while x is staged
  for (int i = threadIdx.x; i < groups * (kGroupFloats / 4); i += blockDim.x) {
    const float4 v = reinterpret_cast<const float4*>(x)[i];
    reinterpret_cast<float4*>(xs + (i / (kGroupFloats / 4)) * kGroupStride)[i % (kGroupFloats / 4)] = v;
  }
  __syncthreads();  // the last block-wide barrier: from here on each warp runs alone

  float acc = 0.0f;
  while (row < N) {
    const int words = min(ws, groups - chunk * ws) * kGroupWords;
#pragma unroll
    for (int j = 0; j < kGroupWords; ++j) {
      const int i = j * ws + lane;
      if (i < words) reinterpret_cast<uint2*>(slot)[i] = pending[j];
    }
    tandem_syncwarp();
    int nextRow = row;
    int nextChunk = chunk + 1;
    if (nextChunk == chunks) {
      nextRow += warpsInGrid;
      nextChunk = 0;
    }
    if (nextRow < N) fetch(nextRow, nextChunk);
    const int group = chunk * ws + lane;
    if (group < groups) acc += q4_group_dot(slot + lane * kGroupBytes, xs + group * kGroupStride, magic);
    if (nextChunk == 0) {  // the row is done (warp-uniform)
      const float total = warp_sum(acc);
      if (lane == 0) out[row] = total;
      acc = 0.0f;
    }
    tandem_syncwarp();  // the slot is rewritten next
    row = nextRow;
    chunk = nextChunk;
  }
}

}  // namespace

bool quantized_matvec_streams(int m, int k, QuantFormat format, int warpSize) {
  return format == QuantFormat::Q4_0 && m == 1 && k > 0 && k % 128 == 0 && stream_warps(k, warpSize) > 0;
}

hipError_t launch_quantized_matvec_stream(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int n, int k) {
  const int warps = stream_warps(k, ctx.warpSize);
  if (n == 0 || warps == 0) return n == 0 ? hipSuccess : hipErrorInvalidValue;
  const int needed = (n + warps - 1) / warps;  // one row per warp
  const int cap = (ctx.multiProcessors > 0 ? ctx.multiProcessors : 1) * (kWarpsPerMultiprocessor / warps);
  const unsigned blocks = static_cast<unsigned>(needed < cap ? needed : cap);
  const unsigned threads = static_cast<unsigned>(warps * ctx.warpSize);
  const size_t shared = stream_shared_bytes(k, ctx.warpSize, warps);
  static bool optedIn8 = false;
  static bool optedIn4 = false;
  if (shared > kSharedLimit) {
    const hipError_t err = warps == 8 ? allow_opt_in_shared(quantized_matvec_q4_stream<8>, optedIn8) : allow_opt_in_shared(quantized_matvec_q4_stream<4>, optedIn4);
    if (err != hipSuccess) return err;
  }
  if (warps == 8) {
    quantized_matvec_q4_stream<8><<<blocks, threads, shared, ctx.stream>>>(x, w, out, n, k);
  } else {
    quantized_matvec_q4_stream<4><<<blocks, threads, shared, ctx.stream>>>(x, w, out, n, k);
  }
  return hipGetLastError();
}

}  // namespace tandem
