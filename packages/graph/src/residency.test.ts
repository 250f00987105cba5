// Residency on simulated backends (ManualClock, scripted latencies equal to the roofline priors, so the engine's
// estimates are exact): runs of GPU ops stay on the GPU when moving data would cost more than the gain, a CPU op
// between two GPU ops pays two transfers, 'auto' decides per run of ops where greedy per-op choice would not, and
// weights stay resident across runs. Telemetry and the Chrome trace name every node.
import { describe, expect, it } from 'vitest';
import type { ChromeTrace } from '@tandem/core';
import {
  DEFAULT_PROFILES,
  DTYPES,
  Engine,
  OP_KINDS,
  rooflineMs,
  type DeviceBuffer,
  type OpKind,
  type Tensor,
} from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { GraphBuilder } from './graph-builder.ts';
import { graphChromeTrace } from './report.ts';
import type { RunReport } from './report.ts';
import type { GraphStrategy } from './strategy.ts';

const N = 256;
const MATRIX_BYTES = N * N * 4;

/** A simulated backend that counts host<->device copies. */
class CountingSimulated extends SimulatedBackend {
  uploads = 0;
  downloads = 0;
  override async upload(data: Uint8Array): Promise<DeviceBuffer> {
    this.uploads++;
    return super.upload(data);
  }
  override async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    this.downloads++;
    return super.download(buffer);
  }
}

/**
 * CPU and GPU whose true latencies are the engine's default roofline priors; the GPU bus moves `busBytesPerMs`.
 * The graph: x -> up (matmul) -> act (silu) -> down (matmul), two GPU-sized matmuls around a cheap elementwise op.
 * Each run gets fresh host data for x (a new activation), so x goes up once per run.
 */
async function hybrid(busBytesPerMs: number, gpuOps: readonly OpKind[] = OP_KINDS) {
  const clock = new ManualClock();
  const cpuProfile = DEFAULT_PROFILES.cpu;
  const gpuProfile = { ...DEFAULT_PROFILES.gpu, transferBytesPerMs: busBytesPerMs };
  const cpu = new CountingSimulated({
    name: 'cpu',
    clock,
    kind: 'cpu',
    priority: 10,
    performance: cpuProfile,
    latencyMs: (_op, w) => rooflineMs(w, cpuProfile),
  });
  const gpu = new CountingSimulated({
    name: 'gpu',
    clock,
    kind: 'gpu',
    priority: 20,
    performance: gpuProfile,
    transferBytesPerMs: busBytesPerMs,
    latencyMs: (_op, w) => rooflineMs(w, gpuProfile),
    capabilities: gpuOps.map((op) => ({ op, dtypes: DTYPES })),
    // Kernels built ahead (as ROCm's): no CPU stands in while it warms up, so each run goes where the plan says.
    compilesOnFirstRun: false,
  });
  const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
  const g = new GraphBuilder(engine, { name: 'mlp', clock: clock.clock });
  const x = g.input('x', 'f32', [N, N]);
  const w1 = engine.tensor(new Float32Array(N * N), [N, N]);
  const w2 = engine.tensor(new Float32Array(N * N), [N, N]);
  const up = g.matmul('mlp.up', x, g.constant('mlp.up.weight', w1));
  const act = g.silu('mlp.act', up);
  g.output('y', g.matmul('mlp.down', act, g.constant('mlp.down.weight', w2)));
  const graph = g.build();
  const run = async (strategy: GraphStrategy = 'auto', replay = true) => {
    const r = await graph.run({ x: new Float32Array(N * N) }, { strategy, replay });
    r.outputs.dispose();
    return r.report;
  };
  return { engine, cpu, gpu, run, w1, w2 };
}

