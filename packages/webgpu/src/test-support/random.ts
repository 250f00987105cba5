// Deterministic test data.

/** A seeded generator of floats in [0, 1) (mulberry32). */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` values uniform in [-scale, scale), rounded to f32. */
export function randomF32(count: number, seed: number, scale = 1): Float32Array {
  const next = createRandom(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() * 2 - 1) * scale;
  return out;
}

/** Asserts two arrays agree within atol + rtol * |expected|; NaN matches NaN. Names the first mismatch. */
export function expectClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  atol = 1e-5,
  rtol = 1e-5,
  label = '',
): void {
  if (actual.length !== expected.length)
    throw new Error(`${label}: length ${actual.length}, expected ${expected.length}`);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] ?? NaN;
    const e = expected[i] ?? NaN;
    if (Number.isNaN(e) && Number.isNaN(a)) continue;
    if (a === e) continue;
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      throw new Error(`${label}: element ${i} is ${a}, expected ${e} (atol ${atol}, rtol ${rtol})`);
    }
  }
}
