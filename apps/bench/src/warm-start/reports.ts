// What warm-start/first-calls.ts prints, and the checks the suite reads it back with (it crosses a process boundary).

/** One call of the decisions mode. */
export interface FirstCall {
  /** Case name. */
  readonly case: string;
  /** The backend that answered. */
  readonly backend: string;
  /** The decision's reason kind (cost-model, exploring, ...). */
  readonly reason: string;
  /** Wall time of the call and its read, ms. */
  readonly ms: number;
}

/** What the decisions mode prints. */
export interface DecisionsReport {
  /** createEngine() (and the profile's import), ms. */
  readonly startMs: number;
  /** Whether a profile was imported and used. */
  readonly warm: boolean;
  /** The calls, in order. */
  readonly calls: readonly FirstCall[];
}

/** What the first-fast mode prints. */
export interface FirstFastReport {
  /** createEngine() (and the profile's import), ms. */
  readonly startMs: number;
  /** Whether a profile was imported and used. */
  readonly warm: boolean;
  /** Calls until one was served by the named backend (0: none in the limit). */
  readonly calls: number;
  /** From createEngine() to the end of that call, ms, building the tensors left out. */
  readonly ms: number;
}

/** Whether `x` is a DecisionsReport (first-calls.ts's decisions mode). */
export function isDecisionsReport(x: unknown): x is DecisionsReport {
  return (
    typeof x === 'object' &&
    x !== null &&
    'startMs' in x &&
    typeof x.startMs === 'number' &&
    'warm' in x &&
    typeof x.warm === 'boolean' &&
    'calls' in x &&
    Array.isArray(x.calls) &&
    x.calls.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        'case' in c &&
        typeof c.case === 'string' &&
        'backend' in c &&
        typeof c.backend === 'string' &&
        'reason' in c &&
        typeof c.reason === 'string' &&
        'ms' in c &&
        typeof c.ms === 'number',
    )
  );
}

/** Whether `x` is a FirstFastReport (first-calls.ts's first-fast mode). */
export function isFirstFastReport(x: unknown): x is FirstFastReport {
  return (
    typeof x === 'object' &&
    x !== null &&
    'startMs' in x &&
    typeof x.startMs === 'number' &&
    'warm' in x &&
    typeof x.warm === 'boolean' &&
    'calls' in x &&
    typeof x.calls === 'number' &&
    'ms' in x &&
    typeof x.ms === 'number'
  );
}
