// Graph replay (replay.ts): a plan that settles on one backend is recorded and replayed with the bytes a run node
// by node gives, for any input; a replay that fails (a rejected kernel, a lost device) drops the recording, the run
// goes node by node and is right, and the next settled runs record again; a periodic recheck goes node by node; an
// input that moved, or a view replay cannot follow, keeps the runs node by node.
import { describe, expect, it } from 'vitest';
import { Engine, type CapableBackend, type Tensor } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, ManualClock, SimulatedBackend, type FaultKind } from '@tandem/testing';
import { GraphBuilder } from './graph-builder.ts';
import type { Graph } from './graph.ts';
import type { PlacementPlan } from './placement.ts';
import { RECHECK_EVERY, Recordings, SETTLE_RUNS, uniformBackend, type Recording } from './replay.ts';
import type { NodeRecord } from './report.ts';

const N = 8;

/** Deterministic inputs that differ per seed. */
function data(seed: number, count = N * N): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = Math.sin(seed * 7.1 + i * 0.37);
  return out;
}

/** matmul -> silu -> (reshape, add) on one engine: a small MLP with a view. */
function mlp(engine: Engine, permute = false): Graph {
  const g = new GraphBuilder(engine, { name: 'mlp' });
  const x = g.input('x', 'f32', [N, N]);
  const w = g.constant('w', engine.tensor(data(99), [N, N]));
  const up = g.silu('act', g.matmul('up', x, w));
  const flat = permute ? g.permute(up, [1, 0], 'act_t') : g.reshape(up, [N * N], 'act_flat');
  g.output('y', g.add('residual', flat, permute ? x : g.reshape(x, [N * N], 'x_flat')));
  return g.build();
}

/** The bytes of a run's output 'y'. */
async function yOf(
  graph: Graph,
  x: Float32Array,
  options: Parameters<Graph['run']>[1],
): Promise<{ bytes: Float32Array; state: string; reason: string }> {
  const run = await graph.run({ x }, options);
  const y: Tensor = run.outputs.get('y');
  const bytes = await y.read();
  y.dispose();
  return {
    bytes: new Float32Array(bytes.buffer.slice(0)),
    state: run.report.replay?.state ?? '',
    reason: run.report.replay?.reason ?? '',
  };
}

/** An engine of the reference backend as 'cpu' and a fault-injecting one as 'gpu'; `faults` decides per gpu call. */
async function twoBackends(
  faults: (call: number) => FaultKind | undefined,
): Promise<{ engine: Engine; gpu: FaultInjectingBackend }> {
  const gpu = new FaultInjectingBackend(new ReferenceBackend(), (call) => faults(call), {
    name: 'gpu',
    kind: 'gpu',
    priority: 20,
  });
  const backends: CapableBackend[] = [new ReferenceBackend(), gpu];
  return { engine: await Engine.create({ backends }), gpu };
}

