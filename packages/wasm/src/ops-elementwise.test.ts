import { beforeAll, describe, expect, it } from 'vitest';
import { decodeF16, encodeF16, numel } from '@tandem/core';
import type { WasmBackend } from './wasm-backend.ts';
import { asU16, expectClose, f32, runF32, runOnBackend, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { add, addF16, mul, mulF16, silu, swiglu } from '@tandem/reference';

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend();
});

const F32_TOL = { abs: 1e-6, rel: 1e-6 };

describe('add / mul', () => {
  it('adds and multiplies small hand-checked tensors, with suffix broadcast', async () => {
    const a = f32([2, 3], [1, 2, 3, 4, 5, 6]);
    expect(Array.from(await runF32(backend, { op: 'add', a, b: f32([2, 3], [10, 20, 30, 40, 50, 60]) }))).toEqual([
      11, 22, 33, 44, 55, 66,
    ]);
    expect(Array.from(await runF32(backend, { op: 'add', a, b: f32([3], [10, 20, 30]) }))).toEqual([
      11, 22, 33, 14, 25, 36,
    ]);
    expect(Array.from(await runF32(backend, { op: 'mul', a: f32([3, 1], [1, 2, 3]), b: f32([1], [2]) }))).toEqual([
      2, 4, 6,
    ]);
    expect(Array.from(await runF32(backend, { op: 'mul', a, b: f32([], [3]) }))).toEqual([3, 6, 9, 12, 15, 18]);
  });

  it('matches JS for random shapes and broadcasts', async () => {
    const random = createRandom(30);
    for (const [shape, bShape] of [
      [[65], [65]],
      [[7, 33], [33]],
      [
        [3, 5, 17],
        [5, 17],
      ],
      [[17, 1], [1]],
      [[1000], [1000]],
      [
        [4, 3],
        [4, 3],
      ],
    ] as const) {
      const count = numel(shape);
      const bCount = numel(bShape);
      const a = randomFloats(random, count, 10);
      const b = randomFloats(random, bCount, 10);
      expectClose(
        await runF32(backend, { op: 'add', a: f32(shape, a), b: f32(bShape, b) }),
        add(a, b),
        F32_TOL,
        `add ${shape}`,
      );
      expectClose(
        await runF32(backend, { op: 'mul', a: f32(shape, a), b: f32(bShape, b) }),
        mul(a, b),
        F32_TOL,
        `mul ${shape}`,
      );
    }
  });

  it('computes f16 inputs in f32 and rounds the result to f16', async () => {
    const random = createRandom(31);
    const a = encodeF16(randomFloats(random, 35, 4));
    const b = encodeF16(randomFloats(random, 7, 4));
    for (const op of ['add', 'mul'] as const) {
      const { outputs, specs } = await runOnBackend(backend, {
        op,
        a: { dtype: 'f16', shape: [5, 7], data: a },
        b: { dtype: 'f16', shape: [7], data: b },
      });
      expect(specs[0]?.dtype).toBe('f16');
      const want = op === 'add' ? addF16(a, b) : mulF16(a, b);
      expect(Array.from(asU16(outputs[0] ?? new Uint8Array()))).toEqual(Array.from(want));
    }
  });
});

describe('scale', () => {
  it('multiplies f32 and f16 by a factor', async () => {
    expect(Array.from(await runF32(backend, { op: 'scale', x: f32([5], [1, -2, 3, 0.5, 0]), factor: -2 }))).toEqual([
      -2, 4, -6, -1, -0,
    ]);
    const bits = encodeF16(Float32Array.of(1, 2, 3, 65504, -0.5));
    const { outputs } = await runOnBackend(backend, {
      op: 'scale',
      x: { dtype: 'f16', shape: [5], data: bits },
      factor: 2,
    });
    expect(Array.from(decodeF16(asU16(outputs[0] ?? new Uint8Array())))).toEqual([2, 4, 6, Infinity, -1]);
  });
});

describe('silu / swiglu', () => {
  it('silu matches x * sigmoid(x), including large magnitudes', async () => {
    const values = [0, 1, -1, 2.5, -2.5, 10, -10, 20, -20, 88, -88, 100, -100, 1e-8, -1e-8];
    const random = createRandom(32);
    const x = Float32Array.from([...values, ...randomFloats(random, 1001, 12)]);
    const out = await runF32(backend, { op: 'silu', x: f32([x.length], x) });
    expectClose(out, silu(x), { abs: 1e-6, rel: 2e-6 }, 'silu');
  });

  it('swiglu is silu(gate) * up', async () => {
    const random = createRandom(33);
    const gate = randomFloats(random, 3 * 37, 6);
    const up = randomFloats(random, 3 * 37, 6);
    const out = await runF32(backend, { op: 'swiglu', gate: f32([3, 37], gate), up: f32([3, 37], up) });
    expectClose(out, swiglu(gate, up), { abs: 1e-6, rel: 2e-6 }, 'swiglu');
  });
});
