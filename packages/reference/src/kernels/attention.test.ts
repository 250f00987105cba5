import { describe, expect, it } from 'vitest';
import { attention, type AttentionDims } from './attention.ts';

const f32 = (...v: number[]): Float32Array => Float32Array.from(v);
const closeTo = (got: Float32Array, want: number[]): void => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => {
    expect(got[i]).toBeCloseTo(w, 6);
  });
};
const dims = (d: Partial<AttentionDims>): AttentionDims => ({ sq: 1, sk: 1, heads: 1, kvHeads: 1, headDim: 1, ...d });

describe('attention', () => {
  it('weights values by the softmax of scaled dot products', () => {
    // logits [1, 0] * ln 3 -> weights [0.75, 0.25]; v = [4, 0], [0, 8] -> [3, 2]
    const out = attention(f32(1, 0), f32(1, 0, 0, 1), f32(4, 0, 0, 8), dims({ sk: 2, headDim: 2 }), false, Math.log(3));
    closeTo(out, [3, 2]);
  });

  it('scales by 1 / sqrt(D) by default', () => {
    // D = 4: q . k = [2, 0] / 2 = [1, 0] -> [e / (e + 1), 1 / (e + 1)] = [0.7310586, 0.2689414]
    const out = attention(
      f32(2, 0, 0, 0),
      f32(1, 0, 0, 0, 0, 0, 0, 0),
      f32(1, 0, 0, 0, 0, 1, 0, 0),
      dims({ sk: 2, headDim: 4 }),
      false,
      undefined,
    );
    closeTo(out, [0.7310585786, 0.2689414214, 0, 0]);
  });

  it('causal: query i sees keys up to its own position', () => {
    // q0 sees key 0 only -> v0 = 4; q1 sees both, logits [0, ln 3] -> 0.25 * 4 + 0.75 * 8 = 7
    const out = attention(f32(1, 1), f32(0, Math.log(3)), f32(4, 8), dims({ sq: 2, sk: 2 }), true, 1);
    closeTo(out, [4, 7]);
  });

  it('causal with Sq < Sk: query i sits at position Sk - Sq + i', () => {
    // zero keys: uniform weights. q0 at position 1 sees v [3, 6] -> 4.5; q1 at position 2 sees all -> 7
    const out = attention(f32(1, 1), f32(0, 0, 0), f32(3, 6, 12), dims({ sq: 2, sk: 3 }), true, 1);
    closeTo(out, [4.5, 7]);
  });

  it('GQA: heads 0, 1 read kv head 0 and heads 2, 3 read kv head 1', () => {
    const out = attention(f32(1, 2, 3, 4), f32(0, 0), f32(10, 20), dims({ heads: 4, kvHeads: 2 }), false, undefined);
    closeTo(out, [10, 10, 20, 20]);
  });

  it('gives zeros when there are no keys', () => {
    closeTo(attention(f32(1, 2), f32(), f32(), dims({ sk: 0, headDim: 2 }), false, undefined), [0, 0]);
  });
});
