// The decision cache: identical calls reuse a plan, and nothing a plan depended on can change under it unseen.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DecisionCache, DEFAULT_DECISION_CACHE_CONFIG, quantizeAs, Scheduler, type SchedulePlan } from '@tandem/core';
import { FaultInjectingBackend, faultSchedule, ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, gpuLatency, simulatedEngine, square } from './harness.ts';
import type { Op, OpWork, TensorSpec } from '@tandem/core';

/** A plan that chose the CPU, expecting 1 ms. */
const PLAN: SchedulePlan = {
  selection: { backend: 'cpu', reason: { kind: 'force-cpu' }, estimatedMs: 1 },
  fallbacks: [],
  skipped: [],
  costsMs: { cpu: 1 },
  transfersMs: { cpu: 0 },
  probe: false,
};
const WORK = { flops: 100, bytes: 400, batch: 1 };
const KIND = 7;
const RESIDENCY = 3;

/** A cache (reuse 2, driftFactor 2) holding PLAN for 'matmul|f32', made at decision count `made`. */
function cacheWithPlan(made: number) {
  const cache = new DecisionCache({ reuse: 2, driftFactor: 2 });
  cache.store({ work: WORK, kind: KIND, residency: RESIDENCY, opKey: 'matmul|f32', plan: PLAN, decisionCount: made });
  const reused = (count = made): boolean => cache.lookup(WORK, KIND, RESIDENCY, () => count) !== undefined;
  const entry = cache.lookup(WORK, KIND, RESIDENCY, () => made);
  if (entry === undefined) throw new Error('the fresh plan is not in the cache');
  return { cache, entry, reused };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts the scheduler's real planning calls (explain's included). */
function countPlans(): { readonly count: () => number } {
  const spy = vi.spyOn(Scheduler.prototype, 'plan');
  return { count: () => spy.mock.calls.length };
}

async function warmEngine(options: { reuse?: number } = {}) {
  const setup = await simulatedEngine(options.reuse === undefined ? {} : { decisionCache: { reuse: options.reuse } });
  const x = square(setup.engine, 32);
  for (let i = 0; i < 60; i++) await setup.engine.matmul(x, x); // measured on both, past exploration of the slow one
  return { ...setup, x };
}

