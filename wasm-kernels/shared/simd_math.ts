// Helpers shared by the kernels. Every function here is @inline, so a constant it needs belongs in a local the
// caller loads once before its loop (V8 rebuilds a v128.const on every use inside a loop).

/** a * b + c: one fused f32x4.relaxed_madd in the relaxed build, a multiply and an add in the plain one. */
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(f32x4.mul(a, b), c);
}

/** Sum of the four lanes of an f32x4. */
@inline export function hsum(v: v128): f32 {
  const pairs = f32x4.add(v, i32x4.shuffle(v, v, 2, 3, 0, 1));
  return f32x4.extract_lane(pairs, 0) + f32x4.extract_lane(pairs, 1);
}

/** Largest of the four lanes of an f32x4 (pmax semantics: a NaN lane may or may not win). */
@inline export function hmax(v: v128): f32 {
  const pairs = f32x4.pmax(v, i32x4.shuffle(v, v, 2, 3, 0, 1));
  return max(f32x4.extract_lane(pairs, 0), f32x4.extract_lane(pairs, 1));
}

/** Decodes one IEEE binary16 bit pattern (branch-free: it sits in the quantized kernels' block loops). */
@inline export function halfToFloat(h: u32): f32 {
  const bits = (h & 0x7fff) << 13;
  // Normals and subnormals: shift exponent and mantissa into place and rebias by multiplying with 2^112.
  const finite = reinterpret<f32>(bits) * reinterpret<f32>(<u32>0x77800000);
  const special = reinterpret<f32>(bits | 0x7f800000);
  const magnitude = select<f32>(special, finite, (h & 0x7c00) == 0x7c00);
  return reinterpret<f32>(reinterpret<u32>(magnitude) | ((h & 0x8000) << 16));
}

/** Quantized-block constants, 16 bytes each: the nibble mask 0x0f, q4_0's zero point 8, the sign bit 0x80 (q8_0 -> unsigned). */
export const BLOCK_CONSTANTS: usize = memory.data<u8>([
  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
  8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
  128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128, 128,
], 16);

/** Writes the first `count` (0..4) lanes of v to ptr. */
@inline export function storeLanes(ptr: usize, v: v128, count: i32): void {
  if (count > 0) store<f32>(ptr, f32x4.extract_lane(v, 0));
  if (count > 1) store<f32>(ptr, f32x4.extract_lane(v, 1), 4);
  if (count > 2) store<f32>(ptr, f32x4.extract_lane(v, 2), 8);
  if (count > 3) store<f32>(ptr, f32x4.extract_lane(v, 3), 12);
}

/** Adds the first `count` (0..4) lanes of v to the floats at ptr. */
@inline export function addLanes(ptr: usize, v: v128, count: i32): void {
  if (count > 0) store<f32>(ptr, load<f32>(ptr) + f32x4.extract_lane(v, 0));
  if (count > 1) store<f32>(ptr, load<f32>(ptr, 4) + f32x4.extract_lane(v, 1), 4);
  if (count > 2) store<f32>(ptr, load<f32>(ptr, 8) + f32x4.extract_lane(v, 2), 8);
  if (count > 3) store<f32>(ptr, load<f32>(ptr, 12) + f32x4.extract_lane(v, 3), 12);
}

// exp(x) on f32x4: x = n ln2 + r with |r| <= ln2/2, e^r by Cephes' degree-7 polynomial, 2^n built in the exponent
// bits. n is rounded with the 1.5 * 2^23 trick (its integer sits in the low mantissa bits of x log2e + 1.5 * 2^23),
// much cheaper in V8 than f32x4.nearest + i32x4.trunc_sat. Relative error about 2e-7. The clamps do the special cases
// without masks: inputs at or below -87 give exactly 0 (2^(n-1) underflows to zero bits; e^-87 is 1.6e-38, next to
// the smallest normal f32), inputs past ln(FLT_MAX) = 88.72284 overflow to +inf in the final multiply, NaN stays NaN.

/**
 * expv's constants, each splatted to 16 bytes, in this order: log2e, ln2hi, ln2lo, p1..p5, one, lo, hi, round, half
 * (Cephes' p0 = 0.50000001201 is taken as 0.5, a difference under 2e-9 after the r^2 factor, saving a register).
 */
export const EXP_TABLE: usize = memory.data<f32>([
  1.44269504, 1.44269504, 1.44269504, 1.44269504,
  0.693359375, 0.693359375, 0.693359375, 0.693359375,
  -2.12194440e-4, -2.12194440e-4, -2.12194440e-4, -2.12194440e-4,
  1.6666665459e-1, 1.6666665459e-1, 1.6666665459e-1, 1.6666665459e-1,
  4.1665795894e-2, 4.1665795894e-2, 4.1665795894e-2, 4.1665795894e-2,
  8.3334519073e-3, 8.3334519073e-3, 8.3334519073e-3, 8.3334519073e-3,
  1.3981999507e-3, 1.3981999507e-3, 1.3981999507e-3, 1.3981999507e-3,
  1.9875691500e-4, 1.9875691500e-4, 1.9875691500e-4, 1.9875691500e-4,
  1.0, 1.0, 1.0, 1.0,
  -87.0, -87.0, -87.0, -87.0,
  88.7229, 88.7229, 88.7229, 88.7229,
  12582912.0, 12582912.0, 12582912.0, 12582912.0,
  0.5, 0.5, 0.5, 0.5,
], 16);

/**
 * e^x lane-wise. The 13 constants are EXP_TABLE's rows, which the caller loads into locals once, before its loop
 * (softmax.ts's expShifted shows the pattern); V8 would rebuild them per iteration if they were v128.const here.
 */
@inline export function expv(
  x: v128, log2e: v128, ln2hi: v128, ln2lo: v128, p1: v128, p2: v128, p3: v128, p4: v128, p5: v128,
  one: v128, lo: v128, hi: v128, round: v128, half: v128,
): v128 {
  const xc = f32x4.pmin(f32x4.pmax(x, lo), hi);
  const t = f32x4.add(f32x4.mul(xc, log2e), round);
  const n = f32x4.sub(t, round);
  const r = f32x4.sub(f32x4.sub(xc, f32x4.mul(n, ln2hi)), f32x4.mul(n, ln2lo));
  // Cephes expf: e^r = 1 + r + r^2 (1/2 + r p1 + ... + r^5 p5), evaluated by Estrin's scheme: 4 dependent steps
  // instead of Horner's 7, which matters because a long chain per vector stalls V8's loop on latency.
  const r2 = f32x4.mul(r, r);
  const r4 = f32x4.mul(r2, r2);
  const low = madd(p1, r, half);
  const mid = madd(p3, r, p2);
  const high = madd(p5, r, p4);
  const q = madd(high, r4, madd(mid, r2, low));
  const e = madd(q, r2, f32x4.add(r, one));
  // 2^n = 2 * 2^(n-1), so n = 128 (x near ln FLT_MAX) still fits; 2^(n-1) has exponent bits (n + 126) << 23, and
  // 126 << 23 are the bits of 0.5f. At the low clamp n = -126 and the bits are zero: e^x = 0 exactly. At the high
  // clamp n = 128 and r > 0, so 2e * 2^127 overflows to inf.
  const scale = i32x4.add(i32x4.shl(i32x4.sub(t, round), 23), half);
  return f32x4.mul(f32x4.add(e, e), scale);
}

/** Loads EXP_TABLE row `index` (a helper for callers of expv). */
@inline export function expConstant(index: i32): v128 {
  return v128.load(EXP_TABLE + (<usize>index << 4));
}
