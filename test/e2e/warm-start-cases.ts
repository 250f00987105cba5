// The warm-start page's workload and what it reports (issue 31: time from createEngine() to the first call served by
// the faster backend, cold and warm). Shared by the page (browser) and warm-start.spec.ts (Node): no DOM, no Node
// APIs. Inputs are small integers or quarters, built from the index alone, so Node rebuilds them to check outputs.

/** One case of the mixed workload. */
export interface WarmStartCase {
  /** Name in the report and the printed figures, e.g. 'matmul 256'. */
  readonly name: string;
  /** The op. */
  readonly op: 'matmul' | 'add' | 'softmax';
  /** Input shapes: matmul [M, K] and [K, N]; add two equal shapes; softmax one [rows, cols]. */
  readonly shapes: readonly (readonly number[])[];
}

/** The workload cycles through these, in this order. */
export const WARM_START_CASES: readonly WarmStartCase[] = [
  {
    name: 'matmul 64',
    op: 'matmul',
    shapes: [
      [64, 64],
      [64, 64],
    ],
  },
  {
    name: 'matmul 256',
    op: 'matmul',
    shapes: [
      [256, 256],
      [256, 256],
    ],
  },
  { name: 'add 65536', op: 'add', shapes: [[65_536], [65_536]] },
  { name: 'softmax 256x256', op: 'softmax', shapes: [[256, 256]] },
];

/** The case whose time to its faster backend is the headline figure. */
export const HEADLINE_CASE = 'matmul 256';

/** Calls in the auto workload (cycling through the cases). */
export const WORKLOAD_CALLS = 30;

/** Oracle: warm-up calls, then timed calls, per case and backend (strategy { only }). */
export const ORACLE_WARM_UPS = 2;
export const ORACLE_RUNS = 5;

/** The backends the oracle compares. */
export const ORACLE_BACKENDS: readonly string[] = ['wasm', 'webgpu'];

/** What the page leaves in globalThis.tandemWarmStart. */
export const RESULT_GLOBAL = 'tandemWarmStart';

/** What the page leaves in globalThis.tandemWarmStartPrimed when loaded with `?prime`: true, or the error. */
export const PRIMED_GLOBAL = 'tandemWarmStartPrimed';

/** Input `index` of case `c`: integers in [-5, 5] for matmul and add (exact in f32 sums), quarters for softmax. */
export function inputOf(c: WarmStartCase, index: number): Float32Array {
  const shape = c.shapes[index] ?? [];
  const n = shape.reduce((p, d) => p * d, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const v = (i * (7 + 2 * index) + 3 * index + 1) % 11;
    data[i] = c.op === 'softmax' ? (((i * 31) % 23) - 11) / 4 : v - 5;
  }
  return data;
}

/** One call of the auto workload. */
export interface CallRecord {
  /** Case name. */
  readonly name: string;
  /** When its result was read, ms since createEngine() was called. */
  readonly endMs: number;
  /** The backend that answered (the call's last attempt). */
  readonly backend: string;
  /** Why that backend (SelectionReason.kind). */
  readonly reason: string;
}

/** Per case: the oracle's medians, the faster backend, and when auto first served it there. */
export interface CaseFigures {
  readonly name: string;
  /** Oracle median per backend, ms (call and read). */
  readonly medianMs: Readonly<Record<string, number>>;
  /** The backend with the lower median. */
  readonly faster: string;
  /** End of the case's first auto call, ms since createEngine() was called, and who served it. */
  readonly firstEndMs: number;
  readonly firstBackend: string;
  readonly firstReason: string;
  /** End of the first auto call of the case served by `faster`, ms since createEngine(); null: none of them was. */
  readonly firstOnFasterMs: number | null;
  /** The case's first auto output, f32 bytes as base64 (Node checks it against @tandem/reference). */
  readonly output: string;
}

/** The page's report. */
export type WarmStartReport =
  | {
      readonly ok: true;
      /** createEngine()'s own time, ms. */
      readonly createEngineMs: number;
      /** End of the last auto call, ms since createEngine() was called. */
      readonly workloadEndMs: number;
      readonly calls: readonly CallRecord[];
      readonly cases: readonly CaseFigures[];
      /** Auto calls served by their case's faster backend. */
      readonly onFaster: number;
      /** The engine's notices, in order (kind, backend, detail). */
      readonly notices: readonly { readonly kind: string; readonly backend: string; readonly detail: string }[];
      /** Calls labelled 'warm-up (profile)' (a loaded profile's warm-ups on zeros). */
      readonly profileWarmUps: number;
      /** engine.profile.storedIn (where the profile is kept), null without one. */
      readonly storedIn: string | null;
      readonly backends: readonly { readonly name: string; readonly available: boolean; readonly device: string }[];
      readonly crossOriginIsolated: boolean;
    }
  | { readonly ok: false; readonly error: string };

/** Whether `value` has the report's shape (the fields the spec reads). */
export function isWarmStartReport(value: unknown): value is WarmStartReport {
  if (typeof value !== 'object' || value === null || !('ok' in value)) return false;
  if (value.ok === false) return 'error' in value && typeof value.error === 'string';
  return (
    value.ok === true &&
    'createEngineMs' in value &&
    typeof value.createEngineMs === 'number' &&
    'calls' in value &&
    Array.isArray(value.calls) &&
    'cases' in value &&
    Array.isArray(value.cases) &&
    'notices' in value &&
    Array.isArray(value.notices) &&
    'onFaster' in value &&
    typeof value.onFaster === 'number'
  );
}
