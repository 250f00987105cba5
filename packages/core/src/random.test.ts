import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.ts';
import { createRng } from './random.ts';

function take(seed: number, n: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => rng.next());
}

describe('createRng', () => {
  it('is deterministic: the same seed gives the same sequence', () => {
    expect(take(42, 100)).toEqual(take(42, 100));
    expect(createRng(7).fillNormal(new Float32Array(50), 2)).toEqual(createRng(7).fillNormal(new Float32Array(50), 2));
  });

  it('pins the sequence (regression guard: changing the algorithm changes every seeded test input)', () => {
    // Checked against bryc's original mulberry32 one-liner, seed 1.
    const first = take(1, 3).map((v) => Math.round(v * 2 ** 32));
    expect(first).toEqual(PINNED_SEED_1);
  });

  it('differs between seeds, and treats seeds modulo 2^32', () => {
    expect(take(1, 10)).not.toEqual(take(2, 10));
    expect(take(-1, 5)).toEqual(take(2 ** 32 - 1, 5));
  });

  it('next() stays in [0, 1) and looks uniform', () => {
    const rng = createRng(3);
    let sum = 0;
    for (let i = 0; i < 20000; i++) {
      const v = rng.next();
      expect(v >= 0 && v < 1).toBe(true);
      sum += v;
    }
    expect(Math.abs(sum / 20000 - 0.5)).toBeLessThan(0.01);
  });

  it('normal() has mean ~0 and std ~1', () => {
    const x = createRng(5).fillNormal(new Float64Array(20000), 1);
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / x.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(Math.sqrt(variance) - 1)).toBeLessThan(0.03);
    expect(x.every(Number.isFinite)).toBe(true);
  });

  it('int(lo, hi) covers [lo, hi) and nothing else', () => {
    const rng = createRng(9);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(rng.int(-2, 3));
    expect([...seen].sort((a, b) => a - b)).toEqual([-2, -1, 0, 1, 2]);
    expect(() => rng.int(3, 3)).toThrow(InvalidArgumentError);
    expect(() => rng.int(0.5, 3)).toThrow(InvalidArgumentError);
  });

  it('fillUniform stays in range and returns the array it filled', () => {
    const arr = new Float32Array(1000);
    const out = createRng(4).fillUniform(arr, -3, -1);
    expect(out).toBe(arr);
    expect(arr.every((v) => v >= -3 && v <= -1)).toBe(true);
  });

  it('rejects a non-integer seed', () => {
    expect(() => createRng(0.5)).toThrow(/createRng\.seed = 0\.5/);
  });
});

const PINNED_SEED_1 = [2693262067, 11749833, 2265367787];
