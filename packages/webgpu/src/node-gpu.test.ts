// createNodeGpu hands out one dawn.node GPU per set of flags per process (a second instance could abort it).
import { describe, expect, it } from 'vitest';
import { createNodeGpu } from './node-gpu.ts';
import { requireBackend } from '../../../test/support/requirements.ts';
import { webGpuMissing } from './test-support/gpu.ts';

describe.skipIf(!requireBackend('webgpu', webGpuMissing()))('createNodeGpu', () => {
  it('returns the same GPU for the same flags, and devices from it are separate', async () => {
    const [a, b] = await Promise.all([createNodeGpu(), createNodeGpu()]);
    expect(a).toBe(b);
    const adapter = await a.requestAdapter();
    if (adapter === null) throw new Error('no adapter');
    const [d1, d2] = [await adapter.requestDevice(), await (await b.requestAdapter())?.requestDevice()];
    expect(d1).not.toBe(d2);
    d1.destroy();
    d2?.destroy();
  });
});
