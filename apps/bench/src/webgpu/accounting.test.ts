import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { cosineTargetBytes, matmulFlop, terabytesPerSecond, tflops } from './accounting.ts';

describe('FLOP and byte accounting', () => {
  it('counts 2 n^3 FLOP per square matmul', () => {
    expect(matmulFlop(4096)).toBe(137_438_953_472);
    expect(tflops(matmulFlop(4096), 2.748779069)).toBeCloseTo(50, 6);
  });

  it('counts the targets a 768-d cosine scan reads', () => {
    expect(cosineTargetBytes(1_000_000, 768)).toBe(3_072_000_000);
    expect(terabytesPerSecond(3_072_000_000, 2.048)).toBeCloseTo(1.5, 9);
  });

  it('gives NaN rates for a zero time and rejects bad sizes', () => {
    expect(tflops(1, 0)).toBeNaN();
    expect(terabytesPerSecond(1, -1)).toBeNaN();
    expect(() => matmulFlop(0)).toThrow(InvalidArgumentError);
    expect(() => cosineTargetBytes(10, 1.5)).toThrow(InvalidArgumentError);
  });
});
