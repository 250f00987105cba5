import { InvalidArgumentError } from './errors.ts';

/** Largest dimension and element count Tandem accepts (2^31 - 1: indices stay in int32 everywhere). */
export const MAX_ELEMENTS = 2 ** 31 - 1;

/** Most dimensions a shape may have (every op takes rank 3 or less; elementwise ops any rank up to this). */
export const MAX_RANK = 8;

/** Number of elements of a shape (1 for a scalar shape []). */
export function numel(shape: readonly number[]): number {
  let n = 1;
  for (let i = 0; i < shape.length; i++) n *= shape[i] ?? 1; // indexed: for-of over frozen arrays is slow in V8
  return n;
}

/** Row-major strides, in elements. */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i] ?? 1;
  }
  return strides;
}

/**
 * Throws InvalidArgumentError unless `shape` is an array of at most MAX_RANK entries, each an integer in
 * [0, MAX_ELEMENTS], whose product is at most MAX_ELEMENTS. Every entry is checked, so a zero elsewhere does not
 * hide one that is out of range ([2^40, 0] is refused).
 */
export function assertValidShape(argument: string, shape: unknown): asserts shape is readonly number[] {
  if (!Array.isArray(shape))
    throw new InvalidArgumentError(argument, describeValue(shape), 'must be an array of dimensions');
  if (shape.length > MAX_RANK)
    throw new InvalidArgumentError(argument, shape, `has rank ${shape.length}; the limit is ${MAX_RANK}`);
  let n = 1;
  for (let i = 0; i < shape.length; i++) {
    const d: unknown = shape[i];
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > MAX_ELEMENTS) {
      throw new InvalidArgumentError(
        `${argument}[${i}]`,
        describeValue(d),
        `must be a non-negative integer <= ${MAX_ELEMENTS}`,
      );
    }
    n *= d;
  }
  if (n > MAX_ELEMENTS)
    throw new InvalidArgumentError(argument, shape, `has ${n} elements; the limit is ${MAX_ELEMENTS}`);
}

/** True when two shapes are equal. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** A value as an error message shows it: arrays and primitives as they are, anything else by its kind. */
export function describeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Array.isArray(value) ? value : `a ${value.constructor?.name ?? 'object'}`;
}
