// Graph replay through a backend that runs a whole recorded sequence in one call (BackendSequence: the ROCm addon's
// runSequence, here on its CPU emulation, and WebGPU's one command buffer, on SwiftShader; TANDEM_TEST_GPU=native for
// the machine's GPU): the replayed bytes equal a
// node-by-node run's for every new input, no per-op run() is made, the steps of a timed replay (one in
// TIME_STEPS_EVERY) are op events (reason 'replay') with their own kernel times, the others are counted, and the run
// report says one backend call. A backend that cannot prepare a sequence
// (a test double) leaves the replay one call per step, with a notice saying why.
import { describe, expect, it, vi } from 'vitest';
import {
  BackendError,
  Engine,
  mapOpTensors,
  TIME_STEPS_EVERY,
  type BackendSequence,
  type BoundTensor,
  type CapableBackend,
  type DeviceBuffer,
  type RecordedSequence,
  type Tensor,
} from '@tandem/core';
import { GraphBuilder, type Graph } from '@tandem/graph';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend } from '@tandem/testing';
import { createBackend, needBackend } from '../support/backends.ts';

const N = 16;

function data(seed: number, count = N * N): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = Math.sin(seed * 5.3 + i * 0.41);
  return out;
}

/** matmul -> silu -> scale -> add x (through a reshape): four kernels, one intermediate freed mid-way. */
function mlp(engine: Engine): Graph {
  const g = new GraphBuilder(engine, { name: 'mlp' });
  const x = g.input('x', 'f32', [N, N]);
  const w = g.constant('w', engine.tensor(data(99), [N, N]));
  const act = g.scale('scaled', g.silu('act', g.matmul('up', x, w)), 0.5);
  g.output('y', g.add('residual', g.reshape(act, [N * N], 'flat'), g.reshape(x, [N * N], 'x_flat')));
  return g.build();
}

/** A 'gpu' backend (the reference behind a fault injector) whose sequences `prepareSequence` prepares. */
function gpuPreparing(prepareSequence: (sequence: RecordedSequence) => BackendSequence): {
  gpu: FaultInjectingBackend;
  backend: CapableBackend;
} {
  const gpu = new FaultInjectingBackend(new ReferenceBackend(), () => undefined, {
    name: 'gpu',
    kind: 'gpu',
    priority: 20,
  });
  return { gpu, backend: Object.assign(gpu, { prepareSequence }) };
}

async function run(graph: Graph, x: Float32Array, replay: boolean) {
  const result = await graph.run({ x }, { strategy: 'gpu-only', replay });
  const y: Tensor = result.outputs.get('y');
  const bytes = new Float32Array((await y.read()).buffer.slice(0));
  y.dispose();
  return { bytes, replay: result.report.replay };
}

for (const name of ['rocm', 'webgpu'] as const) {
  describe.skipIf(!needBackend(name))(`graph replay in one backend call (${name})`, () => {
    it('replays with the bytes of node-by-node runs, no run() per op; a timed replay makes an event per step', async () => {
      const gpu = createBackend(name);
      const engine = await Engine.create({ backends: [new ReferenceBackend(), gpu] });
      const graph = mlp(engine);
      const check = mlp(engine);
      const runs = vi.spyOn(gpu, 'run');
      const states: string[] = [];
      for (let i = 0; i < 6; i++) {
        const x = data(i);
        const before = runs.mock.calls.length;
        const replayed = await run(graph, x, true);
        const replayRuns = runs.mock.calls.length - before;
        const nodeByNode = await run(check, x, false);
        expect(replayed.bytes).toEqual(nodeByNode.bytes);
        states.push(`${replayed.replay?.state}:${replayed.replay?.backendCalls ?? '-'}:${replayRuns}`);
      }
      // Two runs node by node settle the plan (4 run() calls each), then every replay is one backend call.
      expect(states).toEqual([
        'node-by-node:-:4',
        'recorded:-:4',
        'replayed:1:0',
        'replayed:1:0',
        'replayed:1:0',
        'replayed:1:0',
      ]);
      const events = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay');
      expect(events.map((e) => e.label).slice(0, 4)).toEqual(['up', 'act', 'scaled', 'residual']);
      for (const e of events) {
        expect(e.ok).toBe(true);
        expect(e.kernelMs).toBeGreaterThanOrEqual(0);
        expect(e.durationMs).toBeGreaterThanOrEqual(e.kernelMs ?? 0);
      }
      await engine.dispose();
    });
  });
}

