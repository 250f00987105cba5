// The scheduler's settings checked before any call (an unknown key or a bad value is an InvalidArgumentError naming
// it), and the per-op gpuMinBatchSize resolved once per cost-model key.
import { DTYPES } from '../dtype.ts';
import { InvalidArgumentError } from '../errors.ts';
import { OP_KINDS } from '../ops.ts';
import { DEFAULT_SCHEDULER_CONFIG, type MinBatchByOp, type SchedulerConfig } from './selection.ts';

/** Each numeric setting's lower bound and whether it must be an integer. */
const NUMERIC: Readonly<Record<string, { readonly min: number; readonly integer: boolean }>> = {
  gpuSpeedupThreshold: { min: 1, integer: false },
  switchAfter: { min: 1, integer: true },
  gpuMinSpeedup: { min: 1, integer: false },
  gpuMinBatchSize: { min: 0, integer: true },
  exploreEvery: { min: 1, integer: true },
  exploreMaxRatio: { min: 1, integer: false },
};

/** The settings that are switches. */
const SWITCHES: ReadonlySet<string> = new Set(['exploreSoftware', 'warmInBackground', 'forceCpu']);

/** Throws InvalidArgumentError (`<where>.<key>`) for an unknown key or a value outside its range. */
export function checkSchedulerConfig(where: string, config: Partial<SchedulerConfig>): void {
  for (const [key, value] of Object.entries(config)) {
    if (!(key in DEFAULT_SCHEDULER_CONFIG)) {
      throw new InvalidArgumentError(
        `${where}.${key}`,
        value,
        `is not a scheduler setting (settings: ${Object.keys(DEFAULT_SCHEDULER_CONFIG).join(', ')})`,
      );
    }
    const rule = NUMERIC[key];
    if (rule !== undefined) checkNumber(`${where}.${key}`, value, rule.min, rule.integer);
    if (SWITCHES.has(key) && typeof value !== 'boolean')
      throw new InvalidArgumentError(`${where}.${key}`, value, 'must be true or false');
  }
  const byOp: unknown = config.gpuMinBatchSizeByOp;
  if (byOp === undefined) return;
  if (typeof byOp !== 'object' || byOp === null || Array.isArray(byOp)) {
    throw new InvalidArgumentError(
      `${where}.gpuMinBatchSizeByOp`,
      byOp,
      "must be an object such as { cosineSimilarity: 1, 'matmul|f16': 16 }",
    );
  }
  for (const [key, value] of Object.entries(byOp)) {
    const problem = minBatchKeyProblem(key);
    if (problem !== undefined) throw new InvalidArgumentError(`${where}.gpuMinBatchSizeByOp`, key, problem);
    checkNumber(`${where}.gpuMinBatchSizeByOp.${key}`, value, 0, true);
  }
}

function checkNumber(where: string, value: unknown, min: number, integer: boolean): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new InvalidArgumentError(where, value, `must be ${integer ? 'an integer' : 'a finite number'} >= ${min}`);
  }
}

/** Why `key` names no op (or op and dtypes), or undefined when it does. */
function minBatchKeyProblem(key: string): string | undefined {
  const [op, dtypes, ...rest] = key.split('|');
  if (op === undefined || !OP_KINDS.some((k) => k === op))
    return `names no op (ops: ${OP_KINDS.join(', ')}; optionally '|<dtype>[+<dtype>]')`;
  if (rest.length > 0 || dtypes === '') return "must be '<op>' or '<op>|<dtype>[+<dtype>]'";
  for (const dtype of dtypes === undefined ? [] : dtypes.split('+')) {
    if (!DTYPES.some((d) => d === dtype)) return `names no dtype '${dtype}' (dtypes: ${DTYPES.join(', ')})`;
  }
  return undefined;
}

/** gpuMinBatchSize of each cost-model key: the key's own entry, else its op's, else the global default. */
export class MinBatchSizes {
  private readonly byKey = new Map<string, number>();
  private readonly table: Readonly<Record<string, number | undefined>>;
  private readonly fallback: number;

  constructor(fallback: number, table: MinBatchByOp) {
    this.fallback = fallback;
    this.table = { ...table }; // fixed at creation: a caller's later edits to its object change nothing
  }

  /** The minimum batch for calls of `opKey` ('matmul|f32') of op `op`. */
  of(op: string, opKey: string): number {
    let size = this.byKey.get(opKey);
    if (size === undefined) {
      size = this.table[opKey] ?? this.table[op] ?? this.fallback;
      this.byKey.set(opKey, size);
    }
    return size;
  }
}
