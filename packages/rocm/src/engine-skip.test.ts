// At the engine level, a ROCm backend without a device is skipped visibly: listed unavailable with its reason,
// and ops run elsewhere (on a machine without a GPU: its driver's device file decides, test-support/device.ts).
import { describe, expect, it } from 'vitest';
import { Engine } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { RocmBackend } from './index.ts';
import { gpuPresent } from './test-support/device.ts';

describe.skipIf(gpuPresent('amd') || gpuPresent('nvidia'))('an engine with a ROCm backend and no GPU', () => {
  it('marks rocm unavailable with its reason and runs on the other backend', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', latencyMs: () => 0.01, clock });
    const engine = await Engine.create({ backends: [new RocmBackend(), cpu], clock: clock.clock });
    const rocm = engine.backends().find((b) => b.name === 'rocm');
    expect(rocm?.available).toBe(false);
    expect(rocm?.unavailableReason).toMatch(/not built|no usable ROCm\/HIP device/);
    expect(rocm?.health.state).toBe('unavailable');
    const a = engine.tensor(new Float32Array(4), [2, 2]);
    await engine.run({ op: 'matmul', a, b: a });
    expect(cpu.calls).toBe(1);
    await engine.dispose();
  });
});
