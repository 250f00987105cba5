import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.ts';
import { halfToFloat } from './half.ts';
import { decodeF16, dequantizeQ4_0, dequantizeQ8_0, encodeF16, quantizeQ4_0, quantizeQ8_0 } from './quant.ts';
import { createRng } from './random.ts';

function block(entries: Record<number, number>): Float32Array {
  const x = new Float32Array(32);
  for (const [i, v] of Object.entries(entries)) x[Number(i)] = v;
  return x;
}

function scaleOf(bytes: Uint8Array, offset: number): number {
  return halfToFloat((bytes[offset] ?? 0) | ((bytes[offset + 1] ?? 0) << 8));
}

describe('quantizeQ8_0', () => {
  it('encodes a hand-made block exactly (d = 127 / 127 = 1, roundf rounds halves away from zero)', () => {
    const bytes = quantizeQ8_0(block({ 0: 127, 1: -127, 2: 2.5, 3: -2.5, 4: 0.49, 5: -0.5, 6: 1.5 }));
    const expected = new Uint8Array(34);
    expected.set([0x00, 0x3c]); // f16 1.0
    expected.set([0x7f, 0x81, 3, 0xfd, 0, 0xff, 2], 2); // 127, -127, 3, -3, 0, -1, 2
    expect(Array.from(bytes)).toEqual(Array.from(expected));
  });

  it('gives an all-zero block d = 0 and zero quants', () => {
    expect(Array.from(quantizeQ8_0(new Float32Array(32)))).toEqual(new Array<number>(34).fill(0));
  });

  it('round-trips within d/2 per element (plus the f16 rounding of d)', () => {
    const rng = createRng(11);
    const x = rng.fillNormal(new Float32Array(32 * 64), 3);
    const bytes = quantizeQ8_0(x);
    const y = dequantizeQ8_0(bytes, x.length);
    for (let i = 0; i < x.length; i++) {
      const d = scaleOf(bytes, Math.floor(i / 32) * 34);
      // |x*id - q| <= 1/2; the f16 scale differs from the f32 one by <= 2^-11 relative, times |q| <= 127.
      expect(Math.abs((x[i] ?? 0) - (y[i] ?? 0))).toBeLessThanOrEqual(d * (0.5 + 127 * 2 ** -11) + 1e-7);
    }
  });
});

describe('quantizeQ4_0', () => {
  it('encodes a hand-made block exactly (max = -8 gives d = 1; x = 8 clamps to 15)', () => {
    const bytes = quantizeQ4_0(block({ 0: -8, 1: 7, 2: 8, 3: 0, 4: 0.5, 5: -0.5, 6: 1.49, 16: 3, 17: -3 }));
    // q = min(15, trunc(x + 8.5)): -8->0, 7->15, 8->15, 0->8, 0.5->9, -0.5->8, 1.49->9, 3->11, -3->5, rest 8.
    const expected = [0x00, 0x3c, 0xb0, 0x5f, 0x8f, 0x88, 0x89, 0x88, 0x89, ...new Array<number>(9).fill(0x88)];
    expect(Array.from(bytes)).toEqual(expected);
  });

  it('keeps the sign of the largest magnitude: max = 4 gives d = -0.5, and the first of equal magnitudes wins', () => {
    const bytes = quantizeQ4_0(block({ 0: 4, 1: -4, 2: 1 }));
    expect(scaleOf(bytes, 0)).toBe(-0.5);
    // id = -2: 4 -> trunc(0.5) = 0, -4 -> trunc(16.5) = 16 -> 15, 1 -> trunc(6.5) = 6, 0 -> 8 (high nibbles 8).
    expect(Array.from(bytes.subarray(2, 5))).toEqual([0x80, 0x8f, 0x86]);
  });

  it('round-trips within |d| per element (the clamp at 15 costs up to one step)', () => {
    const rng = createRng(12);
    const x = rng.fillNormal(new Float32Array(32 * 64), 2);
    const bytes = quantizeQ4_0(x);
    const y = dequantizeQ4_0(bytes, x.length);
    for (let i = 0; i < x.length; i++) {
      const d = Math.abs(scaleOf(bytes, Math.floor(i / 32) * 18));
      expect(Math.abs((x[i] ?? 0) - (y[i] ?? 0))).toBeLessThanOrEqual(d * (1 + 8 * 2 ** -11) + 1e-7);
    }
  });
});

