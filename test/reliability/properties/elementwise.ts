// Properties of the element-wise ops and concat: add, mul, scale, silu, gelu, swiglu (f32 and f16), concat of every dtype.
import fc from 'fast-check';
import { encodeF16 } from '@tandem/core';
import { bytesOf, type HostTensor } from '@tandem/reference';
import { EPS32, EXACT, F16_OUTPUT, ONE_F32_ROUNDING } from '../../conformance/case.ts';
import { hostF32 } from '../../conformance/host-tensor.ts';
import { flushed, type OpProperty } from '../property-support.ts';
import { anyF32, size, special, values, wide } from './values.ts';

/** An f32 host tensor of `values`, subnormals flushed when `flush`. */
export function f32(values: ArrayLike<number>, shape: number[], flush: boolean): HostTensor {
  return hostF32(shape, flush ? flushed(values) : Float32Array.from(values));
}

/** Two f32 vectors of one length (0..300 or near a tile edge), any values. */
const pairOfVectors = size(300).chain((n) => fc.tuple(values(anyF32, n), values(anyF32, n)));

/** add, mul, scale, silu and gelu of f32 vectors: one f32 rounding each (silu, gelu: a few ulp). */
export const elementwiseF32: OpProperty<[number[], number[]]> = {
  name: 'add, mul, scale, silu and gelu of f32 vectors of any length, NaN, infinities and subnormals included',
  input: pairOfVectors,
  agreements: ([a, b], flush) => [
    { op: { op: 'add', a: f32(a, [a.length], flush), b: f32(b, [b.length], flush) }, tolerance: ONE_F32_ROUNDING },
    { op: { op: 'mul', a: f32(a, [a.length], flush), b: f32(b, [b.length], flush) }, tolerance: ONE_F32_ROUNDING },
    { op: { op: 'scale', x: f32(a, [a.length], flush), factor: 0.75 }, tolerance: ONE_F32_ROUNDING },
    { op: { op: 'silu', x: f32(b, [b.length], flush) }, tolerance: { abs: 1e-6, rel: 16 * EPS32 } },
    { op: { op: 'gelu', x: f32(a, [a.length], flush) }, tolerance: { abs: 1e-6, rel: 16 * EPS32 } },
  ],
  catches: ['zeros', 'off-by-one'],
};

/** swiglu = silu(gate) * up on [rows, width]: a silu and a product, a few ulp. */
export const swiglu: OpProperty<[number, number[], number[]]> = {
  name: 'swiglu of f32 [rows, width] gates and ups, special values included',
  input: fc
    .tuple(fc.integer({ min: 1, max: 4 }), size(70))
    .chain(([rows, width]) =>
      fc.tuple(fc.constant(width), values(fc.oneof(wide, special), rows * width), values(wide, rows * width)),
    ),
  agreements: ([width, gate, up], flush) => {
    const shape = [width === 0 ? 0 : gate.length / width, width];
    return [
      {
        op: { op: 'swiglu', gate: f32(gate, shape, flush), up: f32(up, shape, flush) },
        tolerance: { abs: 1e-6, rel: 32 * EPS32 },
      },
    ];
  },
  catches: ['zeros', 'off-by-one'],
};

/** f16 values: ordinary, extreme, NaN, infinities, subnormals. */
const f16Value = fc.oneof(
  fc.float({ min: -60000, max: 60000, noNaN: true }),
  wide,
  fc.constantFrom(Number.NaN, Infinity, -Infinity, 0, -0, 6e-8, -3e-5),
);

/** An f16 host tensor holding `values` rounded to binary16 (f16 subnormals are normal f32: nothing to flush). */
function f16(values: readonly number[]): HostTensor {
  return { dtype: 'f16', shape: [values.length], data: bytesOf(encodeF16(Float32Array.from(values))) };
}

/** add and scale of f16 vectors: the result rounded to f16, two ulp. */
export const elementwiseF16: OpProperty<[number[], number[]]> = {
  name: 'add and scale of f16 vectors, with f16 NaN, infinities and subnormals',
  input: size(200).chain((n) => fc.tuple(values(f16Value, n), values(f16Value, n))),
  agreements: ([a, b]) => [
    { op: { op: 'add', a: f16(a), b: f16(b) }, tolerance: F16_OUTPUT },
    { op: { op: 'scale', x: f16(a), factor: -1.5 }, tolerance: F16_OUTPUT },
  ],
  catches: ['zeros', 'off-by-one'],
};

/** concat along axis 0 of [ra, width] and [rb, width] of f32, f16, i32 or u32 bytes: an exact copy. */
export const concat: OpProperty<[HostTensor['dtype'], number, number, number, number[]]> = {
  name: 'concat of [Ra, W] and [Rb, W] tensors of every dtype (Ra or Rb 0 included): the bytes of a then b',
  input: fc
    .tuple(
      fc.constantFrom<HostTensor['dtype']>('f32', 'f16', 'i32', 'u32'),
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 0, max: 5 }),
      size(40, 130),
    )
    .chain(([dtype, ra, rb, width]) =>
      fc.tuple(
        fc.constant(dtype),
        fc.constant(ra),
        fc.constant(rb),
        fc.constant(width),
        values(fc.integer({ min: 0, max: 0xffff }), (ra + rb) * width),
      ),
    ),
  agreements: ([dtype, ra, rb, width, words]) => {
    // The drawn integers as values of the dtype (exact in each; no subnormal f32 a GPU could flush).
    const tensor = (from: number, rows: number): HostTensor => {
      const slice = words.slice(from * width, (from + rows) * width);
      const typed =
        dtype === 'f32'
          ? Float32Array.from(slice)
          : dtype === 'f16'
            ? encodeF16(Float32Array.from(slice))
            : dtype === 'i32'
              ? Int32Array.from(slice, (w) => w - 0x8000)
              : Uint32Array.from(slice);
      return { dtype, shape: [rows, width], data: bytesOf(typed) };
    };
    return [{ op: { op: 'concat', a: tensor(0, ra), b: tensor(ra, rb) }, tolerance: EXACT }];
  },
  catches: ['zeros', 'off-by-one'],
};
