// Sampled correctness checks of the suites' results: a wrong fast kernel is not a result. Sizes run to a 4096^3
// matmul and a 3 GiB cosine scan, so a few entries are checked, each against @tandem/reference (the one oracle) run
// on just the slices that entry depends on. Sums are held to |got - want| <= tolerance * sum(|terms|), the terms'
// magnitudes also from the reference: a correct f32 accumulation meets that by orders of magnitude, a wrong index or
// a dropped block does not.
import { InvalidArgumentError, type QuantizedDType } from '@tandem/core';
import { cosineSimilarity, dequantize, matmul, quantizedMatmul } from '@tandem/reference';

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
  if (!Number.isInteger(samples) || samples <= 0)
    throw new InvalidArgumentError('samples', samples, 'must be an integer > 0');
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
    const base = {
      checked: this.checked,
      worstError: this.worst,
      tolerance: this.tolerance,
      ok: this.firstBad === undefined && this.checked > 0,
    };
    return this.firstBad === undefined ? base : { ...base, firstBad: this.firstBad };
  }
}

/** The reference's dot product of x and y, and of |x| and |y| (the magnitude the bound scales with). */
function dotAndMagnitude(x: Float32Array, y: Float32Array): { dot: number; magnitude: number } {
  const n = x.length;
  return {
    dot: matmul(x, y, 1, n, 1)[0] ?? NaN,
    magnitude: matmul(x.map(Math.abs), y.map(Math.abs), 1, n, 1)[0] ?? NaN,
  };
}

/** Checks sampled entries of c = a . b, all n x n row-major f32; relative bound. */
export function checkMatmulSamples(
  a: Float32Array,
  b: Float32Array,
  c: Float32Array,
  n: number,
  samples: number,
  relTolerance = 1e-4,
): SampleCheck {
  if (a.length !== n * n || b.length !== n * n || c.length !== n * n)
    throw new InvalidArgumentError('matmul sizes', [a.length, b.length, c.length], `must all be n * n = ${n * n}`);
  const acc = new CheckAccumulator(relTolerance);
  for (const index of sampleIndices(n * n, samples)) {
    const [row, col] = [Math.floor(index / n), index % n];
    const column = Float32Array.from({ length: n }, (_, p) => b[p * n + col] ?? 0);
    const { dot, magnitude } = dotAndMagnitude(a.subarray(row * n, (row + 1) * n), column);
    const got = c[index] ?? NaN;
    acc.add(index, got, dot, Math.abs(got - dot) / (magnitude + 1e-30));
  }
  return acc.result();
}

/** Checks sampled rows of out = x . w^T for w [n, k] in a block format, x [k] f32, out [n] f32; relative bound. */
export function checkMatvecSamples(
  format: QuantizedDType,
  w: Uint8Array,
  x: Float32Array,
  out: Float32Array,
  n: number,
  k: number,
  samples: number,
  relTolerance = 1e-4,
): SampleCheck {
  const rowBytes = w.byteLength / n;
  if (x.length !== k || out.length !== n || !Number.isInteger(rowBytes))
    throw new InvalidArgumentError(
      'matvec sizes',
      [w.byteLength, x.length, out.length],
      `must be n rows of bytes, ${k} and ${n}`,
    );
  const acc = new CheckAccumulator(relTolerance);
  for (const row of sampleIndices(n, samples)) {
    const wRow = w.subarray(row * rowBytes, (row + 1) * rowBytes);
    const want = quantizedMatmul(x, wRow, format, 1, k, 1)[0] ?? NaN;
    const { magnitude } = dotAndMagnitude(x, dequantize(format, wRow, k));
    const got = out[row] ?? NaN;
    acc.add(row, got, want, Math.abs(got - want) / (magnitude + 1e-30));
  }
  return acc.result();
}

/** Checks sampled scores of one query [dim] against targets [count, dim]; absolute bound. */
export function checkCosineSamples(
  query: Float32Array,
  targets: Float32Array,
  scores: Float32Array,
  dim: number,
  samples: number,
  tolerance = 1e-4,
): SampleCheck {
  const count = scores.length;
  if (query.length !== dim || targets.length !== count * dim)
    throw new InvalidArgumentError('cosine sizes', [query.length, targets.length], `must be ${dim} and ${count * dim}`);
  const acc = new CheckAccumulator(tolerance);
  for (const t of sampleIndices(count, samples)) {
    const want = cosineSimilarity(query, targets.subarray(t * dim, (t + 1) * dim), 1, 1, dim)[0] ?? NaN;
    const got = scores[t] ?? NaN;
    acc.add(t, got, want, Math.abs(got - want));
  }
  return acc.result();
}

/**
 * Checks sampled entries of an elementwise result exactly: `kernel` (a reference kernel such as `add`, or
 * `(x) => scale(x, 1.5)`) runs on the sampled entries of each input, all of got's length.
 */
export function checkElementwise(
  got: Float32Array,
  inputs: readonly Float32Array[],
  kernel: (...inputs: Float32Array[]) => Float32Array,
  samples: number,
): SampleCheck {
  if (inputs.some((x) => x.length !== got.length))
    throw new InvalidArgumentError(
      'elementwise sizes',
      inputs.map((x) => x.length),
      `must all be ${got.length}`,
    );
  const indices = sampleIndices(got.length, samples);
  const want = kernel(...inputs.map((x) => Float32Array.from(indices, (i) => x[i] ?? 0)));
  const acc = new CheckAccumulator(0);
  indices.forEach((i, s) => {
    const [value, expected] = [got[i] ?? NaN, want[s] ?? NaN];
    acc.add(i, value, expected, Math.abs(value - expected));
  });
  return acc.result();
}

/** "ok (n sampled, worst e <= tol)" or "FAILED (...; first at i: got, want)". */
export function describeCheck(check: SampleCheck): string {
  const worst = check.worstError.toExponential(1);
  if (check.ok) return `ok (${check.checked} sampled, worst ${worst} <= ${check.tolerance})`;
  return `FAILED (${check.checked} sampled, worst ${worst} > ${check.tolerance}; first at ${check.firstBad ?? 'none checked'})`;
}