describe('dequantize', () => {
  it('decodes hand-made Q8_0 and Q4_0 blocks', () => {
    const q8 = new Uint8Array(34);
    q8.set([0x00, 0x38, 4, 0xfe]); // d = 0.5; q = 4, -2
    expect(Array.from(dequantizeQ8_0(q8, 32).subarray(0, 3))).toEqual([2, -1, 0]);
    const q4 = new Uint8Array(18);
    q4.set([0x00, 0x40, 0xf0]); // d = 2; byte 0: low nibble 0 -> (0-8)*2, high nibble 15 -> (15-8)*2
    const y = dequantizeQ4_0(q4, 32);
    expect([y[0], y[16], y[1]]).toEqual([-16, 14, -16]);
  });

  it('rejects counts that are not whole blocks and byte lengths that do not match', () => {
    expect(() => dequantizeQ8_0(new Uint8Array(34), 31)).toThrow(InvalidArgumentError);
    expect(() => dequantizeQ8_0(new Uint8Array(33), 32)).toThrow(/dequantizeQ8_0\.bytes\.byteLength = 33: must be 34/);
    expect(() => dequantizeQ4_0(new Uint8Array(18), 64)).toThrow(/must be 36/);
    expect(() => quantizeQ4_0(new Float32Array(33))).toThrow(
      /quantizeQ4_0\.values\.length = 33: must be a non-negative multiple of 32/,
    );
    expect(() => quantizeQ8_0(new Float32Array(1))).toThrow(InvalidArgumentError);
  });

  it('handles zero values (empty tensors)', () => {
    expect(quantizeQ8_0(new Float32Array(0)).length).toBe(0);
    expect(dequantizeQ4_0(new Uint8Array(0), 0).length).toBe(0);
  });
});

describe('encodeF16 / decodeF16', () => {
  const cases: Array<[string, number, number]> = [
    ['zero', 0, 0x0000],
    ['negative zero', -0, 0x8000],
    ['one', 1, 0x3c00],
    ['-2', -2, 0xc000],
    ['largest finite', 65504, 0x7bff],
    ['just below the overflow tie', 65519, 0x7bff],
    ['the overflow tie rounds to even (infinity)', 65520, 0x7c00],
    ['+inf', Infinity, 0x7c00],
    ['-inf', -Infinity, 0xfc00],
    ['smallest subnormal', 2 ** -24, 0x0001],
    ['largest subnormal', 1023 * 2 ** -24, 0x03ff],
    ['smallest normal', 2 ** -14, 0x0400],
    ['half the smallest subnormal ties to even (zero)', 2 ** -25, 0x0000],
    ['1.5 subnormal steps tie to even (2)', 3 * 2 ** -25, 0x0002],
    ['1 + half an ulp ties to even (1)', 1 + 2 ** -11, 0x3c00],
    ['1 + 1.5 ulp ties to even (1 + 2 ulp)', 1 + 3 * 2 ** -11, 0x3c02],
    ['just above a tie rounds up', 1 + 2 ** -11 + 2 ** -20, 0x3c01],
  ];
  for (const [name, value, bits] of cases) {
    it(`encodes ${name}`, () => {
      expect(encodeF16(Float32Array.of(value))[0]).toBe(bits);
    });
  }

  it('encodes NaN as a NaN pattern', () => {
    const h = encodeF16(Float32Array.of(NaN))[0] ?? 0;
    expect(h & 0x7c00).toBe(0x7c00);
    expect(h & 0x03ff).not.toBe(0);
  });

  it('decodes specials', () => {
    const y = decodeF16(Uint16Array.of(0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x03ff, 0x7bff, 0x3555));
    expect(Object.is(y[0], 0)).toBe(true);
    expect(Object.is(y[1], -0)).toBe(true);
    expect(y[2]).toBe(Infinity);
    expect(y[3]).toBe(-Infinity);
    expect(Number.isNaN(y[4])).toBe(true);
    expect(y[5]).toBe(2 ** -24);
    expect(y[6]).toBe(1023 * 2 ** -24);
    expect(y[7]).toBe(65504);
    expect(y[8]).toBe(0.333251953125); // 0x3555: (1 + 341/1024) / 4
  });

  it('round-trips every finite f16 bit pattern', () => {
    const bits = new Uint16Array(65536);
    for (let i = 0; i < bits.length; i++) bits[i] = i;
    const back = encodeF16(decodeF16(bits));
    const wrong: number[] = [];
    for (let i = 0; i < bits.length; i++) {
      const isNanPattern = (i & 0x7c00) === 0x7c00 && (i & 0x3ff) !== 0;
      if (!isNanPattern && back[i] !== i) wrong.push(i);
    }
    expect(wrong).toEqual([]);
  });
});
