// attention against JS: odd sizes, grouped KV heads, causal, more keys than one tile, zero sizes.
import { afterAll, describe, it } from 'vitest';
import { createTestBackend, runF32, upload } from './test-support/gpu.ts';
import { expectClose, randomF32 } from './test-support/random.ts';
import { attention } from '@tandem/reference';

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

describe.skipIf(!setup.ok)('attention on WebGPU', () => {
  if (!setup.ok) return;
  const backend = setup.backend;

  // [sq, sk, heads, kvHeads, d]
  const cases: Array<[number, number, number, number, number]> = [
    [1, 1, 1, 1, 1],
    [3, 7, 2, 1, 4],
    [7, 7, 4, 2, 3],
    [1, 17, 3, 3, 8],
    [5, 65, 2, 2, 16],
    [17, 33, 1, 1, 7],
    [2, 130, 2, 1, 65],
    [0, 4, 2, 1, 4],
    [3, 5, 0, 1, 4],
    [3, 4, 2, 1, 0],
  ];
  it.each(cases)('sq=%i sk=%i heads=%i kv=%i d=%i', async (sq, sk, heads, kvHeads, d) => {
    const q = randomF32(sq * heads * d, sq + sk * 3 + d);
    const k = randomF32(sk * kvHeads * d, sk + 11);
    const v = randomF32(sk * kvHeads * d, sk + 12);
    const tq = await upload(backend, 'f32', [sq, heads, d], q);
    const tk = await upload(backend, 'f32', [sk, kvHeads, d], k);
    const tv = await upload(backend, 'f32', [sk, kvHeads, d], v);
    const dims = { sq, sk, heads, kvHeads, headDim: d };
    for (const causal of [false, true]) {
      for (const scale of [undefined, 0.3]) {
        const got = await runF32(backend, { op: 'attention', q: tq, k: tk, v: tv, causal, scale });
        const expected = attention(q, k, v, dims, causal, scale);
        expectClose(got, expected, 1e-5, 1e-4, `attention causal=${causal} scale=${scale}`);
      }
    }
  });

  it('gives zeros when there are no keys', async () => {
    const tq = await upload(backend, 'f32', [2, 1, 3], randomF32(6, 1));
    const tk = await upload(backend, 'f32', [0, 1, 3], []);
    const got = await runF32(backend, { op: 'attention', q: tq, k: tk, v: tk, causal: false, scale: undefined });
    expectClose(got, new Float32Array(6), 0, 0, 'no keys');
  });
});
