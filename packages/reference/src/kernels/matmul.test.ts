import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { matmul, matmulF16 } from './matmul.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);

describe('matmul', () => {
  it('multiplies 2x2 by 2x2', () => {
    // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]
    expect(Array.from(matmul(f32(1, 2, 3, 4), f32(5, 6, 7, 8), 2, 2, 2))).toEqual([19, 22, 43, 50]);
  });

  it('handles 1x1x1 and a 2x3 by 3x1 column', () => {
    expect(Array.from(matmul(f32(3), f32(4), 1, 1, 1))).toEqual([12]);
    expect(Array.from(matmul(f32(1, 2, 3, 4, 5, 6), f32(1, 0, -1), 2, 3, 1))).toEqual([-2, -2]);
  });

  it('gives empty results for M = 0 or N = 0 and zeros for K = 0', () => {
    expect(matmul(f32(), f32(1, 2), 0, 1, 2).length).toBe(0);
    expect(matmul(f32(1, 2), f32(), 2, 1, 0).length).toBe(0);
    expect(Array.from(matmul(f32(), f32(), 2, 0, 3))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('accumulates in float64 (1e8 + 1 - 1e8 = 1, where an f32 running sum gives 0)', () => {
    expect(Array.from(matmul(f32(1e8, 1, -1e8), f32(1, 1, 1), 1, 3, 1))).toEqual([1]);
  });

  it('rejects inputs whose length does not match the dims', () => {
    expect(() => matmul(f32(1, 2, 3), f32(1, 2), 1, 2, 1)).toThrow(InvalidArgumentError);
  });
});

describe('matmulF16', () => {
  it('decodes, multiplies and encodes', () => {
    // [1 2] x [0.5; 0.25] = 1 -> 0x3c00
    expect(Array.from(matmulF16(Uint16Array.of(0x3c00, 0x4000), Uint16Array.of(0x3800, 0x3400), 1, 2, 1))).toEqual([
      0x3c00,
    ]);
  });

  it('rounds the result to f16, ties to even (3 * 683 = 2049 -> 2048)', () => {
    // 3 = 0x4200; 683 = 2^9 * (1 + 342/1024) = 0x6156; 2048 = 0x6800
    expect(Array.from(matmulF16(Uint16Array.of(0x4200), Uint16Array.of(0x6156), 1, 1, 1))).toEqual([0x6800]);
  });
});
