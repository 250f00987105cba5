// The executor's settled plans in the engine's profile: an engine that starts from a profile compares the graph's
// candidate plans from the runs the profile kept, so its first planned run uses the measured best; a section that is
// not what the executor saved is ignored with a notice.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILES, Engine, rooflineMs, type ProfileData } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { GraphBuilder } from './graph-builder.ts';
import { PLAN_SECTION } from './plan-profile.ts';
import type { PlanChoice } from './plan-candidates.ts';

const N = 256;

/**
 * A CPU and a "GPU" priced alike (the GPU runs at 0.8x the CPU's prior, behind a bus), so the all-CPU and all-GPU plans
 * are both candidates to measure, and the graph x -> matmul -> silu -> matmul over them.
 */
async function mlp(profile?: ProfileData | string) {
  const clock = new ManualClock();
  const cpuProfile = DEFAULT_PROFILES.cpu;
  const gpuProfile = { ...cpuProfile, transferBytesPerMs: 1e7 };
  const cpu = new SimulatedBackend({
    name: 'cpu',
    kind: 'cpu',
    clock,
    priority: 10,
    performance: cpuProfile,
    latencyMs: (_op, w) => rooflineMs(w, cpuProfile),
  });
  const gpu = new SimulatedBackend({
    name: 'gpu',
    kind: 'gpu',
    clock,
    priority: 20,
    performance: gpuProfile,
    transferBytesPerMs: 1e7,
    latencyMs: (_op, w) => 0.8 * rooflineMs(w, gpuProfile),
  });
  const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
  const imported = profile === undefined ? undefined : engine.profile.import(profile);
  const g = new GraphBuilder(engine, { name: 'mlp', clock: clock.clock });
  const x = g.input('x', 'f32', [N, N]);
  const w = g.constant('w', engine.tensor(new Float32Array(N * N), [N, N]));
  g.output('y', g.matmul('down', g.silu('act', g.matmul('up', x, w)), w));
  const graph = g.build();
  /** How each of `runs` auto runs chose its plan (replay off: a replayed run chooses no plan). */
  const choices = async (runs: number): Promise<PlanChoice[]> => {
    const chosen: PlanChoice[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await graph.run({ x: new Float32Array(N * N) }, { replay: false });
      r.outputs.dispose();
      chosen.push(r.report.placement?.chosenBy ?? 'estimate');
    }
    return chosen;
  };
  return { engine, imported, choices };
}

describe("the graph executor's plans in the engine's profile", () => {
  it('a new engine starting from the profile runs the measured best plan from its first planned run', async () => {
    const trained = await mlp();
    const first = await trained.choices(16);
    expect(first.slice(0, 2)).toEqual(['estimate', 'measuring']);
    expect(first.at(-1)).toBe('measured');
    const profile = trained.engine.profile.export();
    const saved = profile.sections[PLAN_SECTION];
    expect(Array.isArray(saved) && saved.length === 1).toBe(true);

    const fresh = await mlp(JSON.stringify(profile));
    expect(fresh.imported?.used).toBe(true);
    expect(await fresh.choices(1)).toEqual(['measured']);
    // Saved again with the runs made here.
    expect(fresh.engine.profile.export().sections[PLAN_SECTION]).toHaveLength(1);
  });

  it('a section that is not what the executor saved is ignored with a notice; the graph plans as if there were none', async () => {
    const trained = await mlp();
    await trained.choices(4);
    const profile = trained.engine.profile.export();
    const broken = {
      ...profile,
      sections: { [PLAN_SECTION]: [{ structure: 'x', backends: ['cpu'], candidates: [{}] }] },
    };
    const fresh = await mlp(JSON.stringify(broken));
    expect(fresh.imported?.used).toBe(true);
    expect(await fresh.choices(2)).toEqual(['estimate', 'measuring']);
    const notice = fresh.engine.telemetry.noticeEvents().find((n) => n.kind === 'profile-ignored');
    expect(notice?.detail).toBe(`section ${PLAN_SECTION}: ${PLAN_SECTION}[0].candidates[0].assignment is not a string`);
  });

  it('a profile used before any graph ran keeps its plans until a graph attaches, and saves them again meanwhile', async () => {
    const trained = await mlp();
    await trained.choices(16);
    const profile = trained.engine.profile.export();
    const clock = new ManualClock();
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', clock, latencyMs: () => 1 });
    const bare = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
    bare.profile.import(profile);
    expect(bare.profile.export().sections[PLAN_SECTION]).toEqual(profile.sections[PLAN_SECTION]);
  });
});