describe('graph replay', () => {
  it('records a plan once SETTLE_RUNS runs settle on one backend, then replays it with the same bytes for any input', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const graph = mlp(engine);
    const check = mlp(engine);
    const states: string[] = [];
    for (let i = 0; i < SETTLE_RUNS + 4; i++) {
      const x = data(i);
      const replayed = await yOf(graph, x, { strategy: 'cpu-only' });
      const nodeByNode = await yOf(check, x, { strategy: 'cpu-only', replay: false });
      states.push(replayed.state);
      expect(replayed.bytes).toEqual(nodeByNode.bytes);
    }
    expect(states).toEqual([
      ...Array<string>(SETTLE_RUNS - 1).fill('node-by-node'),
      'recorded',
      'replayed',
      'replayed',
      'replayed',
      'replayed',
    ]);
    // Each replayed step is an op event of its own, with the node's name and reason 'replay'.
    const replayed = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay');
    expect(replayed.slice(0, 3).map((e) => e.label)).toEqual(['up', 'act', 'residual']);
    await engine.dispose();
  });

  it('goes node by node once every RECHECK_EVERY replays, and keeps replaying when that run places it the same way', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const graph = mlp(engine);
    const states: string[] = [];
    for (let i = 0; i < SETTLE_RUNS + RECHECK_EVERY + 2; i++)
      states.push((await yOf(graph, data(i), { strategy: 'cpu-only' })).state);
    expect(states.slice(SETTLE_RUNS, SETTLE_RUNS + RECHECK_EVERY)).toEqual(
      Array<string>(RECHECK_EVERY).fill('replayed'),
    );
    expect(states.slice(SETTLE_RUNS + RECHECK_EVERY)).toEqual(['recheck', 'replayed']);
    await engine.dispose();
  });

  it.each(['reject', 'throw'] as const)(
    'a replay whose kernel fails (%s) drops the recording; the run goes node by node, right; later runs record again',
    async (fault) => {
      let failAt = -1;
      const { engine, gpu } = await twoBackends((call) => (call === failAt ? fault : undefined));
      const graph = mlp(engine);
      const check = mlp(engine);
      const options = { strategy: 'gpu-only', gpuBackend: 'gpu', cpuBackend: 'cpu' } as const;
      for (let i = 0; i < SETTLE_RUNS + 1; i++) await yOf(graph, data(i), options);
      failAt = gpu.calls + 2; // the replay's second kernel
      const failed = await yOf(graph, data(50), options);
      expect(failed.state).toBe('dropped');
      expect(failed.reason).toMatch(/^the replay on gpu failed: /);
      expect(failed.bytes).toEqual((await yOf(check, data(50), { ...options, replay: false })).bytes);
      const after: string[] = [];
      for (let i = 0; i < SETTLE_RUNS + 1; i++) after.push((await yOf(graph, data(60 + i), options)).state);
      expect(after.at(-1)).toBe('replayed');
      await engine.dispose();
    },
  );

  it('a device lost mid-replay: that run finishes on the CPU, and the plan that settles there is recorded', async () => {
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, clock, latencyMs: () => 1 });
    let failFrom = Number.POSITIVE_INFINITY; // from then on every GPU call loses the device (a re-init does not help)
    const gpu = new FaultInjectingBackend(
      new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, clock, latencyMs: () => 0.01 }),
      (call) => (call >= failFrom ? 'device-lost' : undefined),
      { name: 'gpu', kind: 'gpu', priority: 20 },
    );
    const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock, scheduler: { gpuMinBatchSize: 0 } });
    const graph = mlp(engine);
    // Both backends measured on the graph's ops first, so that 'auto' places it on the faster GPU.
    const [a, b] = [engine.tensor(data(1), [N, N]), engine.tensor(data(2), [N, N])];
    for (const only of ['cpu', 'gpu'])
      for (let i = 0; i < 3; i++)
        for (const op of [
          { op: 'matmul', a, b },
          { op: 'silu', x: a },
          { op: 'add', a: a.reshape([N * N]), b: b.reshape([N * N]) },
        ] as const)
          for (const t of await engine.run(op, { strategy: { only } })) t.dispose();
    const placedOn = async (): Promise<{ state: string; backends: string[] }> => {
      const r = await graph.run({ x: data(1) });
      r.outputs.dispose();
      return { state: r.report.replay?.state ?? '', backends: [...new Set(r.report.nodes.map((n) => n.backend))] };
    };
    let run = await placedOn();
    for (let i = 0; i < 40 && run.state !== 'replayed'; i++) run = await placedOn();
    expect(run).toEqual({ state: 'replayed', backends: ['gpu'] });
    failFrom = gpu.calls + 2;
    expect(await placedOn()).toEqual({ state: 'dropped', backends: ['cpu'] });
    run = await placedOn();
    for (let i = 0; i < 40 && run.state !== 'replayed'; i++) run = await placedOn();
    expect(run).toEqual({ state: 'replayed', backends: ['cpu'] });
    await engine.dispose();
  });

  it('an input that lives elsewhere than when the plan was recorded is planned node by node', async () => {
    const { engine } = await twoBackends(() => undefined);
    const g = new GraphBuilder(engine, { name: 'state' });
    g.output('next', g.scale('step', g.input('state', 'f32', [N, N]), 2));
    const graph = g.build();
    const onCpu = engine.tensor(data(1), [N, N]);
    const states: string[] = [];
    for (let i = 0; i < SETTLE_RUNS + 1; i++) {
      const r = await graph.run({ state: onCpu }, { strategy: 'cpu-only' });
      states.push(r.report.replay?.state ?? '');
      r.outputs.dispose();
    }
    expect(states.at(-1)).toBe('replayed');
    const [onGpu] = await engine.run({ op: 'scale', x: onCpu, factor: 1 }, { strategy: { only: 'gpu' } });
    if (onGpu === undefined) throw new Error('no output');
    const moved = await graph.run({ state: onGpu }, { strategy: 'cpu-only' });
    expect(moved.report.replay).toEqual({
      state: 'node-by-node',
      reason: 'an input lives elsewhere than when the plan was recorded',
    });
    moved.outputs.dispose();
    onGpu.dispose();
    onCpu.dispose();
    await engine.dispose();
  });

  it('a plan that reads a permuted view is not recorded, and says why', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const graph = mlp(engine, true);
    let last = { state: '', reason: '' };
    for (let i = 0; i < SETTLE_RUNS + 2; i++) last = await yOf(graph, data(i), { strategy: 'cpu-only' });
    expect(last).toMatchObject({ state: 'node-by-node', reason: 'residual reads a permuted or sliced view' });
    await engine.dispose();
  });
});

