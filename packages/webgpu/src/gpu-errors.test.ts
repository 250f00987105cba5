// GPU errors become BackendError subclasses: error scopes around real invalid calls, and the class mapping.
import { BackendError, OutOfMemoryError } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireContext } from './acquire.ts';
import { BufferUsage } from './gpu-constants.ts';
import { fromGpuError } from './gpu-errors.ts';
import { guarded } from './guarded.ts';
import { createNodeGpu } from './node-gpu.ts';
import { requireBackend } from '../../../test/support/requirements.ts';
import { webGpuMissing } from './test-support/gpu.ts';
import { directWaiter } from './waiter.ts';

const present = requireBackend('webgpu', webGpuMissing());
const acquired = present
  ? await acquireContext({ gpu: await createNodeGpu(), waiter: directWaiter, powerPreference: 'high-performance' })
  : undefined;
const ready =
  acquired !== undefined && requireBackend('webgpu', acquired.ok ? undefined : `no device: ${acquired.reason}`);
afterAll(async () => {
  if (acquired?.ok) acquired.context.device.destroy();
});

class GPUOutOfMemoryError extends Error {}
class GPUValidationError extends Error {}
class GPUInternalError extends Error {}

describe('fromGpuError', () => {
  it('maps WebGPU error classes to Tandem errors', () => {
    const oom = fromGpuError(new GPUOutOfMemoryError('no room'), 'matmul', 1234);
    expect(oom).toBeInstanceOf(OutOfMemoryError);
    expect(oom).toMatchObject({ code: 'OUT_OF_MEMORY', requestedBytes: 1234, backend: 'webgpu' });
    expect(fromGpuError(new GPUValidationError('bad'), 'add', 0)).toMatchObject({ code: 'GPU_VALIDATION' });
    expect(fromGpuError(new GPUInternalError('boom'), 'add', 0)).toMatchObject({ code: 'GPU_INTERNAL' });
  });
});

describe.skipIf(!ready)('guarded sections on a device', () => {
  if (!acquired?.ok) return;
  const ctx = acquired.context;

  it('a validation error inside the scopes rejects with GPU_VALIDATION; the device stays usable', async () => {
    const invalidUsage = BufferUsage.MAP_READ | BufferUsage.STORAGE;
    const attempt = guarded(
      ctx,
      { what: 'bad buffer', requestedBytes: 16 },
      () => ctx.device.createBuffer({ size: 16, usage: invalidUsage }),
      () => undefined,
    );
    await expect(attempt).rejects.toBeInstanceOf(BackendError);
    await expect(attempt).rejects.toMatchObject({ code: 'GPU_VALIDATION' });
    const fine = await guarded(
      ctx,
      { what: 'good buffer', requestedBytes: 16 },
      () => ctx.device.createBuffer({ size: 16, usage: BufferUsage.STORAGE }),
      () => undefined,
    );
    expect(fine.size).toBe(16);
    expect(ctx.lostReason).toBeUndefined();
  });

  it('a synchronous throw inside the section becomes a BackendError and runs cleanup', async () => {
    let cleaned = false;
    const attempt = guarded(
      ctx,
      { what: 'throwing section', requestedBytes: 0 },
      (): number => {
        throw new TypeError('bad descriptor');
      },
      () => undefined,
      () => {
        cleaned = true;
      },
    );
    await expect(attempt).rejects.toMatchObject({
      code: 'GPU_ERROR',
      message: expect.stringContaining('bad descriptor'),
    });
    expect(cleaned).toBe(true);
  });
});
