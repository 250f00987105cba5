import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { quantizedMatmul } from './quantized_matmul.ts';

/** x rows: [1, 2, ..., 32] and all ones. */
const x = Float32Array.from({ length: 64 }, (_, i) => (i < 32 ? i + 1 : 1));

function q8Rows(): Uint8Array {
  const w = new Uint8Array(2 * 34);
  w.set([0x00, 0x3c]); // row 0: d = 1
  w.fill(1, 2, 34); //   q = 1 everywhere -> weights 1
  w.set([0x00, 0x38, 4], 34); // row 1: d = 0.5, q[0] = 4 -> 2
  w[34 + 2 + 31] = 0xfe; //        q[31] = -2 -> -1
  return w;
}

describe('quantizedMatmul', () => {
  it('multiplies by hand-made Q8_0 rows (one row per output column)', () => {
    // row 0: 1 + ... + 32 = 528; row 1: 2 * 1 - 1 * 32 = -30; second x row (ones): 32 and 1.
    expect(Array.from(quantizedMatmul(x, q8Rows(), 'q8_0', 2, 32, 2))).toEqual([528, -30, 32, 1]);
  });

  it('multiplies by a hand-made Q4_0 row', () => {
    const w = new Uint8Array(18);
    w.set([0x00, 0x40]); // d = 2
    w.fill(0x98, 2); //     low nibbles 8 -> 0, high nibbles 9 -> (9 - 8) * 2 = 2 for values 16..31
    // 2 * (17 + ... + 32) = 2 * 392 = 784; ones: 2 * 16 = 32
    expect(Array.from(quantizedMatmul(x, w, 'q4_0', 2, 32, 1))).toEqual([784, 32]);
  });

  it('gives empty outputs for M = 0 or N = 0', () => {
    expect(quantizedMatmul(new Float32Array(0), q8Rows(), 'q8_0', 0, 32, 2).length).toBe(0);
    expect(quantizedMatmul(x, new Uint8Array(0), 'q8_0', 2, 32, 0).length).toBe(0);
  });

  it('rejects K that is not a multiple of 32 and weights of the wrong size', () => {
    expect(() => quantizedMatmul(new Float32Array(16), new Uint8Array(34), 'q8_0', 1, 16, 1)).toThrow(
      InvalidArgumentError,
    );
    expect(() => quantizedMatmul(x, new Uint8Array(34), 'q8_0', 2, 32, 2)).toThrow(/byteLength/);
  });
});
