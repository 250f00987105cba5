// matmul (generic and vec4 kernels, f32 and f16), quantizedMatmul and dequantize against JS.
import { decodeF16, floatToHalf, halfToFloat, quantizeAs } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestBackend, run, runF32, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { dequantize, matmul, matmulF16, quantizedMatmul } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

describe.skipIf(!setup.ok)('matmul on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  const shapes: Array<[number, number, number]> = [
    [1, 1, 1],
    [3, 7, 17],
    [17, 33, 7],
    [65, 3, 33],
    [33, 65, 65],
    [0, 5, 3],
    [4, 0, 3],
    [5, 3, 0],
    [64, 64, 64],
    [65, 68, 72],
    [130, 20, 12],
  ];
  it.each(shapes)('f32 [%i, %i] x [%i, N]', async (m, k, n) => {
    const a = randomF32(m * k, m * 100 + k);
    const b = randomF32(k * n, n * 100 + k + 1);
    const ta = await upload(backend, 'f32', [m, k], a);
    const tb = await upload(backend, 'f32', [k, n], b);
    const got = await runF32(backend, { op: 'matmul', a: ta, b: tb });
    expectClose(got, matmul(a, b, m, k, n), 1e-5, 1e-4, `matmul ${m}x${k}x${n}`);
    backend.free(ta.buffer);
    backend.free(tb.buffer);
  });

  it('f16 matmul rounds its result to binary16', async () => {
    const [m, k, n] = [7, 17, 12];
    const a = Array.from(randomF32(m * k, 1, 4), (v) => halfToFloat(floatToHalf(v)));
    const b = Array.from(randomF32(k * n, 2, 4), (v) => halfToFloat(floatToHalf(v)));
    const ta = await upload(backend, 'f16', [m, k], Uint16Array.from(a, floatToHalf));
    const tb = await upload(backend, 'f16', [k, n], Uint16Array.from(b, floatToHalf));
    const [out] = await run(backend, { op: 'matmul', a: ta, b: tb });
    if (out === undefined) throw new Error('no output');
    const bytes = await backend.download(out.buffer);
    const got = Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, m * n), halfToFloat);
    const expected = decodeF16(matmulF16(Uint16Array.from(a, floatToHalf), Uint16Array.from(b, floatToHalf), m, k, n));
    expectClose(got, expected, 1e-3, 1e-3, 'f16 matmul');
    expect(got.every((v) => halfToFloat(floatToHalf(v)) === v)).toBe(true);
  });
});

describe.skipIf(!setup.ok)('quantized ops on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  for (const dtype of ['q8_0', 'q4_0'] as const) {
    const quantize = (values: Float32Array): Uint8Array => quantizeAs(dtype, values);

    // Block counts 1, 3 (odd: blocks straddle 4-byte words), 7 and 0.
    it.each([
      [1, 1, 1],
      [3, 3, 7],
      [7, 7, 3],
      [1, 0, 5],
      [0, 2, 3],
      [17, 2, 33],
      [5, 5, 65],
    ])(`${dtype} quantizedMatmul M=%i, K/32=%i, N=%i`, async (m, kBlocks, n) => {
      const k = kBlocks * 32;
      const x = randomF32(m * k, m + k + n);
      const wValues = randomF32(n * k, n * 7 + k, 2);
      const wBytes = quantize(wValues);
      const tx = await upload(backend, 'f32', [m, k], x);
      const tw = await upload(backend, dtype, [n, k], wBytes);
      const got = await runF32(backend, { op: 'quantizedMatmul', x: tx, w: tw });
      expectClose(got, quantizedMatmul(x, wBytes, dtype, m, k, n), 1e-4, 1e-4, `${dtype} qmatmul`);
    });

    it.each([0, 1, 3, 7, 33])(`dequantize ${dtype} of %i blocks`, async (blocks) => {
      const values = randomF32(blocks * 32, blocks + 3, 5);
      const bytes = quantize(values);
      const t = await upload(backend, dtype, [blocks, 32], bytes);
      const got = await runF32(backend, { op: 'dequantize', x: t });
      expectClose(got, dequantize(dtype, bytes, blocks * 32), 0, 0, `dequantize ${dtype}`);
    });

    it(`round-trips ${dtype} bytes through upload and download`, async () => {
      const bytes = quantize(randomF32(3 * 32, 9));
      const t = await upload(backend, dtype, [3 * 32], bytes);
      expect(await backend.download(t.buffer)).toEqual(bytes);
    });
  }

  it('dequantize f16 -> f32', async () => {
    const values = [0, -0, 1.5, -65504, 6e-8, Infinity];
    const t = await upload(backend, 'f16', [2, 3], Uint16Array.from(values, floatToHalf));
    const got = await runF32(backend, { op: 'dequantize', x: t });
    expect(Array.from(got)).toEqual(values.map((v) => halfToFloat(floatToHalf(v))));
  });
});
