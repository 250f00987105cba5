// What every engine in the side-by-side comparisons provides: prepare a problem once, then time one call that
// leaves the result in JS memory (as a caller would use it).

/** One engine's f32 matmul C = A x B (n x n), ready to time. */
export interface MatmulRunner {
  /** Engine name for the table. */
  readonly name: string;
  /** Threads it uses. */
  readonly threads: number;
  /** Prepares an n x n problem and returns one timed call (resolves when C is in JS memory). */
  prepare(n: number, a: Float32Array, b: Float32Array): Promise<() => Promise<Float32Array>>;
  /** Releases everything. */
  close(): Promise<void>;
}

/** One engine's cosine similarity of one query against resident targets, ready to time. */
export interface CosineRunner {
  /** Engine name for the table. */
  readonly name: string;
  /** Threads it uses. */
  readonly threads: number;
  /** What the engine is given (Tandem: raw targets; the others: targets normalised beforehand). */
  readonly note: string;
  /** Makes `targets` (count x dim) resident and returns one timed call for `query` (resolves with the scores). */
  prepare(query: Float32Array, targets: Float32Array, dim: number): Promise<() => Promise<Float32Array>>;
  /** Releases everything. */
  close(): Promise<void>;
}

/** Rows of `targets` scaled to unit length (what tfjs and plain JS get, so their cosine is one mat-vec). */
export function normalizedRows(targets: Float32Array, dim: number): Float32Array {
  const out = new Float32Array(targets.length);
  for (let row = 0; row < targets.length; row += dim) {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += (targets[row + j] ?? 0) ** 2;
    const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let j = 0; j < dim; j++) out[row + j] = (targets[row + j] ?? 0) * inv;
  }
  return out;
}

/** `query` scaled to unit length. */
export function normalizedQuery(query: Float32Array): Float32Array {
  return normalizedRows(query, query.length);
}
