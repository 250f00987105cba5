// The proxy against the in-process backend on the same (software) device: every conformance case gives the
// same bytes through the GPU process as in this process, the description and limits agree, errors come back
// as the same classes with the same messages, and dispose leaves no process behind.
import { backendSupports, BackendError, InvalidArgumentError } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { CASES, caseRng } from '../../../../test/conformance/cases.ts';
import { compareOutputs } from '../../../../test/conformance/compare.ts';
import { runCaseOnBackend, specOf } from '../../../../test/conformance/run-case.ts';
import { createTestBackend } from '../test-support/gpu.ts';
import { childProcessIds, createTestProxy, processExists } from './process-test-support.ts';

/** Ops whose WebGPU kernels sum floats in an order that varies between runs, in-process too. */
const ORDER_DEPENDENT_OPS: ReadonlySet<string> = new Set(['spreadActivation']);

const local = await createTestBackend();
const proxy = local.ok ? await createTestProxy() : local;

afterAll(async () => {
  if (local.ok) await local.backend.dispose();
  if (proxy.ok) await proxy.backend.dispose();
  expect(childProcessIds(), 'no GPU process outlives the tests').toEqual([]);
});

describe.skipIf(!local.ok || !proxy.ok)('WebGPU in a GPU process, against in-process WebGPU', () => {
  if (!local.ok || !proxy.ok) return;
  const inProcess = local.backend;
  const remote = proxy.backend;

  it('runs in another process and describes the same device and limits', () => {
    const pid = remote.processId();
    expect(pid).toBeDefined();
    expect(pid).not.toBe(process.pid);
    expect(childProcessIds()).toContain(pid);
    const mine = inProcess.describe();
    const theirs = remote.describe();
    expect(theirs.name).toBe(`${mine.name} (GPU process ${pid})`);
    expect(theirs).toMatchObject({
      maxStorageBufferBindingSize: mine.maxStorageBufferBindingSize,
      maxBufferSize: mine.maxBufferSize,
      software: mine.software,
      features: mine.features,
    });
    // The prior adds the IPC round trip to every launch and the channel to every transfer.
    expect(theirs.performance?.launchMs).toBeGreaterThan(mine.performance?.launchMs ?? Infinity);
    expect(theirs.performance?.transferBytesPerMs).toBeLessThan(mine.performance?.transferBytesPerMs ?? 0);
    expect(remote.health()).toEqual({ state: 'healthy' });
  });

  for (const c of CASES) {
    it(`same bytes as in-process: ${c.name}`, async (context) => {
      const op = c.build(caseRng(c.name));
      const spec = specOf(op);
      const verdict = backendSupports(inProcess, spec);
      expect(backendSupports(remote, spec)).toEqual(verdict);
      if (!verdict.ok) context.skip(`webgpu does not support this case: ${verdict.reason}`);
      // Both at once: the GPU process compiles and runs while this one does.
      const [got, want] = await Promise.all([runCaseOnBackend(remote, op), runCaseOnBackend(inProcess, op)]);
      const comparison = compareOutputs(op, got, want, c.tolerance);
      expect(comparison.ok, comparison.message).toBe(true);
      // Same kernels on the same device give the same bits, except where a kernel's float summation order
      // varies between runs (spread_activation.wgsl adds with atomics): there the tolerance above applies.
      if (!ORDER_DEPENDENT_OPS.has(op.op))
        expect(
          got.map((t) => [...t.data]),
          'bit-identical on the same device',
        ).toEqual(want.map((t) => [...t.data]));
    });
  }

  it('rebuilds errors as the classes and messages the in-process backend throws', async () => {
    const bad = new Uint8Array(12);
    const spec = { dtype: 'f32' as const, shape: [4] };
    const inProcessError = await inProcess.upload(bad, spec).catch((e: unknown) => e);
    const remoteError = await remote.upload(bad, spec).catch((e: unknown) => e);
    expect(inProcessError).toBeInstanceOf(InvalidArgumentError);
    expect(remoteError).toBeInstanceOf(InvalidArgumentError);
    expect(String(remoteError)).toBe(String(inProcessError));

    const buffer = await remote.upload(new Uint8Array(16), spec);
    remote.free(buffer);
    const freed = await remote.download(buffer).catch((e: unknown) => e);
    expect(freed).toBeInstanceOf(BackendError);
    expect(freed).toMatchObject({ code: 'UNKNOWN_BUFFER', backend: 'webgpu' });
  });

  it('dispose ends the GPU process', async () => {
    const extra = await createTestProxy();
    if (!extra.ok) throw new Error(extra.reason);
    const pid = extra.backend.processId() ?? -1;
    expect(processExists(pid)).toBe(true);
    await extra.backend.dispose();
    expect(processExists(pid)).toBe(false);
    expect(extra.backend.health().state).toBe('unavailable');
    await expect(
      extra.backend.run(
        { op: 'silu', x: { dtype: 'f32', shape: [1], buffer: { backend: 'webgpu', id: 1, byteLength: 4 } } },
        [],
      ),
    ).rejects.toThrow(/disposed/);
  });
});
