// The deliberately wrong kernels are wrong in exactly the way they say (a self-check built on a double that were
// accidentally right, or wrong in another way, would prove nothing): on a 3x4 by 4x2 matmul of distinct values,
// 'zeros' gives zeros, 'off-by-one' the reference's outputs one element late, 'transposed' the product of the first
// operand's data stored column-major; and through the CapableBackend interface the same.
import { Engine } from '@tandem/core';
import { matmul } from '@tandem/reference';
import { describe, expect, it } from 'vitest';
import { hostF32, valuesOf } from '../conformance/host-tensor.ts';
import { WRONG_KINDS, WrongBackend, wrongOutputs } from './wrong-backend.ts';

const a = Float32Array.from({ length: 12 }, (_, i) => i + 1);
const b = Float32Array.from({ length: 8 }, (_, i) => 2 * i - 5);
const op = { op: 'matmul', a: hostF32([3, 4], a), b: hostF32([4, 2], b) } as const;
const right = matmul(a, b, 3, 4, 2);

/** a's [3, 4] data stored column-major: element i of the new data is a(i mod 3, floor(i / 3)). */
function readColumnMajor(values: Float32Array): Float32Array {
  return Float32Array.from({ length: 12 }, (_, i) => values[(i % 3) * 4 + Math.floor(i / 3)] ?? Number.NaN);
}

describe('wrongOutputs', () => {
  it("'zeros' gives zeros of the right shape", () => {
    const [out] = wrongOutputs('zeros', op);
    expect(out?.shape).toEqual([3, 2]);
    expect(Array.from(out === undefined ? [] : valuesOf(out))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it("'off-by-one' gives element i + 1 at i, and 0 last", () => {
    const [out] = wrongOutputs('off-by-one', op);
    expect(Array.from(out === undefined ? [] : valuesOf(out))).toEqual([...Array.from(right).slice(1), 0]);
  });

  it("'transposed' multiplies the first operand's data read column-major", () => {
    const [out] = wrongOutputs('transposed', op);
    const want = matmul(readColumnMajor(a), b, 3, 4, 2);
    expect(out === undefined ? [] : valuesOf(out)).toEqual(want);
    expect(want).not.toEqual(right);
  });
});

describe('WrongBackend', () => {
  it('through an engine, each kind gives its wrong outputs, none the right ones', async () => {
    const engine = await Engine.create({ backends: WRONG_KINDS.map((kind) => new WrongBackend(kind)) });
    for (const kind of WRONG_KINDS) {
      const out = await engine.matmul(engine.tensor(a, [3, 4]), engine.tensor(b, [4, 2]), {
        strategy: { only: `wrong-${kind}` },
      });
      const got = await out.read();
      const [want] = wrongOutputs(kind, op);
      expect(got, kind).toEqual(want === undefined ? undefined : valuesOf(want));
      expect(got, kind).not.toEqual(right);
    }
    await engine.dispose();
  });
});
