// opInputs is written out per op for speed (it runs on every engine call); it must list exactly the tensors, and in
// the order, that mapOpTensors visits, for every op of the conformance suite (which covers the whole op set, with
// and without optional inputs such as rmsNorm's weight).
import { describe, expect, it } from 'vitest';
import { inferOutputs, mapOpTensors, OP_KINDS, opInputs, opWork, type Op } from '@tandem/core';
import type { HostTensor } from '@tandem/reference';
import { CASES, caseRng } from '../conformance/cases.ts';

function visited(op: Op<HostTensor>): Array<{ name: string; tensor: HostTensor }> {
  const seen: Array<{ name: string; tensor: HostTensor }> = [];
  mapOpTensors(op, (tensor, name) => {
    seen.push({ name, tensor });
    return tensor;
  });
  return seen;
}

describe('opInputs', () => {
  const ops = CASES.map((c) => ({ name: c.name, op: c.build(caseRng(c.name)) }));

  it('covers every op kind through the conformance cases', () => {
    expect(new Set(ops.map((o) => o.op.op))).toEqual(new Set(OP_KINDS));
    expect(ops.some((o) => o.op.op === 'rmsNorm' && o.op.weight === undefined)).toBe(true);
  });

  it.each(ops.map((o) => [o.name, o.op] as const))(
    '%s: same tensors, same names, same order as mapOpTensors',
    (_name, op) => {
      const listed = opInputs(op);
      const seen = visited(op);
      expect(listed.map((i) => i.name)).toEqual(seen.map((i) => i.name));
      listed.forEach((input, i) => {
        expect(input.tensor).toBe(seen[i]?.tensor);
      });
    },
  );
});

describe('opWork for matmul (computed from the three dimensions)', () => {
  const spec = (dtype: 'f32' | 'f16', shape: number[]) => ({ dtype, shape });
  it.each([
    ['f32', 3, 5, 7],
    ['f16', 64, 64, 64],
    ['f32', 1, 1, 1],
  ] as const)('%s %ix%ix%i: flops, bytes of a, b and the output, batch', (dtype, m, k, n) => {
    const op = { op: 'matmul', a: spec(dtype, [m, k]), b: spec(dtype, [k, n]) } as const;
    const bytesPer = dtype === 'f16' ? 2 : 4;
    expect(opWork(op, inferOutputs(op))).toEqual({
      flops: 2 * m * k * n,
      bytes: bytesPer * (m * k + k * n + m * n),
      batch: m,
    });
  });
  it('still rejects mismatched inner dimensions and ranks, naming the argument', () => {
    expect(() => inferOutputs({ op: 'matmul', a: spec('f32', [2, 3]), b: spec('f32', [4, 5]) })).toThrow(
      /b\.shape\[0\].*4.*a\.shape\[1\] \(3\)/,
    );
    expect(() => inferOutputs({ op: 'matmul', a: spec('f32', [2, 3, 1]), b: spec('f32', [3, 5]) })).toThrow(
      /a\.shape.*rank 2/,
    );
    expect(() => inferOutputs({ op: 'matmul', a: spec('f32', [2, 3]), b: spec('f32', [3]) })).toThrow(
      /b\.shape.*rank 2/,
    );
  });
});
