import { beforeAll, describe, it } from 'vitest';
import type { WasmBackend } from './wasm-backend.ts';
import { expectClose, f32, runF32, startedBackend } from './test-support/harness.ts';
import { createRandom, randomFloats } from './test-support/random.ts';
import { attention } from '@tandem/reference';

let backend: WasmBackend;
beforeAll(async () => {
  backend = await startedBackend();
});

describe('attention', () => {
  it('averages values evenly when every key scores the same', async () => {
    const q = f32([1, 1, 2], [0, 0]);
    const k = f32([3, 1, 2], [1, 2, 3, 4, 5, 6]);
    const v = f32([3, 1, 2], [1, 10, 2, 20, 3, 30]);
    expectClose(await runF32(backend, { op: 'attention', q, k, v, causal: false, scale: undefined }), [2, 20], {
      abs: 1e-6,
      rel: 1e-6,
    });
  });

  it('matches JS for grouped heads, odd head dims, causal prefill and decode', async () => {
    const random = createRandom(50);
    for (const [sq, sk, heads, kvHeads, dim] of [
      [1, 1, 1, 1, 1],
      [3, 5, 2, 1, 3],
      [5, 5, 4, 2, 7],
      [1, 17, 8, 2, 64],
      [7, 33, 6, 3, 17],
      [16, 16, 2, 2, 128],
    ] as const) {
      const q = randomFloats(random, sq * heads * dim, 2);
      const k = randomFloats(random, sk * kvHeads * dim, 2);
      const v = randomFloats(random, sk * kvHeads * dim, 2);
      for (const causal of [false, true]) {
        for (const scale of [undefined, 0.3]) {
          const out = await runF32(backend, {
            op: 'attention',
            q: f32([sq, heads, dim], q),
            k: f32([sk, kvHeads, dim], k),
            v: f32([sk, kvHeads, dim], v),
            causal,
            scale,
          });
          const want = attention(q, k, v, { sq, sk, heads, kvHeads, headDim: dim }, causal, scale);
          expectClose(
            out,
            want,
            { abs: 2e-6, rel: 1e-5 },
            `sq=${sq} sk=${sk} h=${heads}/${kvHeads} d=${dim} causal=${causal}`,
          );
        }
      }
    }
  });
});
