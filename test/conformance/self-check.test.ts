// The suite checks itself: a backend that is wrong by a little, or that returns a tied topK index in the other
// order, goes through the same runner and comparison as real backends do.
import {
  createRng,
  type BoundTensor,
  type CapableBackend,
  type DeviceBuffer,
  type Op,
  type RunResult,
  type TensorSpec,
} from '@tandem/core';
import { computeReference, readF32, ReferenceBackend } from '@tandem/reference';
import { describe, expect, it } from 'vitest';
import { CASES } from './cases.ts';
import { compareOutputs } from './compare.ts';
import { hostF32 } from './host-tensor.ts';
import { runCaseOnBackend } from './run-case.ts';

/** The reference, except that run() adds `delta` to the first element of the first f32 output. */
class PerturbedBackend extends ReferenceBackend {
  constructor(private readonly delta: number) {
    super();
  }

  /** Runs the op, then perturbs output 0 element 0. */
  override async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const result = await super.run(op, outputs);
    const [first, ...rest] = result.outputs;
    if (first === undefined) return result;
    const values = readF32(await this.download(first)).slice();
    values[0] = (values[0] ?? 0) + this.delta;
    this.free(first);
    const replaced: DeviceBuffer = await this.upload(new Uint8Array(values.buffer), {
      dtype: 'f32',
      shape: [values.length],
    });
    return { outputs: [replaced, ...rest], kernelMs: result.kernelMs };
  }
}

/** Counts live buffers by wrapping upload / run / free. */
function counting(backend: CapableBackend): { backend: CapableBackend; live: () => number } {
  const live = new Set<number>();
  const wrapped: CapableBackend = {
    name: backend.name,
    kind: backend.kind,
    priority: backend.priority,
    capabilities: backend.capabilities,
    init: () => backend.init(),
    describe: () => backend.describe(),
    upload: async (data, spec) => {
      const b = await backend.upload(data, spec);
      live.add(b.id);
      return b;
    },
    download: (b) => backend.download(b),
    free: (b) => {
      live.delete(b.id);
      backend.free(b);
    },
    run: async (op, outputs) => {
      const result = await backend.run(op, outputs);
      for (const b of result.outputs) live.add(b.id);
      return result;
    },
    health: () => backend.health(),
    dispose: () => backend.dispose(),
  };
  return { backend: wrapped, live: () => live.size };
}

describe('conformance self-check', () => {
  const matmulCase = CASES.find((c) => c.name === 'matmul f32 7x13x5');

  it('fails a backend that is off by more than the tolerance, and passes one within it', async () => {
    if (matmulCase === undefined) throw new Error('case missing');
    const op = matmulCase.build(createRng(1));
    const want = computeReference(op);
    const bad = compareOutputs(op, await runCaseOnBackend(new PerturbedBackend(1e-3), op), want, matmulCase.tolerance);
    expect(bad.ok).toBe(false);
    expect(bad.message).toMatch(/1 of 35 elements differ.*\[0\] got/);
    const fine = compareOutputs(op, await runCaseOnBackend(new PerturbedBackend(1e-7), op), want, matmulCase.tolerance);
    expect(fine.ok).toBe(true);
  });

  it('runCaseOnBackend frees everything it allocated, also when run() fails', async () => {
    const { backend, live } = counting(new ReferenceBackend());
    const x = hostF32([2, 3], Float32Array.of(1, 2, 3, 4, 5, 6));
    await runCaseOnBackend(backend, { op: 'topK', x, k: 2 });
    expect(live()).toBe(0);
    const failing: CapableBackend = { ...backend, run: () => Promise.reject(new Error('boom')) };
    await expect(runCaseOnBackend(failing, { op: 'silu', x })).rejects.toThrow('boom');
    expect(live()).toBe(0);
  });
});
