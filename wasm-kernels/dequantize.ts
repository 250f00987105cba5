// dequantize: q8_0 / q4_0 / f16 -> f32, `count` values. A quantized tensor whose count is not a multiple of 32
// still stores whole blocks; the last block is decoded only as far as count.
import { halfToFloat, BLOCK_CONSTANTS } from './shared/simd_math';

/** f16 constants, 16 bytes each: magnitude mask 0x7fff, 2^112 (rebias), f32 inf bits, the f16 inf/NaN exponent. */
const HALF_CONSTANTS: usize = memory.data<u32>([
  0x7fff, 0x7fff, 0x7fff, 0x7fff,
  0x77800000, 0x77800000, 0x77800000, 0x77800000,
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000,
  0x7c00, 0x7c00, 0x7c00, 0x7c00,
], 16);

/** Expands `count` q8_0 values (34-byte blocks: f16 scale, 32 int8) at src to f32 at dst. */
export function dequantize_q8_0(src: usize, dst: usize, count: i32): void {
  const whole = count >> 5;
  let p = src;
  let o = dst;
  for (let b = 0; b < whole; b++) {
    const d = f32x4.splat(halfToFloat(load<u16>(p)));
    const lo = v128.load(p, 2);
    const hi = v128.load(p, 18);
    storeBytesScaled(o, lo, d);
    storeBytesScaled(o + 64, hi, d);
    p += 34;
    o += 128;
  }
  const d = halfToFloat(load<u16>(p));
  for (let j = 0; j < (count & 31); j++) store<f32>(o + (<usize>j << 2), <f32>load<i8>(p + 2 + j) * d);
}

/** Expands `count` q4_0 values (18-byte blocks: f16 scale, value j in the low nibble of byte j, j+16 in the high) to f32. */
export function dequantize_q4_0(src: usize, dst: usize, count: i32): void {
  const mask = v128.load(BLOCK_CONSTANTS);
  const eight = v128.load(BLOCK_CONSTANTS, 16);
  const whole = count >> 5;
  let p = src;
  let o = dst;
  for (let b = 0; b < whole; b++) {
    const d = f32x4.splat(halfToFloat(load<u16>(p)));
    const v = v128.load(p, 2);
    storeBytesScaled(o, i8x16.sub(v128.and(v, mask), eight), d);
    storeBytesScaled(o + 64, i8x16.sub(v128.and(i16x8.shr_u(v, 4), mask), eight), d);
    p += 18;
    o += 128;
  }
  const d = halfToFloat(load<u16>(p));
  for (let j = 0; j < (count & 31); j++) {
    const byte = <i32>load<u8>(p + 2 + (j & 15));
    const nibble = j < 16 ? byte & 15 : byte >> 4;
    store<f32>(o + (<usize>j << 2), <f32>(nibble - 8) * d);
  }
}

/** Writes the 16 signed bytes of v times d as 16 f32 at o. */
@inline function storeBytesScaled(o: usize, v: v128, d: v128): void {
  const lo = i16x8.extend_low_i8x16_s(v);
  const hi = i16x8.extend_high_i8x16_s(v);
  v128.store(o, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(lo)), d));
  v128.store(o, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(lo)), d), 16);
  v128.store(o, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(hi)), d), 32);
  v128.store(o, f32x4.mul(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(hi)), d), 48);
}

/** Expands `count` binary16 values at src to f32 at dst (exact, subnormals, infinities and NaN included). */
export function dequantize_f16(src: usize, dst: usize, count: i32): void {
  const magnitude = v128.load(HALF_CONSTANTS);
  const rebias = v128.load(HALF_CONSTANTS, 16);
  const infBits = v128.load(HALF_CONSTANTS, 32);
  const halfInf = v128.load(HALF_CONSTANTS, 48);
  let i = 0;
  for (; i + 8 <= count; i += 8) {
    const h = v128.load(src + (<usize>i << 1));
    const o = dst + (<usize>i << 2);
    v128.store(o, halfLanes(i32x4.extend_low_i16x8_u(h), magnitude, rebias, infBits, halfInf));
    v128.store(o, halfLanes(i32x4.extend_high_i16x8_u(h), magnitude, rebias, infBits, halfInf), 16);
  }
  for (; i < count; i++) store<f32>(dst + (<usize>i << 2), halfToFloat(load<u16>(src + (<usize>i << 1))));
}

/** Four binary16 patterns (one per u32 lane) as f32x4. */
@inline function halfLanes(h: v128, magnitude: v128, rebias: v128, infBits: v128, halfInf: v128): v128 {
  const abs = v128.and(h, magnitude);
  const bits = i32x4.shl(abs, 13);
  const finite = f32x4.mul(bits, rebias);
  const special = v128.or(bits, infBits);
  const isSpecial = i32x4.eq(v128.and(h, halfInf), halfInf);
  const value = v128.bitselect(special, finite, isSpecial);
  return v128.or(value, i32x4.shl(i32x4.shr_u(h, 15), 31));
}
