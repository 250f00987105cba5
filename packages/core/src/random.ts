// A small seeded PRNG (mulberry32) for tests, benchmarks and examples: the same seed gives the same
// numbers on every run and every JS engine. Not for cryptography.
import { InvalidArgumentError } from './errors.ts';

/** Typed arrays the fill helpers write into. */
export type FloatArray = Float32Array | Float64Array;

/** A deterministic random number generator. */
export interface Rng {
  /** Uniform in [0, 1), 32 bits of randomness. */
  next(): number;
  /** Standard normal (mean 0, std 1), Box-Muller. */
  normal(): number;
  /** Uniform integer in [lo, hiExclusive). */
  int(lo: number, hiExclusive: number): number;
  /** Fills `arr` with uniform values in [lo, hi); returns it. */
  fillUniform<A extends FloatArray>(arr: A, lo: number, hi: number): A;
  /** Fills `arr` with normal values of mean 0 and standard deviation `std`; returns it. */
  fillNormal<A extends FloatArray>(arr: A, std: number): A;
}

/** A mulberry32 generator seeded with the integer `seed` (taken modulo 2^32). */
export function createRng(seed: number): Rng {
  if (!Number.isInteger(seed)) throw new InvalidArgumentError('createRng.seed', seed, 'must be an integer');
  let state = seed >>> 0;
  let spareNormal: number | undefined;

  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  const normal = (): number => {
    if (spareNormal !== undefined) {
      const z = spareNormal;
      spareNormal = undefined;
      return z;
    }
    const u1 = 1 - next(); // (0, 1]: log stays finite
    const u2 = next();
    const r = Math.sqrt(-2 * Math.log(u1));
    spareNormal = r * Math.sin(2 * Math.PI * u2);
    return r * Math.cos(2 * Math.PI * u2);
  };

  return {
    next,
    normal,
    int(lo, hiExclusive) {
      if (!Number.isInteger(lo)) throw new InvalidArgumentError('rng.int.lo', lo, 'must be an integer');
      if (!Number.isInteger(hiExclusive) || hiExclusive <= lo)
        throw new InvalidArgumentError('rng.int.hiExclusive', hiExclusive, `must be an integer > lo (${lo})`);
      return lo + Math.floor(next() * (hiExclusive - lo));
    },
    fillUniform(arr, lo, hi) {
      for (let i = 0; i < arr.length; i++) arr[i] = lo + next() * (hi - lo);
      return arr;
    },
    fillNormal(arr, std) {
      for (let i = 0; i < arr.length; i++) arr[i] = normal() * std;
      return arr;
    },
  };
}