describe('residency-aware placement of a graph', () => {
  it('keeps a cheap op on the GPU between two GPU ops when moving its data costs more than the CPU would gain', async () => {
    // silu: CPU 0.055 ms vs GPU 0.102 ms on compute, but the CPU first has to download 256 KiB at 1 GB/s (0.26 ms).
    const { run, gpu } = await hybrid(1e6);
    await run('auto', false); // (node by node: this test reads the planner's reasons) the first run explores the unmeasured backends (the engine's rule)
    const fresh = await run('auto', false); // a plan made from what run 1 measured: each node the plan agrees on, the engine decides
    expect(fresh.placement?.reused).toBe(false);
    expect(fresh.nodes[1]?.reasonKind).toBe('cost-model');
    expect(fresh.nodes[1]?.reason).toMatch(/^cost model \(prior\): gpu 0\.102ms, cpu 0\.3\d\dms$/); // the CPU's cost includes the download
    const downloadsBefore = gpu.downloads;
    const report = await run('auto', false); // the plan reused: nodes run where it says, no per-node decision
    expect(report.placement?.reused).toBe(true);
    expect(report.nodes.map((n) => n.backend)).toEqual(['gpu', 'gpu', 'gpu']);
    expect(report.nodes[1]?.reason).toMatch(
      /^graph plan: mlp\.up \.\. mlp\.down on gpu \(as the engine's cost alone would \(estimate 0\.102ms\)\)/,
    );
    expect(report.placement?.overrides).toBe(0);
    expect(report.nodes.map((n) => n.bytesMoved)).toEqual([MATRIX_BYTES, 0, 0]); // only x goes up; weights are resident
    expect(gpu.downloads).toBe(downloadsBefore);
    expect(report.backendSwitches).toBe(0);
  });

  it('remakes a plan after 32 runs, and twice as late each time remaking gives the same plan (up to 512 runs)', async () => {
    const { run } = await hybrid(1e6);
    const made: number[] = [];
    // Replay off: this is the placement plan's own schedule (a replayed run makes no plan).
    for (let i = 0; i < 1 + 32 + 64 + 128 + 256 + 512 + 512 + 1; i++)
      if ((await run('auto', false)).placement?.reused === false) made.push(i);
    // Run 0: the plan on priors (one run); run 1: the first plan from measurements; then 32, 64, ... 512, 512 runs.
    expect(made).toEqual([0, 1, 33, 97, 225, 481, 993, 1505]);
  });

  it('moves the op to the CPU when the bus is fast enough, paying the round trip', async () => {
    const { run, gpu } = await hybrid(1e9);
    // The plan and its all-GPU alternative are measured in turns (a warm-up run each, then three runs each).
    for (let runs = 0; (await run()).placement?.chosenBy !== 'measured'; runs++) expect(runs).toBeLessThan(20);
    const [uploads, downloads] = [gpu.uploads, gpu.downloads];
    const report = await run();
    expect(report.placement?.chosenBy).toBe('measured');
    expect(report.nodes.map((n) => n.backend)).toEqual(['gpu', 'cpu', 'gpu']);
    expect(gpu.downloads - downloads).toBe(1); // up's output comes down for the CPU
    expect(gpu.uploads - uploads).toBe(2); // x, and act's output going back up
    expect(report.backendSwitches).toBe(2);
  });

  it('a CPU op between two GPU ops pays two transfers', async () => {
    // The GPU cannot run silu here, so the CPU must: its input comes down from the GPU and its output goes back up.
    const { run, gpu, cpu } = await hybrid(
      1e6,
      OP_KINDS.filter((op) => op !== 'silu'),
    );
    for (let i = 0; i < 2; i++) await run(); // exploration, then the weight's one-off upload
    const counts = { gpuUp: gpu.uploads, gpuDown: gpu.downloads, cpuUp: cpu.uploads, cpuDown: cpu.downloads };
    const report = await run();
    expect(report.nodes.map((n) => [n.name, n.backend])).toEqual([
      ['mlp.up', 'gpu'],
      ['mlp.act', 'cpu'],
      ['mlp.down', 'gpu'],
    ]);
    expect(gpu.downloads - counts.gpuDown).toBe(1); // transfer 1: GPU -> host (up's output, for act)
    expect(gpu.uploads - counts.gpuUp).toBe(2); // transfer 2: host -> GPU (act's output, for down); the other upload is x
    // Bytes each node's binding moved: x up; up's output down from the GPU and into the CPU; act's output out of the CPU and up.
    expect(report.nodes.map((n) => n.bytesMoved)).toEqual([MATRIX_BYTES, 2 * MATRIX_BYTES, 2 * MATRIX_BYTES]);
    expect(cpu.uploads - counts.cpuUp).toBe(1);
    expect(cpu.downloads - counts.cpuDown).toBe(1);
    // Each GPU leg took MATRIX_BYTES / 1e6 ms on the manual clock, inside the nodes' wall times.
    expect(report.nodes[1]?.ms).toBeGreaterThan(MATRIX_BYTES / 1e6);
    expect(report.nodes[2]?.ms).toBeGreaterThan(MATRIX_BYTES / 1e6);
  });

  it("decides per run of ops: keeps silu on the GPU where the engine's greedy per-op choice pays two transfers", async () => {
    // Bus 8 MB/ms: silu's input comes down in 0.033 ms, so per op the CPU looks cheaper (0.055 + 0.033 < 0.102) --
    // but its output must go back up for down (another 0.033 ms), which the greedy choice does not see.
    const { run, gpu, engine } = await hybrid(8e6);
    for (let i = 0; i < 2; i++) await run('per-op');
    const perOp = await run('per-op');
    expect(perOp.nodes.map((n) => n.backend)).toEqual(['gpu', 'cpu', 'gpu']);
    const downloads = gpu.downloads;
    const auto = await run('auto');
    expect(auto.nodes.map((n) => n.backend)).toEqual(['gpu', 'gpu', 'gpu']);
    expect(gpu.downloads).toBe(downloads);
    const act = auto.nodes[1];
    expect(act?.reasonKind).toBe('graph-plan');
    expect(act?.reason).toMatch(
      /^graph plan: mlp\.up \.\. mlp\.down on gpu \(engine alone: cpu\); plan 0\.\d+ms vs 0\.\d+ms placing each node alone$/,
    );
    const placement = auto.placement;
    expect(placement?.overrides).toBe(1);
    // Saved: the round trip (2 x 0.0328 ms) less silu's extra compute on the GPU (0.1017 - 0.0554 ms) = 0.019 ms;
    // the copies into the simulated CPU (free on the clock, so learned as very fast) add ~0.002 ms to greedy.
    expect((placement?.greedyMs ?? 0) - (placement?.estimatedMs ?? 0)).toBeCloseTo(0.02, 2);
    expect(auto.bytesMoved).toBe(MATRIX_BYTES); // x only
    expect(perOp.bytesMoved).toBe(5 * MATRIX_BYTES); // x, up's output down and into the CPU, act's output out and up
    expect(auto.totalMs).toBeLessThan(perOp.totalMs); // simulated time on the manual clock
    expect(perOp.totalMs - auto.totalMs).toBeCloseTo(0.019, 2);
    // The Chrome trace carries the graph's reason for the node the plan placed (the engine itself saw `{ only: 'gpu' }`).
    const slices = graphChromeTrace(engine, [auto]).traceEvents.filter(
      (e) => e.ph === 'X' && e.name === 'mlp.act (silu)',
    );
    expect(slices.map((e) => [e.cat, e.args['reason']]).slice(-2)).toEqual([
      ['cpu', 'cost model (prior): cpu 0.088ms, gpu 0.102ms'], // the last per-op run
      ['gpu', act?.reason],
    ]);
  });

  it('keeps weights resident across runs and honours cpu-only / gpu-only', async () => {
    const { run, engine, w1, w2 } = await hybrid(1e6);
    for (let i = 0; i < 3; i++) await run();
    const steady = await run();
    expect(steady.nodes[0]).toMatchObject({ backend: 'gpu', bytesMoved: MATRIX_BYTES }); // x only: the weight stayed
    expect(w1.residency()).toContain('gpu');
    expect(w2.residency()).toContain('gpu');
    const graph = new GraphBuilder(engine, { name: 'single' });
    const x = graph.input('x', 'f32', [N, N]);
    graph.output('y', graph.matmul('single.mm', x, graph.constant('w', w1)));
    const built = graph.build();
    const input = new Float32Array(N * N);
    const cpuRun = await built.run({ x: input }, { strategy: 'cpu-only' });
    const gpuRun = await built.run({ x: input }, { strategy: 'gpu-only' });
    expect(cpuRun.report.nodes[0]).toMatchObject({ backend: 'cpu', reasonKind: 'user-preference' });
    expect(gpuRun.report.nodes[0]).toMatchObject({
      backend: 'gpu',
      reasonKind: 'user-preference',
      bytesMoved: MATRIX_BYTES,
    });
    expect(cpuRun.report.placement).toBeUndefined();
    expect(w1.residency()).toEqual(expect.arrayContaining(['host', 'gpu', 'cpu']));
  });

  it('labels every node in telemetry and the Chrome trace, one track per backend used', async () => {
    const { run, engine } = await hybrid(1e6);
    const report = await run();
    const trace: ChromeTrace = JSON.parse(engine.telemetry.toChromeTrace());
    const slices = trace.traceEvents.filter((e) => e.ph === 'X');
    expect(slices.map((e) => e.name)).toEqual(['mlp.up (matmul)', 'mlp.act (silu)', 'mlp.down (matmul)']);
    expect(slices.map((e) => e.args['bytesMoved'])).toEqual(report.nodes.map((n) => n.bytesMoved));
    const threads = trace.traceEvents
      .filter((e) => e.ph === 'M' && e.name === 'thread_name')
      .map((e) => e.args['name']);
    expect(new Set(threads)).toEqual(new Set(report.nodes.map((n) => n.backend)));
    expect(engine.telemetry.opEvents().map((e) => e.label)).toEqual(['mlp.up', 'mlp.act', 'mlp.down']);
  });
});

describe('carried inputs (state handed from run to run, like a KV cache)', () => {
  /**
   * A state of 256 KiB that each run scales and hands to the next: 24 runs with it on the CPU (the CPU runs the op in
   * 0.01 ms, the GPU in 0.05 ms), then one run handed a state that an earlier step left on the GPU (the bus moves
   * 100 KB/ms: moving it back costs ~2.6 ms, once). Returns that last run's report.
   */
  async function stateLeftOnGpu(carried: boolean) {
    const clock = new ManualClock();
    const cpu = new CountingSimulated({
      name: 'cpu',
      clock,
      kind: 'cpu',
      priority: 10,
      performance: DEFAULT_PROFILES.cpu,
      latencyMs: () => 0.01,
    });
    const gpu = new CountingSimulated({
      name: 'gpu',
      clock,
      kind: 'gpu',
      priority: 20,
      performance: DEFAULT_PROFILES.gpu,
      transferBytesPerMs: 1e5,
      latencyMs: () => 0.05,
    });
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    const g = new GraphBuilder(engine, { name: 'loop', clock: clock.clock });
    g.output('next', g.scale('loop.step', g.input('state', 'f32', [N, N], { carried }), 1));
    const graph = g.build();
    let state: Tensor = engine.tensor(new Float32Array(N * N), [N, N]);
    const step = async (): Promise<RunReport> => {
      const r = await graph.run({ state }, { strategy: 'auto' });
      state.dispose();
      const next = r.outputs.get('next');
      state = next;
      return r.report;
    };
    const early: Array<string | undefined> = [];
    for (let i = 0; i < 24; i++) early.push((await step()).nodes[0]?.backend);
    const [onGpu] = await engine.run({ op: 'scale', x: state, factor: 1 }, { strategy: { only: 'gpu' } });
    if (onGpu === undefined) throw new Error('no output');
    state.dispose();
    state = onGpu;
    const handed = await step();
    state.dispose();
    await engine.dispose();
    return { early, handed };
  }

  it('does not replan when a carried state is elsewhere: the plan follows the steady state and the state moves back once', async () => {
    const { early, handed } = await stateLeftOnGpu(true);
    expect(early.slice(16)).toEqual(Array(8).fill('cpu'));
    expect(handed.placement?.reused).toBe(true); // the same plan as for a state on the CPU
    expect(handed.nodes[0]).toMatchObject({ backend: 'cpu', bytesMoved: 2 * N * N * 4 }); // down from the GPU, into the CPU backend
  });

  it('a node reading a carried state follows the plan even on the run that makes it', async () => {
    // Priors only (a fresh engine): the GPU's launch is priced at 1 ms, the CPU's pass over 256 KiB far less, so the
    // plan (state resident everywhere) puts the step on the CPU. The engine alone, seeing the state on the GPU,
    // would add its 2.6 ms move to the CPU's cost and keep the step on the GPU.
    const clock = new ManualClock();
    const cpu = new CountingSimulated({
      name: 'cpu',
      clock,
      kind: 'cpu',
      priority: 10,
      performance: DEFAULT_PROFILES.cpu,
      latencyMs: () => 0.01,
    });
    const gpuProfile = { ...DEFAULT_PROFILES.gpu, launchMs: 1, transferBytesPerMs: 1e5 };
    const gpu = new CountingSimulated({
      name: 'gpu',
      clock,
      kind: 'gpu',
      priority: 20,
      performance: gpuProfile,
      transferBytesPerMs: 1e5,
      latencyMs: () => 0.05,
    });
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    const g = new GraphBuilder(engine, { name: 'loop', clock: clock.clock });
    g.output('next', g.scale('loop.step', g.input('state', 'f32', [N, N], { carried: true }), 1));
    const graph = g.build();
    const start = engine.tensor(new Float32Array(N * N), [N, N]);
    const [state] = await engine.run({ op: 'scale', x: start, factor: 1 }, { strategy: { only: 'gpu' } });
    if (state === undefined) throw new Error('no output');
    expect(engine.explain({ op: 'scale', x: state, factor: 1 }).selection.backend).toBe('gpu'); // what the engine alone does
    const r = await graph.run({ state }, { strategy: 'auto' });
    expect(r.report.placement?.reused).toBe(false);
    expect(r.report.nodes[0]).toMatchObject({ backend: 'cpu', reasonKind: 'graph-plan' });
    r.outputs.dispose();
    state.dispose();
    start.dispose();
    await engine.dispose();
  });

  it('an input not declared carried is planned from where it lives: the move is charged to this run and the op stays on the GPU', async () => {
    const { early, handed } = await stateLeftOnGpu(false);
    expect(early.slice(16)).toEqual(Array(8).fill('cpu'));
    expect(handed.placement?.reused).toBe(false);
    expect(handed.nodes[0]).toMatchObject({ backend: 'gpu', bytesMoved: 0 });
  });
});
