import { InvalidArgumentError } from './errors.ts';

/** Largest dimension and element count Tandem accepts (2^31 - 1: indices stay in int32 everywhere). */
export const MAX_ELEMENTS = 2 ** 31 - 1;

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

/** Throws unless every dimension is a non-negative integer and the element count fits. */
export function assertValidShape(argument: string, shape: readonly number[]): void {
  shape.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 0) {
      throw new InvalidArgumentError(`${argument}[${i}]`, d, 'must be a non-negative integer');
    }
  });
  const n = numel(shape);
  if (n > MAX_ELEMENTS) throw new InvalidArgumentError(argument, [...shape], `has ${n} elements; the limit is ${MAX_ELEMENTS}`);
}

/** True when two shapes are equal. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}
