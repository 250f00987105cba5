// Profiles: what one engine learned of its devices seeds the next engine on the same devices, through export() and
// import() or a store loaded at start and saved as the engine learns and on dispose. Corrupt, truncated, foreign
// and future-format profiles are ignored with a notice; a failing store leaves the engine learning in memory.
import { describe, expect, it } from 'vitest';
import { PROFILE_FORMAT, profileKey, type Engine, type ProfileStore } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { cpuLatency, simulatedEngine, square } from '../scheduler/harness.ts';

/** A "GPU" that the roofline prior calls fast but is 20x slower than the CPU on these matmuls (a software GPU). */
const slowGpu = { latencyMs: () => 40 };

/** Profiles in a Map, counting saves; `failLoad` / `failSave` make it refuse, as a broken or full store does. */
class MemoryStore implements ProfileStore {
  readonly where = 'memory';
  readonly texts = new Map<string, string>();
  saves = 0;
  failLoad = false;
  failSave = false;

  async load(key: string): Promise<string | undefined> {
    if (this.failLoad) throw new Error('storage refused');
    return this.texts.get(key);
  }

  async save(key: string, text: string): Promise<void> {
    if (this.failSave) throw new Error('QuotaExceededError: the quota has been exceeded');
    this.saves++;
    this.texts.set(key, text);
  }
}

const N = 256;

/**
 * The backend auto picks first for an N x N matmul: the one it serves from, or the GPU a CPU backend stands in for
 * while that GPU warms up (reason `warming`).
 */
function firstPick(engine: Engine): string {
  const { selection } = engine.explain({ op: 'matmul', a: square(engine, N), b: square(engine, N) });
  return selection.reason.kind === 'warming' ? selection.reason.backend : selection.backend;
}

/** Runs N x N matmuls until the engine has measured both backends and settled on the CPU. */
async function train(engine: Engine): Promise<void> {
  for (let i = 0; i < 12; i++) await engine.matmul(square(engine, N), square(engine, N));
  expect(firstPick(engine)).toBe('cpu');
}

const noticesOf = (engine: Engine, kind: string) => engine.telemetry.noticeEvents().filter((n) => n.kind === kind);

