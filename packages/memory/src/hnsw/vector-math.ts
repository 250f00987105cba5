// The distance kernel: dot products of 32-bit float rows, unrolled by 4.

/** a[aOffset ..+dim] . b[bOffset ..+dim]. */
export function dot(a: Float32Array, aOffset: number, b: Float32Array, bOffset: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  const end4 = dim - (dim & 3);
  for (; i < end4; i += 4) {
    s0 += (a[aOffset + i] ?? 0) * (b[bOffset + i] ?? 0);
    s1 += (a[aOffset + i + 1] ?? 0) * (b[bOffset + i + 1] ?? 0);
    s2 += (a[aOffset + i + 2] ?? 0) * (b[bOffset + i + 2] ?? 0);
    s3 += (a[aOffset + i + 3] ?? 0) * (b[bOffset + i + 3] ?? 0);
  }
  for (; i < dim; i++) s0 += (a[aOffset + i] ?? 0) * (b[bOffset + i] ?? 0);
  return s0 + s1 + s2 + s3;
}

/** Copies src[srcOffset ..+dim] to dst[dstOffset ..] scaled to unit length (a zero row stays zero). */
export function normaliseInto(src: Float32Array, srcOffset: number, dst: Float32Array, dstOffset: number, dim: number): void {
  let sum = 0;
  for (let i = 0; i < dim; i++) {
    const v = src[srcOffset + i] ?? 0;
    sum += v * v;
  }
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < dim; i++) dst[dstOffset + i] = (src[srcOffset + i] ?? 0) * scale;
}
