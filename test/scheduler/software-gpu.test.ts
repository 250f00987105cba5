// A software GPU (SwiftShader: a device emulated on the CPU) is not explored by `auto` by default: its first runs
// compile pipelines for seconds, mid-run (issue 36 measured a 2.4-2.8 s decode step), and it is slower than the CPU
// backends it runs on. It still runs what a strategy sends it; scheduler.exploreSoftware turns exploring it back on.
import { describe, expect, it } from 'vitest';
import { simulatedEngine } from './harness.ts';

/** 40 batch-8 matmuls whose GPU estimate is close to the CPU's time (the GPU is measured when it is a hardware one). */
async function decodeLike(software: boolean, exploreSoftware?: boolean): Promise<string[]> {
  const scheduler = exploreSoftware === undefined ? {} : { scheduler: { exploreSoftware } };
  const { engine } = await simulatedEngine({ gpu: { software }, ...scheduler });
  const x = engine.zeros([8, 4096]); // batch 8: below gpuMinBatchSize (64)
  const w = engine.zeros([4096, 4096]); // CPU 6.7 ms, GPU 0.23 ms in the harness
  for (let i = 0; i < 40; i++) (await engine.matmul(x, w)).dispose();
  // The GPU's first run (its warm-up) runs in the background while the CPU serves: a notice, not an op event.
  const warmed = engine.telemetry.noticeEvents().filter((n) => n.kind === 'backend-warmed' && n.backend === 'gpu');
  const gpuRuns = [
    ...warmed.map(() => 'warmed'),
    ...engine.telemetry
      .opEvents()
      .filter((e) => e.backend === 'gpu')
      .map((e) => e.reason.kind),
  ];
  expect((await engine.matmul(x, w, { strategy: { only: 'gpu' } })).shape).toEqual([8, 4096]); // a strategy still reaches it
  await engine.dispose();
  return gpuRuns;
}

describe('a software GPU under auto', () => {
  it('a hardware GPU is explored (warm-up, then learned) and then wins', async () => {
    const runs = await decodeLike(false);
    expect(runs.slice(0, 2)).toEqual(['warmed', 'exploring']);
    // Then it wins on what it learned. (How many calls the background warm-up overlaps depends on how the two
    // interleave on the harness's one manual clock, so the number of GPU runs is not pinned.)
    expect(runs.at(-1)).toBe('cost-model');
  });

  it('a software one is never explored, so no call of the run pays for its pipelines', async () => {
    expect(await decodeLike(true)).toEqual([]);
  });

  it('scheduler.exploreSoftware: true explores it as a hardware one', async () => {
    expect((await decodeLike(true, true)).slice(0, 2)).toEqual(['warmed', 'exploring']);
  });
});
