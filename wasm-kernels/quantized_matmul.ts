// quantizedMatmul: out[M, N] = x[M, K] (f32) x w[N, K]^T, w in ggml's q8_0 or q4_0 rows. Activations stay f32
// (no q8 re-quantization of x, unlike ggml's CPU path), so results equal dequantize(w) products up to f32 rounding.
//
// Few rows of x: each weight block is decoded in registers as unsigned bytes u = q + zero point (q4_0: the raw
// nibble, zero point 8; q8_0: q xor 0x80, zero point 128) because unsigned widening is cheaper than signed in V8,
// and the zero point is taken out per block with a precomputed zp * sum(x over the block):
//   sum_j x_j d (u_j - zp) = d (sum_j x_j u_j - zp sum_j x_j).
// Many rows: each K block of w is decoded into 8-column f32 panels once and runs through the f32 GEMM tile.
import { KC, PACKED_A_BYTES, packedBlockBytes, multiplyPackedBlock, packRows4, PANEL_ROW_BYTES } from './shared/matmul_panels';
import { madd, hsum, halfToFloat, BLOCK_CONSTANTS } from './shared/simd_math';

/** Bytes of a q8_0 block: f16 scale + 32 int8. */
const Q8_BLOCK: usize = 34;
/** Bytes of a q4_0 block: f16 scale + 16 bytes of nibbles. */
const Q4_BLOCK: usize = 18;
/** From this many rows of x up, decoding w into panels once beats decoding it per group of 4 rows. */
const PANEL_MIN_ROWS: i32 = 8;

/** Scratch bytes quantized_matmul_* need: per-block sums of x (register path) or panels (panel path). */
export function quantized_matmul_scratch_bytes(m: i32, k: i32, n: i32): usize {
  if (m < PANEL_MIN_ROWS) return (<usize>m * <usize>(k >> 5) << 2) + 16;
  return PACKED_A_BYTES + packedBlockBytes(n) + 8 * <usize>KC * 4;
}

/** out = x x w^T with q8_0 weights; scratch: quantized_matmul_scratch_bytes(m, k, n). */
export function quantized_matmul_q8_0(x: usize, w: usize, out: usize, m: i32, k: i32, n: i32, scratch: usize): void {
  quantizedMatmul(x, w, out, m, k, n, scratch, false);
}

/** out = x x w^T with q4_0 weights; scratch: quantized_matmul_scratch_bytes(m, k, n). */
export function quantized_matmul_q4_0(x: usize, w: usize, out: usize, m: i32, k: i32, n: i32, scratch: usize): void {
  quantizedMatmul(x, w, out, m, k, n, scratch, true);
}

@inline function quantizedMatmul(x: usize, w: usize, out: usize, m: i32, k: i32, n: i32, scratch: usize, isQ4: bool): void {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    memory.fill(out, 0, (<usize>m * <usize>n) << 2);
    return;
  }
  const blockBytes = isQ4 ? Q4_BLOCK : Q8_BLOCK;
  const blocks = k >> 5;
  const rowBytes = <usize>blocks * blockBytes;
  if (m >= PANEL_MIN_ROWS) {
    const packed = scratch + PACKED_A_BYTES;
    const rowsTemp = packed + packedBlockBytes(n);
    for (let k0 = 0; k0 < k; k0 += KC) {
      const kc = min(KC, k - k0);
      decodePanels(w + <usize>(k0 >> 5) * blockBytes, rowBytes, n, kc, packed, rowsTemp, isQ4);
      multiplyPackedBlock(x + (<usize>k0 << 2), k, m, kc, packed, out, n, k0 > 0, scratch);
    }
    return;
  }
  const xRow = <usize>k << 2;
  const sumsRow = <usize>blocks << 2;
  blockSums(x, m, blocks, isQ4 ? 8 : 128, scratch);
  const outRow = <usize>n << 2;
  let i = 0;
  for (; i + 4 <= m; i += 4) {
    for (let j = 0; j < n; j++) {
      dotRows4(x + <usize>i * xRow, xRow, scratch + <usize>i * sumsRow, sumsRow, w + <usize>j * rowBytes, blocks, out + <usize>i * outRow + (<usize>j << 2), outRow, isQ4);
    }
  }
  for (; i < m; i++) {
    for (let j = 0; j < n; j++) {
      store<f32>(out + <usize>i * outRow + (<usize>j << 2), dotRow(x + <usize>i * xRow, scratch + <usize>i * sumsRow, w + <usize>j * rowBytes, blocks, isQ4));
    }
  }
}

