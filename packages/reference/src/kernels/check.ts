// Argument checks shared by the kernels: they are public oracles, so a wrong length fails loudly.
import { InvalidArgumentError } from '@tandem/core';

/** Throws unless `values` holds exactly `expected` elements. */
export function expectLength(argument: string, values: { readonly length: number }, expected: number): void {
  if (values.length !== expected) throw new InvalidArgumentError(`${argument}.length`, values.length, `must be ${expected}`);
}

/** Throws unless `value` is an integer >= 0. */
export function expectCount(argument: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(argument, value, 'must be an integer >= 0');
}
