// Background warm-ups (engine-warmup.ts) as a caller sees them: one per (op, dtype) and GPU, what their notices say,
// that their outputs are freed, how a failed one counts, and which examples a profile saves and runs at start.
import { describe, expect, it, vi } from 'vitest';
import {
  type Engine,
  InvalidArgumentError,
  type ProfileData,
  type RunResult,
  type Tensor,
  type WarmUpExample,
} from '@tandem/core';
import { simulatedEngine, square } from '../scheduler/harness.ts';

const N = 256; // a matmul the harness's GPU runs 20x faster than its CPU

const noticesOf = (engine: Engine, kind: string) => engine.telemetry.noticeEvents().filter((n) => n.kind === kind);

/** A zero-filled square f16 matrix. */
const squareF16 = (engine: Engine, n: number): Tensor => engine.tensor(new Uint16Array(n * n), [n, n]);

/** A profile whose warm-ups are `warmUps` (the rest from a fresh engine's export). */
async function profileWith(warmUps: ProfileData['warmUps']): Promise<ProfileData> {
  const { engine } = await simulatedEngine();
  return { ...engine.profile.export(), warmUps };
}

const matmulExample = (dtype: 'f32' | 'f16'): WarmUpExample => ({
  backend: 'gpu',
  op: { op: 'matmul', a: { dtype, shape: [N, N] }, b: { dtype, shape: [N, N] } },
});

describe('a warm-up started by a call', () => {
  it("its notice gives the GPU run's own time, and the outputs it made on the GPU are freed", async () => {
    const { engine, clock, gpu } = await simulatedEngine();
    clock.advance(1000); // the run's start is not time zero: its time is measured from it
    const free = vi.spyOn(gpu, 'free');
    const a = square(engine, N);
    await engine.matmul(a, a);
    await engine.whenWarm();
    const details = noticesOf(engine, 'backend-warmed').map((n) => n.detail);
    expect(details).toHaveLength(1);
    const [, ms] =
      /^matmul\|f32: first run in the background took ([\d.]+) ms; another backend served the calls meanwhile$/.exec(
        details[0] ?? '',
      ) ?? [];
    // From its start on the shared clock: the GPU's 0.12 ms and the CPU call that ran beside it (0.84 ms).
    expect(Number(ms)).toBe(1);
    // Its one output, N x N f32, is freed on the GPU; nothing else was freed there.
    expect(free.mock.calls.map(([buffer]) => buffer.byteLength)).toEqual([N * N * 4]);
  });

  it('two ops warming up at once each get their own warm-up, and both are saved as examples', async () => {
    const { engine, gpu } = await simulatedEngine();
    const [a, h] = [square(engine, N), squareF16(engine, N)];
    await Promise.all([engine.matmul(a, a), engine.run({ op: 'matmul', a: h, b: h })]);
    expect(engine.telemetry.opEvents().map((e) => e.reason.kind)).toEqual(['warming', 'warming']);
    await engine.whenWarm();
    expect(gpu.calls).toBe(2);
    for (let i = 0; i < 8; i++) {
      await engine.matmul(a, a);
      await engine.run({ op: 'matmul', a: h, b: h });
    }
    await engine.dispose();
    expect(engine.profile.export().warmUps).toEqual([matmulExample('f32'), matmulExample('f16')]);
  });

  it('a warm-up that ends after a call had already run the op on the GPU is learned from like that call', async () => {
    const { engine } = await simulatedEngine();
    const a = square(engine, N);
    // The GPU-only call starts first and ends first (the GPU's warm-up run); the background run after it is measured.
    await Promise.all([engine.matmul(a, a, { strategy: { only: 'gpu' } }), engine.matmul(a, a)]);
    await engine.whenWarm();
    expect(engine.telemetry.opEvents().map((e) => [e.backend, e.reason.kind])).toEqual([
      ['gpu', 'user-preference'],
      ['cpu', 'warming'],
    ]);
    // The GPU is priced from that run (1.0 ms on the shared clock), against its roofline prior.
    expect(engine.explain({ op: 'matmul', a, b: a }).costsMs['gpu']).toBeCloseTo(0.9586, 4);
  });

  it('the first shape an op ran with on the GPU is its example, not a later one', async () => {
    const { engine } = await simulatedEngine();
    const [small, big] = [square(engine, 128), square(engine, N)];
    // The GPU's first matmul is the GPU-only call on 128 x 128; the warm-up on 256 x 256 ends after it.
    await Promise.all([engine.matmul(small, small, { strategy: { only: 'gpu' } }), engine.matmul(big, big)]);
    for (let i = 0; i < 8; i++) await engine.matmul(big, big);
    await engine.dispose();
    expect(engine.profile.export().warmUps).toEqual([
      {
        backend: 'gpu',
        op: { op: 'matmul', a: { dtype: 'f32', shape: [128, 128] }, b: { dtype: 'f32', shape: [128, 128] } },
      },
    ]);
  });

  it('a warm-up failing after the caller disposed an input just ends: no failure counted, no notice', async () => {
    const { engine, gpu } = await simulatedEngine();
    let fail: (error: Error) => void = () => undefined;
    vi.spyOn(gpu, 'run').mockImplementationOnce(() => new Promise<RunResult>((_, reject) => (fail = reject)));
    const a = square(engine, N);
    await engine.matmul(a, a); // served by the CPU; the warm-up is waiting on the GPU
    a.dispose();
    fail(new Error('buffer destroyed'));
    await engine.whenWarm();
    expect(noticesOf(engine, 'warm-up-failed')).toEqual([]);
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')).toBeUndefined();
  });

  it("a warm-up refused for the caller's input (an error of the caller) counts nothing against the GPU", async () => {
    const { engine, gpu } = await simulatedEngine();
    let fail: (error: Error) => void = () => undefined;
    vi.spyOn(gpu, 'run').mockImplementationOnce(() => new Promise<RunResult>((_, reject) => (fail = reject)));
    const a = square(engine, N);
    await engine.matmul(a, a);
    fail(new InvalidArgumentError('matmul.a', 'NaN', 'must be finite'));
    await engine.whenWarm();
    expect(noticesOf(engine, 'warm-up-failed')).toEqual([]);
    expect(engine.trackerStats().find((s) => s.backend === 'gpu')).toBeUndefined();
    // Nothing was learned: the next call warms the GPU up again.
    expect(engine.explain({ op: 'matmul', a, b: a }).selection.reason).toMatchObject({ kind: 'warming' });
  });

  it("after its warm-up the GPU's idle time counts as after any call: the two calls after a pause are not learned from", async () => {
    const { engine, clock, gpu } = await simulatedEngine();
    const a = square(engine, N);
    for (let i = 0; i < 6; i++) await engine.matmul(a, a); // the warm-up, then the GPU serves
    for (let i = 0; i < 2; i++) await engine.matmul(a, a, { strategy: { only: 'cpu' } });
    const before = engine.telemetry.gpuSpeedup('matmul');
    expect(before).toBeGreaterThan(1);
    clock.advance(1000);
    gpu.setLatency(() => 50); // waking up after the pause
    for (let i = 0; i < 2; i++) await engine.matmul(a, a, { strategy: { only: 'gpu' } });
    expect(engine.telemetry.gpuSpeedup('matmul')).toBe(before);
  });

  it('spreadActivation is never saved as an example (zeros are no graph), while an op beside it is', async () => {
    const { engine } = await simulatedEngine();
    const only = { strategy: { only: 'gpu' } } as const;
    const rowPtr = engine.tensor(Uint32Array.from([0, 1, 2, 2]), [4]);
    const colIdx = engine.tensor(Uint32Array.from([1, 2]), [2]);
    const weights = engine.tensor(new Float32Array([1, 1]), [2]);
    const initial = engine.tensor(new Float32Array([1, 0, 0]), [3]);
    const a = square(engine, N);
    for (let i = 0; i < 3; i++) {
      await engine.spreadActivation({ rowPtr, colIdx, weights }, initial, {
        decay: 0.5,
        threshold: 0,
        iterations: 2,
        ...only,
      });
      await engine.matmul(a, a, only);
    }
    await engine.dispose();
    expect(engine.telemetry.opEvents().filter((e) => e.backend === 'gpu')).toHaveLength(6);
    expect(engine.profile.export().warmUps).toEqual([matmulExample('f32')]);
  });
});

