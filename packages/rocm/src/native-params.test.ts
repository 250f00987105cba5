// Typed native parameters: each kernel's parameters are written once in TypeScript (packages/rocm/src/kernels) and
// once in C++ (its struct's field table in native-rocm/kernels/<op_id>.hip); the emulated addon's kernels() reports
// the C++ side, compared here field by field with the TypeScript side, and its limits are the ones supportsOp uses.
import { describe, expect, it } from 'vitest';
import type { OpKind, OpOf, TensorSpec } from '@tandem/core';
import { CASES, caseRng } from '../../../test/conformance/cases.ts';
import { specOf } from '../../../test/conformance/run-case.ts';
import { EMULATED_ROCM_ADDON, needBackend } from '../../../test/support/backends.ts';
import { loadAddon } from './load-addon.ts';
import { NATIVE_PARAMS, ROCM_KERNELS } from './kernel-table.ts';
import { nativeCall, nativeParams, parameterDrift } from './native-params.ts';

describe('the kernel table', () => {
  it('names a declared native kernel for every conformance case it can run (every op and dtype)', () => {
    const undeclared: string[] = [];
    for (const c of CASES) {
      const op = specOf(c.build(caseRng(c.name)));
      const id = nativeIdOf(op);
      if (id !== undefined && !NATIVE_PARAMS.has(id)) undeclared.push(`${c.name}: ${id}`);
    }
    expect(undeclared).toEqual([]);
  });

  it('passes only declared parameters, leaving out the optional ones it does not set', () => {
    const spec = nativeParams({ m: 'dim', variant: 'dim?', q8: 'flag?' });
    expect(nativeCall(spec, 'k', [], { m: 3 }).params).toEqual({ m: 3 });
    expect(nativeCall(spec, 'k', [], { m: 3, q8: 1 }).params).toEqual({ m: 3, q8: 1 });
  });

  it('reports a kernel whose parameters differ, naming both sides', () => {
    const mine = new Map([['k', nativeParams({ m: 'dim', n: 'dim' })]]);
    expect(parameterDrift(mine, [{ name: 'k', params: { m: 'dim', n: 'dim' } }])).toEqual([]);
    expect(parameterDrift(mine, [{ name: 'k', params: { m: 'dim', nn: 'dim' } }])).toEqual([
      `k takes [["m","dim"],["nn","dim"]], the backend passes [["m","dim"],["n","dim"]]`,
    ]);
    expect(parameterDrift(mine, [{ name: 'k', params: { n: 'dim', m: 'dim' } }])).toHaveLength(1);
  });
});

describe.skipIf(!needBackend('rocm'))('the emulated addon against the kernel table', () => {
  const load = loadAddon(EMULATED_ROCM_ADDON);

  it('has every native kernel the table declares, with the same parameters in the same order, and no other', () => {
    if (!load.ok) throw new Error(load.reason);
    const kernels = load.addon.kernels();
    expect(kernels.map((k) => k.name).sort()).toEqual([...NATIVE_PARAMS.keys()].sort());
    expect(parameterDrift(NATIVE_PARAMS, kernels)).toEqual([]);
  });

  it('exports the kernels limits (kernels.h), positive integers', () => {
    if (!load.ok) throw new Error(load.reason);
    const limits = load.addon.limits;
    expect(limits).toEqual({
      topKMax: 4096,
      attentionDimsPerLane: 8,
      matmulMaxColumnsF32: 65535 * 128,
      matmulMaxColumnsF16: 65535 * 16,
      cosineWarpQueries: 16,
      quantizedDirectRows: 8,
    });
  });
});

/** The native kernel id the table's kernel uses for `op`, or undefined when no kernel takes it. */
function nativeIdOf<K extends OpKind>(op: OpOf<K, TensorSpec>): string | undefined {
  return ROCM_KERNELS[op.op]?.nativeId(op);
}
