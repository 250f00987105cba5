// softmax: row-wise over the last dimension of [batch..., rows, cols]. Causal: row r sees columns c <= r + (cols - rows);
// masked columns and rows with nothing visible (or all -inf) give zeros.
import { expConstant, expv, hmax, hsum } from './shared/simd_math';

/** totalRows rows of `cols` floats; rows = the second-to-last dimension (1 for a vector), used by the causal mask. */
export function softmax_f32(x: usize, out: usize, totalRows: i32, rows: i32, cols: i32, causal: bool): void {
  const rowBytes = <usize>cols << 2;
  for (let g = 0; g < totalRows; g++) {
    const r = g % rows;
    const visible = causal ? min(cols, r + cols - rows + 1) : cols;
    softmaxRow(x + <usize>g * rowBytes, out + <usize>g * rowBytes, max(visible, 0), cols);
  }
}

/** Softmax of the first `visible` values of a row into out; out[visible..cols) = 0. */
export function softmaxRow(x: usize, out: usize, visible: i32, cols: i32): void {
  const top = rowMax(x, visible);
  if (visible == 0 || top == -Infinity) {
    memory.fill(out, 0, <usize>cols << 2);
    return;
  }
  const sum = expShifted(x, out, visible, top);
  const inv = <f32>(1.0 / <f64>sum);
  const s = f32x4.splat(inv);
  let i = 0;
  for (; i + 4 <= visible; i += 4) {
    const o = <usize>i << 2;
    v128.store(out + o, f32x4.mul(v128.load(out + o), s));
  }
  for (; i < visible; i++) store<f32>(out + (<usize>i << 2), load<f32>(out + (<usize>i << 2)) * inv);
  if (visible < cols) memory.fill(out + (<usize>visible << 2), 0, <usize>(cols - visible) << 2);
}

/** Largest of n floats (-inf for n = 0). */
export function rowMax(x: usize, n: i32): f32 {
  let m0 = f32x4.splat(-Infinity), m1 = m0;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const o = <usize>i << 2;
    m0 = f32x4.pmax(m0, v128.load(x + o));
    m1 = f32x4.pmax(m1, v128.load(x + o, 16));
  }
  for (; i + 4 <= n; i += 4) m0 = f32x4.pmax(m0, v128.load(x + (<usize>i << 2)));
  let m = hmax(f32x4.pmax(m0, m1));
  for (; i < n; i++) m = max(m, load<f32>(x + (<usize>i << 2)));
  return m;
}

/** out[i] = e^(x[i] - shift) for n floats; returns their sum. */
export function expShifted(x: usize, out: usize, n: i32, shift: f32): f32 {
  const log2e = expConstant(0), ln2hi = expConstant(1), ln2lo = expConstant(2);
  const p1 = expConstant(3), p2 = expConstant(4), p3 = expConstant(5), p4 = expConstant(6), p5 = expConstant(7);
  const one = expConstant(8), lo = expConstant(9), hi = expConstant(10), round = expConstant(11), half = expConstant(12);
  const s = f32x4.splat(shift);
  let acc0 = f32x4.splat(0), acc1 = acc0;
  let i = 0;
  // Two vectors per trip: independent chains overlap (one exp is a long dependency chain).
  for (; i + 8 <= n; i += 8) {
    const o = <usize>i << 2;
    const e0 = expv(f32x4.sub(v128.load(x + o), s), log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    const e1 = expv(f32x4.sub(v128.load(x + o, 16), s), log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    v128.store(out + o, e0);
    v128.store(out + o, e1, 16);
    acc0 = f32x4.add(acc0, e0);
    acc1 = f32x4.add(acc1, e1);
  }
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 2;
    const e = expv(f32x4.sub(v128.load(x + o), s), log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    v128.store(out + o, e);
    acc0 = f32x4.add(acc0, e);
  }
  let sum = hsum(f32x4.add(acc0, acc1));
  for (; i < n; i++) {
    const e = <f32>Math.exp(<f64>(load<f32>(x + (<usize>i << 2)) - shift));
    store<f32>(out + (<usize>i << 2), e);
    sum += e;
  }
  return sum;
}
