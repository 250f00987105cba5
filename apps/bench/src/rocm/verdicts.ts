// Verdict lines: MET / MISSED against a target on a GPU; NOT MEASURED on the CPU emulation (its figures are
// not GPU figures) or when the measurement failed. A result whose sampled check failed never counts as MET.

/** Where the figures came from. */
export type FigureSource = { readonly kind: 'gpu'; readonly device: string } | { readonly kind: 'emulated' };

/** One target check. */
export interface TargetCheck {
  /** What was measured, e.g. "f32 matmul 4096 (kernel, events)". */
  readonly label: string;
  /** Measured figure, or why there is none. */
  readonly measured: number | string;
  /** The target: measured >= target. */
  readonly target: number;
  /** Unit of both, e.g. "TFLOP/s". */
  readonly unit: string;
  /** Extra figures for the line (times, ratios). */
  readonly detail?: string;
  /** The sampled CPU-reference check failed: the description. */
  readonly wrongResults?: string;
}

function figure(value: number): string {
  const a = Math.abs(value);
  return a >= 100 ? value.toFixed(0) : a >= 1 ? value.toFixed(2) : value.toPrecision(3);
}

/** The verdict line of one target check. */
export function targetVerdict(check: TargetCheck, source: FigureSource): string {
  const target = `target >= ${figure(check.target)} ${check.unit}`;
  const detail = check.detail === undefined ? '' : `; ${check.detail}`;
  if (typeof check.measured === 'string') return `${check.label}: NOT MEASURED (${target}): ${check.measured}`;
  const measured = `${figure(check.measured)} ${check.unit}${detail}`;
  if (source.kind === 'emulated') {
    return `${check.label}: NOT MEASURED (${target}): figures are the CPU emulation's, not a GPU's (emulation at tiny sizes: ${measured})`;
  }
  if (check.wrongResults !== undefined)
    return `${check.label}: ${measured} (${target}) on ${source.device} -> MISSED: results wrong (${check.wrongResults})`;
  return `${check.label}: ${measured} (${target}) on ${source.device} -> ${check.measured >= check.target ? 'MET' : 'MISSED'}`;
}
