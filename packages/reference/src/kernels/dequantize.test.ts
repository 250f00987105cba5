import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { dequantize } from './dequantize.ts';

describe('dequantize', () => {
  it('expands a Q8_0 block: q * d', () => {
    const block = new Uint8Array(34);
    block.set([0x00, 0x38, 4, 0xfe]); // d = 0.5; q = 4, -2
    expect(Array.from(dequantize('q8_0', block, 32).subarray(0, 3))).toEqual([2, -1, 0]);
  });

  it('expands a Q4_0 block: (q - 8) * d, value j low nibble, j + 16 high nibble', () => {
    const block = new Uint8Array(18);
    block.set([0x00, 0xc0, 0x3a]); // d = -2; byte 0: low 0xa -> (10 - 8) * -2 = -4, high 3 -> (3 - 8) * -2 = 10
    const y = dequantize('q4_0', block, 32);
    expect([y[0], y[16], y[1], y[17]]).toEqual([-4, 10, 16, 16]);
  });

  it('decodes f16 bits, reading raw little-endian bytes (even at an odd offset)', () => {
    const raw = Uint8Array.of(0xff, 0x00, 0x3c, 0x00, 0xc0, 0x55, 0x35);
    expect(Array.from(dequantize('f16', raw.subarray(1), 3))).toEqual([1, -2, 0.333251953125]);
  });

  it('rejects a byte length that does not match the count', () => {
    expect(() => dequantize('f16', new Uint8Array(4), 3)).toThrow(InvalidArgumentError);
    expect(() => dequantize('q8_0', new Uint8Array(34), 64)).toThrow(InvalidArgumentError);
  });
});
