// Values and sizes the properties draw. Values are spread over magnitudes (most |x| >= 1, unlike fc.float's draws,
// ~93% of which are below 1), so a kernel that returns zeros or reads the wrong element cannot pass by luck. Sizes
// are small or sit at a kernel's tile or chunk edge (-1, 0, +1), so every tile boundary is crossed.
import fc from 'fast-check';

/** 12-bit mantissas times 2^-12..2^12: exact in f32, and so are their products; about half have |x| >= 1. */
export const wide: fc.Arbitrary<number> = fc
  .tuple(fc.integer({ min: -4095, max: 4095 }), fc.integer({ min: -12, max: 12 }))
  .map(([m, e]) => (m / 4096) * 2 ** e);

/** Multiples of 1/64 in [-4, 4]: unit-scale values for ops that exponentiate (softmax, attention). */
export const unitScale: fc.Arbitrary<number> = fc.integer({ min: -256, max: 256 }).map((i) => i / 64);

/** NaN, infinities, signed zeros and subnormals (no f32 extremes: an f32 sum of products must not overflow where f64 does not). */
export const special: fc.Arbitrary<number> = fc.constantFrom(
  Number.NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  1e-40,
  -1e-40,
  1.5e-45,
);

/** Mostly `wide`, one in ten special. */
export const wideOrSpecial: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: wide, weight: 9 },
  { arbitrary: special, weight: 1 },
);

/** Any f32 at all (fc.float: every bit pattern class) half the time, `wide` the other half. */
export const anyF32: fc.Arbitrary<number> = fc.oneof(fc.float(), wide);

/**
 * Tile and chunk edges of the kernels: 8-column panels, KC 256 and MC 128 (wasm-kernels/matmul_panels.ts); 64 x 64
 * tiles stepping K by 16 (wgsl/matmul_f32.wgsl); 128 x 128 blocks (native-rocm/kernels/matmul.hip); 64- and
 * 256-invocation workgroups (wgsl/*.wgsl `WG`).
 */
export const TILE_EDGES: readonly number[] = [8, 16, 64, 128, 256];

/** A size: 0..`small` (three times in four), else a tile edge -1, 0 or +1 from TILE_EDGES up to `max`. */
export function size(small: number, max = 257): fc.Arbitrary<number> {
  const edges = TILE_EDGES.filter((e) => e + 1 <= max);
  const nearEdge = fc.constantFrom(...edges).chain((e) => fc.integer({ min: e - 1, max: e + 1 }));
  return fc.oneof({ arbitrary: fc.integer({ min: 0, max: small }), weight: 3 }, { arbitrary: nearEdge, weight: 1 });
}

/** `count` values of `value`. */
export function values(value: fc.Arbitrary<number>, count: number): fc.Arbitrary<number[]> {
  return fc.array(value, { minLength: count, maxLength: count });
}
