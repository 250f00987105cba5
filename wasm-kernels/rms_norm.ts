// rmsNorm: out = x / sqrt(mean(x^2) + eps) * weight, over the last dimension.

/** rows rows of n floats; weight is n floats, or 0 for none. */
export function rms_norm_f32(x: usize, weight: usize, out: usize, rows: i32, n: i32, eps: f32): void {
  const rowBytes = <usize>n << 2;
  for (let r = 0; r < rows; r++) {
    const xr = x + <usize>r * rowBytes;
    const or = out + <usize>r * rowBytes;
    let a0 = f32x4.splat(0), a1 = a0;
    let i = 0;
    for (; i + 8 <= n; i += 8) {
      const o = <usize>i << 2;
      const v0 = v128.load(xr + o), v1 = v128.load(xr + o, 16);
      a0 = f32x4.add(a0, f32x4.mul(v0, v0));
      a1 = f32x4.add(a1, f32x4.mul(v1, v1));
    }
    const a = f32x4.add(a0, a1);
    let sum = <f64>f32x4.extract_lane(a, 0) + <f64>f32x4.extract_lane(a, 1) + <f64>f32x4.extract_lane(a, 2) + <f64>f32x4.extract_lane(a, 3);
    for (; i < n; i++) {
      const v = <f64>load<f32>(xr + (<usize>i << 2));
      sum += v * v;
    }
    const inv = <f32>(1.0 / Math.sqrt(sum / <f64>n + <f64>eps));
    const s = f32x4.splat(inv);
    i = 0;
    for (; i + 4 <= n; i += 4) {
      const o = <usize>i << 2;
      let v = f32x4.mul(v128.load(xr + o), s);
      if (weight != 0) v = f32x4.mul(v, v128.load(weight + o));
      v128.store(or + o, v);
    }
    for (; i < n; i++) {
      const o = <usize>i << 2;
      let v = load<f32>(xr + o) * inv;
      if (weight != 0) v *= load<f32>(weight + o);
      store<f32>(or + o, v);
    }
  }
}
