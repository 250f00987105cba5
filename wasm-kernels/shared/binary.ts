// The loop of add and mul: out[i] = a[i] (+|*) b[i % bn], b repeating over a's leading dimensions.

/** out[i] = a[i] + b[i % bn] (or * when isMul); n = numel(a), bn = numel(b) divides n. */
@inline export function binary(a: usize, b: usize, out: usize, n: i32, bn: i32, isMul: bool): void {
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
