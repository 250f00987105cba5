// silu on f32: x * sigmoid(x), with a SIMD exp (shared/simd_math.ts); swiglu shares the loop.
import { expConstant, expv } from './shared/simd_math';

/** out[i] = x[i] * sigmoid(x[i]). */
export function silu_f32(x: usize, out: usize, n: i32): void {
  gatedSilu(x, 0, out, n);
}

/** silu(x) = x / (1 + e^-x), times up[i] when up is not 0. */
@inline export function gatedSilu(x: usize, up: usize, out: usize, n: i32): void {
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
