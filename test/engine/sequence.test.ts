// Recorded sequences (engine.recordSequence / runSequence, the engine side of graph replay): checked once when
// recorded, with errors naming the step; run on one backend with the bytes the same ops give one by one; every
// intermediate freed, only the kept values handed back; each step an op event with reason 'replay'; a failing step
// frees what the run made and throws; a caller's mistake is refused before anything runs.
import { describe, expect, it, vi } from 'vitest';
import {
  BackendError,
  Engine,
  InvalidArgumentError,
  type DeviceBuffer,
  type RunResult,
  type SequenceSpec,
} from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend } from '@tandem/testing';
import { caught } from '../support/caught.ts';

const f32 = (shape: readonly number[]) => ({ dtype: 'f32' as const, shape });

/** x [2, 3] -> scale by 2 (value 1) -> add x (value 2, read as [6] by a reshape) -> kept. */
const SPEC: SequenceSpec = {
  inputs: [f32([2, 3])],
  steps: [
    { label: 'double', op: { op: 'scale', x: { value: 0, shape: [2, 3] }, factor: 2 }, release: [] },
    {
      label: 'plus-x',
      op: { op: 'add', a: { value: 1, shape: [6] }, b: { value: 0, shape: [6] } },
      release: [1],
    },
  ],
  keep: [2],
};

/** An engine whose only backend is the reference backend behind a fault injector (no faults unless `failAt`). */
async function engineWith(failAt = -1): Promise<{ engine: Engine; backend: FaultInjectingBackend }> {
  const backend = new FaultInjectingBackend(
    new ReferenceBackend(),
    (call) => (call === failAt ? 'reject' : undefined),
    {
      name: 'cpu',
      kind: 'cpu',
    },
  );
  return { engine: await Engine.create({ backends: [backend] }), backend };
}

/** Lets `hook` see (and replace) the result of each of the backend's run() calls, numbered from 1. */
function onRun(backend: FaultInjectingBackend, hook: (call: number, result: RunResult) => Promise<RunResult>): void {
  const run = backend.run.bind(backend);
  let calls = 0;
  vi.spyOn(backend, 'run').mockImplementation(async (op, outputs) => hook(++calls, await run(op, outputs)));
}

describe('engine.recordSequence', () => {
  it('refuses a step that reads a value not made yet, a reshape of another size, a kept input and a value kept twice', async () => {
    const { engine } = await engineWith();
    const step = (x: { value: number; shape: readonly number[] }): SequenceSpec => ({
      ...SPEC,
      steps: [{ label: 'double', op: { op: 'scale', x, factor: 2 }, release: [] }],
      keep: [1],
    });
    expect(caught(() => engine.recordSequence(step({ value: 1, shape: [2, 3] })))).toMatchObject({
      name: 'InvalidArgumentError',
      message: 'sequence.steps[0] (double).x.value = 1: must name an earlier value (0..0)',
    });
    expect(caught(() => engine.recordSequence(step({ value: 0, shape: [7] })))).toMatchObject({
      message: 'sequence.steps[0] (double).x.shape = [7]: must have the 6 elements of value 0 [2, 3]',
    });
    expect(caught(() => engine.recordSequence({ ...SPEC, keep: [0] }))).toMatchObject({
      message: "sequence.keep = 0: must name a step's output (1..2); inputs stay with their owner",
    });
    expect(caught(() => engine.recordSequence({ ...SPEC, keep: [2, 1, 2] }))).toMatchObject({
      message: 'sequence.keep = 2: must name each value once',
    });
    const wrongDtype = { ...SPEC, inputs: [{ dtype: 'i32' as const, shape: [2, 3] }] };
    expect(caught(() => engine.recordSequence(wrongDtype))).toBeInstanceOf(InvalidArgumentError);
    await engine.dispose();
  });
});