describe('warm-ups a profile names', () => {
  it('each example of a different op or dtype runs once', async () => {
    const { engine, gpu } = await simulatedEngine();
    expect(engine.profile.import(await profileWith([matmulExample('f32'), matmulExample('f16')])).used).toBe(true);
    await engine.whenWarm();
    expect(gpu.calls).toBe(2);
    expect(engine.telemetry.opEvents().map((e) => [e.backend, e.dtype, e.label])).toEqual([
      ['gpu', 'f32', 'warm-up (profile)'],
      ['gpu', 'f16', 'warm-up (profile)'],
    ]);
  });

  it('an example named twice runs once', async () => {
    const { engine, gpu } = await simulatedEngine();
    engine.profile.import(await profileWith([matmulExample('f32'), matmulExample('f32')]));
    await engine.whenWarm();
    expect(gpu.calls).toBe(1);
  });

  it('an op the GPU has already run is not warmed up again when a profile is imported later', async () => {
    const { engine, gpu } = await simulatedEngine();
    const profile = await profileWith([matmulExample('f32')]);
    engine.profile.import(profile);
    await engine.whenWarm();
    engine.profile.import(profile);
    await engine.whenWarm();
    expect(gpu.calls).toBe(1);
  });

  it('an example that failed is tried again by the next import', async () => {
    const { engine } = await simulatedEngine();
    const mismatched: WarmUpExample = {
      backend: 'gpu',
      op: { op: 'matmul', a: { dtype: 'f32', shape: [2, 3] }, b: { dtype: 'f32', shape: [4, 5] } },
    };
    const profile = await profileWith([mismatched]);
    engine.profile.import(profile);
    await engine.whenWarm();
    engine.profile.import(profile);
    await engine.whenWarm();
    expect(noticesOf(engine, 'warm-up-failed')).toHaveLength(2);
  });

  it('are not run on a GPU that is unavailable (here: never started, under forceCpu): nothing runs, nothing fails', async () => {
    const { engine, gpu } = await simulatedEngine({ forceCpu: true });
    const profile = { ...engine.profile.export(), warmUps: [matmulExample('f32')] }; // saved on these devices
    expect(engine.profile.import(profile).used).toBe(true);
    await engine.whenWarm();
    expect(gpu.calls).toBe(0);
    expect(noticesOf(engine, 'warm-up-failed')).toEqual([]);
    expect(engine.telemetry.opEvents()).toEqual([]);
  });

  it('are not run on a GPU whose kernels are built ahead (compilesOnFirstRun false): its first run costs no more', async () => {
    const { engine, gpu } = await simulatedEngine({ gpu: { compilesOnFirstRun: false } });
    expect(engine.profile.import(await profileWith([matmulExample('f32')])).used).toBe(true);
    await engine.whenWarm();
    expect(gpu.calls).toBe(0);
    expect(engine.telemetry.opEvents()).toEqual([]);
  });
});
