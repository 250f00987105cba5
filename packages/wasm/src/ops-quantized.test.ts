import { beforeAll, describe, expect, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { expectClose, f32, runF32, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { decodeF16, encodeF16, quantizeAs } from '@tandem/core';
import { dequantize, quantizedMatmul } from '@tandem/reference';

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend();
});

const QUANT = ['q8_0', 'q4_0'] as const;

/** ggml's quantization of `values`, the last block padded with zeros (a partial last block holds count % 32 values). */
function quantize(dtype: 'q8_0' | 'q4_0', values: Float32Array): Uint8Array {
  const padded = new Float32Array(Math.ceil(values.length / 32) * 32);
  padded.set(values);
  return quantizeAs(dtype, padded);
}

describe('dequantize', () => {
  for (const dtype of QUANT) {
    it(`expands ${dtype} exactly, including a partial last block`, async () => {
      const random = createRandom(10);
      for (const count of [32, 64, 96, 40, 1, 33, 1000]) {
        const bytes = quantize(dtype, randomFloats(random, count, 3));
        const out = await runF32(backend, { op: 'dequantize', x: { dtype, shape: [count], data: bytes } });
        // The reference expands whole blocks only: the padded block's first count % 32 values.
        expectClose(
          out,
          dequantize(dtype, bytes, Math.ceil(count / 32) * 32).subarray(0, count),
          { abs: 0, rel: 0 },
          `${dtype} count=${count}`,
        );
      }
    });
  }

  it('decodes a hand-made q4_0 block: d = 0.5, nibbles 0..15', async () => {
    const block = new Uint8Array(18);
    new DataView(block.buffer).setUint16(0, 0x3800, true); // 0.5 in f16
    for (let j = 0; j < 16; j++) block[2 + j] = j | ((15 - j) << 4);
    const out = await runF32(backend, { op: 'dequantize', x: { dtype: 'q4_0', shape: [32], data: block } });
    const want = [
      ...Array.from({ length: 16 }, (_, j) => (j - 8) * 0.5),
      ...Array.from({ length: 16 }, (_, j) => (7 - j) * 0.5),
    ];
    expect(Array.from(out)).toEqual(want);
  });

  it('expands f16 exactly: normals, subnormals, zeros, infinities and NaN', async () => {
    const bits = Uint16Array.from([
      0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x1234,
      0xc567, 0x8001, 0x5000,
    ]);
    const out = await runF32(backend, { op: 'dequantize', x: { dtype: 'f16', shape: [bits.length], data: bits } });
    const want = decodeF16(bits);
    for (let i = 0; i < bits.length; i++) {
      if (Number.isNaN(want[i])) expect(out[i]).toBeNaN();
      else expect(Object.is(out[i], want[i]), `bits 0x${bits[i]?.toString(16)}: ${out[i]} vs ${want[i]}`).toBe(true);
    }
    const random = createRandom(11);
    const many = encodeF16(randomFloats(random, 1001, 100));
    expectClose(
      await runF32(backend, { op: 'dequantize', x: { dtype: 'f16', shape: [1001], data: many } }),
      decodeF16(many),
      { abs: 0, rel: 0 },
    );
  });
});

describe('quantizedMatmul', () => {
  for (const dtype of QUANT) {
    it(`matches x times dequantized ${dtype} weights for M in 1..33 (register path and panel path)`, async () => {
      const random = createRandom(dtype === 'q8_0' ? 20 : 21);
      for (const m of [1, 2, 3, 4, 5, 7, 8, 9, 17, 33]) {
        for (const [k, n] of [
          [32, 1],
          [64, 3],
          [96, 7],
          [288, 9],
          [544, 17],
          [32, 33],
        ] as const) {
          const x = randomFloats(random, m * k);
          const wBytes = quantize(dtype, randomFloats(random, n * k));
          const out = await runF32(backend, {
            op: 'quantizedMatmul',
            x: f32([m, k], x),
            w: { dtype, shape: [n, k], data: wBytes },
          });
          const want = quantizedMatmul(x, wBytes, dtype, m, k, n);
          expectClose(out, want, { abs: 2e-6 * k, rel: 1e-5 }, `${dtype} m=${m} k=${k} n=${n}`);
        }
      }
    });
  }

  it('matches the hand-computed product of one q8_0 row', async () => {
    const w = new Uint8Array(34);
    new DataView(w.buffer).setUint16(0, 0x4000, true); // d = 2
    for (let j = 0; j < 32; j++) w[2 + j] = (j - 16) & 255;
    const x = Float32Array.from({ length: 32 }, () => 1);
    const out = await runF32(backend, {
      op: 'quantizedMatmul',
      x: f32([1, 32], x),
      w: { dtype: 'q8_0', shape: [1, 32], data: w },
    });
    expect(Array.from(out)).toEqual([2 * (-16 * 32 + (31 * 32) / 2)]);
  });
});
