// attention: multi-head scaled dot-product attention with grouped KV heads (query head h reads KV head
// h / (heads / kvHeads)); q [sq, heads, d], k and v [sk, kvHeads, d], out [sq, heads, d].
// Causal: query i (absolute position sk - sq + i) attends keys j <= sk - sq + i.
//
// One warp per (query, head, key split): lane l holds dimensions l, l + warpSize, ... (at most 8 per lane,
// so d <= 8 * warpSize) of q and of the output accumulator. Keys are taken 4 at a time: 4 dot products are
// reduced together across the warp, then one online-softmax update (running max m, running sum l, rescaled
// accumulator; flash-attention style). With few (query, head) pairs, as when decoding one token, the keys are
// split over several warps (flash-decoding); each writes (m, l, acc) to scratch and a second kernel merges them.
#include <array>
#include "../src/kernel_registry.h"
#include "device_common.h"
#include "kernels.h"

namespace tandem {
namespace {

constexpr int kMaxPerLane = kAttentionMaxDimsPerLane;
constexpr int kWarpsPerBlock = 4;
constexpr int kKeysPerStep = 4;
// Fewest keys a split takes: decoding one token of 32 heads over 512 keys then runs 1,024 warps instead of 256 (at
// 64 keys per split), which the loads of K and V need to stream (docs/decisions.md, issue 28).
constexpr int kMinKeysPerSplit = 16;

struct AttentionShape {
  int sq, sk, heads, kvHeads, d, splits, chunk;
  bool causal;
  float scale;
};

// Writes the final output (splits == 1) or this split's (m, l, acc[d]) record.
template <bool kFinal>
__global__ void __launch_bounds__(kWarpsPerBlock * 64)
    attention_warp(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, float* __restrict__ out, float* __restrict__ partial, AttentionShape a) {
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const long long item = blockIdx.x * static_cast<long long>(blockDim.x / ws) + threadIdx.x / ws;
  const long long items = static_cast<long long>(a.sq) * a.heads * a.splits;
  if (item >= items) return;  // whole warps only; no block barrier below
  const int split = static_cast<int>(item % a.splits);
  const long long qh = item / a.splits;
  const int h = static_cast<int>(qh % a.heads);
  const int i = static_cast<int>(qh / a.heads);
  const int hk = h / (a.heads / a.kvHeads);
  const int jEnd = a.causal ? min(a.sk, a.sk - a.sq + i + 1) : a.sk;
  const int j0 = split * a.chunk;
  const int j1 = min(jEnd, j0 + a.chunk);

  float qv[kMaxPerLane];
  float acc[kMaxPerLane];
  const float* qr = q + qh * a.d;
#pragma unroll
  for (int u = 0; u < kMaxPerLane; ++u) {
    const int c = u * ws + lane;
    qv[u] = c < a.d ? qr[c] : 0.0f;
    acc[u] = 0.0f;
  }
  float m = -INFINITY;
  float l = 0.0f;
  const long long rowStride = static_cast<long long>(a.kvHeads) * a.d;
  for (int j = j0; j < j1; j += kKeysPerStep) {
    float score[kKeysPerStep];
#pragma unroll
    for (int g = 0; g < kKeysPerStep; ++g) {
      float part = 0.0f;
      if (j + g < j1) {
        const float* kr = k + (j + g) * rowStride + static_cast<long long>(hk) * a.d;
#pragma unroll
        for (int u = 0; u < kMaxPerLane; ++u) {
          const int c = u * ws + lane;
          if (c < a.d) part = fmaf(qv[u], kr[c], part);
        }
      }
      score[g] = part;
    }
#pragma unroll
    for (int offset = ws / 2; offset > 0; offset >>= 1) {
#pragma unroll
      for (int g = 0; g < kKeysPerStep; ++g) score[g] += tandem_shfl_xor(score[g], offset);
    }
    float mNew = m;
#pragma unroll
    for (int g = 0; g < kKeysPerStep; ++g) {
      score[g] = j + g < j1 ? score[g] * a.scale : -INFINITY;
      mNew = fmaxf(mNew, score[g]);
    }
    if (mNew == -INFINITY) continue;
    const float corr = expf(m - mNew);
    float p[kKeysPerStep];
    l *= corr;
#pragma unroll
    for (int g = 0; g < kKeysPerStep; ++g) {
      p[g] = expf(score[g] - mNew);
      l += p[g];
    }
#pragma unroll
    for (int u = 0; u < kMaxPerLane; ++u) {
      const int c = u * ws + lane;
      if (c >= a.d) continue;
      float o = acc[u] * corr;
#pragma unroll
      for (int g = 0; g < kKeysPerStep; ++g) {
        if (j + g < j1) o = fmaf(p[g], v[(j + g) * rowStride + static_cast<long long>(hk) * a.d + c], o);
      }
      acc[u] = o;
    }
    m = mNew;
  }

  if (kFinal) {
    float* dst = out + qh * a.d;
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
    for (int u = 0; u < kMaxPerLane; ++u) {
      const int c = u * ws + lane;
      if (c < a.d) dst[c] = acc[u] * inv;
    }
  } else {
    float* rec = partial + item * (a.d + 2);
    if (lane == 0) {
      rec[0] = m;
      rec[1] = l;
    }
#pragma unroll
    for (int u = 0; u < kMaxPerLane; ++u) {
      const int c = u * ws + lane;
      if (c < a.d) rec[2 + c] = acc[u];
    }
  }
}

// Merges the splits of each (query, head): one warp each. The splits' maxima are read in parallel across the
// lanes; every lane then walks the splits for its own dimensions with no branch, so the loads pipeline
// (a split that saw no key has m = -inf and weight exp(-inf) = 0).
__global__ void __launch_bounds__(kWarpsPerBlock * 64) attention_merge(const float* __restrict__ partial, float* __restrict__ out, AttentionShape a) {
  const int ws = warpSize;
  const int lane = threadIdx.x % ws;
  const long long qh = blockIdx.x * static_cast<long long>(blockDim.x / ws) + threadIdx.x / ws;
  if (qh >= static_cast<long long>(a.sq) * a.heads) return;
  const int stride = a.d + 2;
  const float* recs = partial + qh * a.splits * stride;
  float mMax = -INFINITY;
  for (int s = lane; s < a.splits; s += ws) mMax = fmaxf(mMax, recs[s * stride]);
  mMax = warp_max(mMax);
  float* dst = out + qh * a.d;
  if (mMax == -INFINITY) {
    for (int c = lane; c < a.d; c += ws) dst[c] = 0.0f;
    return;
  }
  float l = 0.0f;
  for (int s = lane; s < a.splits; s += ws) l = fmaf(recs[s * stride + 1], expf(recs[s * stride] - mMax), l);
  l = warp_sum(l);
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  float acc[kMaxPerLane];
#pragma unroll
  for (int u = 0; u < kMaxPerLane; ++u) acc[u] = 0.0f;
#pragma unroll 4
  for (int s = 0; s < a.splits; ++s) {
    const float* rec = recs + s * stride;
    const float w = expf(rec[0] - mMax);
#pragma unroll
    for (int u = 0; u < kMaxPerLane; ++u) {
      const int c = u * ws + lane;
      if (c < a.d) acc[u] = fmaf(rec[2 + c], w, acc[u]);
    }
  }
#pragma unroll
  for (int u = 0; u < kMaxPerLane; ++u) {
    const int c = u * ws + lane;
    if (c < a.d) dst[c] = acc[u] * inv;
  }
}

unsigned blocks_for(long long warps) { return static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock); }

/** Scaled dot-product attention, q [sq, heads, d], k/v [sk, kvHeads, d] -> out [sq, heads, d]; d <= 8 * warpSize. */
hipError_t launch_attention(const LaunchContext& ctx, const float* q, const float* k, const float* v, float* out, int sq, int sk, int heads, int kvHeads, int headDim, bool causal, float scale) {
  const long long pairs = static_cast<long long>(sq) * heads;
  if (pairs == 0 || headDim == 0) return hipSuccess;
  if (headDim > kMaxPerLane * ctx.warpSize || kvHeads <= 0 || heads % kvHeads != 0) return hipErrorInvalidValue;
  // Aim for ~16 warps per multiprocessor; split keys only when the pairs alone do not get there.
  const long long target = static_cast<long long>(ctx.multiProcessors) * 16;
  long long splits = pairs >= target ? 1 : (target + pairs - 1) / pairs;
  const long long maxSplits = (sk + kMinKeysPerSplit - 1) / kMinKeysPerSplit;
  if (splits > maxSplits) splits = maxSplits;
  if (splits < 1) splits = 1;
  AttentionShape a{sq, sk, heads, kvHeads, headDim, static_cast<int>(splits), 0, causal, scale};
  a.chunk = static_cast<int>((sk + splits - 1) / splits);
  if (a.chunk == 0) a.chunk = 1;
  const unsigned threads = static_cast<unsigned>(kWarpsPerBlock * ctx.warpSize);
  if (splits == 1) {
    attention_warp<true><<<blocks_for(pairs), threads, 0, ctx.stream>>>(q, k, v, out, nullptr, a);
    return hipGetLastError();
  }
  void* scratch = nullptr;
  hipError_t err = ctx.scratch->Reserve(static_cast<size_t>(pairs * splits) * (headDim + 2) * sizeof(float), &scratch);
  if (err != hipSuccess) return err;
  float* partial = static_cast<float*>(scratch);
  attention_warp<false><<<blocks_for(pairs * splits), threads, 0, ctx.stream>>>(q, k, v, out, partial, a);
  err = hipGetLastError();
  if (err != hipSuccess) return err;
  attention_merge<<<blocks_for(pairs), threads, 0, ctx.stream>>>(partial, out, a);
  return hipGetLastError();
}

/** Parameters of attention_f32: q [sq, heads, headDim], k and v [sk, kvHeads, headDim]. */
struct AttentionParams {
  int sq = 0;
  int sk = 0;
  int heads = 0;
  int kvHeads = 0;
  int headDim = 0;
  bool causal = false;
  double scale = 1;
};

constexpr std::array<ParamField<AttentionParams>, 7> kFields{{
    Dim("sq", &AttentionParams::sq),
    Dim("sk", &AttentionParams::sk),
    Dim("heads", &AttentionParams::heads),
    Dim("kvHeads", &AttentionParams::kvHeads),
    Dim("headDim", &AttentionParams::headDim),
    Flag("causal", &AttentionParams::causal),
    Number("scale", &AttentionParams::scale),
}};

std::vector<double> attention_sizes(const AttentionParams& p, int) {
  if (p.kvHeads == 0 || p.heads % p.kvHeads != 0) throw Failure("TANDEM_BAD_PARAMS", "'kvHeads' must divide 'heads'");
  if (p.causal && p.sq > p.sk) throw Failure("TANDEM_BAD_PARAMS", "causal attention needs sq <= sk");
  const double qn = static_cast<double>(p.sq) * p.heads * p.headDim;
  const double kn = static_cast<double>(p.sk) * p.kvHeads * p.headDim;
  return {qn * kF32Bytes, kn * kF32Bytes, kn * kF32Bytes, qn * kF32Bytes};
}

hipError_t attention_launch(const OpCall& c, const AttentionParams& p) {
  return launch_attention(*c.ctx, input<float>(c, 0), input<float>(c, 1), input<float>(c, 2), output<float>(c, 0), p.sq, p.sk, p.heads, p.kvHeads, p.headDim, p.causal, static_cast<float>(p.scale));
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<AttentionParams, 7>{"attention_f32", 3, 3, 1, kFields, attention_sizes, attention_launch});

}  // namespace

}  // namespace tandem
