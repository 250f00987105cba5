// add, mul, scale, silu, swiglu on f32 (the f16 variants of add / mul / scale convert around these).
import { expConstant, expv } from './simd_math';

/** out[i] = a[i] + b[i % bn]: b is a's shape or a suffix of it (broadcast over leading dimensions); n = numel(a). */
export function add_f32(a: usize, b: usize, out: usize, n: i32, bn: i32): void {
  binary(a, b, out, n, bn, false);
}

/** out[i] = a[i] * b[i % bn], broadcast as add_f32. */
export function mul_f32(a: usize, b: usize, out: usize, n: i32, bn: i32): void {
  binary(a, b, out, n, bn, true);
}

@inline function binary(a: usize, b: usize, out: usize, n: i32, bn: i32, isMul: bool): void {
  if (n <= 0 || bn <= 0) return;
  if (bn == 1) {
    const s = v128.load32_splat(b);
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      const o = <usize>i << 2;
      const x = v128.load(a + o);
      v128.store(out + o, isMul ? f32x4.mul(x, s) : f32x4.add(x, s));
    }
    const sb = load<f32>(b);
    for (; i < n; i++) {
      const o = <usize>i << 2;
      store<f32>(out + o, isMul ? load<f32>(a + o) * sb : load<f32>(a + o) + sb);
    }
    return;
  }
  const rowBytes = <usize>bn << 2;
  const rows = n / bn;
  for (let r = 0; r < rows; r++) {
    const ar = a + <usize>r * rowBytes;
    const or = out + <usize>r * rowBytes;
    let i = 0;
    for (; i + 4 <= bn; i += 4) {
      const o = <usize>i << 2;
      const x = v128.load(ar + o);
      const y = v128.load(b + o);
      v128.store(or + o, isMul ? f32x4.mul(x, y) : f32x4.add(x, y));
    }
    for (; i < bn; i++) {
      const o = <usize>i << 2;
      store<f32>(or + o, isMul ? load<f32>(ar + o) * load<f32>(b + o) : load<f32>(ar + o) + load<f32>(b + o));
    }
  }
}

/** out[i] = x[i] * factor. */
export function scale_f32(x: usize, out: usize, n: i32, factor: f32): void {
  const s = f32x4.splat(factor);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 2;
    v128.store(out + o, f32x4.mul(v128.load(x + o), s));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    store<f32>(out + o, load<f32>(x + o) * factor);
  }
}

/** out[i] = x[i] * sigmoid(x[i]). */
export function silu_f32(x: usize, out: usize, n: i32): void {
  gatedSilu(x, 0, out, n);
}

/** out[i] = silu(gate[i]) * up[i]. */
export function swiglu_f32(gate: usize, up: usize, out: usize, n: i32): void {
  gatedSilu(gate, up, out, n);
}

/** silu(x) = x / (1 + e^-x), times up[i] when up is not 0. */
@inline function gatedSilu(x: usize, up: usize, out: usize, n: i32): void {
  const log2e = expConstant(0), ln2hi = expConstant(1), ln2lo = expConstant(2);
  const p1 = expConstant(3), p2 = expConstant(4), p3 = expConstant(5), p4 = expConstant(6), p5 = expConstant(7);
  const one = expConstant(8), lo = expConstant(9), hi = expConstant(10), round = expConstant(11), half = expConstant(12);
  let i = 0;
  // Two vectors per trip: one exp is a long dependency chain, two overlap.
  for (; i + 8 <= n; i += 8) {
    const o = <usize>i << 2;
    const v0 = v128.load(x + o), v1 = v128.load(x + o, 16);
    const e0 = expv(f32x4.neg(v0), log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    const e1 = expv(f32x4.neg(v1), log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    let s0 = f32x4.div(v0, f32x4.add(one, e0));
    let s1 = f32x4.div(v1, f32x4.add(one, e1));
    if (up != 0) {
      s0 = f32x4.mul(s0, v128.load(up + o));
      s1 = f32x4.mul(s1, v128.load(up + o, 16));
    }
    v128.store(out + o, s0);
    v128.store(out + o, s1, 16);
  }
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 2;
    const v = v128.load(x + o);
    const e = expv(f32x4.neg(v), log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    let s = f32x4.div(v, f32x4.add(one, e));
    if (up != 0) s = f32x4.mul(s, v128.load(up + o));
    v128.store(out + o, s);
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    const v = load<f32>(x + o);
    let s = <f32>(<f64>v / (1.0 + Math.exp(-<f64>v)));
    if (up != 0) s *= load<f32>(up + o);
    store<f32>(out + o, s);
  }
}
