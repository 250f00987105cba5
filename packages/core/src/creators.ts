// The host data of engine.zeros / ones / full / random: every argument checked (a mistake is an InvalidArgumentError
// naming it), then the values of the dtype filled in. The engine makes a tensor of them like engine.tensor() does: the
// data starts on the host and is uploaded once, to the backend of the first op that reads it.
import { checkOptionKeys } from './call-options.ts';
import { DTYPES, isDType, isQuantized, QUANT_BLOCK, type DType } from './dtype.ts';
import { InvalidArgumentError } from './errors.ts';
import { floatToHalf } from './half.ts';
import { quantizeAs } from './quant.ts';
import { createRng } from './random.ts';
import { assertValidShape, describeValue, numel } from './shape.ts';
import type { TensorDataOf } from './tensor-data.ts';

/** The distributions engine.random() draws from. */
export const DISTRIBUTIONS = ['uniform', 'normal'] as const;

/** One of DISTRIBUTIONS. */
export type Distribution = (typeof DISTRIBUTIONS)[number];

/** The dtypes engine.random() makes. */
export type RandomDType = 'f32' | 'f16';

/** engine.random()'s options. */
export interface RandomOptions<D extends RandomDType = RandomDType> {
  /**
   * The seed, an integer (taken modulo 2^32): the same seed gives the same values on every run (uniform ones on every
   * JS engine; normal ones wherever Math.log, cos and sin agree, as in every V8). Default: a seed drawn from
   * Math.random(), so two calls differ.
   */
  readonly seed?: number;
  /**
   * 'uniform' (default): values in [low, high); 'normal': mean + std * a standard normal (Box-Muller). The generator
   * is mulberry32 (createRng), one 32-bit draw per uniform value and two per pair of normal values.
   */
  readonly distribution?: Distribution;
  /** uniform's lower bound (default 0). */
  readonly low?: number;
  /** uniform's upper bound, above low (default 1). */
  readonly high?: number;
  /** normal's mean (default 0). */
  readonly mean?: number;
  /** normal's standard deviation, >= 0 (default 1). */
  readonly std?: number;
  /** 'f32' (default) or 'f16' (the f32 values rounded to binary16). */
  readonly dtype?: D;
}

/** The checked shape and dtype of a creator call, and the element count. */
function checkShapeAndDType(
  where: string,
  shape: unknown,
  dtype: unknown,
): { shape: readonly number[]; dtype: DType; count: number } {
  assertValidShape(`${where}.shape`, shape);
  if (!isDType(dtype))
    throw new InvalidArgumentError(`${where}.dtype`, describeValue(dtype), `must be one of ${DTYPES.join(', ')}`);
  if (isQuantized(dtype) && (shape.length === 0 || (shape[shape.length - 1] ?? 0) % QUANT_BLOCK !== 0)) {
    throw new InvalidArgumentError(
      `${where}.shape`,
      [...shape],
      `last dimension must be a multiple of ${QUANT_BLOCK} for ${dtype}`,
    );
  }
  return { shape, dtype, count: numel(shape) };
}

/** What `value` must be to be stored in `dtype`, or undefined when it can be. */
function valueRule(dtype: DType, value: number): string | undefined {
  switch (dtype) {
    case 'f32':
    case 'f16':
      return undefined; // any number, NaN and infinities included (-Infinity fills masks)
    case 'i32':
      return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31
        ? undefined
        : 'must be an integer in [-2^31, 2^31 - 1] for i32';
    case 'u32':
      return Number.isInteger(value) && value >= 0 && value < 2 ** 32
        ? undefined
        : 'must be an integer in [0, 2^32 - 1] for u32';
    case 'q8_0':
    case 'q4_0':
      return Number.isFinite(value) ? undefined : `must be a finite number for ${dtype}`;
  }
}

/** `count` elements of `dtype`, each `value` (already checked). */
function filled(dtype: DType, count: number, value: number): TensorDataOf[DType] {
  switch (dtype) {
    case 'f32':
      return new Float32Array(count).fill(value);
    case 'f16':
      return new Uint16Array(count).fill(floatToHalf(value));
    case 'i32':
      return new Int32Array(count).fill(value);
    case 'u32':
      return new Uint32Array(count).fill(value);
    case 'q8_0':
    case 'q4_0':
      return quantizeAs(dtype, new Float32Array(count).fill(value));
  }
}

