// The ROCm backend where there is no GPU (CI): every way init() can fail says why, and a built addon loads and
// reports the runtime's no-device answer by name; on a machine with the GPU a build targets (its driver's device
// file, test-support/device.ts), that build opens it instead. Kernels are checked by test/conformance (and its GPU
// bundle, test/conformance/gpu).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackendError } from '@tandem/core';
import { BUILD_COMMAND, RocmBackend, variantPath } from './index.ts';
import { buildPresent, gpuPresent } from './test-support/device.ts';

const AMD_BUILD = variantPath('amd');
const NVIDIA_BUILD = variantPath('nvidia');

describe('RocmBackend without an addon', () => {
  it('names the build command when nothing is built', async () => {
    const backend = new RocmBackend({ buildDir: mkdtempSync(join(tmpdir(), 'rocm-empty-')) });
    const result = await backend.init();
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(BUILD_COMMAND);
    expect(backend.health()).toEqual({ state: 'unavailable', reason: expect.stringContaining('not built') });
    expect(backend.describe().features).toEqual([]);
    await expect(backend.upload(new Uint8Array(4), { dtype: 'f32', shape: [1] })).rejects.toBeInstanceOf(BackendError);
  });

  it('reports an addon that fails to load', async () => {
    const bogus = join(mkdtempSync(join(tmpdir(), 'rocm-bogus-')), 'tandem_rocm.node');
    writeFileSync(bogus, 'not a shared object');
    const result = await new RocmBackend({ addonPath: bogus }).init();
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('failed to load') });
  });

  it('reports a missing explicit path', async () => {
    const result = await new RocmBackend({ addonPath: '/nonexistent/tandem_rocm.node' }).init();
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('does not exist') });
  });

  it('is a gpu backend named rocm with priority 5', () => {
    const backend = new RocmBackend();
    expect([backend.name, backend.kind, backend.priority]).toEqual(['rocm', 'gpu', 5]);
  });
});

describe.skipIf(!buildPresent('amd') || gpuPresent('amd'))('the AMD build on a machine without an AMD GPU', () => {
  it('loads and reports hipErrorNoDevice', async () => {
    const backend = new RocmBackend({ addonPath: AMD_BUILD });
    const result = await backend.init();
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('hipErrorNoDevice') });
    expect(backend.health().state).toBe('unavailable');
  });
});

describe.skipIf(!buildPresent('nvidia') || gpuPresent('nvidia'))(
  'the NVIDIA build on a machine without an NVIDIA GPU',
  () => {
    it('loads and reports the CUDA runtime error by name', async () => {
      const result = await new RocmBackend({ addonPath: NVIDIA_BUILD }).init();
      expect(result).toEqual({
        ok: false,
        reason: expect.stringMatching(/nvidia build: no device \(cudaError(NoDevice|InsufficientDriver)/),
      });
    });
  },
);

for (const [variant, path] of [
  ['amd', AMD_BUILD],
  ['nvidia', NVIDIA_BUILD],
] as const) {
  describe.skipIf(!buildPresent(variant) || !gpuPresent(variant))(
    `the ${variant} build on a machine with that GPU`,
    () => {
      it('opens the device and is healthy', async () => {
        const backend = new RocmBackend({ addonPath: path });
        expect(await backend.init()).toEqual({ ok: true });
        expect(backend.health().state).toBe('healthy');
        await backend.dispose();
      });
    },
  );
}
