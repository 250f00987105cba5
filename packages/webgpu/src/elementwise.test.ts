// add, mul, scale, silu, swiglu against JS on odd and zero sizes, f32 and f16.
import { floatToHalf, halfToFloat } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestBackend, runF32, runOne, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { add, addF16, mul, mulF16, scale, scaleF16, silu, swiglu } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});
const SIZES = [0, 1, 3, 7, 17, 33, 65];

describe.skipIf(!setup.ok)('elementwise ops on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  it.each(SIZES)('add and mul of %i elements, same shape and broadcast', async (n) => {
    const a = randomF32(3 * n, n + 1);
    const b = randomF32(n, n + 2);
    const ta = await upload(backend, 'f32', [3, n], a);
    const tb = await upload(backend, 'f32', [n], b);
    const tb3 = await upload(backend, 'f32', [3, n], a);
    expectClose(await runF32(backend, { op: 'add', a: ta, b: tb }), add(a, b), 0, 0, 'add broadcast');
    expectClose(await runF32(backend, { op: 'mul', a: ta, b: tb }), mul(a, b), 0, 0, 'mul broadcast');
    expectClose(await runF32(backend, { op: 'add', a: ta, b: tb3 }), add(a, a), 0, 0, 'add same shape');
    for (const t of [ta, tb, tb3]) backend.free(t.buffer);
  });

  it('broadcasts a scalar-shaped b', async () => {
    const a = randomF32(7, 5);
    const ta = await upload(backend, 'f32', [7], a);
    const tb = await upload(backend, 'f32', [], [2.5]);
    expectClose(await runF32(backend, { op: 'mul', a: ta, b: tb }), mul(a, Float32Array.of(2.5)), 0, 0, 'mul scalar');
  });

  it.each(SIZES)('scale, silu and swiglu of %i elements', async (n) => {
    const x = randomF32(n, 10 + n, 6);
    const up = randomF32(n, 20 + n, 2);
    const tx = await upload(backend, 'f32', [n], x);
    const tu = await upload(backend, 'f32', [n], up);
    expectClose(await runF32(backend, { op: 'scale', x: tx, factor: -1.5 }), scale(x, -1.5), 0, 0, 'scale');
    expectClose(await runF32(backend, { op: 'silu', x: tx }), silu(x), 1e-6, 1e-5, 'silu');
    expectClose(await runF32(backend, { op: 'swiglu', gate: tx, up: tu }), swiglu(x, up), 1e-6, 1e-5, 'swiglu');
  });

  it('keeps f16 results binary16-exact through a chain (add -> scale -> mul)', async () => {
    const n = 33;
    const a = Array.from(randomF32(n, 1, 100), (v) => halfToFloat(floatToHalf(v)));
    const b = Array.from(randomF32(n, 2, 100), (v) => halfToFloat(floatToHalf(v)));
    const toHalfBits = (values: number[]): Uint16Array => Uint16Array.from(values, floatToHalf);
    const ta = await upload(backend, 'f16', [n], toHalfBits(a));
    const tb = await upload(backend, 'f16', [n], toHalfBits(b));
    const sum = await runOne(backend, { op: 'add', a: ta, b: tb });
    const scaled = await runOne(backend, { op: 'scale', x: sum, factor: 1 / 3 });
    const product = await runOne(backend, { op: 'mul', a: scaled, b: ta });
    const bytes = await backend.download(product.buffer);
    expect(bytes.byteLength).toBe(n * 2);
    const got = Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, n), halfToFloat);
    const [ha, hb] = [toHalfBits(a), toHalfBits(b)];
    const third = Math.fround(1 / 3); // the factor as the device holds it (f32)
    const expected = Array.from(mulF16(scaleF16(addF16(ha, hb), third), ha), halfToFloat);
    expectClose(got, expected, 0, 0, 'f16 chain');
  });

  it('squares an f16 tensor read twice by one op (mul(x, x): one widened copy serves both operands)', async () => {
    const n = 17;
    const x = Array.from(randomF32(n, 3, 50), (v) => halfToFloat(floatToHalf(v)));
    const tx16 = Uint16Array.from(x, floatToHalf);
    const tx = await upload(backend, 'f16', [n], tx16);
    const squared = await runOne(backend, { op: 'mul', a: tx, b: tx });
    const bytes = await backend.download(squared.buffer);
    const got = Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, n), halfToFloat);
    expectClose(got, Array.from(mulF16(tx16, tx16), halfToFloat), 0, 0, 'f16 x * x');
  });

  it('rounds f16 overflow to infinity and keeps subnormals', async () => {
    const values = [65504, 60000, 6e-8, -3e-5, 1e-7];
    const bits = Uint16Array.from(values, floatToHalf);
    const t = await upload(backend, 'f16', [values.length], bits);
    const doubled = await runOne(backend, { op: 'scale', x: t, factor: 2 });
    const bytes = await backend.download(doubled.buffer);
    const got = Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, values.length), halfToFloat);
    const expected = values.map((v) => halfToFloat(floatToHalf(halfToFloat(floatToHalf(v)) * 2)));
    expect(got).toEqual(expected);
    expect(got[0]).toBe(Infinity);
  });
});