/** The host data of full(shape, value, dtype), checked; `where` names the method ('zeros', 'ones', 'full'). */
export function filledData(where: string, shape: readonly number[], value: number, dtype: DType): TensorDataOf[DType] {
  const checked = checkShapeAndDType(where, shape, dtype);
  if (typeof value !== 'number')
    throw new InvalidArgumentError(`${where}.value`, describeValue(value), 'must be a number');
  const rule = valueRule(checked.dtype, value);
  if (rule !== undefined) throw new InvalidArgumentError(`${where}.value`, value, rule);
  return filled(checked.dtype, checked.count, value);
}

const RANDOM_KEYS = ['seed', 'distribution', 'low', 'high', 'mean', 'std', 'dtype'];

/** The host data of random(shape, options), checked. */
export function randomData(
  shape: readonly number[],
  options: RandomOptions | undefined,
): { data: TensorDataOf[RandomDType]; dtype: RandomDType } {
  checkOptionKeys('random.options', options, RANDOM_KEYS, { callOptions: false });
  const { seed, distribution = 'uniform', low = 0, high = 1, mean = 0, std = 1, dtype = 'f32' } = options ?? {};
  const checked = checkShapeAndDType('random', shape, dtype);
  if (dtype !== 'f32' && dtype !== 'f16')
    throw new InvalidArgumentError('random.options.dtype', dtype, "must be 'f32' or 'f16'");
  if (seed !== undefined && !Number.isInteger(seed))
    throw new InvalidArgumentError('random.options.seed', describeValue(seed), 'must be an integer');
  if (!DISTRIBUTIONS.includes(distribution))
    throw new InvalidArgumentError(
      'random.options.distribution',
      describeValue(distribution),
      `must be one of ${DISTRIBUTIONS.join(', ')}`,
    );
  const given = (key: string): boolean => options !== undefined && Reflect.get(options, key) !== undefined;
  const foreign = distribution === 'uniform' ? ['mean', 'std'] : ['low', 'high'];
  for (const key of foreign) {
    if (given(key))
      throw new InvalidArgumentError(
        `random.options.${key}`,
        Reflect.get(options ?? {}, key),
        `is not an option of the ${distribution} distribution`,
      );
  }
  for (const [key, value] of [
    ['low', low],
    ['high', high],
    ['mean', mean],
    ['std', std],
  ] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new InvalidArgumentError(`random.options.${key}`, describeValue(value), 'must be a finite number');
  }
  if (!(high > low)) throw new InvalidArgumentError('random.options.high', high, `must be greater than low (${low})`);
  if (std < 0) throw new InvalidArgumentError('random.options.std', std, 'must be >= 0');
  const rng = createRng(seed ?? Math.floor(Math.random() * 2 ** 32));
  const values = new Float32Array(checked.count);
  if (distribution === 'uniform') {
    // Rounded to f32 a draw just under `high` can become `high`; the largest f32 below it keeps the interval open.
    const top = below(high);
    for (let i = 0; i < values.length; i++) values[i] = Math.min(Math.fround(low + rng.next() * (high - low)), top);
  } else {
    for (let i = 0; i < values.length; i++) values[i] = mean + std * rng.normal();
  }
  if (dtype === 'f32') return { data: values, dtype };
  return { data: Uint16Array.from(values, floatToHalf), dtype };
}

/** The largest f32 below `x` (an f32 value or not). */
function below(x: number): number {
  const f = new Float32Array([x]);
  if (f[0] !== undefined && f[0] < x) return f[0];
  const bits = new Int32Array(f.buffer);
  const b = bits[0] ?? 0;
  // Stepping the bit pattern moves towards zero for positives and away from it for negatives; 0 steps to -min.
  bits[0] = x > 0 ? b - 1 : x < 0 ? b + 1 : -2147483647;
  return f[0] ?? x;
}
