// matmul (f32): C[M, N] = A[M, K] x B[K, N], all row-major. Small M streams B's rows directly; larger M packs
// each K block of B into 8-column panels and runs the 4x8 register tile (matmul_panels.ts).
import { KC, PANEL_ROW_BYTES, PACKED_A_BYTES, packedBlockBytes, multiplyPackedBlock } from './shared/matmul_panels';
import { madd } from './shared/simd_math';

/** Below this many rows of A, packing B costs more than it saves: stream B instead. */
const STREAM_MAX_ROWS: i32 = 3;

/** Scratch bytes matmul_f32 needs for these sizes (0 when it streams). */
export function matmul_f32_scratch_bytes(m: i32, k: i32, n: i32): usize {
  return m <= STREAM_MAX_ROWS ? 0 : PACKED_A_BYTES + packedBlockBytes(n);
}

/** C = A x B for f32; `scratch` holds matmul_f32_scratch_bytes(m, k, n) bytes, 16-aligned. */
export function matmul_f32(a: usize, b: usize, c: usize, m: i32, k: i32, n: i32, scratch: usize): void {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    memory.fill(c, 0, (<usize>m * <usize>n) << 2);
    return;
  }
  if (m <= STREAM_MAX_ROWS) {
    for (let i = 0; i < m; i++) rowTimesMatrix(a + ((<usize>i * <usize>k) << 2), b, c + ((<usize>i * <usize>n) << 2), k, n);
    return;
  }
  for (let k0 = 0; k0 < k; k0 += KC) {
    const kc = min(KC, k - k0);
    packPanels(b + ((<usize>k0 * <usize>n) << 2), n, kc, scratch + PACKED_A_BYTES, n);
    multiplyPackedBlock(a + (<usize>k0 << 2), k, m, kc, scratch + PACKED_A_BYTES, c, n, k0 > 0, scratch);
  }
}

/**
 * Packs kc rows of `cols` columns of B (rows n floats apart) into ceil(cols/8) panels of kc x 8 floats, zero-padding
 * the last panel.
 */
export function packPanels(b: usize, n: i32, kc: i32, dst: usize, cols: i32): void {
  const ldb = <usize>n << 2;
  const full = cols >> 3;
  const panelBytes = <usize>kc * PANEL_ROW_BYTES;
  for (let p = 0; p < full; p++) {
    let src = b + (<usize>(p * 8) << 2);
    let d = dst + <usize>p * panelBytes;
    for (let r = 0; r < kc; r++) {
      v128.store(d, v128.load(src));
      v128.store(d, v128.load(src, 16), 16);
      src += ldb;
      d += PANEL_ROW_BYTES;
    }
  }
  const rest = cols - full * 8;
  if (rest == 0) return;
  let src = b + (<usize>(full * 8) << 2);
  let d = dst + <usize>full * panelBytes;
  for (let r = 0; r < kc; r++) {
    v128.store(d, f32x4.splat(0));
    v128.store(d, f32x4.splat(0), 16);
    for (let j = 0; j < rest; j++) store<f32>(d + (<usize>j << 2), load<f32>(src + (<usize>j << 2)));
    src += ldb;
    d += PANEL_ROW_BYTES;
  }
}

/** c[n] = a[k] x B[k, n]: 32-column strips of B streamed down its rows, 8 accumulators per strip. */
function rowTimesMatrix(a: usize, b: usize, c: usize, k: i32, n: i32): void {
  const ldb = <usize>n << 2;
  let j = 0;
  for (; j + 32 <= n; j += 32) {
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0), s2 = f32x4.splat(0), s3 = f32x4.splat(0);
    let s4 = f32x4.splat(0), s5 = f32x4.splat(0), s6 = f32x4.splat(0), s7 = f32x4.splat(0);
    let row = b + (<usize>j << 2);
    for (let kk = 0; kk < k; kk++) {
      const x = v128.load32_splat(a + (<usize>kk << 2));
      s0 = madd(x, v128.load(row), s0);
      s1 = madd(x, v128.load(row, 16), s1);
      s2 = madd(x, v128.load(row, 32), s2);
      s3 = madd(x, v128.load(row, 48), s3);
      s4 = madd(x, v128.load(row, 64), s4);
      s5 = madd(x, v128.load(row, 80), s5);
      s6 = madd(x, v128.load(row, 96), s6);
      s7 = madd(x, v128.load(row, 112), s7);
      row += ldb;
    }
    const out = c + (<usize>j << 2);
    v128.store(out, s0); v128.store(out, s1, 16); v128.store(out, s2, 32); v128.store(out, s3, 48);
    v128.store(out, s4, 64); v128.store(out, s5, 80); v128.store(out, s6, 96); v128.store(out, s7, 112);
  }
  for (; j + 4 <= n; j += 4) {
    let s = f32x4.splat(0);
    let row = b + (<usize>j << 2);
    for (let kk = 0; kk < k; kk++) {
      s = madd(v128.load32_splat(a + (<usize>kk << 2)), v128.load(row), s);
      row += ldb;
    }
    v128.store(c + (<usize>j << 2), s);
  }
  for (; j < n; j++) {
    let s: f32 = 0;
    let row = b + (<usize>j << 2);
    for (let kk = 0; kk < k; kk++) {
      s += load<f32>(a + (<usize>kk << 2)) * load<f32>(row);
      row += ldb;
    }
    store<f32>(c + (<usize>j << 2), s);
  }
}
