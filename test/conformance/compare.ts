// Output comparison for the conformance suite: NaN equals NaN, infinities equal when their signs match,
// finite values pass when |got - want| <= abs + rel * |want|, integers compare exactly, and topK indices may
// differ only where the values they point at tie (within the same tolerance).
import type { Op } from '@tandem/core';
import type { Tolerance } from './case.ts';
import { valuesOf, type HostTensor } from './host-tensor.ts';

/** One element that differs. */
export interface Mismatch {
  /** Flat (row-major) index. */
  readonly index: number;
  /** The backend's value. */
  readonly got: number;
  /** The reference's value. */
  readonly want: number;
}

/** Outcome of a comparison. */
export interface Comparison {
  /** True when everything matched. */
  readonly ok: boolean;
  /** The first few mismatches. */
  readonly mismatches: readonly Mismatch[];
  /** A readable summary naming the first mismatches; empty when ok. */
  readonly message: string;
}

/** How many mismatches a report lists. */
const REPORTED = 8;

const OK: Comparison = { ok: true, mismatches: [], message: '' };

function failed(message: string, mismatches: readonly Mismatch[] = []): Comparison {
  return { ok: false, mismatches, message };
}

/** True when `got` passes for `want`: NaN == NaN, same-signed infinities equal, else within abs + rel * |want|. */
export function withinTolerance(got: number, want: number, tolerance: Tolerance): boolean {
  if (Number.isNaN(got) || Number.isNaN(want)) return Number.isNaN(got) && Number.isNaN(want);
  if (!Number.isFinite(got) || !Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= tolerance.abs + tolerance.rel * Math.abs(want);
}

function summarize(
  label: string,
  total: number,
  count: number,
  rule: string,
  mismatches: readonly Mismatch[],
): Comparison {
  const listed = mismatches.map((m) => `[${m.index}] got ${m.got} want ${m.want}`).join('; ');
  return failed(`${label}: ${count} of ${total} elements differ (${rule}); first: ${listed}`, mismatches);
}

/** Compares float outputs element by element under `tolerance`. */
export function compareValues(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tolerance: Tolerance,
  label = 'output',
): Comparison {
  if (got.length !== want.length) return failed(`${label}: got ${got.length} elements, want ${want.length}`);
  const mismatches: Mismatch[] = [];
  let count = 0;
  for (let i = 0; i < want.length; i++) {
    const g = got[i] ?? 0;
    const w = want[i] ?? 0;
    if (withinTolerance(g, w, tolerance)) continue;
    count++;
    if (mismatches.length < REPORTED) mismatches.push({ index: i, got: g, want: w });
  }
  return count === 0
    ? OK
    : summarize(label, want.length, count, `abs ${tolerance.abs} + rel ${tolerance.rel} * |want|`, mismatches);
}

/** Compares integer outputs exactly. */
export function compareExact(got: ArrayLike<number>, want: ArrayLike<number>, label = 'output'): Comparison {
  return compareValues(got, want, { abs: 0, rel: 0 }, label);
}

/** What compareTopKIndices needs to know about the input. */
export interface TopKInput {
  /** The input values [rows, n]. */
  readonly x: ArrayLike<number>;
  /** Row length. */
  readonly n: number;
  /** Values kept per row. */
  readonly k: number;
}

/**
 * topK indices: equal, or at a position where the got index is a valid, not yet used column of that row whose
 * input value ties (within `tolerance`) with the value at the wanted index.
 */
export function compareTopKIndices(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  input: TopKInput,
  tolerance: Tolerance,
  label = 'indices',
): Comparison {
  if (got.length !== want.length) return failed(`${label}: got ${got.length} elements, want ${want.length}`);
  const { x, n, k } = input;
  const mismatches: Mismatch[] = [];
  let count = 0;
  for (let row = 0; k > 0 && row * k < want.length; row++) {
    const used = new Set<number>();
    for (let p = 0; p < k; p++) {
      const i = row * k + p;
      const g = got[i] ?? -1;
      const w = want[i] ?? -1;
      const valid = Number.isInteger(g) && g >= 0 && g < n && !used.has(g);
      used.add(g);
      if (valid && (g === w || withinTolerance(x[row * n + g] ?? NaN, x[row * n + w] ?? NaN, tolerance))) continue;
      count++;
      if (mismatches.length < REPORTED) mismatches.push({ index: i, got: g, want: w });
    }
  }
  return count === 0
    ? OK
    : summarize(
        label,
        want.length,
        count,
        'index differs and its value does not tie, or is repeated or out of range',
        mismatches,
      );
}

/** Compares every output of an op; topK's indices get the tie rule. */
export function compareOutputs(
  op: Op<HostTensor>,
  got: readonly HostTensor[],
  want: readonly HostTensor[],
  tolerance: Tolerance,
): Comparison {
  if (got.length !== want.length) return failed(`${op.op}: got ${got.length} outputs, want ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    const g = got[i];
    const w = want[i];
    if (g === undefined || w === undefined) continue;
    const label = `${op.op} output ${i} (${w.dtype} [${w.shape.join(', ')}])`;
    if (g.dtype !== w.dtype || g.shape.join(',') !== w.shape.join(',')) {
      return failed(`${label}: got ${g.dtype} [${g.shape.join(', ')}]`);
    }
    if (g.data.byteLength !== w.data.byteLength)
      return failed(`${label}: got ${g.data.byteLength} bytes, want ${w.data.byteLength}`);
    const result = compareOne(op, i, valuesOf(g), valuesOf(w), tolerance, label);
    if (!result.ok) return result;
  }
  return OK;
}

function compareOne(
  op: Op<HostTensor>,
  output: number,
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tolerance: Tolerance,
  label: string,
): Comparison {
  if (op.op === 'topK' && output === 1) {
    return compareTopKIndices(
      got,
      want,
      { x: valuesOf(op.x), n: op.x.shape[op.x.shape.length - 1] ?? 1, k: op.k },
      tolerance,
      label,
    );
  }
  if (got instanceof Int32Array || got instanceof Uint32Array) return compareExact(got, want, label);
  return compareValues(got, want, tolerance, label);
}
