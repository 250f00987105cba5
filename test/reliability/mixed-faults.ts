// A long mixed run with faults injected into the real backends: every conformance case's op, over and over,
// through one Engine whose WASM and WebGPU (SwiftShader; callers check needBackend('webgpu')) backends fail at a seeded rate (throw, reject,
// out of memory, device loss). Case (every op kind; degenerate, odd and tile-straddling shapes) and strategy are
// drawn from a seeded RNG. Every result is compared with the reference within the case's tolerance; unhandled
// rejections are counted; every failed attempt must be in the telemetry with its cause, named by the fallback.
import { createRng, Engine, errorMessage, type CapableBackend, type Op, type Strategy } from '@tandem/core';
import { computeReference, ReferenceBackend, type HostTensor } from '@tandem/reference';
import { FaultInjectingBackend, faultRate, type FaultKind } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend } from '@tandem/webgpu/node';
import { CASES, caseRng, type ConformanceCase } from '../conformance/cases.ts';
import { hostOutputs, toEngineOp } from '../conformance/engine-io.ts';
import { compareOutputs } from '../conformance/compare.ts';
import { auditFallbacks, type FallbackAudit } from './fallback-audit.ts';

/** What a run found. */
export interface MixedFaultsReport {
  /** Ops run. */
  readonly ops: number;
  /** Faults the wrappers injected. */
  readonly injected: number;
  /** Results outside tolerance (with the first few described). */
  readonly wrong: number;
  /** Descriptions of the first wrong results. */
  readonly wrongExamples: string[];
  /** Calls that rejected (every backend failed). */
  readonly rejected: number;
  /** Unhandled promise rejections seen during the run. */
  readonly unhandled: number;
  /** Op kinds that ran. */
  readonly opKinds: string[];
  /** Failed attempts counted by the telemetry summary. */
  readonly failedEvents: number;
  /** Failed attempts in the telemetry events, and how many of them the next attempt names as its cause. */
  readonly fallbacks: FallbackAudit;
  /** Events the telemetry ring dropped (0: the audit saw every event). */
  readonly droppedEvents: number;
  /** Backends in the engine. */
  readonly backends: string[];
  /** Successful attempts per backend (where the results came from). */
  readonly answeredBy: Readonly<Record<string, number>>;
}

/** A conformance case built once, with the reference's outputs. */
export interface ReferenceCase {
  /** The case (name, tolerance). */
  readonly c: ConformanceCase;
  /** Its op over host tensors. */
  readonly op: Op<HostTensor>;
  /** The float64 reference's outputs. */
  readonly want: HostTensor[];
}

/** Every conformance case with the reference's outputs, built from its seed. */
export function casesWithReference(): ReferenceCase[] {
  return CASES.map((c) => {
    const op = c.build(caseRng(c.name));
    return { c, op, want: computeReference(op) };
  });
}

/** Runs one case through the engine; resolves with a description of what is wrong, or undefined when right. */
export async function checkCase(engine: Engine, item: ReferenceCase, strategy: Strategy): Promise<string | undefined> {
  const { op, tensors } = toEngineOp(engine, item.op);
  try {
    const outputs = await engine.run(op, { strategy: strategy });
    const verdict = compareOutputs(item.op, await hostOutputs(outputs), item.want, item.c.tolerance);
    for (const o of outputs) o.dispose();
    return verdict.ok ? undefined : `${item.c.name}: ${verdict.message}`;
  } finally {
    for (const t of tensors) t.dispose();
  }
}

/** Successful attempts per backend, from the telemetry. */
function answeredBy(engine: Engine): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of engine.telemetry.opEvents()) if (e.ok) counts[e.backend] = (counts[e.backend] ?? 0) + 1;
  return counts;
}

/** Backends for the run: WASM and WebGPU (callers check first that WebGPU's system part is here: needBackend). */
function realBackends(): CapableBackend[] {
  return [new WasmBackend({ threads: 1 }), createNodeWebGpuBackend()];
}

/** Runs `ops` conformance ops (case and strategy drawn from a seeded RNG) with `rate` faults on every real backend. */
export async function runMixedFaults(
  ops: number,
  rate = 0.05,
  seed = 11,
  onProgress?: (done: number) => void,
): Promise<MixedFaultsReport> {
  const kinds: FaultKind[] = ['throw', 'reject', 'oom', 'device-lost'];
  const wrapped = realBackends().map((b, i) => new FaultInjectingBackend(b, faultRate(rate, kinds, seed + i)));
  const engine = await Engine.create({
    backends: [...wrapped, new ReferenceBackend({ fallbackOnly: true })],
    recoveryIntervalMs: 5,
    tracker: { successRateThreshold: 0.5 },
    telemetryCapacity: 2 * ops + 1000,
  });
  const cases = casesWithReference();
  const strategies: Strategy[] = ['auto', 'gpu-preferred', 'cpu-preferred'];
  const rng = createRng(seed);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  let wrong = 0;
  let rejected = 0;
  const wrongExamples: string[] = [];
  const opsRun = new Set<string>();
  try {
    for (let i = 0; i < ops; i++) {
      const item = cases[rng.int(0, cases.length)];
      const strategy = strategies[rng.int(0, strategies.length)];
      if (item === undefined || strategy === undefined)
        throw new Error(`draw ${i} fell outside the case or strategy list`);
      opsRun.add(item.op.op);
      try {
        const problem = await checkCase(engine, item, strategy);
        if (problem !== undefined) {
          wrong++;
          if (wrongExamples.length < 5) wrongExamples.push(problem);
        }
      } catch (error) {
        rejected++;
        if (wrongExamples.length < 5) wrongExamples.push(`${item.c.name}: rejected: ${errorMessage(error)}`);
      }
      if (onProgress !== undefined && (i + 1) % 500 === 0) onProgress(i + 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // let late rejections surface
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  const summary = engine.telemetry.summary();
  const report: MixedFaultsReport = {
    ops,
    opKinds: [...opsRun].sort(),
    injected: wrapped.reduce((s, b) => s + b.totalInjected, 0),
    wrong,
    wrongExamples,
    rejected,
    unhandled: unhandled.length,
    failedEvents: summary.totalFailures,
    fallbacks: auditFallbacks(engine.telemetry.opEvents()),
    droppedEvents: summary.droppedEvents,
    backends: engine.backends().map((b) => b.name),
    answeredBy: answeredBy(engine),
  };
  await engine.dispose();
  return report;
}
