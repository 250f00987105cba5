// CPU references on sampled entries: each measured result is checked at a few positions against float64 sums.
// Error bound for sums: |got - exact| <= relTolerance * sum(|terms|) (plus a tiny absolute floor), which a
// correct f32 accumulation meets by orders of magnitude and a wrong index or dropped block does not.
import { dequantizeFrom, InvalidArgumentError } from '@tandem/core';
import { BLOCK_BYTES, type BlockFormat } from './figures.ts';

/** The outcome of one sampled check. */
export interface SampleCheck {
  /** Entries compared. */
  readonly checked: number;
  /** Largest error found, in the bound's unit (relative to the term magnitudes, or absolute for cosine). */
  readonly worstError: number;
  /** The bound it was held to. */
  readonly tolerance: number;
  /** Every entry within the bound. */
  readonly ok: boolean;
  /** The first entry outside it: "index: got X, want Y". */
  readonly firstBad?: string;
}

/** `samples` distinct indices in [0, count): the first, the last and evenly spread ones between. */
export function sampleIndices(count: number, samples: number): number[] {
  if (!Number.isInteger(count) || count <= 0) throw new InvalidArgumentError('count', count, 'must be an integer > 0');
  if (!Number.isInteger(samples) || samples <= 0) throw new InvalidArgumentError('samples', samples, 'must be an integer > 0');
  if (samples >= count) return Array.from({ length: count }, (_, i) => i);
  if (samples === 1) return [0];
  const picked = new Set<number>();
  for (let s = 0; s < samples; s++) picked.add(Math.round((s * (count - 1)) / (samples - 1)));
  return [...picked].sort((a, b) => a - b);
}

/** Collects per-entry errors into a SampleCheck. */
class CheckAccumulator {
  private checked = 0;
  private worst = 0;
  private firstBad: string | undefined;

  constructor(private readonly tolerance: number) {}

  /** Records one entry: got vs want, with the error already scaled to the bound's unit. */
  add(index: number, got: number, want: number, error: number): void {
    this.checked++;
    const bad = !(error <= this.tolerance);
    if (bad && this.firstBad === undefined) this.firstBad = `${index}: got ${got}, want ${want}`;
    if (!(error <= this.worst)) this.worst = error;
  }

  /** The summary. */
  result(): SampleCheck {
    const base = { checked: this.checked, worstError: this.worst, tolerance: this.tolerance, ok: this.firstBad === undefined && this.checked > 0 };
    return this.firstBad === undefined ? base : { ...base, firstBad: this.firstBad };
  }
}

function scaledError(got: number, exact: number, magnitude: number): number {
  return Math.abs(got - exact) / (magnitude + 1e-30);
}

/** Checks sampled entries of c = a . b, all n x n row-major f32. */
export function checkMatmulSamples(a: Float32Array, b: Float32Array, c: Float32Array, n: number, samples: number, relTolerance = 1e-4): SampleCheck {
  if (a.length !== n * n || b.length !== n * n || c.length !== n * n) throw new InvalidArgumentError('matmul sizes', [a.length, b.length, c.length], `must all be n * n = ${n * n}`);
  const acc = new CheckAccumulator(relTolerance);
  for (const index of sampleIndices(n * n, samples)) {
    const row = Math.floor(index / n);
    const col = index % n;
    let sum = 0;
    let magnitude = 0;
    for (let i = 0; i < n; i++) {
      const term = (a[row * n + i] ?? 0) * (b[i * n + col] ?? 0);
      sum += term;
      magnitude += Math.abs(term);
    }
    const got = c[index] ?? NaN;
    acc.add(index, got, sum, scaledError(got, sum, magnitude));
  }
  return acc.result();
}

/** Checks sampled rows of out = x . w^T for w [n, k] in a block format, x [k] f32, out [n] f32. */
export function checkMatvecSamples(format: BlockFormat, w: Uint8Array, x: Float32Array, out: Float32Array, n: number, k: number, samples: number, relTolerance = 1e-4): SampleCheck {
  const rowBytes = (k / 32) * BLOCK_BYTES[format];
  if (x.length !== k || out.length !== n || w.byteLength !== n * rowBytes) throw new InvalidArgumentError('matvec sizes', [w.byteLength, x.length, out.length], `must be ${n * rowBytes} bytes, ${k} and ${n}`);
  const acc = new CheckAccumulator(relTolerance);
  for (const row of sampleIndices(n, samples)) {
    const values = dequantizeFrom(format, w.subarray(row * rowBytes, (row + 1) * rowBytes), k);
    let sum = 0;
    let magnitude = 0;
    for (let i = 0; i < k; i++) {
      const term = (values[i] ?? 0) * (x[i] ?? 0);
      sum += term;
      magnitude += Math.abs(term);
    }
    const got = out[row] ?? NaN;
    acc.add(row, got, sum, scaledError(got, sum, magnitude));
  }
  return acc.result();
}

/** Checks sampled entries of the cosine similarity of one query [dim] with targets [count, dim]; absolute bound. */
export function checkCosineSamples(query: Float32Array, targets: Float32Array, scores: Float32Array, dim: number, samples: number, tolerance = 1e-4): SampleCheck {
  const count = scores.length;
  if (query.length !== dim || targets.length !== count * dim) throw new InvalidArgumentError('cosine sizes', [query.length, targets.length], `must be ${dim} and ${count * dim}`);
  let queryNorm = 0;
  for (let i = 0; i < dim; i++) queryNorm += (query[i] ?? 0) ** 2;
  const acc = new CheckAccumulator(tolerance);
  for (const t of sampleIndices(count, samples)) {
    let dot = 0;
    let norm = 0;
    for (let i = 0; i < dim; i++) {
      const v = targets[t * dim + i] ?? 0;
      dot += v * (query[i] ?? 0);
      norm += v * v;
    }
    const want = dot / Math.sqrt(queryNorm * norm);
    const got = scores[t] ?? NaN;
    acc.add(t, got, want, Math.abs(got - want));
  }
  return acc.result();
}

/** Checks every entry of an elementwise result against `expected(i)` exactly (add, scale of small values). */
export function checkElementwise(got: Float32Array, expected: (i: number) => number, samples: number): SampleCheck {
  const acc = new CheckAccumulator(0);
  for (const i of sampleIndices(got.length, samples)) {
    const want = Math.fround(expected(i));
    const value = got[i] ?? NaN;
    acc.add(i, value, want, Math.abs(value - want));
  }
  return acc.result();
}

/** "ok (n sampled, worst e <= tol)" or "FAILED at i: got, want". */
export function describeCheck(check: SampleCheck): string {
  const worst = check.worstError.toExponential(1);
  if (check.ok) return `ok (${check.checked} sampled, worst ${worst} <= ${check.tolerance})`;
  return `FAILED (${check.checked} sampled, worst ${worst} > ${check.tolerance}; first at ${check.firstBad ?? 'none checked'})`;
}