describe('engine.runSequence', () => {
  it('gives the bytes of the same ops run one by one, frees the intermediate, and records each step as a replay', async () => {
    const { engine, backend } = await engineWith();
    const sequence = engine.recordSequence(SPEC);
    const x = engine.tensor([1, -2, 3.5, 0, 7, -0.25], [2, 3]);
    const free = vi.spyOn(backend, 'free');
    const run = await engine.runSequence(sequence, [x], { backend: 'cpu' });
    expect(run.outputs).toHaveLength(1);
    expect(run.stepMs).toHaveLength(2);
    expect(free).toHaveBeenCalledTimes(1); // the doubled x, after its last reader
    const [doubled] = await engine.run({ op: 'scale', x, factor: 2 });
    if (doubled === undefined) throw new Error('no output');
    const [expected] = await engine.run({ op: 'add', a: doubled.reshape([6]), b: x.reshape([6]) });
    expect(await run.outputs[0]?.read()).toEqual(await expected?.read());
    expect(run.outputs[0]?.shape).toEqual([6]);
    const replayed = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay');
    expect(replayed.map((e) => [e.label, e.op, e.ok])).toEqual([
      ['double', 'scale', true],
      ['plus-x', 'add', true],
    ]);
    await engine.dispose();
  });

  it('refuses inputs of another count or shape, an unknown backend and a sequence of another engine, running nothing', async () => {
    const { engine, backend } = await engineWith();
    const other = await engineWith();
    const sequence = engine.recordSequence(SPEC);
    const run = vi.spyOn(backend, 'run');
    const x = engine.tensor(new Float32Array(6), [2, 3]);
    expect(await engine.runSequence(sequence, [], { backend: 'cpu' }).catch((e: unknown) => e)).toMatchObject({
      message: 'runSequence.inputs = 0: must hold 1 tensors',
    });
    expect(
      await engine.runSequence(sequence, [x.reshape([6])], { backend: 'cpu' }).catch((e: unknown) => e),
    ).toMatchObject({
      message: 'runSequence.inputs[0] = "f32 [6]": must be f32 [2, 3] as recorded',
    });
    expect(await engine.runSequence(sequence, [x], { backend: 'gpu' }).catch((e: unknown) => e)).toMatchObject({
      message: 'runSequence.options.backend = "gpu": must be one of cpu',
    });
    expect(
      await other.engine
        .runSequence(sequence, [other.engine.tensor(new Float32Array(6), [2, 3])], { backend: 'cpu' })
        .catch((e: unknown) => e),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(run).not.toHaveBeenCalled();
    await engine.dispose();
    await other.engine.dispose();
  });

  it('a failing step frees what the run made and throws the backend error, recorded as a failed replay', async () => {
    const { engine, backend } = await engineWith(2); // the second kernel call fails
    const sequence = engine.recordSequence(SPEC);
    const x = engine.tensor(new Float32Array(6), [2, 3]);
    const free = vi.spyOn(backend, 'free');
    const error = await engine.runSequence(sequence, [x], { backend: 'cpu' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(free).toHaveBeenCalledTimes(1); // the first step's output
    const failed = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay' && !e.ok);
    expect(failed.map((e) => e.label)).toEqual(['plus-x']);
    await engine.dispose();
  });

  it("an output of the wrong size is refused: that step's outputs and everything the run made are freed", async () => {
    const { engine, backend } = await engineWith();
    const sequence = engine.recordSequence(SPEC);
    const x = engine.tensor(new Float32Array(6), [2, 3]);
    const made: DeviceBuffer[] = [];
    // The second step returns a buffer of the wrong size in place of its output (which it frees itself).
    onRun(backend, async (call, result) => {
      if (call === 1) {
        made.push(...result.outputs);
        return result;
      }
      for (const buffer of result.outputs) backend.free(buffer);
      const wrong = await backend.upload(new Uint8Array(4), { dtype: 'f32', shape: [1] });
      made.push(wrong);
      return { outputs: [wrong], kernelMs: result.kernelMs };
    });
    const free = vi.spyOn(backend, 'free');
    const error = await engine.runSequence(sequence, [x], { backend: 'cpu' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BAD_OUTPUT', message: '[cpu] output 0 has the wrong size or owner' });
    expect(made).toHaveLength(2);
    for (const buffer of made) expect(free).toHaveBeenCalledWith(buffer); // the first step's output, the wrong one
    await engine.dispose();
  });

  it('an input disposed while the sequence runs: DisposedError, nothing handed back, everything made freed', async () => {
    const { engine, backend } = await engineWith();
    const sequence = engine.recordSequence(SPEC);
    const x = engine.tensor(new Float32Array(6), [2, 3]);
    onRun(backend, async (call, result) => {
      if (call === 1) x.dispose(); // the caller drops its input between the two steps
      return result;
    });
    const free = vi.spyOn(backend, 'free');
    const error = await engine.runSequence(sequence, [x], { backend: 'cpu' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'DisposedError', message: expect.stringContaining('runSequence.inputs[0]') });
    expect(free).toHaveBeenCalledTimes(2); // x's own buffer (its dispose), and the first step's output
    expect(engine.telemetry.opEvents().filter((e) => e.reason.kind === 'replay' && !e.ok)).toEqual([]);
    await engine.dispose();
  });
});
