// The f32 GEMM core shared by matmul_f32 and quantized_matmul: B packed into panels of 8 columns, K blocked at
// KC, and a 4x8 register tile (8 f32x4 accumulators). A 6x8 tile spills registers (ENVIRONMENT.md).
import { madd, storeLanes, addLanes } from './simd_math';

/** Depth of one K block: a packed 8-column panel of KC rows is 8 KiB, resident in L1. */
export const KC: i32 = 256;

/** Rows of A per M block: 4 x KC floats of A per tile row, MC rows stay in L2 while panels stream. */
export const MC: i32 = 128;

/** Bytes of one packed panel row: 8 floats. */
export const PANEL_ROW_BYTES: usize = 32;

/** Scratch bytes needed to pack one K block of an N-column B. */
export function packedBlockBytes(n: i32): usize {
  return <usize>KC * <usize>((n + 7) >> 3) * PANEL_ROW_BYTES;
}

/**
 * C[4, cols<=8] (+)= Apacked[kc, 4] x panel[kc, 8]: `a` holds 4 rows of A interleaved (k-major, 16 bytes per k),
 * so one pointer feeds four broadcasts by immediate offsets. `accumulate` adds into C (later K blocks); otherwise
 * C is overwritten (first K block).
 */
@inline function tile4x8(a: usize, panel: usize, kc: i32, c: usize, ldc: usize, cols: i32, accumulate: bool): void {
  let c00 = f32x4.splat(0), c01 = f32x4.splat(0);
  let c10 = f32x4.splat(0), c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0), c21 = f32x4.splat(0);
  let c30 = f32x4.splat(0), c31 = f32x4.splat(0);
  let p = panel;
  const end = a + (<usize>kc << 4);
  for (let q = a; q < end; q += 16) {
    const b0 = v128.load(p);
    const b1 = v128.load(p, 16);
    let s = v128.load32_splat(q);
    c00 = madd(s, b0, c00);
    c01 = madd(s, b1, c01);
    s = v128.load32_splat(q, 4);
    c10 = madd(s, b0, c10);
    c11 = madd(s, b1, c11);
    s = v128.load32_splat(q, 8);
    c20 = madd(s, b0, c20);
    c21 = madd(s, b1, c21);
    s = v128.load32_splat(q, 12);
    c30 = madd(s, b0, c30);
    c31 = madd(s, b1, c31);
    p += PANEL_ROW_BYTES;
  }
  writeRow(c, c00, c01, cols, accumulate);
  writeRow(c + ldc, c10, c11, cols, accumulate);
  writeRow(c + 2 * ldc, c20, c21, cols, accumulate);
  writeRow(c + 3 * ldc, c30, c31, cols, accumulate);
}

/**
 * Interleaves 4 rows (kc floats each, lda bytes apart) into dst as kc groups of 4 floats, dstStride bytes apart
 * (16: a packed A tile; 32: half of a B panel). A 4x4 transpose per 4 k.
 */
@inline export function packRows4(a: usize, lda: usize, kc: i32, dst: usize, dstStride: usize): void {
  let r0 = a, r1 = a + lda, r2 = a + 2 * lda, r3 = a + 3 * lda;
  let d = dst;
  let kk = 0;
  for (; kk + 4 <= kc; kk += 4) {
    const x0 = v128.load(r0), x1 = v128.load(r1), x2 = v128.load(r2), x3 = v128.load(r3);
    const lo01 = i32x4.shuffle(x0, x1, 0, 4, 1, 5);
    const lo23 = i32x4.shuffle(x2, x3, 0, 4, 1, 5);
    const hi01 = i32x4.shuffle(x0, x1, 2, 6, 3, 7);
    const hi23 = i32x4.shuffle(x2, x3, 2, 6, 3, 7);
    v128.store(d, i64x2.shuffle(lo01, lo23, 0, 2));
    v128.store(d + dstStride, i64x2.shuffle(lo01, lo23, 1, 3));
    v128.store(d + 2 * dstStride, i64x2.shuffle(hi01, hi23, 0, 2));
    v128.store(d + 3 * dstStride, i64x2.shuffle(hi01, hi23, 1, 3));
    r0 += 16; r1 += 16; r2 += 16; r3 += 16;
    d += 4 * dstStride;
  }
  for (; kk < kc; kk++) {
    store<f32>(d, load<f32>(r0));
    store<f32>(d, load<f32>(r1), 4);
    store<f32>(d, load<f32>(r2), 8);
    store<f32>(d, load<f32>(r3), 12);
    r0 += 4; r1 += 4; r2 += 4; r3 += 4;
    d += dstStride;
  }
}

