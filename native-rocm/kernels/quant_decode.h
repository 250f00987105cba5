// quant_decode.h: turning ggml quantized bytes into f32 with full-rate instructions. An int-to-float conversion
// runs at a quarter of the FMA rate or less, which made a mat-vec that
// converted every value compute-bound; instead, a byte permute drops a byte into the mantissa of 2^23
// (0x4B0000bb = 2^23 + bb exactly) and one subtraction removes the 2^23 and the format's offset.
#pragma once
#include <cstdint>
#include "tandem_hip.h"

namespace tandem {

/** 2^23 as a float: adding a byte to its mantissa is exact. */
constexpr float kMagic = 8388608.0f;
/** Q4_0 nibbles are stored as value + 8. */
constexpr float kQ4Offset = kMagic + 8.0f;
/** Q8_0 int8 values, xor 0x80, are value + 128. */
constexpr float kQ8Offset = kMagic + 128.0f;

/**
 * The bits of 2^23 (0x4B000000), computed from a value the compiler cannot see is non-negative: kept in a register,
 * it leaves the byte permute's one immediate slot to the selector. As a folded constant, nvcc made 0x4B000000 the
 * immediate and spent a MOV on nearly every permute to put its selector in a register (sm_90 SASS of the Q4_0
 * mat-vec: 244 moves beside 272 permutes).
 */
__device__ inline uint32_t magic_bits(int nonNegative) { return 0x4B000000u | (static_cast<uint32_t>(nonNegative) >> 31); }

/** 2^23 + byte k of w (k = 0..3, a compile-time constant in practice); `magic` is magic_bits(...). */
__device__ inline float magic_byte(uint32_t w, uint32_t magic, uint32_t k) { return __uint_as_float(__byte_perm(w, magic, 0x7650u | k)); }

/** Two aligned 16-bit halves as one word (lo first, little-endian). */
__device__ inline uint32_t join16(uint16_t lo, uint16_t hi) { return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16); }

/**
 * Dot product of 8 Q4_0 values with x (`magic` is magic_bits(...)): `word` holds qs bytes 4i..4i+3 of a block, whose low nibbles are values
 * 4i..4i+3 (paired with x[0..3]) and high nibbles values 4i+16..4i+19 (paired with x[4..7]). Not scaled by d.
 */
__device__ inline float q4_dot8(uint32_t word, const float (&x)[8], uint32_t magic) {
  const uint32_t lo = word & 0x0F0F0F0Fu;
  const uint32_t hi = (word >> 4) & 0x0F0F0F0Fu;
  float s = 0.0f;
#pragma unroll
  for (uint32_t k = 0; k < 4; ++k) {
    s = fmaf(magic_byte(lo, magic, k) - kQ4Offset, x[k], s);
    s = fmaf(magic_byte(hi, magic, k) - kQ4Offset, x[4 + k], s);
  }
  return s;
}

/** Dot product of 4 Q8_0 int8 values (one word) with x[0..3]. Not scaled by d. */
__device__ inline float q8_dot4(uint32_t word, const float* x, uint32_t magic) {
  const uint32_t biased = word ^ 0x80808080u;
  float s = 0.0f;
#pragma unroll
  for (uint32_t k = 0; k < 4; ++k) s = fmaf(magic_byte(biased, magic, k) - kQ8Offset, x[k], s);
  return s;
}

}  // namespace tandem