describe('decision cache', () => {
  it('reuses a plan for identical calls and replans at least every `reuse` calls', async () => {
    const { engine, x } = await warmEngine();
    const plans = countPlans();
    const calls = 320;
    for (let i = 0; i < calls; i++) await engine.matmul(x, x);
    // Replanned once per `reuse` decisions, plus the replans around exploring the other backend (every 50).
    const { reuse } = DEFAULT_DECISION_CACHE_CONFIG;
    expect(plans.count()).toBeGreaterThanOrEqual(Math.floor(calls / reuse));
    expect(plans.count()).toBeLessThanOrEqual(Math.ceil(calls / reuse) + 3 * Math.ceil(calls / 50));
    expect(plans.count()).toBeLessThan(calls / 4);
    expect(engine.telemetry.opEvents().at(-1)?.backend).toBe('cpu');
  });

  it('plans every call when turned off', async () => {
    const { engine, x } = await warmEngine({ reuse: 0 });
    const plans = countPlans();
    for (let i = 0; i < 40; i++) await engine.matmul(x, x);
    expect(plans.count()).toBe(40);
  });

  it('makes the same choices as planning every call, in steady state and across sizes', async () => {
    const picks = async (reuse: number): Promise<string[]> => {
      const { engine } = await simulatedEngine({ decisionCache: { reuse } });
      const sizes = [16, 64, 128, 256, 512];
      const out: string[] = [];
      for (let round = 0; round < 40; round++) {
        for (const n of sizes) {
          await engine.matmul(square(engine, n), square(engine, n));
          if (round >= 30) out.push(engine.telemetry.opEvents().at(-1)?.backend ?? '');
        }
      }
      return out;
    };
    const cached = await picks(16);
    const uncached = await picks(0);
    const agree = cached.filter((b, i) => b === uncached[i]).length;
    expect(agree / cached.length).toBeGreaterThanOrEqual(0.9); // exploration may land on different calls
  });

  it('replans at once when the chosen backend gets much slower (drift)', async () => {
    const { engine, x, cpu } = await warmEngine();
    cpu.setLatency((op, w) => 100 * cpuLatency(op, w)); // the CPU is now far slower than the GPU for n = 32
    await engine.matmul(x, x); // runs on the cached choice, measures the drift
    const plans = countPlans();
    await engine.matmul(x, x);
    expect(plans.count()).toBe(1);
  });

  it('a failure empties the cache, and the fallback is in telemetry', async () => {
    const clock = new ManualClock();
    const inner = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const cpu = new FaultInjectingBackend(inner, () => undefined);
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, latencyMs: gpuLatency, clock });
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock });
    const x = square(engine, 32);
    for (let i = 0; i < 60; i++) await engine.matmul(x, x);
    cpu.plan = faultSchedule({ [cpu.calls + 1]: 'throw' });
    await engine.matmul(x, x);
    const last = engine.telemetry.opEvents().slice(-2);
    expect(last.map((e) => [e.backend, e.ok])).toEqual([
      ['cpu', false],
      ['gpu', true],
    ]);
    expect(last[1]?.reason.kind).toBe('error-fallback');
    const plans = countPlans();
    await engine.matmul(x, x);
    expect(plans.count()).toBe(1);
  });

  it('never reuses a plan whose backend became unhealthy: the next call avoids it without a failed attempt', async () => {
    const clock = new ManualClock();
    const inner = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const cpu = new FaultInjectingBackend(inner, () => undefined);
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, latencyMs: gpuLatency, clock });
    const { engine } = await simulatedEngine({ backends: [cpu, gpu], clock: clock.clock, recoveryIntervalMs: 1e9 });
    const x = square(engine, 32);
    for (let i = 0; i < 60; i++) await engine.matmul(x, x);
    vi.spyOn(cpu, 'health').mockReturnValue({ state: 'unhealthy', reason: 'device lost (test)' });
    const before = engine.telemetry.opEvents().length;
    await engine.matmul(x, x);
    const events = engine.telemetry.opEvents().slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ backend: 'gpu', ok: true });
  });

  it("learns each weight format on its own: Q4_0 and Q8_0 mat-vecs of one shape get each format's faster backend", async () => {
    // The CPU decodes Q8_0 fast and Q4_0 slowly; the GPU takes the same time for both. Same shape, same flops.
    const cpuByFormat = (op: Op<TensorSpec>, w: OpWork): number =>
      (op.op === 'quantizedMatmul' && op.w.dtype === 'q4_0' ? 0.5 : 0.02) + cpuLatency(op, w);
    const { engine, cpu } = await simulatedEngine({ scheduler: { gpuMinBatchSize: 1 } }); // batch 1 may go to the GPU
    cpu.setLatency(cpuByFormat);
    const [n, k] = [256, 256];
    const x = engine.tensor(new Float32Array(k).fill(0.5), [1, k]);
    const weights = new Float32Array(n * k).fill(0.25);
    const q4 = engine.tensor(quantizeAs('q4_0', weights), [n, k], 'q4_0');
    const q8 = engine.tensor(quantizeAs('q8_0', weights), [n, k], 'q8_0');
    const last = { q4: '', q8: '' };
    for (let i = 0; i < 80; i++) {
      for (const [name, w] of [
        ['q4', q4],
        ['q8', q8],
      ] as const) {
        const [out] = await engine.run({ op: 'quantizedMatmul', x, w });
        out?.dispose();
        last[name] = engine.telemetry.latestOpEvent()?.backend ?? '';
      }
    }
    expect(last).toEqual({ q4: 'gpu', q8: 'cpu' });
  });

  it('says in telemetry when measurements far off the estimate reset the cost model for an op, backend and size', async () => {
    const { engine, cpu } = await warmEngine();
    const x = square(engine, 32);
    // The CPU is now far slower: 30 ms a call, so five calls in a row span 120 ms (a regime change needs 100 ms).
    cpu.setLatency(() => 30);
    const resetsNow = () => engine.telemetry.noticeEvents().filter((n) => n.kind === 'cost-model-reset');
    for (let i = 0; i < 4; i++)
      (await engine.run({ op: 'matmul', a: x, b: x }, { strategy: { only: 'cpu' } })).forEach((t) => {
        t.dispose();
      });
    expect(resetsNow()).toHaveLength(0);
    (await engine.run({ op: 'matmul', a: x, b: x }, { strategy: { only: 'cpu' } })).forEach((t) => {
      t.dispose();
    });
    const resets = resetsNow();
    expect(resets).toHaveLength(1);
    expect(resets[0]).toMatchObject({ backend: 'cpu', op: 'matmul' });
    expect(resets[0]?.detail).toMatch(
      /^matmul\|f32: 5 or more measurements in a row of this size \(65536 flops\) over 100 ms or more, 2\.5x or more off the estimate \(last 30\.000 ms, estimate 0\.\d+ ms\)/,
    );
  });

  it('a change of residency is a different call: it is planned afresh', async () => {
    const { engine, x } = await warmEngine();
    const plans = countPlans();
    const y = await engine.scale(x, 1, { strategy: { only: 'gpu' } });
    expect(y.residency()).toEqual(['gpu']);
    const before = plans.count();
    await engine.matmul(y, y);
    expect(plans.count()).toBe(before + 1);
  });

  it('explain() reports the plan a call would reuse, without using it up', async () => {
    const { engine, x } = await warmEngine();
    await engine.matmul(x, x);
    const op = { op: 'matmul', a: x, b: x } as const;
    const explained = engine.explain(op);
    const plans = countPlans();
    for (let i = 0; i < 100; i++) expect(engine.explain(op).selection).toEqual(explained.selection);
    expect(plans.count()).toBeLessThanOrEqual(1);
  });
});

