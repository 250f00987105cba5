// scale on f32 (the f16 variant converts around it).

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
