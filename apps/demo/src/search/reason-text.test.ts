// The reason text follows the engine's state: a real engine (simulated CPU and software GPU, as SwiftShader is here)
// whose GPU has run a small matmul still keeps auto's small batches off it, and the page then says that no GPU time
// has been learned, not that there is no GPU measurement; once the GPU's times are learned, the text says measured.
import { describeReason, Engine, type OpEvent } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { describe, expect, it } from 'vitest';
import { reasonText } from './reason-text.ts';

async function engineWithSoftwareGpu(): Promise<Engine> {
  const clock = new ManualClock();
  const cpu = new SimulatedBackend({ name: 'wasm', kind: 'cpu', priority: 10, latencyMs: () => 2, clock });
  const gpu = new SimulatedBackend({
    name: 'webgpu',
    kind: 'gpu',
    priority: 20,
    latencyMs: () => 0.5,
    clock,
    software: true,
  });
  return Engine.create({ clock: clock.clock, backends: [cpu, gpu] });
}

/** The last op event of the engine's telemetry. */
function lastEvent(engine: Engine): OpEvent {
  const event = engine.telemetry.opEvents().at(-1);
  if (event === undefined) throw new Error('no op event');
  return event;
}

describe('reasonText', () => {
  it('after the GPU has run the op at that shape, no longer says "no GPU measurement yet"', async () => {
    const engine = await engineWithSoftwareGpu();
    const x = engine.zeros([1, 64]); // batch 1: below gpuMinBatchSize
    const w = engine.zeros([64, 64]);
    (await engine.matmul(x, w, { strategy: 'gpu-preferred' })).dispose();
    expect(lastEvent(engine).backend).toBe('webgpu'); // the GPU has run it, at this shape
    (await engine.matmul(x, w)).dispose();
    const auto = lastEvent(engine);
    expect(auto.backend).toBe('wasm');
    const text = reasonText(auto.reason);
    expect(auto.reason).toEqual({ kind: 'below-min-batch', batch: 1, minBatch: 64 });
    expect(describeReason(auto.reason)).toContain('no GPU measurement yet'); // core's short form, untrue here
    expect(text).not.toContain('no GPU measurement yet');
    expect(text).toMatch(/^batch 1 is below gpuMinBatchSize 64, and the cost model has learned no GPU time/);
    // Once the GPU's times are learned (calls after its warm-up), auto weighs measured costs and says so.
    for (let i = 0; i < 4; i++) (await engine.matmul(x, w, { strategy: 'gpu-preferred' })).dispose();
    (await engine.matmul(x, w)).dispose();
    const later = lastEvent(engine);
    expect(later.reason.kind).toBe('cost-model');
    expect(reasonText(later.reason)).not.toContain('no GPU measurement yet');
    await engine.dispose();
  });
});