describe('DecisionCache (unit)', () => {
  const plan = PLAN;

  it('keys on work, call kind and residency; expires after `reuse` decisions of its op; drift and other measurements end reuse', () => {
    const cache = new DecisionCache({ reuse: 2, driftFactor: 2 });
    let count = 10;
    const decisions = (opKey: string): number => (opKey === 'matmul|f32' ? count : 0);
    cache.store({ work: WORK, kind: 7, residency: 3, opKey: 'matmul|f32', plan, decisionCount: count });
    expect(cache.lookup(WORK, 7, 4, decisions)).toBeUndefined(); // other residency
    expect(cache.lookup({ flops: 101, bytes: 400, batch: 1 }, 7, 3, decisions)).toBeUndefined(); // other work
    expect(cache.lookup({ flops: 100, bytes: 404, batch: 1 }, 7, 3, decisions)).toBeUndefined(); // same flops, other bytes (a concat, a matmul with K = 0)
    expect(cache.lookup(WORK, 8, 3, decisions)).toBeUndefined(); // other kind
    const entry = cache.lookup(WORK, 7, 3, decisions);
    if (entry === undefined) throw new Error('no entry');
    count = 11; // one more matmul decision (of any size)
    cache.checkDrift(entry, 1.9); // within 2x: kept
    expect(cache.lookup(WORK, 7, 3, decisions)).toBe(entry);
    count = 12; // two decisions since the plan: expired
    expect(cache.lookup(WORK, 7, 3, decisions)).toBeUndefined();
    cache.store({ work: WORK, kind: 7, residency: 3, opKey: 'matmul|f32', plan, decisionCount: count });
    const fresh = cache.lookup(WORK, 7, 3, decisions);
    if (fresh === undefined) throw new Error('no entry');
    cache.checkDrift(fresh, 2.5); // 2.5x off: replan
    expect(cache.lookup(WORK, 7, 3, decisions)).toBeUndefined();
    cache.store({ work: WORK, kind: 7, residency: 3, opKey: 'matmul|f32', plan, decisionCount: count });
    cache.noteMeasured(WORK, 'matmul|f32', 'cpu', 0.5); // its own backend: keeps it
    expect(cache.lookup(WORK, 7, 3, decisions)).toBeDefined();
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 5); // another backend, far slower than the plan's 1 ms: keeps it
    expect(cache.lookup(WORK, 7, 3, decisions)).toBeDefined();
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 1.5); // another backend, close: it may win now, so replan
    expect(cache.lookup(WORK, 7, 3, decisions)).toBeUndefined();
    cache.store({ work: WORK, kind: 7, residency: 3, opKey: 'matmul|f32', plan, decisionCount: count });
    cache.clear();
    expect(cache.lookup(WORK, 7, 3, decisions)).toBeUndefined();
  });

  it('keeps a plan per call kind of the same work: storing one kind leaves the others', () => {
    const cache = new DecisionCache({ reuse: 10 });
    const decisions = (): number => 0;
    const gpuPlan: SchedulePlan = { ...plan, selection: { ...plan.selection, backend: 'gpu' } };
    cache.store({ work: WORK, kind: 7, residency: 3, opKey: 'matmul|f32', plan, decisionCount: 0 });
    cache.store({ work: WORK, kind: 8, residency: 3, opKey: 'matmul|f16', plan: gpuPlan, decisionCount: 0 });
    expect(cache.lookup(WORK, 7, 3, decisions)?.plan).toBe(plan);
    expect(cache.lookup(WORK, 8, 3, decisions)?.plan).toBe(gpuPlan);
  });

  it('holds at most 4096 plans: the store past them starts over; replacing a plan does not count', () => {
    const cache = new DecisionCache({ reuse: 10 });
    const decisions = (): number => 0;
    const store = (kind: number): void =>
      cache.store({ work: WORK, kind, residency: 0, opKey: 'add|f32', plan, decisionCount: 0 });
    const held = (kind: number): boolean => cache.lookup(WORK, kind, 0, decisions) !== undefined;
    for (let kind = 0; kind < 4095; kind++) store(kind);
    for (let i = 0; i < 10; i++) store(0); // the same call kind again: replaced, still 4095 plans
    store(4095);
    expect(held(0)).toBe(true);
    expect(held(4094)).toBe(true);
    expect(held(4095)).toBe(true); // 4096 plans
    store(4096); // one more: the cache is emptied first
    expect(held(4096)).toBe(true);
    expect(held(0)).toBe(false);
    expect(held(4095)).toBe(false);
    store(4097);
    expect(held(4096)).toBe(true); // and fills again from there
    expect(held(4097)).toBe(true);
  });
});

