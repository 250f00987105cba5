// Unit-length copies of vectors (the HNSW graph stores and searches unit rows).

/** Copies src[srcOffset ..+dim] to dst[dstOffset ..] scaled to unit length (a zero row stays zero). */
export function normaliseInto(
  src: Float32Array,
  srcOffset: number,
  dst: Float32Array,
  dstOffset: number,
  dim: number,
): void {
  let sum = 0;
  for (let i = 0; i < dim; i++) {
    const v = src[srcOffset + i] ?? 0;
    sum += v * v;
  }
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < dim; i++) dst[dstOffset + i] = (src[srcOffset + i] ?? 0) * scale;
}
