// kernels.h: what the kernel files (one .hip per op id, <op_id>[_<variant>].hip) share: scratch memory, the launch
// context, the variants benchmarks pick, the limits the addon reports to JavaScript, and the launchers one op's
// kernels call from another file. Each launcher enqueues its kernels on ctx.stream and returns the first HIP error
// (launch or scratch); it never synchronizes. Pointers are device pointers; shapes were validated by the
// TypeScript side and the addon. Each file registers its own kernels (src/kernel_registry.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include "tandem_hip.h"

namespace tandem {

/** Device scratch memory that grows on demand; used only from the device's worker thread. */
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { Release(); }

  /** A device region of at least `bytes`, valid until the next Reserve; the previous contents are lost. */
  hipError_t Reserve(size_t bytes, void** out) {
    if (bytes <= capacity_) {
      *out = data_;
      return hipSuccess;
    }
    Release();
    const hipError_t err = hipMalloc(&data_, bytes);
    if (err != hipSuccess) {
      data_ = nullptr;
      return err;
    }
    capacity_ = bytes;
    *out = data_;
    return hipSuccess;
  }

  /** The region now (null before the first Reserve): what a captured graph read it as. */
  const void* data() const { return data_; }

  /** Frees the region (synchronizes the device, as hipFree does). */
  void Release() {
    if (data_ != nullptr) (void)hipFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

/** What every launcher needs besides its tensors. */
struct LaunchContext {
  /** The device's one stream. */
  hipStream_t stream;
  /** Threads per warp (wavefront) of this device: 32 or 64. */
  int warpSize;
  /** Compute units / streaming multiprocessors, to size grid-stride grids. */
  int multiProcessors;
  /** Temporary device memory for multi-pass ops. */
  Scratch* scratch;
};

/** Element types a kernel reads or writes. */
enum class ElemType { F32, F16 };

/** Encodings dequantize and quantizedMatmul read (ggml block layouts for the quantized ones). */
enum class QuantFormat { Q8_0, Q4_0, F16 };

/** Tile variants of matmul_f32 that benchmarks compare: 0 = BK 8, 1 = BK 16. */
constexpr int kMatmulVariants = 2;
/** The f32 matmul variant used unless a caller names one (BK 16, the faster at 4096: docs/decisions.md, issue 29). */
constexpr int kMatmulDefaultVariant = 1;
/** Quantized mat-vec variants: 0 direct 4 rows per warp, 1 direct 2 rows, 2 direct 8 rows, 3 staged through
 *  shared memory, 4 staged with prefetch, 5 split-K over 4 warps (experimental), 6 streamed Q4_0 mat-vec
 *  (quantized_matmul_stream.hip; where it does not apply, variant 1). */
constexpr int kQuantizedVariants = 7;
/** The mat-vec variant used unless a caller names one: streamed for Q4_0 at M = 1, else direct with 2 rows per warp
 *  (the fastest measured, and a layout tried and dropped: docs/decisions.md, issue 29). */
constexpr int kQuantizedDefaultVariant = 6;

// Limits the addon reports to JavaScript (addon.cc `limits`), so supportsOp refuses what a launch would.
/** Blocks a grid may have in its second dimension. */
constexpr int kGridMaxY = 65535;
/** Output columns of one f32 matmul block (matmul.hip's BN). */
constexpr int kMatmulTileColumns = 128;
/** Output columns of one f16 matmul block (matmul.hip's kHalfTile). */
constexpr int kMatmulF16TileColumns = 16;
/** Head dimensions up to this many per warp lane run in the attention kernel. */
constexpr int kAttentionMaxDimsPerLane = 8;
/** Above this many queries, cosine similarity runs as a matmul (its grid then has the matmul's limit). */
constexpr int kCosineWarpQueryLimit = 16;
/** Above this many rows, quantized matmul dequantizes the weights and runs a matmul. */
constexpr int kQuantizedDirectMaxRows = 8;
/** Largest k of top_k. */
constexpr int kTopKMax = 4096;

// matmul.hip
/** c[m,n] = a[m,k] b[k,n]; with transB, b is given as bt[n,k]. */
hipError_t launch_matmul_f32(const LaunchContext& ctx, const float* a, const float* b, float* c, int m, int n, int k, bool transB, int variant);

// quantized_matmul.hip
/** out[m,n] = sum_k x[m,k] * dequant(w[n,:])[k] for Q8_0 / Q4_0 rows of k/32 blocks (variant: kQuantizedVariants). */
hipError_t launch_quantized_matmul(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k, QuantFormat format, int variant);

// quantized_matmul_stream.hip
/** Whether the streamed Q4_0 mat-vec takes this shape (M = 1, K a multiple of 128, x within shared memory). */
bool quantized_matvec_streams(int m, int k, QuantFormat format, int warpSize);
/** out[n] = x[k] . dequant(w[n,:]) for Q4_0 rows, when quantized_matvec_streams says so. */
hipError_t launch_quantized_matvec_stream(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int n, int k);

// quantized_matmul_q8act.hip
/** As launch_quantized_matmul, with x rounded to int8 per block of 32 (opt-in: |error| <= sum_b max|x_b| / 254 *
 *  sum_b |w|) and integer dot products; M > 8 takes launch_quantized_matmul (variant: kQuantizedQ8ActVariants). */
hipError_t launch_quantized_matvec_q8act(const LaunchContext& ctx, const float* x, const uint8_t* w, float* out, int m, int n, int k, QuantFormat format, int variant);
/** Shapes of the int8-activation mat-vec: 0 = 2 rows per warp, 2 lanes per block; 1 = 2 rows, 4 lanes per block;
 *  2 = 4 rows, 2 lanes per block; 3 = 2 rows, 1 lane per block (not yet timed on a GPU). */
constexpr int kQuantizedQ8ActVariants = 4;
/** The int8-activation variant used unless a caller names one. */
constexpr int kQuantizedQ8ActDefaultVariant = 0;

// dequantize.hip
/** out[i] = value i of x (Q8_0 / Q4_0 blocks or f16 bits); count a multiple of 32 for the block formats. */
hipError_t launch_dequantize(const LaunchContext& ctx, const void* x, float* out, long long count, QuantFormat format);

}  // namespace tandem
