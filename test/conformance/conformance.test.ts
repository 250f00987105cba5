// The conformance suite: every backend under test (wasm, webgpu, rocm: test/support/backends.ts) runs every case
// through the CapableBackend interface, and its outputs are compared with the reference kernels' outputs computed
// directly (computeReference). The reference backend is not compared with itself: one plumbing test runs it.
import {
  backendSupports,
  DTYPES,
  inferOutputs,
  mapOpTensors,
  OP_KINDS,
  opInputs,
  primaryInput,
  type Op,
  type TensorSpec,
} from '@tandem/core';
import { computeReference, ReferenceBackend, type HostTensor } from '@tandem/reference';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestBackends } from '../support/backends.ts';
import { CASES, caseRng } from './cases.ts';
import { compareOutputs } from './compare.ts';
import { runCaseOnBackend, specOf } from './run-case.ts';

/**
 * Per case: the ROCm emulation runs every GPU thread on the CPU (its largest attention case takes ~11 s on an idle
 * 2-core machine), so the suite's 60 s default left a loaded machine no margin; a hang still fails.
 */
const CASE_TIMEOUT_MS = 300_000;

const started = await startTestBackends();

afterAll(async () => {
  await Promise.all(started.map((s) => s.backend?.dispose()));
});

for (const { name, backend } of started) {
  describe.skipIf(backend === undefined)(`conformance on ${name}`, () => {
    for (const c of CASES) {
      it(
        c.name,
        async (context) => {
          if (backend === undefined) throw new Error(`${name} did not start`);
          const op = c.build(caseRng(c.name));
          const verdict = backendSupports(backend, specOf(op));
          if (!verdict.ok) context.skip(`${name} does not support this case: ${verdict.reason}`);
          const comparison = compareOutputs(op, await runCaseOnBackend(backend, op), computeReference(op), c.tolerance);
          expect(comparison.ok, comparison.message).toBe(true);
        },
        CASE_TIMEOUT_MS,
      );
    }
  });
}

describe('the reference backend through the conformance runner (plumbing: upload, run, download, free)', () => {
  it("gives computeReference's outputs bit for bit", async () => {
    const c = CASES.find((x) => x.name === 'matmul f32 7x13x5');
    if (c === undefined) throw new Error('case missing');
    const op = c.build(caseRng(c.name));
    const backend = new ReferenceBackend();
    expect(await backend.init()).toEqual({ ok: true });
    const got = await runCaseOnBackend(backend, op);
    expect(got).toEqual(computeReference(op));
    await backend.dispose();
  });
});

/** An FNV-1a checksum of each input's bytes. */
function inputChecksums(op: Op<HostTensor>): number[] {
  return opInputs(op).map(({ tensor }) => {
    let hash = 0x811c9dc5;
    for (const byte of tensor.data) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    return hash;
  });
}

/** `op.input:dtype` for each input of an op. */
function inputKeys(op: Op<TensorSpec>): string[] {
  return opInputs(op).map(({ name, tensor }) => `${op.op}.${name}:${tensor.dtype}`);
}

/** Input dtypes inferOutputs would also accept, changing one input at a time. */
function acceptedAlternatives(op: Op<TensorSpec>): string[] {
  const keys: string[] = [];
  for (const { name } of opInputs(op)) {
    for (const dtype of DTYPES) {
      const variant = mapOpTensors(op, (t, n): TensorSpec => (n === name ? { dtype, shape: t.shape } : t));
      try {
        inferOutputs(variant);
        keys.push(`${op.op}.${name}:${dtype}`);
      } catch {
        // not accepted: nothing to cover
      }
    }
  }
  return keys;
}

describe('conformance case list', () => {
  const built: Array<Op<HostTensor>> = CASES.map((c) => c.build(caseRng(c.name)));
  const specs = built.map(specOf);

  it('has unique names', () => {
    const names = CASES.map((c) => c.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('builds valid, deterministic ops', () => {
    CASES.forEach((c, i) => {
      const op = built[i];
      if (op === undefined) throw new Error(`case ${c.name} did not build`);
      expect(() => inferOutputs(op), c.name).not.toThrow();
      expect(inputChecksums(c.build(caseRng(c.name))), c.name).toEqual(inputChecksums(op));
    });
  });

  it('covers every op id in OP_KINDS', () => {
    const covered = new Set(built.map((op) => op.op));
    expect(OP_KINDS.filter((kind) => !covered.has(kind))).toEqual([]);
  });

  it("covers every (op, dtype) pair in the reference backend's capability table", () => {
    const covered = new Set(specs.map((op) => `${op.op}:${primaryInput(op).dtype}`));
    const listed = new ReferenceBackend().capabilities.flatMap((c) => c.dtypes.map((d) => `${c.op}:${d}`));
    expect(listed.filter((key) => !covered.has(key))).toEqual([]);
  });

  it('covers every dtype each input accepts (e.g. q8_0 and q4_0 weights of quantizedMatmul)', () => {
    const covered = new Set(specs.flatMap(inputKeys));
    const required = new Set(specs.flatMap(acceptedAlternatives));
    expect([...required].filter((key) => !covered.has(key))).toEqual([]);
  });
});
