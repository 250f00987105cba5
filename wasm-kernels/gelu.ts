// gelu on f32, tanh approximation, as x / (1 + e^(-2u)) with u = sqrt(2/pi) (x + 0.044715 x^3) (the same value:
// 0.5 (1 + tanh(u)) = sigmoid(2u)), with a SIMD exp (shared/simd_math.ts). f16 converts around it.
import { expConstant, expv } from './shared/simd_math';

/** sqrt(2 / pi) and the cubic term's coefficient, times -2 (the exp's argument is -2u). */
const A: f32 = -2 * 0.7978845608028654;
const B: f32 = 0.044715;

/** out[i] = gelu(x[i]). */
export function gelu_f32(x: usize, out: usize, n: i32): void {
  const log2e = expConstant(0), ln2hi = expConstant(1), ln2lo = expConstant(2);
  const p1 = expConstant(3), p2 = expConstant(4), p3 = expConstant(5), p4 = expConstant(6), p5 = expConstant(7);
  const one = expConstant(8), lo = expConstant(9), hi = expConstant(10), round = expConstant(11), half = expConstant(12);
  const a = f32x4.splat(A), b = f32x4.splat(B);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o = <usize>i << 2;
    const v = v128.load(x + o);
    const arg = f32x4.mul(a, f32x4.add(v, f32x4.mul(b, f32x4.mul(v, f32x4.mul(v, v)))));
    const e = expv(arg, log2e, ln2hi, ln2lo, p1, p2, p3, p4, p5, one, lo, hi, round, half);
    v128.store(out + o, f32x4.div(v, f32x4.add(one, e)));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    const v = <f64>load<f32>(x + o);
    store<f32>(out + o, <f32>(v / (1.0 + Math.exp(<f64>A * (v + <f64>B * v * v * v)))));
  }
}
