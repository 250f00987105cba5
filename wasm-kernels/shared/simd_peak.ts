// A tight f32x4 multiply-add loop that measures this core's SIMD peak (benchmarks plot GFLOP/s against it): 12
// independent accumulators, enough to cover the latency of two FMA pipes. One fused relaxed_madd per step in the
// relaxed build, a multiply and an add in the plain one (madd in simd_math.ts).
import { madd } from './simd_math';

/** Runs `iterations` steps of 12 f32x4 multiply-adds (96 flops each) and returns a sum that depends on all of them. */
export function simd_peak_f32(iterations: i32, seed: f32): f32 {
  const x = f32x4.splat(seed);
  const y = f32x4.splat(<f32>0.999);
  let a0 = x, a1 = x, a2 = x, a3 = x, a4 = x, a5 = x;
  let a6 = x, a7 = x, a8 = x, a9 = x, a10 = x, a11 = x;
  for (let i = 0; i < iterations; i++) {
    a0 = madd(a0, y, x); a1 = madd(a1, y, x); a2 = madd(a2, y, x); a3 = madd(a3, y, x);
    a4 = madd(a4, y, x); a5 = madd(a5, y, x); a6 = madd(a6, y, x); a7 = madd(a7, y, x);
    a8 = madd(a8, y, x); a9 = madd(a9, y, x); a10 = madd(a10, y, x); a11 = madd(a11, y, x);
  }
  const s = f32x4.add(f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3)), f32x4.add(f32x4.add(a4, a5), f32x4.add(a6, a7)));
  const t = f32x4.add(s, f32x4.add(f32x4.add(a8, a9), f32x4.add(a10, a11)));
  return f32x4.extract_lane(t, 0) + f32x4.extract_lane(t, 1) + f32x4.extract_lane(t, 2) + f32x4.extract_lane(t, 3);
}