/** C[1, cols<=8] (+)= A[1, kc] x panel[kc, 8]. */
@inline function tile1x8(a: usize, panel: usize, kc: i32, c: usize, cols: i32, accumulate: bool): void {
  let c0 = f32x4.splat(0), c1 = f32x4.splat(0);
  let p = panel;
  const end = a + (<usize>kc << 2);
  for (let a0 = a; a0 < end; a0 += 4) {
    const s = v128.load32_splat(a0);
    c0 = madd(s, v128.load(p), c0);
    c1 = madd(s, v128.load(p, 16), c1);
    p += PANEL_ROW_BYTES;
  }
  writeRow(c, c0, c1, cols, accumulate);
}

/** Stores (or adds) one tile row of 8 floats, of which the first `cols` are real. */
@inline function writeRow(c: usize, lo: v128, hi: v128, cols: i32, accumulate: bool): void {
  if (cols == 8) {
    if (accumulate) {
      lo = f32x4.add(lo, v128.load(c));
      hi = f32x4.add(hi, v128.load(c, 16));
    }
    v128.store(c, lo);
    v128.store(c, hi, 16);
  } else if (accumulate) {
    addLanes(c, lo, min(cols, 4));
    addLanes(c + 16, hi, cols - 4);
  } else {
    storeLanes(c, lo, min(cols, 4));
    storeLanes(c + 16, hi, cols - 4);
  }
}

/** Scratch bytes multiplyPackedBlock needs for its packed rows of A. */
export const PACKED_A_BYTES: usize = <usize>MC * <usize>KC * 4;

/**
 * C[m, n] (+)= A[m, k0:k0+kc] x packed, where `packed` holds one K block of B as ceil(n/8) panels of kc x 8.
 * A is row-major with lda floats per row; C row-major with n floats per row; `packedA` is PACKED_A_BYTES of scratch.
 */
export function multiplyPackedBlock(a: usize, lda: i32, m: i32, kc: i32, packed: usize, c: usize, n: i32, accumulate: bool, packedA: usize): void {
  const ldaBytes = <usize>lda << 2;
  const ldcBytes = <usize>n << 2;
  const panels = (n + 7) >> 3;
  const panelBytes = <usize>kc * PANEL_ROW_BYTES;
  const tileBytes = <usize>kc << 4;
  for (let i0 = 0; i0 < m; i0 += MC) {
    const i1 = min(i0 + MC, m);
    const fullRows = i0 + ((i1 - i0) & ~3);
    for (let i = i0; i < fullRows; i += 4) packRows4(a + <usize>i * ldaBytes, ldaBytes, kc, packedA + <usize>((i - i0) >> 2) * tileBytes, 16);
    for (let p = 0; p < panels; p++) {
      const panel = packed + <usize>p * panelBytes;
      const cols = min(8, n - p * 8);
      const cCol = c + (<usize>(p * 8) << 2);
      for (let i = i0; i < fullRows; i += 4) {
        tile4x8(packedA + <usize>((i - i0) >> 2) * tileBytes, panel, kc, cCol + <usize>i * ldcBytes, ldcBytes, cols, accumulate);
      }
      for (let i = fullRows; i < i1; i++) {
        tile1x8(a + <usize>i * ldaBytes, panel, kc, cCol + <usize>i * ldcBytes, cols, accumulate);
      }
    }
  }
}