/** sums[i][b] = zeroPoint * (sum of x row i over block b), for m rows of blocks * 32 floats. */
function blockSums(x: usize, m: i32, blocks: i32, zeroPoint: f32, sums: usize): void {
  let xp = x;
  let s = sums;
  const total = m * blocks;
  for (let b = 0; b < total; b++) {
    const v = f32x4.add(
      f32x4.add(f32x4.add(v128.load(xp), v128.load(xp, 16)), f32x4.add(v128.load(xp, 32), v128.load(xp, 48))),
      f32x4.add(f32x4.add(v128.load(xp, 64), v128.load(xp, 80)), f32x4.add(v128.load(xp, 96), v128.load(xp, 112))),
    );
    store<f32>(s, hsum(v) * zeroPoint);
    xp += 128;
    s += 4;
  }
}

/** Weights 0..15 of the block at p as unsigned bytes (q + zero point). */
@inline function lowBytes(p: usize, isQ4: bool, mask: v128, flip: v128): v128 {
  if (isQ4) return v128.and(v128.load(p, 2), mask);
  return v128.xor(v128.load(p, 2), flip);
}

/** Weights 16..31 of the block at p as unsigned bytes (q + zero point). */
@inline function highBytes(p: usize, isQ4: bool, mask: v128, flip: v128): v128 {
  if (isQ4) return v128.and(i16x8.shr_u(v128.load(p, 2), 4), mask);
  return v128.xor(v128.load(p, 18), flip);
}

/** Unsigned bytes 0..3 / 4..7 / 8..11 / 12..15 of v as f32x4 (values < 2^31, so the signed convert is exact). */
@inline function bytes0(v: v128): v128 { return f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v))); }
@inline function bytes1(v: v128): v128 { return f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(i16x8.extend_low_i8x16_u(v))); }
@inline function bytes2(v: v128): v128 { return f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(i16x8.extend_high_i8x16_u(v))); }
@inline function bytes3(v: v128): v128 { return f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(i16x8.extend_high_i8x16_u(v))); }

/** Lane sums of x[0..32) * [lo bytes, hi bytes] as f32, as a tree (short dependency chains). */
@inline function dot32(xp: usize, lo: v128, hi: v128): v128 {
  const s0 = madd(v128.load(xp, 16), bytes1(lo), f32x4.mul(v128.load(xp), bytes0(lo)));
  const s1 = madd(v128.load(xp, 48), bytes3(lo), f32x4.mul(v128.load(xp, 32), bytes2(lo)));
  const s2 = madd(v128.load(xp, 80), bytes1(hi), f32x4.mul(v128.load(xp, 64), bytes0(hi)));
  const s3 = madd(v128.load(xp, 112), bytes3(hi), f32x4.mul(v128.load(xp, 96), bytes2(hi)));
  return f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3));
}

/** One output: x's row (blocks * 32 floats, with its zero-point block sums) dotted with one quantized row of w. */
@inline function dotRow(xp: usize, sums: usize, wp: usize, blocks: i32, isQ4: bool): f32 {
  const mask = v128.load(BLOCK_CONSTANTS);
  const flip = v128.load(BLOCK_CONSTANTS, 32);
  const blockBytes = isQ4 ? Q4_BLOCK : Q8_BLOCK;
  let acc = f32x4.splat(0);
  let correction: f32 = 0;
  let p = wp;
  let xq = xp;
  for (let b = 0; b < blocks; b++) {
    const d = halfToFloat(load<u16>(p));
    acc = madd(dot32(xq, lowBytes(p, isQ4, mask, flip), highBytes(p, isQ4, mask, flip)), f32x4.splat(d), acc);
    correction += d * load<f32>(sums + (<usize>b << 2));
    p += blockBytes;
    xq += 128;
  }
  return hsum(acc) - correction;
}

