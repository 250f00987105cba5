/** A seeded generator of floats in [-1, 1) (mulberry32), so failures reproduce. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  };
}

/** `count` random floats in [-scale, scale). */
export function randomFloats(random: () => number, count: number, scale = 1): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = random() * scale;
  return out;
}