describe('DecisionCache (unit): drift of the measured run time', () => {
  it('keeps the plan when the run took exactly driftFactor times the estimate, or exactly 1/driftFactor of it', () => {
    const { cache, entry, reused } = cacheWithPlan(10);
    cache.checkDrift(entry, 2);
    expect(reused()).toBe(true);
    cache.checkDrift(entry, 0.5);
    expect(reused()).toBe(true);
  });

  it('ends the plan when the run was faster than 1/driftFactor of the estimate', () => {
    const { cache, entry, reused } = cacheWithPlan(10);
    cache.checkDrift(entry, 0.49);
    expect(reused()).toBe(false);
  });

  it("ends the plan even before its op's first counted decision", () => {
    const { cache, entry, reused } = cacheWithPlan(0);
    cache.checkDrift(entry, 3);
    expect(reused(0)).toBe(false);
  });
});

describe('DecisionCache (unit): a measurement of another backend on the same work', () => {
  it('ends the plan only when the other backend ran in under driftFactor times its run estimate (exactly that keeps it)', () => {
    const { cache, reused } = cacheWithPlan(10);
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 2); // 2x the plan's 1 ms: the GPU cannot win by that
    expect(reused()).toBe(true);
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 1.99);
    expect(reused()).toBe(false);
  });

  it("ends it even before its op's first counted decision", () => {
    const { cache, reused } = cacheWithPlan(0);
    cache.noteMeasured(WORK, 'matmul|f32', 'gpu', 0.5);
    expect(reused(0)).toBe(false);
  });

  it("leaves the plan of another op key alone (another dtype's matmul of the same work)", () => {
    const { cache, reused } = cacheWithPlan(10);
    cache.noteMeasured(WORK, 'matmul|f16', 'gpu', 0.5);
    expect(reused()).toBe(true);
  });

  it('leaves the plan alone when the measured call moved other bytes (same flops, other work)', () => {
    const { cache, reused } = cacheWithPlan(10);
    cache.noteMeasured({ flops: WORK.flops, bytes: 404, batch: 1 }, 'matmul|f32', 'gpu', 0.5);
    expect(reused()).toBe(true);
  });
});
