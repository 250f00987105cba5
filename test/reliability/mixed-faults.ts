// A long mixed run with faults injected into the real backends: every conformance case's op, over and over,
// through one Engine whose WASM and WebGPU (SwiftShader) backends fail at a seeded rate (throw, reject,
// out of memory, device loss). Every result is compared with the reference within the case's tolerance;
// unhandled rejections are counted; every failed attempt must be in the telemetry with its cause.
import { Engine, type CapableBackend, type Op, type Strategy } from '@tandem/core';
import { computeReference, ReferenceBackend, type HostTensor } from '@tandem/reference';
import { FaultInjectingBackend, faultRate, type FaultKind } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';
import { CASES, caseRng, type ConformanceCase } from '../conformance/cases.ts';
import { hostOutputs, toEngineOp } from '../conformance/engine-io.ts';
import { compareOutputs } from '../conformance/compare.ts';

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
  /** Failed attempts in the telemetry, and how many of them carry an error message. */
  readonly failedEvents: number;
  /** Failed attempts with an error message. */
  readonly failedEventsWithCause: number;
  /** Backends in the engine. */
  readonly backends: string[];
}

/** Backends for the run: WASM always, WebGPU on SwiftShader when it starts here. */
async function realBackends(): Promise<CapableBackend[]> {
  const out: CapableBackend[] = [new WasmBackend({ threads: 1 })];
  const software = useSwiftShader();
  if (software.ok) out.push(createNodeWebGpuBackend());
  return out;
}

/** Runs `ops` conformance ops with `rate` faults on every real backend. */
export async function runMixedFaults(ops: number, rate = 0.05, seed = 11, onProgress?: (done: number) => void): Promise<MixedFaultsReport> {
  const kinds: FaultKind[] = ['throw', 'reject', 'oom', 'device-lost'];
  const wrapped = (await realBackends()).map((b, i) => new FaultInjectingBackend(b, faultRate(rate, kinds, seed + i)));
  const engine = await Engine.create({ backends: [...wrapped, new ReferenceBackend({ fallbackOnly: true })], recoveryIntervalMs: 5, tracker: { successRateThreshold: 0.5 }, telemetryCapacity: 2 * ops + 1000 });
  const cases: { c: ConformanceCase; op: Op<HostTensor>; want: HostTensor[] }[] = [];
  for (const c of CASES) {
    const op = c.build(caseRng(c.name));
    try {
      cases.push({ c, op, want: computeReference(op) });
    } catch {
      // A case that checks an error path has no reference output: not part of this run.
    }
  }
  const strategies: Strategy[] = ['auto', 'gpu-preferred', 'cpu-preferred'];
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  let wrong = 0;
  let rejected = 0;
  const wrongExamples: string[] = [];
  try {
    for (let i = 0; i < ops; i++) {
      const item = cases[i % cases.length];
      if (item === undefined) continue;
      const { op, tensors } = toEngineOp(engine, item.op);
      try {
        const outputs = await engine.run(op, strategies[i % strategies.length] ?? 'auto');
        const verdict = compareOutputs(item.op, await hostOutputs(outputs), item.want, item.c.tolerance);
        for (const o of outputs) o.dispose();
        if (!verdict.ok) {
          wrong++;
          if (wrongExamples.length < 5) wrongExamples.push(`${item.c.name}: ${verdict.message}`);
        }
      } catch (error) {
        rejected++;
        if (wrongExamples.length < 5) wrongExamples.push(`${item.c.name}: rejected: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        for (const t of tensors) t.dispose();
      }
      if (onProgress !== undefined && (i + 1) % 500 === 0) onProgress(i + 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // let late rejections surface
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  const failed = engine.telemetry.opEvents().filter((e) => !e.ok);
  const report: MixedFaultsReport = {
    ops,
    injected: wrapped.reduce((s, b) => s + b.totalInjected, 0),
    wrong,
    wrongExamples,
    rejected,
    unhandled: unhandled.length,
    failedEvents: engine.telemetry.summary().totalFailures,
    failedEventsWithCause: failed.filter((e) => typeof e.error === 'string' && e.error.length > 0).length,
    backends: engine.backends().map((b) => b.name),
  };
  await engine.dispose();
  return report;
}
