// Outputs a caller reads back are charged to the backend that must copy them to the host (issue 9: on a discrete
// GPU the read-back of a large elementwise result costs more than the kernel, and `auto` lost to the CPU there).
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_PROFILES,
  Engine,
  Residency,
  Scheduler,
  Storage,
  type Op,
  type OpWork,
  type Tensor,
  type TensorSpec,
} from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Elementwise on 1M elements: CPU 1 ms, GPU 0.1 ms; the GPU's bus moves 4 MB in 2 ms (a 4 MB result: +2 ms). */
const cpuLatency = (_op: Op<TensorSpec>, w: OpWork): number => 0.003 + w.bytes / 1.2e7;
const gpuLatency = (_op: Op<TensorSpec>, w: OpWork): number => 0.05 + w.bytes / 2.4e8;
const BUS_BYTES_PER_MS = 2e6;

/** `cpuSlowdown` > 1 makes the CPU slow enough that the GPU wins even with the read-back. */
async function busEngine(cpuSlowdown = 1): Promise<{ engine: Engine; clock: ManualClock }> {
  const clock = new ManualClock();
  const cpu = new SimulatedBackend({
    name: 'cpu',
    kind: 'cpu',
    priority: 10,
    latencyMs: (op, w) => cpuSlowdown * cpuLatency(op, w),
    clock,
  });
  const performance = { ...DEFAULT_PROFILES.gpu, transferBytesPerMs: BUS_BYTES_PER_MS };
  const gpu = new SimulatedBackend({
    name: 'gpu',
    kind: 'gpu',
    priority: 20,
    latencyMs: gpuLatency,
    clock,
    transferBytesPerMs: BUS_BYTES_PER_MS,
    performance,
  });
  const engine = await Engine.create({ clock: clock.clock, backends: [cpu, gpu] });
  return { engine, clock };
}

/** Inputs resident on both backends (as after a user's first calls), so only the output's trip matters. */
async function residentInputs(engine: Engine): Promise<{ a: Tensor; b: Tensor }> {
  const a = engine.tensor(new Float32Array(1 << 20), [1024, 1024]);
  const b = engine.tensor(new Float32Array(1 << 20), [1024, 1024]);
  for (const only of ['cpu', 'gpu'])
    for (const out of await engine.run({ op: 'add', a, b }, { strategy: { only } })) out.dispose();
  return { a, b };
}

/** Runs `calls` auto calls; `read` says whether the caller reads each result; returns the backends used. */
async function autoCalls(engine: Engine, call: Op<Tensor>, calls: number, read: boolean): Promise<string[]> {
  const backends: string[] = [];
  for (let i = 0; i < calls; i++) {
    const [out] = await engine.run(call);
    if (read) await out?.read();
    out?.dispose();
    backends.push(engine.telemetry.opEvents().at(-1)?.backend ?? '');
  }
  return backends;
}

describe('auto: read-back of outputs', () => {
  it('a caller who reads every result gets the CPU when copying the result back costs more than the GPU saves', async () => {
    const { engine, clock } = await busEngine();
    const { a, b } = await residentInputs(engine);
    const used = await autoCalls(engine, { op: 'add', a, b }, 60, true);
    // The first calls may go to the GPU (nothing learned about reads yet); from then on, the CPU.
    expect(used.slice(-40).every((name) => name === 'cpu')).toBe(true);
    expect(engine.explain({ op: 'add', a, b }).selection.backend).toBe('cpu');
    // And a whole call (run + read) under auto now costs what the CPU alone does.
    const t0 = clock.nowMs;
    const [out] = await engine.run({ op: 'add', a, b });
    await out?.read();
    const autoMs = clock.nowMs - t0;
    const t1 = clock.nowMs;
    const [cpuOut] = await engine.run({ op: 'add', a, b }, { strategy: { only: 'cpu' } });
    await cpuOut?.read();
    expect(autoMs).toBe(clock.nowMs - t1);
  });

  it('results that stay on the device (never read, only disposed) leave the op on the faster GPU', async () => {
    const { engine } = await busEngine();
    const { a, b } = await residentInputs(engine);
    const used = await autoCalls(engine, { op: 'add', a, b }, 60, false);
    expect(used.slice(-40).every((name) => name === 'gpu')).toBe(true);
  });

  it('follows a change of use: reads stop, the op goes back to the GPU', async () => {
    const { engine } = await busEngine();
    const { a, b } = await residentInputs(engine);
    await autoCalls(engine, { op: 'add', a, b }, 40, true);
    expect(engine.explain({ op: 'add', a, b }).selection.backend).toBe('cpu');
    const used = await autoCalls(engine, { op: 'add', a, b }, 60, false);
    expect(used.at(-1)).toBe('gpu');
  });

  it('a charged read-back does not make a reused plan look drifted: identical calls still reuse it', async () => {
    const { engine } = await busEngine(20); // CPU 20 ms: the GPU's 0.1 ms run + 2 ms read-back still wins
    const { a, b } = await residentInputs(engine);
    await autoCalls(engine, { op: 'add', a, b }, 60, true);
    expect(engine.explain({ op: 'add', a, b }).selection.estimatedMs).toBeGreaterThan(1); // read-back charged
    const plans = vi.spyOn(Scheduler.prototype, 'plan');
    const used = await autoCalls(engine, { op: 'add', a, b }, 64, true);
    expect(used.every((name) => name === 'gpu')).toBe(true);
    expect(plans.mock.calls.length).toBeLessThan(16);
  });
});

describe('download estimate (Residency)', () => {
  it('learns time = per-copy latency + bytes / bandwidth, so small copies do not pass for a slow bus, and a few stalled copies do not move it', async () => {
    // A bus with 0.1 ms per copy and 1 MB/ms: a 4 KB copy takes 0.104 ms, a 4 MB copy 4.1 ms.
    const clock = new ManualClock();
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', clock, latencyMs: () => 0.01 });
    const download = gpu.download.bind(gpu);
    let stall = 0;
    vi.spyOn(gpu, 'download').mockImplementation(async (buffer) => {
      clock.advance(0.1 + buffer.byteLength / 1e6 + stall);
      return download(buffer);
    });
    const residency = new Residency({
      backends: new Map([['gpu', gpu]]),
      clock: clock.clock,
      priorBytesPerMs: () => 5e6,
    });
    /** Downloads a 4 KB and a 4 MB buffer from the GPU, `rounds` times. */
    const downloads = async (rounds: number): Promise<void> => {
      for (let i = 0; i < rounds; i++) {
        for (const bytes of [4096, 4 << 20]) {
          const storage = new Storage('f32', bytes, undefined);
          storage.replicas.set('gpu', await gpu.upload(new Uint8Array(bytes)));
          await residency.hostBytes(storage);
        }
      }
    };
    await downloads(30);
    expect(residency.downloadEstimateMs(4096, 'gpu')).toBeCloseTo(0.104, 2);
    expect(residency.downloadEstimateMs(4 << 20, 'gpu')).toBeCloseTo(0.1 + (4 << 20) / 1e6, 1);
    // A few copies stalled by the host (a GC pause: +10 ms each) leave the estimates where they were.
    stall = 10;
    await downloads(3);
    expect(residency.downloadEstimateMs(4096, 'gpu')).toBeCloseTo(0.104, 2);
    expect(residency.downloadEstimateMs(4 << 20, 'gpu')).toBeCloseTo(0.1 + (4 << 20) / 1e6, 1);
  });
});