describe("auto's candidate recordings", () => {
  /** A plan putting node i on backends[i]. */
  const planOf = (backends: readonly string[], firstStep = 0): PlacementPlan => ({
    nodes: backends.map((backend) => ({ backend, estimatedMs: 0, engineAlone: backend })),
    estimatedMs: 0,
    greedyMs: 0,
    explainCalls: 0,
    firstStep,
    alternatives: [],
  });
  /** A run's record of a node on `backend`. */
  const ran = (name: string, backend: string, attempts = 1): NodeRecord => ({
    name,
    op: 'add',
    backend,
    reasonKind: 'cost-model',
    reason: '',
    attempts,
    ms: 0,
    kernelMs: undefined,
    bytesMoved: 0,
    estimatedMs: 0,
    callId: 0,
  });

  it('records a candidate that puts every node on one backend once SETTLE_RUNS runs followed it there, and only that', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const sequence = engine.recordSequence({
      inputs: [{ dtype: 'f32', shape: [2] }],
      steps: [{ label: 'a', op: { op: 'scale', x: { value: 0, shape: [2] }, factor: 2 }, release: [] }],
      keep: [1],
    });
    const made: string[] = [];
    const record = (backend: string): Recording => {
      made.push(backend);
      return {
        key: `candidate|${backend}`,
        backend,
        residency: 'host;',
        sequence,
        constants: [],
        outputs: new Map(),
        nodes: [],
        replays: 0,
      };
    };
    const recordings = new Recordings();
    const gpuPlan = planOf(['gpu', 'gpu']);
    expect(uniformBackend(gpuPlan)).toBe('gpu');
    expect(uniformBackend(planOf(['gpu', 'cpu']))).toBeUndefined();
    expect(uniformBackend(planOf(['gpu', 'gpu'], 1))).toBeUndefined(); // a plan of the rest of a run
    recordings.afterCandidate(planOf(['gpu', 'cpu']), [ran('a', 'gpu'), ran('b', 'cpu')], record);
    recordings.afterCandidate(gpuPlan, [ran('a', 'gpu'), ran('b', 'cpu')], record); // the run departed from the plan
    recordings.afterCandidate(gpuPlan, [ran('a', 'gpu'), ran('b', 'gpu', 2)], record); // a node fell back
    expect(made).toEqual([]);
    expect(recordings.forCandidate(gpuPlan, 'host;')).toBeUndefined();
    recordings.afterCandidate(gpuPlan, [ran('a', 'gpu'), ran('b', 'gpu')], record);
    expect(made).toEqual([]); // one run that followed it: a graph run once is never recorded
    recordings.afterCandidate(gpuPlan, [ran('a', 'gpu'), ran('b', 'gpu')], record);
    expect(made).toEqual(['gpu']);
    expect(recordings.forCandidate(gpuPlan, 'host;')?.backend).toBe('gpu');
    expect(recordings.forCandidate(gpuPlan, 'gpu;')).toBeUndefined(); // inputs elsewhere than when recorded
    expect(recordings.forCandidate(planOf(['gpu', 'cpu']), 'host;')).toBeUndefined();
    const recording = recordings.forCandidate(gpuPlan, 'host;');
    if (recording === undefined) throw new Error('no recording');
    expect(recordings.failedCandidate(recording, new Error('lost')).state).toBe('dropped');
    expect(recordings.forCandidate(gpuPlan, 'host;')).toBeUndefined();
    await engine.dispose();
  });
});