describe('engine profiles', () => {
  it('export() then import() in a new engine: its first pick is the backend measured faster, not the prior', async () => {
    const { engine: trained } = await simulatedEngine({ gpu: slowGpu });
    await train(trained);
    const profile = trained.profile.export();
    expect(profile.format).toBe(PROFILE_FORMAT);
    expect(profile.costs.map((c) => c.backend).sort()).toEqual(['cpu', 'gpu']);

    const { engine: cold } = await simulatedEngine({ gpu: slowGpu });
    expect(firstPick(cold)).toBe('gpu'); // the prior's choice, 20x slower here

    const { engine: warm } = await simulatedEngine({ gpu: slowGpu });
    const imported = warm.profile.import(JSON.parse(JSON.stringify(profile)));
    expect(imported).toEqual({ used: true, reason: undefined, seeded: 2 });
    expect(firstPick(warm)).toBe('cpu');
    expect(warm.explain({ op: 'matmul', a: square(warm, N), b: square(warm, N) }).selection.reason).toMatchObject({
      kind: 'cost-model',
      measured: true,
    });
    expect(noticesOf(warm, 'profile-loaded')[0]?.detail).toMatch(/import\(\): 2 op\/backend series/);
  });

  it("import() into a fresh engine learns the profile's copy times at once", async () => {
    const { engine: trained } = await simulatedEngine({ gpu: slowGpu });
    await train(trained);
    const profile = trained.profile.export();
    const gpuCopies = profile.copies.find((c) => c.backend === 'gpu');
    expect(gpuCopies?.upload.length).toBeGreaterThan(0);
    const { engine: fresh } = await simulatedEngine({ gpu: slowGpu });
    expect(fresh.copyTimes('gpu').upload).toEqual([]);
    fresh.profile.import(JSON.parse(JSON.stringify(profile)));
    expect(fresh.copyTimes('gpu')).toEqual(trained.copyTimes('gpu'));
  });

  it('measurements still correct a seeded estimate: a profile that lies is out-voted', async () => {
    const { engine: trained } = await simulatedEngine({ gpu: slowGpu });
    await train(trained);
    const profile = trained.profile.export();
    const { engine, gpu } = await simulatedEngine(); // here the GPU is fast: the profile is wrong about it
    expect(engine.profile.import(profile).used).toBe(true);
    expect(firstPick(engine)).toBe('cpu');
    const reasons: string[] = [];
    for (let i = 0; i < 120; i++) {
      await engine.matmul(square(engine, N), square(engine, N));
      const last = engine.telemetry.opEvents().at(-1);
      if (last?.reason.kind === 'exploring') reasons.push(`${last.backend}: ${last.reason.why}`);
      if (last?.reason.kind === 'warming') reasons.push(`${last.backend}: ${last.reason.backend} warming`);
    }
    // Once 50 decisions have passed (exploreEvery; a cached plan serves up to 32 calls), the GPU is checked: its
    // first run (the profile named no warm-up for it: it lost there) goes on in the background while the CPU serves
    // that call, then a run that is learned from.
    expect(engine.telemetry.opEvents().some((e) => e.label === 'warm-up (profile)')).toBe(false);
    expect(reasons.slice(0, 2)).toEqual(['cpu: gpu warming', 'gpu: profile']);
    expect(gpu.calls).toBeGreaterThan(2);
    expect(firstPick(engine)).toBe('gpu');
  });

  it('a store: loaded at start, a burst of learning saved once soon after, then on dispose only if more was learned', async () => {
    const store = new MemoryStore();
    const { engine: first } = await simulatedEngine({ gpu: slowGpu, profile: store, profileSaveIntervalMs: 30 });
    expect(first.profile.storedIn).toBe('memory');
    expect(noticesOf(first, 'profile-loaded')).toEqual([]); // nothing stored yet
    await train(first); // a burst: many measurements within the interval
    expect(store.saves).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(store.saves).toBe(1); // the burst, saved once
    await first.dispose();
    expect(store.saves).toBe(1); // nothing learned since: dispose does not write again
    expect([...store.texts.keys()]).toEqual([profileKey(first.profile.fingerprint())]);

    const { engine: second } = await simulatedEngine({ gpu: slowGpu, profile: store });
    expect(noticesOf(second, 'profile-loaded')[0]?.detail).toMatch(/^memory profile-[0-9a-f]{8}: 2 op\/backend series/);
    expect(firstPick(second)).toBe('cpu');
    await second.matmul(square(second, N), square(second, N)); // a warm-up: nothing learned
    await second.matmul(square(second, N), square(second, N)); // learned
    await second.dispose();
    expect(store.saves).toBe(2); // saved on dispose: the timer (5 s) had not run
  });

  it.each([
    ['corrupt', (text: string) => text.replace(/"costs"/, '"costs":}'), /not JSON/],
    ['truncated', (text: string) => text.slice(0, Math.floor(text.length / 2)), /not JSON/],
    ['another format', (text: string) => text.replace(`"format":${PROFILE_FORMAT}`, '"format":99'), /format number 99/],
    ['other devices', (text: string) => text.replace('simulated gpu', 'another gpu'), /learned on other devices/],
    ['bad numbers', (text: string) => text.replace(/"sizes":\[\[[-0-9.e]+/, '"sizes":[["x"'), /sizes\[0\]\[0\] is/],
  ])('a %s profile is ignored with a notice and the engine starts from priors', async (_, spoil, why) => {
    const store = new MemoryStore();
    const { engine: first } = await simulatedEngine({ gpu: slowGpu, profile: store });
    await train(first);
    await first.dispose();
    for (const [key, text] of store.texts) store.texts.set(key, spoil(text));
    const { engine } = await simulatedEngine({ gpu: slowGpu, profile: store });
    const ignored = noticesOf(engine, 'profile-ignored');
    expect(ignored).toHaveLength(1);
    expect(ignored[0]?.detail).toMatch(why);
    expect(noticesOf(engine, 'profile-loaded')).toEqual([]);
    expect(firstPick(engine)).toBe('gpu'); // the prior's choice: nothing was trusted
  });

  it('a store that refuses reads or writes leaves the engine learning in memory, with one notice', async () => {
    const store = new MemoryStore();
    store.failLoad = true;
    store.failSave = true;
    const { engine } = await simulatedEngine({ gpu: slowGpu, profile: store, profileSaveIntervalMs: 0 });
    expect(engine.profile.storedIn).toBeUndefined(); // the store failed: in memory from now on
    expect(noticesOf(engine, 'profile-store-failed')[0]?.detail).toMatch(
      /reading profile-[0-9a-f]{8} from memory failed: storage refused/,
    );
    store.failLoad = false;
    await train(engine); // no store now: nothing is saved, the engine learns
    await engine.dispose();
    expect(store.saves).toBe(0);
    expect(noticesOf(engine, 'profile-store-failed')).toHaveLength(1);

    const quota = new MemoryStore();
    quota.failSave = true;
    const { engine: full } = await simulatedEngine({ gpu: slowGpu, profile: quota, profileSaveIntervalMs: 0 });
    await train(full); // learns, and picks the CPU, with no store
    await full.dispose();
    const failed = noticesOf(full, 'profile-store-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.detail).toMatch(
      /saving profile-[0-9a-f]{8} to memory failed: QuotaExceededError.*learning in memory only/,
    );
  });

  it('a backend that is unavailable is no part of the fingerprint: the profile still applies', async () => {
    const { engine: trained } = await simulatedEngine({ gpu: slowGpu });
    await train(trained);
    const profile = trained.profile.export();
    const clock = new ManualClock();
    const broken = new SimulatedBackend({ name: 'broken', kind: 'gpu', latencyMs: () => 1, clock });
    broken.init = async () => ({ ok: false, reason: 'no adapter' });
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', priority: 10, latencyMs: cpuLatency, clock });
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', priority: 20, clock, ...slowGpu });
    const { engine } = await simulatedEngine({ backends: [cpu, gpu, broken] });
    expect(engine.backends().find((b) => b.name === 'broken')?.available).toBe(false);
    expect(engine.profile.fingerprint()).toBe(trained.profile.fingerprint());
    expect(engine.profile.import(JSON.parse(JSON.stringify(profile)))).toMatchObject({ used: true, seeded: 2 });
  });
});
