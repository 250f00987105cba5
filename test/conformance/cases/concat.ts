// concat cases: axis-0 concatenation of f32 / f16 / i32 / u32 tensors, ranks 1..3, empty sides, special values
// (NaN, -0, infinities, subnormals and the integer extremes must come through bit for bit: it is a copy).
import { numel, type Rng } from '@tandem/core';
import { bytesOf } from '@tandem/reference';
import { EXACT, type ConformanceCase } from '../case.ts';
import { hostF16, hostF32, hostU32, normalValues, type HostTensor } from '../host-tensor.ts';

type ConcatDType = 'f32' | 'f16' | 'i32' | 'u32';

/** [a.shape, b.shape] pairs of equal trailing shape. */
const SHAPES: ReadonlyArray<readonly [number[], number[]]> = [
  [[5], [3]],
  [
    [7, 13],
    [1, 13],
  ],
  [
    [12, 4, 16],
    [1, 4, 16],
  ], // a KV cache of 12 rows, one decoded row appended
  [
    [3, 2, 5],
    [4, 2, 5],
  ],
  [
    [0, 8],
    [5, 8],
  ],
  [
    [6, 8],
    [0, 8],
  ],
  [
    [0, 3],
    [0, 3],
  ],
  [[1], [1]],
  [
    [513, 2, 64],
    [1, 2, 64],
  ],
];

const F32_SPECIALS = [NaN, -0, Infinity, -Infinity, 1e-40, -3.4e38, 2 ** -149];

const shapeName = (shape: readonly number[]): string => `[${shape.join(',')}]`;

function valuesFor(rng: Rng, count: number): Float32Array {
  const values = normalValues(rng, count);
  for (let i = 0; i < Math.min(count, F32_SPECIALS.length); i++) values[(i * 7) % count] = F32_SPECIALS[i] ?? 0;
  return values;
}

function tensorOf(rng: Rng, dtype: ConcatDType, shape: number[]): HostTensor {
  const count = numel(shape);
  switch (dtype) {
    case 'f32':
      return hostF32(shape, valuesFor(rng, count));
    case 'f16':
      return hostF16(shape, valuesFor(rng, count)); // 1e-40 rounds to 0, 2^-149 too; 3.4e38 to -inf
    case 'u32': {
      const values = new Uint32Array(count).map(() => Math.floor(rng.next() * 2 ** 32));
      if (count > 1) values[1] = 0xffffffff;
      return hostU32(shape, values);
    }
    case 'i32': {
      const values = new Int32Array(count).map(() => Math.floor(rng.next() * 2 ** 32) | 0);
      if (count > 1) values[1] = -(2 ** 31);
      return { dtype: 'i32', shape, data: bytesOf(values) };
    }
  }
}

function concatCase(dtype: ConcatDType, [aShape, bShape]: readonly [number[], number[]]): ConformanceCase {
  return {
    name: `concat ${dtype} ${shapeName(aShape)} ${shapeName(bShape)}`,
    build: (rng) => ({ op: 'concat', a: tensorOf(rng, dtype, aShape), b: tensorOf(rng, dtype, bShape) }),
    tolerance: EXACT,
  };
}

const DTYPES: readonly ConcatDType[] = ['f32', 'f16', 'i32', 'u32'];

/** Every concat case. */
export const CONCAT_CASES: readonly ConformanceCase[] = DTYPES.flatMap((dtype) =>
  SHAPES.map((shapes) => concatCase(dtype, shapes)),
);