describe('graph replay where the backend cannot prepare the sequence', () => {
  it('runs the replay one call per step and says why in a notice, once', async () => {
    const { backend: refusing } = gpuPreparing(() => {
      throw new BackendError('UNSUPPORTED', 'gpu', 'no sequences on this device');
    });
    const engine = await Engine.create({ backends: [new ReferenceBackend(), refusing] });
    const graph = mlp(engine);
    const calls: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) calls.push((await run(graph, data(i), true)).replay?.backendCalls);
    expect(calls).toEqual([undefined, undefined, 4, 4]);
    const notices = engine.telemetry.noticeEvents().filter((n) => n.kind === 'sequence-step-by-step');
    expect(notices.map((n) => [n.backend, n.detail])).toEqual([['gpu', '[gpu] no sequences on this device']]);
    await engine.dispose();
  });
});

describe('a one-call replay that fails', () => {
  it('drops the recording: that run goes node by node with the right bytes, and the failure is an op event', async () => {
    const { backend: failing } = gpuPreparing(() => ({
      run: () => Promise.reject(new BackendError('KERNEL_FAILED', 'gpu', 'sequence step 2 (silu): injected')),
    }));
    const engine = await Engine.create({ backends: [new ReferenceBackend(), failing] });
    const graph = mlp(engine);
    const check = mlp(engine);
    const states: string[] = [];
    for (let i = 0; i < 3; i++) {
      const replayed = await run(graph, data(i), true);
      expect(replayed.bytes).toEqual((await run(check, data(i), false)).bytes);
      states.push(replayed.replay?.state ?? '');
    }
    expect(states).toEqual(['node-by-node', 'recorded', 'dropped']);
    const failed = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay' && !e.ok);
    expect(failed.map((e) => [e.label, e.error])).toEqual([['up', '[gpu] sequence step 2 (silu): injected']]);
    await engine.dispose();
  });
});

describe('how often a one-call replay times its steps', () => {
  it(`asks for step times on one run in ${TIME_STEPS_EVERY}: those are op events; the others are counted`, async () => {
    const asked: boolean[] = [];
    const stepTimes = [0.4, 0.1, 0.2, 0.3]; // scripted device times of the four steps, ms
    const { gpu, backend: scripted } = gpuPreparing(
      (sequence): BackendSequence => ({
        run: async (inputs: readonly DeviceBuffer[], timeSteps: boolean) => {
          asked.push(timeSteps);
          // Run the steps on the wrapped backend, as a device would in one call.
          const values: (DeviceBuffer | undefined)[] = [...inputs];
          for (const step of sequence.steps) {
            const op = mapOpTensors(step.op, (t): BoundTensor => {
              const buffer = values[t.value];
              if (buffer === undefined) throw new Error(`value ${t.value} missing`);
              return { dtype: sequence.values[t.value]?.dtype ?? 'f32', shape: t.shape, buffer };
            });
            const result = await gpu.run(op, step.outputs);
            result.outputs.forEach((b, k) => {
              values[step.firstOutput + k] = b;
            });
          }
          for (const [v, buffer] of values.entries())
            if (v >= inputs.length && buffer !== undefined && !sequence.keep.includes(v)) gpu.free(buffer);
          return {
            outputs: sequence.keep.map((v) => values[v] ?? inputs[0] ?? { backend: 'gpu', id: 0, byteLength: 0 }),
            kernelMs: timeSteps ? 1 : 2,
            ...(timeSteps ? { stepKernelMs: stepTimes } : {}),
          };
        },
      }),
    );
    const engine = await Engine.create({ backends: [new ReferenceBackend(), scripted] });
    const graph = mlp(engine);
    const check = mlp(engine);
    for (let i = 0; i < TIME_STEPS_EVERY + 4; i++)
      expect((await run(graph, data(i), true)).bytes).toEqual((await run(check, data(i), false)).bytes);
    expect(asked).toEqual([true, ...Array<boolean>(TIME_STEPS_EVERY - 1).fill(false), true, false]);
    // A timed run is an op event per step, with each step's own device time; an untimed one only counts them.
    const replays = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay');
    expect(replays.map((e) => e.kernelMs)).toEqual([...stepTimes, ...stepTimes]);
    const counted = engine.telemetry.counterList().filter((c) => c.backend === 'gpu' && c.op === 'silu');
    // Every silu on gpu counted: the check graph's runs node by node, and the graph's (two node by node, then replays).
    expect(counted.map((c) => c.ok)).toEqual([2 * (TIME_STEPS_EVERY + 4)]);
    await engine.dispose();
  });
});
