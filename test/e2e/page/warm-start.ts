// The warm-start page (issue 31): createEngine() from 'tandem' (profile 'auto': IndexedDB), a fixed mixed workload
// under strategy auto recording when each call ended and who served it, then an oracle in the same engine (each case
// on each backend alone, median of ORACLE_RUNS after ORACLE_WARM_UPS) naming each case's faster backend; dispose()
// saves the profile, which the next load of this page (a reload) starts from. The report goes to
// globalThis.tandemWarmStart and the console (by hand: `npx vite test/e2e/page`, then /warm-start.html);
// `warm-start.html?prime` only loads the modules (see prime()).
import type { Engine, Tensor } from '@tandem/core';
import { createEngine } from 'tandem';
import { toBase64 } from '../report.ts';
import {
  inputOf,
  ORACLE_BACKENDS,
  ORACLE_RUNS,
  ORACLE_WARM_UPS,
  PRIMED_GLOBAL,
  RESULT_GLOBAL,
  WARM_START_CASES,
  WORKLOAD_CALLS,
  type CallRecord,
  type CaseFigures,
  type WarmStartCase,
  type WarmStartReport,
} from '../warm-start-cases.ts';

type Strategy = 'auto' | { readonly only: string };

/** One call of case `c` on its inputs; resolves with the output's values once read. */
async function call(
  engine: Engine,
  c: WarmStartCase,
  inputs: readonly Tensor<'f32'>[],
  strategy: Strategy,
  label: string,
): Promise<Float32Array> {
  const [a, b] = inputs;
  if (a === undefined) throw new Error(`${c.name}: no input`);
  const options = { strategy, label };
  let out: Tensor<'f32'>;
  if (c.op === 'softmax') out = await engine.softmax(a, options);
  else if (b === undefined) throw new Error(`${c.name}: no second input`);
  else out = c.op === 'matmul' ? await engine.matmul(a, b, options) : await engine.add(a, b, options);
  try {
    return await out.read();
  } finally {
    out.dispose();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

async function warmStart(): Promise<WarmStartReport> {
  const t0 = performance.now();
  const engine = await createEngine();
  const createEngineMs = performance.now() - t0;
  try {
    const inputs = WARM_START_CASES.map((c) => c.shapes.map((shape, i) => engine.tensor(inputOf(c, i), shape)));
    const calls: CallRecord[] = [];
    const firstOutputs = new Map<string, Float32Array>();
    for (let i = 0; i < WORKLOAD_CALLS; i++) {
      const index = i % WARM_START_CASES.length;
      const c = WARM_START_CASES[index];
      const tensors = inputs[index];
      if (c === undefined || tensors === undefined) throw new Error(`no case ${index}`);
      const label = `warm-start ${i}: ${c.name}`;
      const values = await call(engine, c, tensors, 'auto', label);
      const endMs = performance.now() - t0;
      const answered = engine.telemetry
        .opEvents()
        .filter((e) => e.label === label && e.ok)
        .at(-1);
      calls.push({ name: c.name, endMs, backend: answered?.backend ?? '?', reason: answered?.reason.kind ?? '?' });
      if (!firstOutputs.has(c.name)) firstOutputs.set(c.name, values);
    }
    const workloadEndMs = performance.now() - t0;
    // The oracle: the warm-ups still running in the background would share the CPU with it.
    await engine.whenWarm();
    const available = new Set(engine.backends().flatMap((b) => (b.available ? [b.name] : [])));
    const cases: CaseFigures[] = [];
    for (const [index, c] of WARM_START_CASES.entries()) {
      const tensors = inputs[index] ?? [];
      const medianMs: Record<string, number> = {};
      for (const backend of ORACLE_BACKENDS.filter((b) => available.has(b))) {
        const times: number[] = [];
        for (let run = 0; run < ORACLE_WARM_UPS + ORACLE_RUNS; run++) {
          const start = performance.now();
          await call(engine, c, tensors, { only: backend }, `oracle ${backend}: ${c.name}`);
          if (run >= ORACLE_WARM_UPS) times.push(performance.now() - start);
        }
        medianMs[backend] = median(times);
      }
      const faster = Object.entries(medianMs).reduce<[string, number]>(
        (best, [b, ms]) => (ms < best[1] ? [b, ms] : best),
        ['?', Number.POSITIVE_INFINITY],
      )[0];
      const mine = calls.filter((r) => r.name === c.name);
      const first = mine[0];
      const output = firstOutputs.get(c.name);
      if (first === undefined || output === undefined) throw new Error(`${c.name}: no auto call`);
      cases.push({
        name: c.name,
        medianMs,
        faster,
        firstEndMs: first.endMs,
        firstBackend: first.backend,
        firstReason: first.reason,
        firstOnFasterMs: mine.find((r) => r.backend === faster)?.endMs ?? null,
        output: toBase64(new Uint8Array(output.buffer, output.byteOffset, output.byteLength)),
      });
    }
    const fasterOf = new Map(cases.map((c) => [c.name, c.faster]));
    const report: WarmStartReport = {
      ok: true,
      createEngineMs,
      workloadEndMs,
      calls,
      cases,
      onFaster: calls.filter((r) => r.backend === fasterOf.get(r.name)).length,
      notices: [],
      profileWarmUps: engine.telemetry.opEvents().filter((e) => e.label === 'warm-up (profile)' && e.attempt === 1)
        .length,
      storedIn: engine.profile.storedIn ?? null,
      backends: engine.backends().map((b) => ({ name: b.name, available: b.available, device: b.device ?? '' })),
      crossOriginIsolated: Reflect.get(globalThis, 'crossOriginIsolated') === true,
    };
    for (const t of inputs.flat()) t.dispose();
    // dispose() saves the profile (to IndexedDB): the notices are read after it, so a failed save shows.
    await engine.dispose();
    const notices = engine.telemetry.noticeEvents().map(({ kind, backend, detail }) => ({ kind, backend, detail }));
    return { ...report, notices };
  } catch (error) {
    await engine.dispose().catch(() => undefined);
    throw error;
  }
}

/**
 * `?prime`: createEngine() without a profile, then dispose() and nothing else. It loads every module a measured load
 * does, so Vite's dev server has transformed them before the first measured load (its first transforms would count
 * against the cold run only). Leaves PRIMED_GLOBAL true, or the error.
 */
async function prime(): Promise<true | string> {
  const engine = await createEngine({ profile: false });
  await engine.dispose();
  return true;
}

if (String(Reflect.get(globalThis, 'location')).endsWith('?prime')) {
  Reflect.set(globalThis, PRIMED_GLOBAL, await prime().catch((error: unknown) => String(error)));
} else {
  const report: WarmStartReport = await warmStart().catch((error: unknown) => ({
    ok: false,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  }));
  Reflect.set(globalThis, RESULT_GLOBAL, report);
  console.log('tandem warm start', report);
}
