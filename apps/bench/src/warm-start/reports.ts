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

/** The JS types a report field may have. */
type FieldTypes = Readonly<Record<string, 'number' | 'string' | 'boolean' | 'array'>>;

/** Whether `x` is an object whose fields have the types named. */
function hasFields(x: unknown, fields: FieldTypes): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null) return false;
  return Object.entries(fields).every(([name, type]) => {
    const value: unknown = Reflect.get(x, name);
    return type === 'array' ? Array.isArray(value) : typeof value === type;
  });
}

/** Whether `x` is a DecisionsReport (first-calls.ts's decisions mode). */
export function isDecisionsReport(x: unknown): x is DecisionsReport {
  if (!hasFields(x, { startMs: 'number', warm: 'boolean', calls: 'array' })) return false;
  const calls: unknown = x['calls'];
  return (
    Array.isArray(calls) &&
    calls.every((c: unknown) => hasFields(c, { case: 'string', backend: 'string', reason: 'string', ms: 'number' }))
  );
}

/** Whether `x` is a FirstFastReport (first-calls.ts's first-fast mode). */
export function isFirstFastReport(x: unknown): x is FirstFastReport {
  return hasFields(x, { startMs: 'number', warm: 'boolean', calls: 'number', ms: 'number' });
}
