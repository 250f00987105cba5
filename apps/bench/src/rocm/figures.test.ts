import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@tandem/core';
import {
  blockMatrixBytes,
  cosineTargetBytes,
  matmulFlops,
  nominalBandwidth,
  quantizedMatvecBytes,
  ratePerSecond,
  scaleBytes,
} from './figures.ts';

describe('ROCm suite figures', () => {
  it('counts matmul FLOPs and turns them into TFLOP/s', () => {
    expect(matmulFlops(4096)).toBe(2 * 4096 ** 3);
    // 43.0 TFLOP/s at 3.20 ms is the H100 figure in packages/rocm/README.md.
    expect(ratePerSecond(matmulFlops(4096), 3.2, 1e12)).toBeCloseTo(42.95, 2);
  });

  it('counts the bytes of the Q4_0 / Q8_0 mat-vec 4096 x 11008', () => {
    expect(blockMatrixBytes('q4_0', 11008, 4096)).toBe(11008 * 128 * 18);
    expect(blockMatrixBytes('q8_0', 11008, 4096)).toBe(11008 * 128 * 34);
    expect(quantizedMatvecBytes('q4_0', 11008, 4096)).toBe(11008 * 128 * 18 + 4096 * 4 + 11008 * 4);
  });

  it('counts streamed bytes of cosine and scale', () => {
    expect(cosineTargetBytes(1_000_000, 768)).toBe(3_072_000_000);
    expect(scaleBytes(256 * 1024 * 1024)).toBe(2 * 2 ** 30);
  });

  it('derives the nominal bandwidth of an H100 HBM3 from its clocks', () => {
    expect(nominalBandwidth({ memoryClockKHz: 2_619_000, memoryBusWidthBits: 5120 })).toBeCloseTo(3.352e12, -9);
    expect(nominalBandwidth({ memoryClockKHz: 0, memoryBusWidthBits: 5120 })).toBeUndefined();
  });

  it('rejects sizes and times it cannot use', () => {
    expect(() => blockMatrixBytes('q4_0', 4, 33)).toThrow(InvalidArgumentError);
    expect(() => ratePerSecond(1, 0, 1e9)).toThrow(InvalidArgumentError);
    expect(() => matmulFlops(-1)).toThrow(InvalidArgumentError);
  });
});