/** Four outputs in one column: rows xp, xp + xStride, ... of x against one quantized row; outputs outStride apart. */
@inline function dotRows4(xp: usize, xStride: usize, sums: usize, sumsStride: usize, wp: usize, blocks: i32, out: usize, outStride: usize, isQ4: bool): void {
  const mask = v128.load(BLOCK_CONSTANTS);
  const flip = v128.load(BLOCK_CONSTANTS, 32);
  const blockBytes = isQ4 ? Q4_BLOCK : Q8_BLOCK;
  let acc0 = f32x4.splat(0), acc1 = f32x4.splat(0), acc2 = f32x4.splat(0), acc3 = f32x4.splat(0);
  let c0: f32 = 0, c1: f32 = 0, c2: f32 = 0, c3: f32 = 0;
  let p = wp;
  let xq = xp;
  let sq = sums;
  for (let b = 0; b < blocks; b++) {
    const lo = lowBytes(p, isQ4, mask, flip);
    const hi = highBytes(p, isQ4, mask, flip);
    const d = halfToFloat(load<u16>(p));
    const dv = f32x4.splat(d);
    acc0 = madd(dot32(xq, lo, hi), dv, acc0);
    acc1 = madd(dot32(xq + xStride, lo, hi), dv, acc1);
    acc2 = madd(dot32(xq + 2 * xStride, lo, hi), dv, acc2);
    acc3 = madd(dot32(xq + 3 * xStride, lo, hi), dv, acc3);
    c0 += d * load<f32>(sq);
    c1 += d * load<f32>(sq + sumsStride);
    c2 += d * load<f32>(sq + 2 * sumsStride);
    c3 += d * load<f32>(sq + 3 * sumsStride);
    p += blockBytes;
    xq += 128;
    sq += 4;
  }
  store<f32>(out, hsum(acc0) - c0);
  store<f32>(out + outStride, hsum(acc1) - c1);
  store<f32>(out + 2 * outStride, hsum(acc2) - c2);
  store<f32>(out + 3 * outStride, hsum(acc3) - c3);
}

/** Decodes kc / 32 blocks of one quantized row into kc f32 at dst: d * (u - zero point). */
@inline function decodeRow(p: usize, kc: i32, dst: usize, isQ4: bool): void {
  const mask = v128.load(BLOCK_CONSTANTS);
  const flip = v128.load(BLOCK_CONSTANTS, 32);
  const zeroPoint = f32x4.splat(isQ4 ? 8 : 128);
  const blockBytes = isQ4 ? Q4_BLOCK : Q8_BLOCK;
  let q = p;
  let o = dst;
  const end = dst + (<usize>kc << 2);
  while (o < end) {
    const lo = lowBytes(q, isQ4, mask, flip);
    const hi = highBytes(q, isQ4, mask, flip);
    const d = f32x4.splat(halfToFloat(load<u16>(q)));
    v128.store(o, f32x4.mul(f32x4.sub(bytes0(lo), zeroPoint), d));
    v128.store(o, f32x4.mul(f32x4.sub(bytes1(lo), zeroPoint), d), 16);
    v128.store(o, f32x4.mul(f32x4.sub(bytes2(lo), zeroPoint), d), 32);
    v128.store(o, f32x4.mul(f32x4.sub(bytes3(lo), zeroPoint), d), 48);
    v128.store(o, f32x4.mul(f32x4.sub(bytes0(hi), zeroPoint), d), 64);
    v128.store(o, f32x4.mul(f32x4.sub(bytes1(hi), zeroPoint), d), 80);
    v128.store(o, f32x4.mul(f32x4.sub(bytes2(hi), zeroPoint), d), 96);
    v128.store(o, f32x4.mul(f32x4.sub(bytes3(hi), zeroPoint), d), 112);
    q += blockBytes;
    o += 128;
  }
}

/** Decodes one K block (kc columns) of all n weight rows into ceil(n/8) panels of kc x 8; rowsTemp holds 8 x KC floats. */
@inline function decodePanels(w: usize, rowBytes: usize, n: i32, kc: i32, packed: usize, rowsTemp: usize, isQ4: bool): void {
  const panels = (n + 7) >> 3;
  const tempRow = <usize>kc << 2;
  for (let p = 0; p < panels; p++) {
    for (let r = 0; r < 8; r++) {
      const j = p * 8 + r;
      const dst = rowsTemp + <usize>r * tempRow;
      if (j < n) decodeRow(w + <usize>j * rowBytes, kc, dst, isQ4);
      else memory.fill(dst, 0, tempRow);
    }
    const panel = packed + <usize>p * <usize>kc * PANEL_ROW_BYTES;
    packRows4(rowsTemp, tempRow, kc, panel, PANEL_ROW_BYTES);
    packRows4(rowsTemp + 4 * tempRow, tempRow, kc, panel + 16, PANEL_ROW_BYTES);
  }
}
