import { describe, expect, it } from 'vitest';
import type { Op, TensorSpec } from '../ops.ts';
import { opKeyOf } from './op-key.ts';

const spec = (dtype: TensorSpec['dtype']): TensorSpec => ({ dtype, shape: [4, 4] });

describe('opKeyOf', () => {
  it("keys on the op and its inputs' distinct dtypes in order: f16 and f32 calls are learned apart", () => {
    const matmul = (a: TensorSpec, b: TensorSpec): Op<TensorSpec> => ({ op: 'matmul', a, b });
    const inputs = (a: TensorSpec, b: TensorSpec) => [
      { name: 'a', tensor: a },
      { name: 'b', tensor: b },
    ];
    expect(opKeyOf(matmul(spec('f32'), spec('f32')), inputs(spec('f32'), spec('f32')))).toBe('matmul|f32');
    expect(opKeyOf(matmul(spec('f16'), spec('f16')), inputs(spec('f16'), spec('f16')))).toBe('matmul|f16');
    expect(opKeyOf(matmul(spec('f32'), spec('q4_0')), inputs(spec('f32'), spec('q4_0')))).toBe('matmul|f32+q4_0');
  });

  it('keys a call given no inputs under the default dtype, f32', () => {
    const a = spec('f16');
    expect(opKeyOf({ op: 'matmul', a, b: a }, [])).toBe('matmul|f32');
  });
});
