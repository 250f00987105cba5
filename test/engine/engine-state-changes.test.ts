// What the engine does when its state changes under it: a backend initialised again, a copy after an idle spell, a
// GPU's first run in a call (kept as a warm-up example), a profile's warm-up on zeros, and a second dispose().
import { describe, expect, it } from 'vitest';
import {
  Engine,
  type BoundTensor,
  type DeviceBuffer,
  type Op,
  type RunResult,
  type Tensor,
  type TensorSpec,
} from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

const N = 256;

/** A simulated GPU that keeps count of its device buffers and of dispose() calls. */
class CountingGpu extends SimulatedBackend {
  readonly live = new Set<number>();
  disposals = 0;

  override async upload(data: Uint8Array): Promise<DeviceBuffer> {
    const buffer = await super.upload(data);
    this.live.add(buffer.id);
    return buffer;
  }

  override async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const result = await super.run(op, outputs);
    for (const b of result.outputs) this.live.add(b.id);
    return result;
  }

  override free(buffer: DeviceBuffer): void {
    this.live.delete(buffer.id);
    super.free(buffer);
  }

  override async dispose(): Promise<void> {
    this.disposals++;
    await super.dispose();
  }
}

/** A simulated cpu and a counting gpu on one manual clock. */
async function countingEngine(gpuOptions: { compilesOnFirstRun?: boolean; transferBytesPerMs?: number } = {}) {
  const clock = new ManualClock();
  const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
  const gpu = new CountingGpu({ name: 'gpu', kind: 'gpu', priority: 20, latencyMs: gpuLatency, clock, ...gpuOptions });
  return { clock, cpu, gpu };
}

describe('engine state changes', () => {
  it('a backend initialised again drops the plans cached while it was unavailable', async () => {
    const { clock, cpu, gpu } = await countingEngine({ compilesOnFirstRun: false });
    const init = gpu.init.bind(gpu);
    gpu.init = async () => ({ ok: false, reason: 'no adapter' });
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    const a = square(engine, N);
    for (let i = 0; i < 4; i++) await engine.matmul(a, a); // the CPU measured: its plan is cached
    expect(engine.telemetry.opEvents().map((e) => e.backend)).toEqual(['cpu', 'cpu', 'cpu', 'cpu']);
    gpu.init = init;
    await engine.init();
    await engine.matmul(a, a);
    expect(engine.telemetry.latestOpEvent()?.backend).toBe('gpu');
    await engine.dispose();
  });

  it("does not learn from a result read after its backend sat idle: copyTimes keeps the warm copies' time", async () => {
    const { clock, gpu } = await countingEngine({ transferBytesPerMs: 1024 });
    const engine = await Engine.create({ backends: [gpu], clock: clock.clock });
    for (let i = 0; i < 2; i++) await (await engine.scale(engine.tensor(new Float32Array(1024), [1024]), 2)).read();
    expect(engine.copyTimes('gpu').download).toEqual([{ bytes: 4096, ms: expect.closeTo(4, 9) }]); // the first is skipped
    // 5000 bytes: the same size class as 4096; read 100 ms after the op ended, a cold copy.
    const out = await engine.scale(engine.tensor(new Float32Array(1250), [1250]), 2);
    clock.advance(100);
    await out.read();
    expect(engine.copyTimes('gpu').download).toEqual([{ bytes: 4096, ms: expect.closeTo(4, 9) }]);
    await engine.dispose();
  });

  it("keeps a compiling GPU's first run of an op in a call as a warm-up example for the profile", async () => {
    const { engine } = await simulatedEngine();
    const a = square(engine, N);
    for (let i = 0; i < 6; i++) await engine.matmul(a, a, { strategy: 'gpu-preferred' });
    expect(engine.telemetry.opEvents().every((e) => e.backend === 'gpu')).toBe(true); // no background warm-up
    expect(engine.profile.export().warmUps).toEqual([
      { backend: 'gpu', op: { op: 'matmul', a: { dtype: 'f32', shape: [N, N] }, b: { dtype: 'f32', shape: [N, N] } } },
    ]);
    const plain = await simulatedEngine({ gpu: { compilesOnFirstRun: false } });
    const b = square(plain.engine, N);
    for (let i = 0; i < 6; i++) await plain.engine.matmul(b, b, { strategy: 'gpu-preferred' });
    expect(plain.engine.profile.export().warmUps).toEqual([]);
  });

  it('an imported profile drops the plans cached before it: its read-back rate reprices the GPU', async () => {
    // A GPU behind a slow bus (1 KB per ms): downloading a 256 x 256 result costs it 262 ms.
    const { clock, cpu, gpu } = await countingEngine({ compilesOnFirstRun: false });
    const slowBus = { flopsPerMs: 2e9, bytesPerMs: 3e8, launchMs: 0.1, transferBytesPerMs: 1e3 };
    gpu.describe = () => ({ name: 'simulated gpu', features: [], performance: slowBus });
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    const a = square(engine, N);
    const kept: Tensor[] = [];
    for (const only of ['gpu', 'cpu', 'cpu']) kept.push(await engine.matmul(a, a, { strategy: { only } })); // a on the GPU too
    for (let i = 0; i < 12; i++) kept.push(await engine.matmul(a, a)); // results never read: no read-back charged
    const pick = () => engine.explain({ op: 'matmul', a, b: a }).selection;
    expect(pick()).toMatchObject({ backend: 'gpu', reason: { kind: 'cost-model', measured: true } });
    const profile = engine.profile.export();
    expect(profile.readBack).toEqual([]);
    const imported = engine.profile.import({ ...profile, readBack: [{ opKey: 'matmul|f32', rate: 1 }] });
    expect(imported.used).toBe(true);
    expect(pick().backend).toBe('cpu'); // every result read back: the GPU pays 262 ms for each
    expect(kept).toHaveLength(15);
    await engine.dispose();
  });

  it("frees the zeros a profile's warm-up ran on, and its outputs, on the GPU", async () => {
    const { engine: first } = await simulatedEngine();
    const a = square(first, N);
    for (let i = 0; i < 8; i++) await first.matmul(a, a);
    const profile = first.profile.export();
    expect(profile.warmUps).toHaveLength(1);
    const { clock, cpu, gpu } = await countingEngine();
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    expect(engine.profile.import(profile).used).toBe(true);
    await engine.whenWarm();
    expect(gpu.calls).toBe(1);
    expect(gpu.live.size).toBe(0);
    await engine.dispose();
  });

  it('dispose() twice disposes each backend once', async () => {
    const { clock, cpu, gpu } = await countingEngine();
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    await engine.dispose();
    await engine.dispose();
    expect(gpu.disposals).toBe(1);
  });
});
